"""The static structure every branch-and-bound run of a problem shares: neighbours, cross sections,
cut counts, independent partitions and MiniMalloc's preorders.

Time is cut into *sections*, the cross sections seen just before every buffer ends; a buffer
covers the sections ``[sec_lo, sec_hi)``. The branch and bound prunes on the sections' totals and
splits the problem wherever no buffer crosses a section boundary (``cuts`` is 0 there).
"""

from __future__ import annotations

import bisect

import numpy as np

from ..problem import Problem, exclusive

HEURISTICS = ("WAT", "TAW", "TWA")
"""MiniMalloc's preorders, their keys in priority order: ``W`` lifetime width, ``A`` area, ``T``
the largest section total over the buffer's lifetime (all descending)."""


class Rank(list):
    """A preorder's rank per buffer; ``heuristic`` names the MiniMalloc preordering it came from
    (None for a jittered copy), so that sub-problems can be re-ranked by it."""

    heuristic: str | None = None


class Structure:
    """Neighbours, cross sections and cut counts of the non-empty buffers of a problem (``idx``:
    their indices in the problem; everything else is indexed by position in ``idx``)."""

    def __init__(self, problem: Problem) -> None:
        bufs = problem.buffers
        self.n = len(bufs)
        self.idx = [i for i, b in enumerate(bufs) if b.size > 0]
        m = len(self.idx)
        self.m = m
        self.size = [bufs[i].size for i in self.idx]
        self.align = [bufs[i].alignment for i in self.idx]
        self.start = [bufs[i].start for i in self.idx]
        self.end = [bufs[i].end for i in self.idx]
        self.width = [self.end[k] - self.start[k] for k in range(m)]
        self.control_flow = problem.has_control_flow
        paths = [bufs[i].path for i in self.idx] if self.control_flow else None
        self.nbrs, self.sec_lo, self.sec_hi, self.n_sections = _sweep(self.start, self.end, paths)
        lo = np.asarray(self.sec_lo, np.int64)
        hi = np.asarray(self.sec_hi, np.int64)
        self.total, self.cuts = _totals_and_cuts(lo, hi, np.asarray(self.size, np.int64), self.n_sections)
        self.sec_total_max = [int(self.total[self.sec_lo[k]:self.sec_hi[k]].max()) for k in range(m)]
        self.sec_ptr, self.sec_members = _membership(lo, hi, self.n_sections)
        self.sec_ptr_list = self.sec_ptr.tolist()

    def preorder(self, heuristic: str) -> Rank:
        """Rank of every buffer under a MiniMalloc preordering (all keys descending)."""
        order = self.preorder_of(range(self.m), heuristic, self.sec_total_max)
        rank = Rank([0] * self.m)
        rank.heuristic = heuristic
        for r, k in enumerate(order):
            rank[k] = r
        return rank

    def preorder_of(self, members, heuristic: str, totals) -> list[int]:
        """``members`` in preorder: by the heuristic's keys, all descending (``W`` lifetime width,
        ``A`` area, ``T`` the largest section total over the buffer's lifetime, from ``totals``,
        ``Z`` size), ties by index."""
        fields = {"W": self.width, "T": totals, "Z": self.size}
        cols = [fields[c] if c != "A" else None for c in heuristic]
        width, size = self.width, self.size

        def key(k: int) -> tuple:
            return tuple(-(width[k] * size[k] if c is None else c[k]) for c in cols) + (k,)

        return sorted(members, key=key)

    def partitions(self) -> list[tuple[list[int], int, int]]:
        """Independent groups of buffers: split wherever no buffer crosses a section boundary."""
        if self.m == 0:
            return []
        cut_points = [0, *(int(s) + 1 for s in np.flatnonzero(self.cuts[:-1] == 0)), self.n_sections]
        return self.split(list(range(self.m)), cut_points)

    def split(self, members: list[int], cut_points: list[int]) -> list[tuple[list[int], int, int]]:
        """``members`` grouped by the piece between consecutive ``cut_points`` (sections) that
        their first section falls in: (buffers, first section, end section) per non-empty piece."""
        groups: list[tuple[list[int], int, int]] = []
        los = cut_points[:-1]
        for k in members:
            g = bisect.bisect_right(los, self.sec_lo[k]) - 1
            while len(groups) <= g:
                groups.append(([], 0, 0))
            groups[g][0].append(k)
        out = []
        for g, (ks, _, _) in enumerate(groups):
            if ks:
                out.append((ks, cut_points[g], cut_points[g + 1]))
        return out

    def expand(self, sol: list[int]) -> list[int]:
        """Offsets of every buffer of the problem from a solution of its non-empty ones (the
        empty ones at 0)."""
        offsets = [0] * self.n
        for k, i in enumerate(self.idx):
            offsets[i] = sol[k]
        return offsets


def _sweep(starts: list[int], ends: list[int], paths: list | None) -> tuple[list[list[int]], list[int], list[int], int]:
    """One sweep over the lifetimes: every buffer's neighbours (live at once and, with branch
    ``paths``, not in exclusive branches), its sections ``[sec_lo, sec_hi)`` and the number of
    sections."""
    m = len(starts)
    # Events: ends before starts at equal times (half-open intervals).
    events = sorted([(ends[k], 0, k) for k in range(m)] + [(starts[k], 1, k) for k in range(m)])
    nbrs: list[list[int]] = [[] for _ in range(m)]
    active: set[int] = set()
    sec_lo = [0] * m
    sec_hi = [0] * m
    n_sections = 0
    last_time = None
    for t, kind, k in events:
        if kind == 0:
            if last_time is None or last_time < t:
                last_time = t
                n_sections += 1
            active.discard(k)
            sec_hi[k] = n_sections
            continue
        if last_time is None:
            last_time = t
        sec_lo[k] = n_sections
        for j in active:
            if paths is None or not exclusive(paths[k], paths[j]):
                nbrs[k].append(j)
                nbrs[j].append(k)
        active.add(k)
    return nbrs, sec_lo, sec_hi, n_sections


def _totals_and_cuts(lo: np.ndarray, hi: np.ndarray, size: np.ndarray, n_sections: int) -> tuple[np.ndarray, np.ndarray]:
    """Per section the bytes live in it, and per boundary between sections ``s`` and ``s+1`` the
    buffers live across it."""
    total = np.zeros(n_sections + 1, np.int64)
    cuts = np.zeros(n_sections + 1, np.int64)
    np.add.at(total, lo, size)
    np.add.at(total, hi, -size)
    span = hi - lo >= 2
    np.add.at(cuts, lo[span], 1)
    np.add.at(cuts, hi[span] - 1, -1)
    return np.cumsum(total)[:-1], np.cumsum(cuts)[:-1]


def _membership(lo: np.ndarray, hi: np.ndarray, n_sections: int) -> tuple[np.ndarray, np.ndarray]:
    """Section membership, flattened for ``np.minimum.reduceat``: section ``s`` lists its buffers
    at ``members[ptr[s]:ptr[s + 1]]``. Every section also lists the sentinel index ``m``, whose
    "minimum offset" is the cap, so fully placed sections pass."""
    m = len(lo)
    counts = np.zeros(n_sections + 1, np.int64)
    np.add.at(counts, lo, 1)
    np.add.at(counts, hi, -1)
    counts = np.cumsum(counts)[:-1] + 1
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    flat = np.full(int(ptr[-1]), m, np.int64)
    fill = ptr[:-1].tolist()
    lo_, hi_ = lo.tolist(), hi.tolist()
    for k in range(m):
        for s in range(lo_[k], hi_[k]):
            flat[fill[s]] = k
            fill[s] += 1
    return ptr, flat
