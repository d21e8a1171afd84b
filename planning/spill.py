"""Spilling: which tensors leave the on-chip memory so that the rest fits its capacity.

The model (the one ``plan-memory{spill=auto}`` writes into the IR with ``memopt.copy``): a spilled
tensor is copied to an off-chip memory right after its producer and copied back right before
each op that reads it, so on chip it occupies only its producer's step and each reader's step
(*pieces*), while its off-chip home holds it in between. Compute units work on on-chip data
only, so the smallest capacity any spill set can reach is the largest working set of one step —
what :func:`smallest_capacity` reports for the error a too-small capacity gets.

Cost (from the latency model, :class:`~memopt.planning.latency.Target`): one transfer out and one
back per reader, each ``dma_latency + size / dma_bytes_per_cycle`` cycles plus the core's
``dma_issue``. Transfers are not assumed to overlap compute, so the cost is an upper bound of
the time a spill adds.

The choice (:func:`choose_spills`) is greedy, as Vela's and TVM USMP's fallbacks are: while the
live bytes of some step exceed the capacity, at the highest such step spill the tensor live
there but not used there with the lowest cost per byte it frees. It works on live bytes (the
lower bound); packing can need more, so the pass re-plans and asks again with the capacity
lowered by the excess (see ``passes/plan_memory.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np


@dataclass(frozen=True)
class SpillTensor:
    """One on-chip tensor as the spill choice sees it: live over ``[start, end)``, read at the
    steps ``uses``; ``cost`` is what spilling it adds (cycles); ``spillable`` is False for
    tensors that must stay (arguments, loop-carried values, tensors read inside regions)."""

    size: int
    start: int
    end: int
    uses: tuple[int, ...]
    cost: int
    spillable: bool = True


def spill_cost(size: int, reloads: int, transfer_cycles: Callable[[int], int], issue: int) -> int:
    """Cycles a spill adds: one copy out plus ``reloads`` copies back (one per reader, except a
    reader right after the producer, which reads the tensor before it leaves)."""
    return (1 + reloads) * (transfer_cycles(size) + issue)


def _profile(tensors: Sequence[SpillTensor], spilled: set[int], horizon: int) -> np.ndarray:
    diff = np.zeros(horizon + 2, np.int64)
    for k, t in enumerate(tensors):
        if k in spilled:
            for step in {t.start, *t.uses}:
                diff[step] += t.size
                diff[step + 1] -= t.size
        else:
            diff[t.start] += t.size
            diff[t.end] -= t.size
    return np.cumsum(diff)[:-1]


def choose_spills(tensors: Sequence[SpillTensor], capacity: int,
                  already: Sequence[int] = ()) -> tuple[list[int], int]:
    """Tensors to spill (indices, in the order chosen) so that no step holds more than
    ``capacity`` live bytes, and the peak reached (above ``capacity`` when no spill set can
    get there: the smallest reachable peak). ``already`` are spilled to begin with."""
    if not tensors:
        return [], 0
    horizon = max(t.end for t in tensors) + 1
    spilled = set(already)
    chosen: list[int] = []
    live = _profile(tensors, spilled, horizon)
    starts = np.array([t.start for t in tensors])
    ends = np.array([t.end for t in tensors])
    while True:
        peak_step = int(np.argmax(live))
        peak = int(live[peak_step])
        if peak <= capacity:
            return chosen, peak
        best, best_key = None, None
        for k in np.flatnonzero((starts < peak_step) & (ends > peak_step)).tolist():
            t = tensors[k]
            if k in spilled or not t.spillable or peak_step in t.uses:
                continue
            key = (t.cost / t.size, -t.size, k)
            if best_key is None or key < best_key:
                best, best_key = k, key
        if best is None:
            return chosen, peak  # the peak step's working set: nothing there can leave
        t = tensors[best]
        spilled.add(best)
        chosen.append(best)
        live[t.start + 1:t.end] -= t.size
        for step in set(t.uses):
            if t.start < step < t.end:
                live[step] += t.size


def smallest_capacity(tensors: Sequence[SpillTensor]) -> int:
    """The lowest peak of live bytes any spill set reaches (every spillable tensor spilled)."""
    return choose_spills(tensors, 0)[1]


__all__ = ["SpillTensor", "choose_spills", "smallest_capacity", "spill_cost"]
