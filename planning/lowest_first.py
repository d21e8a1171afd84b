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
popped, finds the lowest buffer without recomputing every buffer each step. And since every
placement is at the current level and the levels rise, a placed buffer lies wholly under the
level, or crosses it and is the only one to do so at its steps: above the level, the placed
buffers are a skyline (the highest top at each step), so a buffer's fit among them is one range
maximum. Only the fixed buffers need a search for a gap, and in offset order the ones wholly
under the level are a prefix, skipped with one bisection.
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from typing import Sequence

import numpy as np

from .firstfit import fit_sorted
from .problem import Problem


EVAL_WORK = 10_000
"""What looking for a buffer's gap among the fixed buffers costs beyond the fixed buffers it
looks at, in the work units of :func:`lowest_first` (one per fixed buffer looked at; together
a unit is somewhat under a nanosecond of CPU): numpy's per-call overhead."""


STEP_WORK = 1_300
"""What reading the skyline over a buffer's steps costs beyond the steps, in the same units."""


GIVE_UP = ((0.25, 0.7), (0.5, 0.85))
"""(share of the buffers placed, share of the work spent): a placement past one gives up early.
Why these are generous: the first placements cost the most (the fixed buffers above the level
are still all there, and most placements are yet to raise the level past them), so the work so
far overstates what the rest will cost."""


def lowest_first(problem: Problem, fixed: Sequence[int], offsets: np.ndarray, ties: Sequence[int],
                 work: int | None = None) -> tuple[np.ndarray | None, int]:
    """Offsets of every buffer, and the work spent: those of ``fixed`` as ``offsets`` gives them,
    those of ``ties`` (in that order of precedence on equal offsets) placed lowest first around
    them. Buffers in neither keep their ``offsets`` and meet nothing; branch paths are not
    looked at (buffers of exclusive branches are kept apart as if they met: safe, not tighter).

    With ``work`` set, a placement that would spend more gives up: no offsets (None) and the
    work spent so far. It gives up early too, when it is clearly on its way past ``work``: more
    than 70 % of it spent with a quarter of the buffers placed, or more than 85 % with half
    of them (:data:`GIVE_UP`). Work counts the steps and the fixed buffers each fit
    looks at, plus :data:`EVAL_WORK` per fit: the same on every machine."""
    out = np.asarray(offsets, np.int64).copy()
    sizes, aligns = problem.sizes.tolist(), problem.alignments.tolist()
    movable = [i for i in ties if sizes[i]]
    if not movable:
        return out, 0
    below = _Fixed(problem, [i for i in fixed if sizes[i]], out)
    ids = np.asarray(movable, np.int64)
    starts, ends = problem.starts[ids].tolist(), problem.ends[ids].tolist()
    steps = np.unique(np.concatenate((problem.starts[ids], problem.ends[ids])))
    first = np.searchsorted(steps, problem.starts[ids]).tolist()
    last = np.searchsorted(steps, problem.ends[ids]).tolist()
    skyline = np.zeros(len(steps), np.int64)  # the highest top of the placed ties at each step
    heap = [(0, j) for j in range(len(movable))]
    clear = [-1] * len(movable)  # per buffer, its lowest fit among the fixed ones last found
    spent, placed = 0, 0
    checkpoints = {max(1, int(len(heap) * share)): limit for share, limit in GIVE_UP}
    while heap:
        bound, j = heapq.heappop(heap)
        i, a, b = movable[j], first[j], last[j]
        floor = int(skyline[a:b].max(initial=0))
        spent += STEP_WORK + b - a
        if clear[j] >= max(floor, bound):  # nothing fixed lies between: still the fit
            y = clear[j]
        elif floor > bound:  # a lower bound again: the fixed buffers can only raise it
            y = floor
        else:
            y, looked = below.lowest_fit(starts[j], ends[j], bound, sizes[i], aligns[i])
            clear[j] = y
            spent += EVAL_WORK + looked
        if work is not None and spent > work:
            return None, spent
        if y > bound:
            heapq.heappush(heap, (y, j))
            continue
        out[i] = y
        skyline[a:b] = y + sizes[i]
        placed += 1
        if work is not None and spent > checkpoints.get(placed, 1.0) * work:
            return None, spent
    return out, spent


class _Fixed:
    """The fixed buffers in offset order, with the running maximum of their tops: those wholly
    at or under a level are the prefix whose running maximum is."""

    def __init__(self, problem: Problem, fixed: list[int], offsets: np.ndarray) -> None:
        ids = np.asarray(fixed, np.int64)
        by_lo = ids[np.lexsort((ids, offsets[ids]))]
        self.lo = offsets[by_lo]
        self.hi = self.lo + problem.sizes[by_lo]
        self.start, self.end = problem.starts[by_lo], problem.ends[by_lo]
        self.reach = np.maximum.accumulate(self.hi).tolist() if len(by_lo) else []
        # Disjoint (as a stack's are: they all meet at one step), their tops rise with their
        # offsets, and so does the running maximum a fit would otherwise compute.
        self.disjoint = bool(np.all(self.hi[:-1] <= self.lo[1:]))
        # Around a stack every fixed buffer lives at one step: one that ends before the first
        # end meets those started by then, one that starts after the last start those not ended.
        self.first_end = int(self.end.min(initial=0))
        self.last_start = int(self.start.max(initial=0))

    def lowest_fit(self, s: int, e: int, floor: int, size: int, align: int) -> tuple[int, int]:
        """The lowest ``align``-aligned offset at or above ``floor`` where ``size`` bytes live in
        ``[s, e)`` meet no fixed buffer, and how many fixed buffers were looked at."""
        k = bisect_right(self.reach, floor)
        if e <= self.first_end:
            live = self.start[k:] < e
        elif s >= self.last_start:
            live = self.end[k:] > s
        else:
            live = (self.end[k:] > s) & (self.start[k:] < e)
        lo = np.concatenate(((0,), self.lo[k:][live]))
        hi = np.concatenate(((floor,), self.hi[k:][live]))
        return fit_sorted(lo, hi, size, align, self.disjoint), len(self.lo) - k


__all__ = ["lowest_first"]
