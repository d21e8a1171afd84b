"""The LUNA paper's Algorithm 1: place buffers one by one at the lowest conflict-free offset.

Given an order, each buffer goes to the lowest (aligned) offset whose address range misses every
already-placed buffer that is live at the same time (and not in an exclusive branch). The order
is what distinguishes the strategies.

Finding the placed buffers that overlap a lifetime is the hot spot, and the lowest gap among
them the second. Both are numpy work per placement, over a window that holds only buffers that
can overlap:

* buffers are kept sorted by start. A buffer no longer than ``cap`` steps that overlaps
  ``[s, e)`` starts in ``(s - cap, e)``: one contiguous slice of the sorted arrays, filtered by
  "placed and ends after ``s``". The few buffers longer than ``cap`` (skip connections, state,
  weights kept on chip) are checked all at once in a separate short array. ``cap`` is chosen per
  problem to minimise the expected window plus the long array (:func:`_choose_cap`);
* the lowest fit: with the overlapping ``(lo, hi)`` sorted by ``lo``, the position tried before
  interval ``k`` is the running maximum of the earlier ``hi`` (aligned up); the answer is the
  first such position that ends by ``lo_k``, else past the highest ``hi`` — exactly what the
  sequential scan computes, as one ``maximum.accumulate`` and one ``argmax``.

Windows of up to :data:`SMALL` buffers are scanned in plain Python (numpy's per-call overhead
would dominate); larger ones with numpy. On large problems numpy's per-call overhead is the cost
itself, so consecutive buffers of the order that never meet in time are placed as one run, with
one set of numpy operations for the whole run (:func:`_first_fit_batched`): large-first orders
by size, so its neighbours in the order lie far apart in time and runs hold tens of buffers
(``bench/pack.py`` times it). Offsets are identical: the previous
implementation is the reference of ``tests/unit/test_planning_core.py``'s property test.
"""

from __future__ import annotations

import copy
from bisect import bisect_left, bisect_right
from typing import Iterator, Sequence

import numpy as np

from .problem import Path, Problem, exclusive


def _choose_cap(lengths: np.ndarray, starts_per_step: float) -> int:
    """The lifetime cap minimising the buffers looked at per placement: those of its window (a
    window spans ``cap + length`` steps at ``starts_per_step`` starts per step) plus the long
    ones."""
    # "lower": quantiles are lengths of the array (exact integers, even near the int64 limit)
    qs = sorted(set(np.quantile(lengths, [0.5, 0.75, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 1.0], method="lower").tolist()))
    mean = float(lengths.mean())
    n = len(lengths)
    best, best_cost = int(qs[-1]), float("inf")
    for q in qs:
        long_count = int(np.count_nonzero(lengths > q))
        cost = (float(q) + mean) * starts_per_step + long_count
        if cost < best_cost:
            best, best_cost = int(q), cost
    return max(best, 0) if n else 0


class _Setup:
    """What :func:`first_fit` derives from a problem alone, whatever the order: the arrays, the
    lifetime cap and its window layout, the Python mirrors of the read-only arrays. Why cached
    (on the problem, :func:`_setup`): the polishes and the control-flow planners run first fit
    hundreds of times on one problem, and on small problems deriving these (a quantile, sorts,
    list conversions) cost more than the placement itself."""

    def __init__(self, problem: Problem) -> None:
        n = len(problem)
        self.starts = starts = problem.starts
        self.ends = ends = problem.ends
        self.sizes = sizes = problem.sizes
        self.aligns = problem.alignments
        lengths = ends - starts
        span = max(int(ends.max() - starts.min()), 1)
        cap = _choose_cap(lengths, n / span)
        window = (cap + float(lengths.mean())) * n / span + int(np.count_nonzero(lengths > cap))
        self.has_control_flow = problem.has_control_flow
        self.dense = window > DENSE * n and n > SMALL and not self.has_control_flow
        self.placed = _Placed(starts, ends, cap)
        win = self.placed
        self.paths = [b.path for b in problem.buffers] if self.has_control_flow else None
        self.s_end = ends[win.short]
        self.l_end = ends[win.long_ids]
        self.size_l, self.short_l, self.s_end_l = sizes.tolist(), win.short.tolist(), self.s_end.tolist()
        self.long_l, self.l_start_l, self.l_end_l = win.long_ids.tolist(), win.l_start.tolist(), self.l_end.tolist()
        self.s_start_l = win.s_start.tolist()
        self.start_l, self.end_l, self.align_l = starts.tolist(), ends.tolist(), self.aligns.tolist()


def _setup(problem: Problem) -> _Setup:
    return problem.derived("first_fit", _Setup)


def first_fit(problem: Problem, order: Sequence[int]) -> list[int]:
    """Offsets (in problem order) from placing buffers in ``order`` at the lowest free offset."""
    n = len(problem)
    if n == 0:
        return []
    fs = _setup(problem)
    starts, ends, sizes, aligns = fs.starts, fs.ends, fs.sizes, fs.aligns
    if fs.dense:
        return _first_fit_dense(starts, ends, sizes, aligns, order)
    win = fs.placed.fresh()
    cap = win.cap
    if n >= BATCH_MIN and not fs.has_control_flow:
        runs = list(_batches(order, fs.start_l, fs.end_l, fs.size_l))
        if n >= RUN_MIN * len(runs):
            return _first_fit_batched(win, starts, ends, sizes, aligns, runs)
    short, long_ids, l_start = win.short, win.long_ids, win.l_start
    s_end, l_end = fs.s_end, fs.l_end
    placed = np.zeros(n, dtype=bool)
    offsets = np.zeros(n, dtype=np.int64)
    paths = fs.paths
    # Python mirrors for small windows, where a list scan beats numpy's per-call overhead.
    placed_l = [False] * n
    off_l = [0] * n
    size_l, short_l, s_end_l = fs.size_l, fs.short_l, fs.s_end_l
    long_l, l_start_l, l_end_l = fs.long_l, fs.l_start_l, fs.l_end_l
    small_long = len(long_l) <= SMALL
    s_start_l = fs.s_start_l
    start_l, end_l, align_l = fs.start_l, fs.end_l, fs.align_l
    out = [0] * n
    for i in order:
        size = size_l[i]
        if size == 0:
            continue
        s, e, a = start_l[i], end_l[i], align_l[i]
        lo_k = bisect_right(s_start_l, s - cap)
        hi_k = bisect_left(s_start_l, e)
        if hi_k - lo_k <= SMALL:
            taken = [(off_l[j], off_l[j] + size_l[j]) for j, end in zip(short_l[lo_k:hi_k], s_end_l[lo_k:hi_k])
                     if placed_l[j] and end > s and (paths is None or not exclusive(paths[i], paths[j]))]
            if small_long:
                longs = [j for j, ls, le in zip(long_l, l_start_l, l_end_l) if placed_l[j] and ls < e and le > s]
            elif long_l:
                longs = long_ids[placed[long_ids] & (l_start < e) & (l_end > s)].tolist()
            else:
                longs = []
            for j in longs:
                if paths is None or not exclusive(paths[i], paths[j]):
                    taken.append((off_l[j], off_l[j] + size_l[j]))
            x = 0
            if taken:
                taken.sort()
                for lo, hi in taken:
                    xa = -(-x // a) * a if a > 1 else x
                    if xa + size <= lo:
                        break
                    if hi > x:
                        x = hi
            x = -(-x // a) * a if a > 1 else x
        elif paths is None:
            x = win.lowest_fit(lo_k, hi_k, s, e, size, a)
        else:
            x = _fit_numpy(i, s, e, a, size, short[lo_k:hi_k], s_end[lo_k:hi_k], long_ids, l_start, l_end,
                           placed, offsets, sizes, paths)
        offsets[i] = x
        placed[i] = True
        off_l[i] = x
        placed_l[i] = True
        out[i] = x
        win.place(i, e, x, x + size)
    return out


NONE = np.iinfo(np.int64).min
"""The end recorded for a buffer not placed yet: below every start, so no time test passes."""


class _Placed:
    """The placed buffers as the numpy paths see them: the short-lived ones in start order (so a
    window is a slice), the long-lived ones (longer than ``cap`` steps) apart; per buffer its end
    (:data:`NONE` while unplaced, so one comparison filters both), offset and top."""

    def __init__(self, starts: np.ndarray, ends: np.ndarray, cap: int) -> None:
        self.cap = cap
        self.is_long = ends - starts > cap
        short = np.flatnonzero(~self.is_long)
        self.short = short[np.argsort(starts[short], kind="stable")]
        self.s_start = starts[self.short]
        self.long_ids = np.flatnonzero(self.is_long)
        self.l_start = starts[self.long_ids]
        self.end, self.lo, self.hi = _unplaced(len(self.short))
        self.l_end, self.l_lo, self.l_hi = _unplaced(len(self.long_ids))
        slot = np.zeros(len(starts), np.int64)  # position in the short or the long arrays
        slot[self.short] = np.arange(len(self.short))
        slot[self.long_ids] = np.arange(len(self.long_ids))
        self.slot = slot
        self._slot_l, self._is_long_l = slot.tolist(), self.is_long.tolist()
        self.long_placed = False

    def fresh(self) -> "_Placed":
        """A copy with nothing placed: the layout (read-only, shared) without the placements."""
        other = copy.copy(self)
        other.end, other.lo, other.hi = _unplaced(len(self.short))
        other.l_end, other.l_lo, other.l_hi = _unplaced(len(self.long_ids))
        other.long_placed = False
        return other

    def place(self, i: int, end: int, lo: int, hi: int) -> None:
        k = self._slot_l[i]
        if self._is_long_l[i]:
            self.l_end[k], self.l_lo[k], self.l_hi[k] = end, lo, hi
            self.long_placed = True
        else:
            self.end[k], self.lo[k], self.hi[k] = end, lo, hi

    def place_many(self, ids: np.ndarray, ends: np.ndarray, offsets: np.ndarray, sizes: np.ndarray) -> None:
        lng = self.is_long[ids]
        for end, lo, hi, sel in ((self.end, self.lo, self.hi, ~lng), (self.l_end, self.l_lo, self.l_hi, lng)):
            if sel.any():
                m = ids[sel]
                p = self.slot[m]
                end[p] = ends[m]
                lo[p] = offsets[m]
                hi[p] = offsets[m] + sizes[m]
        self.long_placed = self.long_placed or bool(lng.any())

    def meeting(self, lo_k: int, hi_k: int, s: int, e: int) -> tuple[np.ndarray, np.ndarray]:
        """``(offsets, tops)`` of the placed buffers live in ``[s, e)``; ``[lo_k, hi_k)`` is its
        window of the short ones."""
        live = self.end[lo_k:hi_k] > s
        lo, hi = self.lo[lo_k:hi_k][live], self.hi[lo_k:hi_k][live]
        if self.long_placed:
            lm = (self.l_end > s) & (self.l_start < e)
            if lm.any():
                lo, hi = np.concatenate((lo, self.l_lo[lm])), np.concatenate((hi, self.l_hi[lm]))
        return lo, hi

    def lowest_fit(self, lo_k: int, hi_k: int, s: int, e: int, size: int, a: int) -> int:
        """The lowest fit among the placed buffers live in ``[s, e)``."""
        return _lowest_fit(*self.meeting(lo_k, hi_k, s, e), size, a)


def _unplaced(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.full(n, NONE, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)


def _lowest_fit(lo: np.ndarray, hi: np.ndarray, size: int, a: int) -> int:
    """The lowest ``a``-aligned offset where ``size`` bytes miss every interval ``[lo, hi)``
    (:func:`fit_sorted` once they are sorted by ``lo``)."""
    if len(lo) == 0:
        return 0
    by_lo = lo.argsort(kind="stable")
    lo = lo[by_lo]
    if size <= lo[0]:
        return 0
    return fit_sorted(lo, hi[by_lo], size, a)


def fit_sorted(lo: np.ndarray, hi: np.ndarray, size: int, a: int, rising: bool = False) -> int:
    """The lowest ``a``-aligned offset above the first interval where ``size`` bytes miss every
    ``[lo, hi)``, the intervals sorted by ``lo``: the position tried before interval ``k`` is
    the running maximum of the earlier tops (aligned up); the answer is the first that ends by
    ``lo[k]``, else past the highest top. ``rising``: the tops do not fall, so they are their
    own running maximum."""
    reach = hi if rising else np.maximum.accumulate(hi)
    if a > 1:
        reach = -(-reach // a) * a
    fits = reach[:-1] + size <= lo[1:]
    k = int(fits.argmax()) if len(fits) else 0
    return int(reach[k]) if len(fits) and fits[k] else int(reach[-1])


SMALL = 160
"""Windows up to this many buffers are scanned in Python; larger ones with numpy."""

DENSE = 0.1
"""When the expected window exceeds this share of all buffers (long nested lifetimes: training
traces hold a third of their buffers at once), placement switches to :func:`_first_fit_dense`."""


def _first_fit_dense(starts: np.ndarray, ends: np.ndarray, sizes: np.ndarray, aligns: np.ndarray,
                     order: Sequence[int]) -> list[int]:
    """First fit for live sets so large that a window is most of the problem: the placed
    buffers are kept sorted by offset in one array of rows (offset, top, start, end; one
    ``searchsorted`` and one shift per placement), so a placement is one time-overlap mask over
    them and the running-maximum scan — no per-placement sort: on long-lived traces an order of
    magnitude faster than the windows.
    Same offsets: the lowest aligned fit is unique whatever the scan order."""
    n = len(starts)
    placed = np.empty((4, n), np.int64)  # rows: offset, top, start, end; columns sorted by offset
    m = 0
    out = [0] * n
    size_l, start_l, end_l, align_l = sizes.tolist(), starts.tolist(), ends.tolist(), aligns.tolist()
    for i in order:
        size = size_l[i]
        if size == 0:
            continue
        s, e, a = start_l[i], end_l[i], align_l[i]
        x = 0
        if m:
            view = placed[:, :m]
            overlap = np.flatnonzero((view[2] < e) & (view[3] > s))
            if len(overlap):
                lo, hi = view[0, overlap], view[1, overlap]
                reach = np.empty(len(lo), np.int64)
                reach[0] = 0
                if len(lo) > 1:
                    np.maximum.accumulate(hi[:-1], out=reach[1:])
                xa = -(-reach // a) * a if a > 1 else reach
                fits = xa + size <= lo
                k = int(np.argmax(fits))
                if fits[k]:
                    x = int(xa[k])
                else:
                    top = int(hi.max())
                    x = -(-top // a) * a if a > 1 else top
        out[i] = x
        pos = int(np.searchsorted(placed[0, :m], x, side="right"))
        placed[:, pos + 1:m + 1] = placed[:, pos:m]  # numpy copies overlapping slices safely
        placed[:, pos] = (x, x + size, s, e)
        m += 1
    return out


def _fit_numpy(i: int, s: int, e: int, a: int, size: int, win: np.ndarray, win_end: np.ndarray, long_ids: np.ndarray,
               l_start: np.ndarray, l_end: np.ndarray, placed: np.ndarray, offsets: np.ndarray, sizes: np.ndarray,
               paths: Sequence[Path]) -> int:
    """The lowest aligned offset for buffer ``i`` among the placed buffers of a large window."""
    ids = win[placed[win] & (win_end > s)]
    if len(long_ids):
        lm = placed[long_ids] & (l_start < e) & (l_end > s)
        if lm.any():
            ids = np.concatenate([ids, long_ids[lm]])
    if paths is not None and len(ids):
        pi = paths[i]
        ids = np.array([j for j in ids.tolist() if not exclusive(pi, paths[j])], dtype=np.int64)
    if len(ids) == 0:
        return 0
    lo = offsets[ids]
    hi = lo + sizes[ids]
    order_lo = np.argsort(lo, kind="stable")
    lo, hi = lo[order_lo], hi[order_lo]
    reach = np.empty(len(lo), dtype=np.int64)
    reach[0] = 0
    if len(lo) > 1:
        np.maximum.accumulate(hi[:-1], out=reach[1:])
    xa = -(-reach // a) * a if a > 1 else reach
    fits = xa + size <= lo
    if fits.any():
        return int(xa[int(np.argmax(fits))])
    top = int(hi.max())
    return -(-top // a) * a if a > 1 else top


BATCH_MIN = 20_000
"""Problems of at least this many buffers (without branches) may be placed in runs
(:func:`_first_fit_batched`): below it, splitting the order costs more than it saves."""

RUN_MIN = 8
"""...when the order's runs hold at least this many buffers on average: large-first's runs
hold tens of buffers and gain, start-ordered placements give runs of one, which placing as runs
would slow down."""


def _batches(order: Sequence[int], start_l: list[int], end_l: list[int], size_l: list[int],
             limit: int = 4096) -> Iterator[list[int]]:
    """Split ``order`` into runs of consecutive buffers whose lifetimes are pairwise disjoint.

    Buffers that never meet in time cannot constrain each other, so a run's members may be placed
    all at once, each seeing exactly the buffers placed before the run — the offsets sequential
    first fit gives. A run ends at the first buffer meeting one of its members (checked against
    the members' disjoint intervals kept sorted: two bisections). Empty buffers are left out."""
    run: list[int] = []
    r_start: list[int] = []
    r_end: list[int] = []
    for i in order:
        if size_l[i] == 0:
            continue
        s, e = start_l[i], end_l[i]
        k = bisect_right(r_start, s)
        if run and (len(run) >= limit or (k and r_end[k - 1] > s) or (k < len(r_start) and r_start[k] < e)):
            yield run
            run, r_start, r_end, k = [], [], [], 0
        run.append(i)
        r_start.insert(k, s)
        r_end.insert(k, e)
    if run:
        yield run


def _first_fit_batched(win: "_Placed", starts: np.ndarray, ends: np.ndarray, sizes: np.ndarray, aligns: np.ndarray,
                       runs: list[list[int]]) -> list[int]:
    """First fit placing each run of :func:`_batches` with one set of numpy operations.

    Per run: every member's window of short buffers (start within ``(s - cap, e)``, as in
    :func:`first_fit`) is gathered into one array tagged by member, the placed long buffers
    meeting a member are added, and the lowest fit of every member comes from one sort by
    (member, offset) and a running maximum of the tops that restarts at each member (tops are
    shifted by ``member * BIG``, ``BIG`` above every top, so earlier members never win the max).
    Same offsets as placing one buffer at a time (tested); faster when runs are long
    (:data:`RUN_MIN`)."""
    cap, s_start = win.cap, win.s_start
    offsets = np.zeros(len(starts), np.int64)
    top = 0  # highest top placed so far
    aligned = bool((aligns > 1).any())
    for run in runs:
        ids = np.asarray(run, np.int64)
        k = len(run)
        s, e, sz, al = starts[ids], ends[ids], sizes[ids], aligns[ids]
        big = top + int(sz.max()) + int(al.max()) + 1
        if k * big >= 1 << 62:  # the shift would overflow: place one member at a time
            for i in run:
                si, ei = int(starts[i]), int(ends[i])
                lo_k = int(np.searchsorted(s_start, si - cap, side="right"))
                hi_k = int(np.searchsorted(s_start, ei, side="left"))
                offsets[i] = win.lowest_fit(lo_k, hi_k, si, ei, int(sizes[i]), int(aligns[i]))
            top = max(top, int((offsets[ids] + sz).max()))
            win.place_many(ids, ends, offsets, sizes)
            continue
        a = np.searchsorted(s_start, s - cap, side="right")
        z = np.searchsorted(s_start, e, side="left")
        cnt = np.maximum(z - a, 0)
        total = int(cnt.sum())
        member = np.repeat(np.arange(k), cnt)
        pos = np.repeat(a - (np.cumsum(cnt) - cnt), cnt)
        pos += np.arange(total)
        live = win.end[pos] > s[member]
        pos, member = pos[live], member[live]
        lo, hi = win.lo[pos], win.hi[pos]
        if win.long_placed:
            meet = (win.l_end[None, :] > s[:, None]) & (win.l_start[None, :] < e[:, None])
            lm, lj = np.nonzero(meet)
            if len(lm):
                member = np.concatenate((member, lm))
                lo = np.concatenate((lo, win.l_lo[lj]))
                hi = np.concatenate((hi, win.l_hi[lj]))
        x = np.zeros(k, np.int64)
        if len(member):
            shift = member * big
            by = np.argsort(lo + shift)  # by member, then by offset
            member, lo, shift = member[by], lo[by], shift[by]
            acc = hi[by]
            acc += shift
            np.maximum.accumulate(acc, out=acc)
            reach = np.empty_like(acc)
            reach[0] = 0
            reach[1:] = acc[:-1]
            reach -= shift
            np.maximum(reach, 0, out=reach)
            if aligned:
                am = al[member]
                reach = -(-reach // am) * am
            fits = reach + sz[member] <= lo
            # A member's answer: its first fitting position, else above its highest top.
            change = np.empty(len(member), bool)
            change[-1] = True
            np.not_equal(member[1:], member[:-1], out=change[:-1])
            last = change.nonzero()[0]
            ml = member[last]
            above = acc[last] - shift[last]
            if aligned:
                above = -(-above // al[ml]) * al[ml]
            x[ml] = above
            f = fits.nonzero()[0]
            if len(f):
                fm = member[f]
                first = np.empty(len(f), bool)
                first[0] = True
                np.not_equal(fm[1:], fm[:-1], out=first[1:])
                x[fm[first]] = reach[f[first]]
        offsets[ids] = x
        top = max(top, int((x + sz).max()))
        win.place_many(ids, ends, offsets, sizes)
    return offsets.tolist()


FIRST_FIT_FLOOR = 1_000
"""The least a first fit costs per buffer, in work units: :func:`first_fit_work` counts the
live buffers each placement meets, which undercounts traces with few long lifetimes."""


def first_fit_cost(problem: Problem) -> int:
    """What one first-fit run costs, in :func:`first_fit_work` units, at least
    :data:`FIRST_FIT_FLOOR` per buffer: the price schedulers compare other runs against."""
    return max(first_fit_work(problem), FIRST_FIT_FLOOR * len(problem))


def first_fit_work(problem: Problem) -> int:
    """What one first-fit run costs, in units: the buffers plus, for each, the buffers live
    when it starts (the candidates its placement is checked against).

    The live count, not the buffer count, drives the cost: 1,042 long-lived buffers of the
    idealloc resnet50 trace take ~90 ms per run, 100,000 short-lived random ones ~1 s.
    """
    n = len(problem)
    if not n:
        return 0
    starts, ends = np.sort(problem.starts), np.sort(problem.ends)
    live = np.searchsorted(starts, problem.starts, side="right") - np.searchsorted(ends, problem.starts, side="right")
    return n + int(live.sum())
