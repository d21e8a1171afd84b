"""Which ops of a Region to pipeline: the decision ``insert-dma{mode=...}`` takes, judged by the
latency model's simulator so that the pass and the reports agree."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .schedule import Item, OpProfile, check_buffers, pingpong_items
from .simulator import simulate
from .target import LatencyError, Target

MODES = ("always", "auto")


def choose_pipelined(
    ops: Sequence[OpProfile],
    target: Target,
    mode: str = "always",
    allowed: Sequence[bool] | None = None,
    buffers: int = 2,
    schedule: Callable[[Sequence[OpProfile], Sequence[bool]], list[Item]] | None = None,
) -> tuple[bool, ...]:
    """Which ops of a Region to pipeline.

    ``always``: every op with weights (that ``allowed`` permits). ``auto``: the cheapest of
    "everything", "nothing" and a one-sweep local search that drops ops whose pipelining costs
    more (issue overhead, a queue behind a long transfer) than it hides; by construction never
    slower than serial under this model. ``buffers``: the schedule's staging buffers
    (:func:`pingpong_items`); ``auto`` judges every candidate under that schedule.
    ``schedule``: another schedule to judge under instead (``mask -> items``, e.g. the ring
    schedule of :func:`memopt.planning.ring.ring_schedule`); "nothing" is serial in every
    schedule, which is what keeps ``auto`` from ever being slower than serial.
    """
    check_buffers(buffers)
    if mode not in MODES:
        raise LatencyError(f"unknown mode '{mode}' (expected one of: {', '.join(MODES)})")
    ok = [bool(op.weights) and (allowed is None or allowed[i]) for i, op in enumerate(ops)]
    if mode == "always":
        return tuple(ok)

    def cost(mask: Sequence[bool]) -> int:
        if schedule is not None:
            return simulate(schedule(ops, mask), target)
        return simulate(pingpong_items(ops, mask, buffers), target)

    best = list(ok)
    best_t = cost(best)
    for i in range(len(ops)):
        if not best[i]:
            continue
        trial = best.copy()
        trial[i] = False
        t = cost(trial)
        if t < best_t:
            best, best_t = trial, t
    none = [False] * len(ops)
    if cost(none) <= best_t:
        return tuple(none)
    return tuple(best)
