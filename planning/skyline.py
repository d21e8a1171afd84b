"""Skyline best fit: fill the lowest gap of the arena with the buffer that fills it best.

The arena's skyline is, at every time step, the top of what has been placed there; it is kept as
segments of constant height. Each step takes the lowest segment (leftmost on ties) and places on
it the unplaced buffer whose lifetime lies inside the segment and fills it best (a fill rule: the
longest lifetime, or the largest area); when none fits, the segment is raised to its lower
neighbour — the gap is wasted — and merged with it.

Why: this is Burke, Kendall and Whitwell's best-fit heuristic for strip packing, with the
rectangles' x positions fixed by the lifetimes. Placement decisions are driven by the gaps
rather than by a buffer order, so it packs tight, tiled instances (minimalloc's challenging
suite: best greedy plan 23–41 % over the best known) where every ordered first fit leaves holes;
on those it starts ``best``'s polish from a lower plan (``bench/search.py``). Buffers in exclusive
branches are treated as conflicting (valid, only conservative).
"""

from __future__ import annotations

import bisect
import heapq
from typing import Callable

from .bounds import lower_bound
from .inplace import plan_with_inplace
from .problem import Buffer, Problem, Solution, align_up
from .strategy import Strategy

FILL_RULES: dict[str, Callable[[Buffer], tuple]] = {
    "duration": lambda b: (b.end - b.start, b.size),
    "area": lambda b: (b.size * (b.end - b.start), b.end - b.start),
}
"""How the buffer that fills the lowest gap is chosen (largest key; the lower index on ties)."""


class _Candidates:
    """The unplaced buffers, by start, answering the gap query of the skyline: of those that
    start in ``[t0, t1)`` and end by ``t1``, the one with the largest fill key (the earliest
    start on ties). Why not a scan of the buffers starting in the gap: on long lifetimes a gap
    holds most of the trace, and the scan made the skyline quadratic (a minute at 20,000
    buffers). A segment tree over the start order keeps, per node, the best key rank and the
    earliest end among its unplaced buffers; the query descends only into nodes that could hold
    a better candidate that fits, so it costs a few paths of the tree."""

    def __init__(self, ends: list[int], ranks: list[int]) -> None:
        n = len(ends)
        size = 1
        while size < n:
            size *= 2
        self.size = size
        self.rank = [-1] * (2 * size)  # best rank of an unplaced buffer below the node (-1: none)
        self.end = [_NEVER] * (2 * size)  # earliest end of an unplaced buffer below the node
        self.rank[size:size + n] = ranks
        self.end[size:size + n] = ends
        for v in range(size - 1, 0, -1):
            self._pull(v)

    def _pull(self, v: int) -> None:
        a, b = 2 * v, 2 * v + 1
        self.rank[v] = max(self.rank[a], self.rank[b])
        self.end[v] = min(self.end[a], self.end[b])

    def remove(self, pos: int) -> None:
        v = pos + self.size
        self.rank[v], self.end[v] = -1, _NEVER
        v //= 2
        while v:
            self._pull(v)
            v //= 2

    def best(self, lo: int, hi: int, t1: int) -> int:
        """Position in ``[lo, hi)`` of the unplaced buffer ending by ``t1`` with the highest
        rank, or -1."""
        rank, end, size = self.rank, self.end, self.size
        roots = []
        a, b = lo + size, hi + size
        while a < b:
            if a & 1:
                roots.append(a)
                a += 1
            if b & 1:
                b -= 1
                roots.append(b)
            a //= 2
            b //= 2
        found, found_rank = -1, -1
        stack = sorted(roots, key=rank.__getitem__)  # the best last: popped first
        while stack:
            v = stack.pop()
            if rank[v] <= found_rank or end[v] > t1:
                continue
            if v >= size:
                found, found_rank = v - size, rank[v]
                continue
            l, r = 2 * v, 2 * v + 1
            if rank[l] > rank[r]:
                stack.append(r)
                stack.append(l)
            else:
                stack.append(l)
                stack.append(r)
        return found


_NEVER = 1 << 62


class _Segment:
    __slots__ = ("t0", "t1", "y", "prev", "next", "alive")

    def __init__(self, t0: int, t1: int, y: int) -> None:
        self.t0, self.t1, self.y = t0, t1, y
        self.prev: _Segment | None = None
        self.next: _Segment | None = None
        self.alive = True


def skyline_offsets(problem: Problem, rule: str = "duration",
                    floor: list[tuple[int, int, int]] | None = None) -> list[int]:
    """Offsets of the skyline best fit with the fill rule ``rule`` (see :data:`FILL_RULES`).

    ``floor``, when given, is the skyline to start from instead of an empty arena: ``(t0, t1,
    y)`` steps in time order, adjacent, covering every buffer's lifetime (what was placed before,
    seen from above: no buffer is put below it)."""
    buffers = problem.buffers
    n = len(buffers)
    if n == 0:
        return []
    key = FILL_RULES[rule]
    keys = [key(b) for b in buffers]
    by_start = sorted(range(n), key=lambda i: (buffers[i].start, i))
    starts = [buffers[i].start for i in by_start]
    # Rank by key, the earlier start on ties: the highest rank is the buffer the gap takes.
    by_key = sorted(range(n), key=lambda pos: (keys[by_start[pos]], -pos))
    ranks = [0] * n
    for r, pos in enumerate(by_key):
        ranks[pos] = r
    unplaced = _Candidates([buffers[i].end for i in by_start], ranks)
    offsets = [0] * n
    steps = floor if floor is not None else [(starts[0], max(b.end for b in buffers), 0)]
    heap: list[tuple[int, int, int, _Segment]] = []
    tick = 0  # tie-break for the heap: segments never compare

    def push(s: _Segment) -> None:
        nonlocal tick
        tick += 1
        heapq.heappush(heap, (s.y, s.t0, tick, s))

    def link(a: _Segment | None, b: _Segment | None) -> None:
        if a is not None:
            a.next = b
        if b is not None:
            b.prev = a

    def join(a: _Segment, b: _Segment) -> _Segment:
        """One segment for two adjacent ones of the same height."""
        a.alive = b.alive = False
        m = _Segment(a.t0, b.t1, a.y)
        link(a.prev, m)
        link(m, b.next)
        return m

    def merge(s: _Segment) -> _Segment:
        """Merge ``s`` with neighbours of the same height (the skyline stays minimal)."""
        while s.prev is not None and s.prev.y == s.y:
            s = join(s.prev, s)
        while s.next is not None and s.next.y == s.y:
            s = join(s, s.next)
        return s

    previous: _Segment | None = None
    for t0, t1, y in steps:
        segment = _Segment(t0, t1, y)
        link(previous, segment)
        previous = segment
    for segment in _segments_of(previous):
        if segment.alive:
            push(merge(segment))
    left = n
    while left:
        _, _, _, seg = heapq.heappop(heap)
        if not seg.alive:
            continue
        t0, t1, y = seg.t0, seg.t1, seg.y
        best = unplaced.best(bisect.bisect_left(starts, t0), bisect.bisect_left(starts, t1), t1)
        if best < 0:
            # Nothing fits in this gap: raise it to its lower neighbour (the gap is wasted).
            ys = [s.y for s in (seg.prev, seg.next) if s is not None]
            seg.y = min(ys)
            push(merge(seg))
            continue
        unplaced.remove(best)
        left -= 1
        i = by_start[best]
        b = buffers[i]
        off = align_up(y, b.alignment)
        offsets[i] = off
        seg.alive = False
        parts = []
        if b.start > t0:
            parts.append(_Segment(t0, b.start, y))
        middle = _Segment(b.start, b.end, off + b.size)
        parts.append(middle)
        if b.end < t1:
            parts.append(_Segment(b.end, t1, y))
        prev, nxt = seg.prev, seg.next
        for p in parts:
            link(prev, p)
            prev = p
        link(prev, nxt)
        for p in parts:
            if p is middle:
                p = merge(p)
            if p.alive:
                push(p)
    return offsets


def _segments_of(last: _Segment | None) -> list[_Segment]:
    """The linked segments ending at ``last``, first to last."""
    out = []
    while last is not None:
        out.append(last)
        last = last.prev
    return out[::-1]


class Skyline(Strategy):
    """Skyline best fit with each fill rule of :data:`FILL_RULES`; keeps the lower plan. A rule
    whose plan reaches the lower bound ends the run: no later rule can go lower."""

    name = "skyline"

    def plan(self, problem: Problem) -> Solution:
        if problem.overwrites:
            return plan_with_inplace(self, problem)
        bound = lower_bound(problem)
        best: Solution | None = None
        for rule in FILL_RULES:
            sol = Solution.of(problem, skyline_offsets(problem, rule), self.name)
            if best is None or sol.height < best.height:
                best = sol
            if best.height <= bound:
                break
        assert best is not None
        return best

