"""Lowest-first placement: of the buffers not yet placed, the one that can go lowest goes next.

First fit (:mod:`.firstfit`) places buffers in an order fixed beforehand, each at its lowest
conflict-free offset. Here the order is decided as the placement goes: every unplaced buffer
has a lowest conflict-free offset among what is placed so far, and the buffer whose offset is
lowest is placed there, ties broken by a given order. This is the canonical placement of
MiniMalloc's search and of CP-SAT's fixed search ("lowest possible offset first"), without
their backtracking.

Why it packs tighter than first fit around a fixed stack (:mod:`.peak_stack`): placements come
in nondecreasing offsets, so the memory fills from the bottom up, every hole reached in turn is
filled by whichever buffer fits it lowest, and no buffer is put high early because its turn in
a fixed order came before the buffers that would have filled under it.

How it stays cheap. Placing a buffer only raises the others' lowest offsets, so a buffer's last
computed offset is a lower bound of its current one: a heap of those bounds, recomputed when
popped, finds the lowest buffer without recomputing every buffer each step. And since the
placements rise, no buffer goes below the last one placed: a placed (or fixed) buffer whose top
is at or below that level can never be met again and leaves the window the fits look in.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from typing import Sequence

import numpy as np

from .firstfit import placement_window
from .problem import Problem


EVAL_WORK = 5_000
"""What finding one buffer's lowest offset costs beyond the buffers its window holds, in the
work units of :func:`lowest_first` (one per buffer looked at): numpy's per-call overhead."""


GIVE_UP = ((0.25, 0.5), (0.5, 0.75))
"""(share of the buffers placed, share of the work spent): a placement past one gives up early.
Why these are generous: the first placements cost the most (the window they look in still holds
every buffer above the low level), so the work so far overstates what the rest will cost."""


def lowest_first(problem: Problem, fixed: Sequence[int], offsets: np.ndarray, ties: Sequence[int],
                 work: int | None = None) -> tuple[np.ndarray | None, int]:
    """Offsets of every buffer, and the work spent: those of ``fixed`` as ``offsets`` gives them,
    those of ``ties`` (in that order of precedence on equal offsets) placed lowest first around
    them. Buffers in neither keep their ``offsets`` and meet nothing; branch paths are not
    looked at (buffers of exclusive branches are kept apart as if they met: safe, not tighter).

    With ``work`` set, a placement that would spend more gives up: no offsets (None) and the
    work spent so far. It gives up early too, when it is clearly on its way past ``work``: more
    than half of it spent with a quarter of the buffers placed, or more than three quarters
    with half of them (:data:`GIVE_UP`). Work counts the buffers each fit looks at, plus
    :data:`EVAL_WORK` per fit: the same on every machine."""
    out = np.asarray(offsets, np.int64).copy()
    window = placement_window(problem)
    starts, ends = problem.starts.tolist(), problem.ends.tolist()
    sizes, aligns = problem.sizes.tolist(), problem.alignments.tolist()
    tops: list[tuple[int, int]] = []  # (top, buffer) of what the window holds
    for i in fixed:
        if sizes[i]:
            window.place(i, ends[i], int(out[i]), int(out[i]) + sizes[i])
            tops.append((int(out[i]) + sizes[i], i))
    heapq.heapify(tops)
    cap, s_start = window.cap, window.s_start.tolist()
    heap = [(0, rank, i) for rank, i in enumerate(ties) if sizes[i]]
    spent, n_long = 0, len(window.long_ids)
    checkpoints = {max(1, int(len(heap) * share)): limit for share, limit in GIVE_UP}
    placed = 0
    while heap:
        bound, rank, i = heapq.heappop(heap)
        while tops and tops[0][0] <= bound:
            window.unplace(heapq.heappop(tops)[1])
        s, e = starts[i], ends[i]
        lo_k, hi_k = bisect_right(s_start, s - cap), bisect_left(s_start, e)
        spent += EVAL_WORK + hi_k - lo_k + n_long
        if work is not None and spent > work:
            return None, spent
        y = window.lowest_fit(lo_k, hi_k, s, e, sizes[i], aligns[i], bound)
        if y > bound:
            heapq.heappush(heap, (y, rank, i))
            continue
        out[i] = y
        window.place(i, e, y, y + sizes[i])
        heapq.heappush(tops, (y + sizes[i], i))
        placed += 1
        if work is not None and spent > checkpoints.get(placed, 1.0) * work:
            return None, spent
    return out, spent


__all__ = ["lowest_first"]
