"""``search``: an anytime planner that improves on the greedy portfolio.

Plan of work (every step keeps the best valid plan found so far, so stopping anywhere is safe):

0. Seed with large-first (cheap). With a ``capacity`` the rest of the greedy portfolio (every
   registered strategy that does not itself use a budget) runs next, since it often fits at
   once; without one it runs after step 1, and only if step 1 did not prove its plan optimal
   (no greedy plan can beat a proven optimum). The result is never worse than the portfolio.
   Whenever the best height reaches the target (the lower bound, or ``capacity``), stop.

1. **Branch and bound over canonical placements** in the style of MiniMalloc (Moffitt,
   "MiniMalloc: A Lightweight Memory Allocator for Hardware-Accelerated Machine Learning",
   ASPLOS 2023; google/minimalloc ``src/solver.cc``). Given a height ``cap``, buffers are placed
   one at a time, each at its *canonical* offset: the top of the already-placed buffers it
   overlaps (aligned up), so the search never tries offsets inside gaps. Pruning rules:

   * **canonical ordering** — placements happen in non-decreasing ``(offset, preorder)``; a
     buffer whose key is below the last placement's is skipped at this node;
   * **dominance** — no buffer is placed at or above the lowest possible top
     ``min(min_offset + size)`` of the unplaced buffers (that would leave a gap another buffer
     fills), and when a placed buffer has nothing unplaced above it ("hatless") its siblings
     need not be tried after it fails;
   * **section inference with a monotonic floor** — time is cut into the cross sections seen
     just before every buffer ends; in each, the unplaced bytes must still fit on top of
     ``max(section floor, current offset)``;
   * **dynamic ordering** — candidates are tried by their current minimum offset, ties broken by
     a static preorder (MiniMalloc's ``WAT``/``TAW``/``TWA``: lifetime width, area, section total);
   * **dynamic decomposition** — once every buffer crossing a section boundary is placed, the two
     sides are solved independently, each preordered afresh on the sections' remaining totals
     (as MiniMalloc's ``SubSolve`` does; with the static ranks instead, minimalloc's instance I
     thrashed past 100,000 nodes where MiniMalloc fits it in 2,000 — checked node by node
     against the C++ solver, the placements are now the same).

   Several preorders are tried round-robin with a node limit that doubles every round (as
   MiniMalloc does), plus, each round, a jittered copy of each (every buffer moved by ~3 places,
   from ``seed``) with a quarter of the limit: run lengths are heavy-tailed, and a nearby order
   often succeeds at once where its base order thrashes. Unlike MiniMalloc, the independent
   partitions (no buffer live across their boundary) are solved *separately*, each by the
   first run that succeeds, and a solved partition is kept for every larger cap: one preorder
   rarely suits all partitions (on E one needs ``TWA``, the other ``TAW``, and neither order
   solves both within 30k nodes). Without a ``capacity`` the caps are chosen by a binary
   search between the lower bound (``bounds.lower_bound``) and the best height found; a branch
   that is exhausted without hitting its node limit proves that cap infeasible and raises the
   lower bound.

   **CP-SAT beside it** (``cpsat.py``, when OR-Tools is installed): from the round whose node
   limit is worth half a second on, every partition still open also goes to OR-Tools' CP-SAT
   (``NoOverlap2D`` + ``Cumulative``) in a background thread: at the capacity, a stream of runs
   per partition (``cpsat.Stream``) whose k-th run is worth the wall time of the k-th round's
   branch-and-bound runs and answers that round, the next starting as soon as one ends, so CP-SAT
   never waits for the branch and bound (with one run per round it was busy 23 s of 60 on
   held-out instances); below the capacity, one run per binary-search probe. The two fail on
   different instances (measured: the branch and bound thrashes where greedy orders are >25 %
   over, CP-SAT on A–E's equal-height sections), and together they fit what neither fits alone.
   Each CP-SAT run spends three quarters of its limit on CP-SAT's fixed search, lowest possible
   offset first, once in each of seven decision orders (``cpsat.sweep_orders``: the buffers
   taller than half the cap first, then sweeps over time from either end and outward from the
   most loaded instant, and largest area first) and in a jittered copy of each, fresh every run (``cpsat.jittered``, as the jittered
   preorders above) — the branch and bound's canonical placement with CP-SAT's propagation and
   clause learning, whose run lengths are heavy-tailed in the tie order — and the rest on its default
   search with a fresh seed every run (heavy-tailed in the seed, so restarting with a new seed
   and a doubled limit beats replaying the same search). The rule for which
   answer counts is fixed — the branch and bound's when it has one, else CP-SAT's — so the
   result does not depend on which thread finished first.

   **The stacked view** (``stacking.py``): when packing every class of buffers that share
   their whole lifetime as one block leaves at most 90 % as many buffers, the rounds alternate
   between those blocks (first) and the buffers themselves, each view with its own preorders,
   cache and CP-SAT streams (all views' streams start in the same round, so both cores stay
   busy while either view's branch and bound runs). The view is a restriction: its plans expand
   into plans of the buffers, and its failures prove nothing — only the buffers' own rounds
   raise the proven lower bound. Why: the exact methods also try every interleaving of a class
   with the buffers around it, which is most of their tree where they thrash; the blocks
   remove that. On eleven sets of 20 generated instances at 60 s the search fits 219 of 220 with
   the view (the six sets never looked at before, 97001.. to 101001.. and 105001..: 120 of 120,
   117 within 10 s); the five others are those where the buffers alone missed one each (82004, 84003,
   86010, 89001, 95013): four of those now fit, in 4-24 s, and 86010 is missed either way.
   Each view gets every other round, so an instance only the buffers solve costs at most about
   twice its time there (minimalloc's J: 0.2 s either way).

2. **Hill climbing over the placement order** with the remaining budget (Arm Vela's
   ``HillClimb`` allocator, TelaMalloc-style order search): starting from the best order known, a buffer that reaches
   the peak (or a random one) is moved earlier in the order, :func:`first_fit` re-plans it, and
   the change is kept when the height does not grow. This is the fallback for traces too large
   or too irregular for the exact search.

Control flow: buffers in exclusive branches are not neighbours, so they may share addresses.
Section totals and floors assume that every buffer of a section conflicts with every other,
which branches break, so with branch paths those two pruning rules are switched off (plans stay
valid; the search is just weaker, and its failures prove nothing). Alignment is honoured by rounding every canonical offset up.
``Problem.overwrites`` are ignored (they are permissions, not obligations).

Budget split: branch and bound gets 70 % of the budget (90 % with a capacity), hill climbing
the rest; the portfolio's own run time counts against the budget but is never cut short.

Measured (``bench/search.py``, budget 60 s, 2-core machine, with the stacked view):
minimalloc's challenging suite at capacity 1,048,576 — all eleven fit: A 3.5 s, B 2.5, C 0.04,
D 2.2, E 1.4, F 2.8, G 0.1, H 2.8, I 1.7, J 0.4, K 0.06 (without the view: A 3.9, B 3.4, C 2.0,
D 2.0, E 1.8, F 3.6, G 0.7, H 1.6, I 1.2, J 0.3, K 0.8; minimalloc's own C++ solver, built from
its repository, on the same machine in an earlier session: A 4.5, B 3.5, C 0.6, D 2.4, E 3.3,
F 4.7, G 1.1, H 1.6, I 3.3, J 0.8, K 0.6). Every idealloc trace reaches its lower bound within
0.7 s (budget 10 s); ``nn_like(20000)`` goes from greedy +0.32 % to LB in about 6 s. Generated
look-alikes (``synthetic.suite_like``, each cut from a packing of the capacity), 20 per seed
set at 60 s: 219 of 220 over eleven sets (above); before the stacked view, 117 of 120 over six
sets, minimalloc's solver fitting 7-13 of 20 per set, every one among ours.

Determinism: all search decisions depend only on the problem, ``seed`` and counted work (branch
and bound nodes, hill-climbing evaluations), never on the clock. The budget is turned into a
work cap (``budget * NODES_PER_SECOND`` nodes; first-fit evaluations count ``len(problem) / 32``
nodes each), so on a machine that does that much work within the budget the result is the same
on every run; the wall clock is only a hard stop that can cut the search short on a slower or
loaded machine, and only then can two runs differ. Pass ``nodes=`` for an explicit work cap.
"""

from __future__ import annotations

import bisect
import itertools
import random
import sys
import time
from typing import Callable, Sequence

import numpy as np

from . import cpsat
from .bounds import lower_bound
from .firstfit import first_fit
from .problem import Problem, Solution, exclusive
from .stacking import Stacking, stack, stacked_first
from .strategies import EXACT_MAX, EXACT_NODES, Strategy, _REGISTRY, register_strategy
from .validate import find_conflicts

NODES_PER_SECOND = 4_000
"""Work units the budget buys per second: a conservative estimate of this code's speed with
CP-SAT busy in the second thread (measured on a generated instance at its capacity, 100,000
units: 4,550 per second beside CP-SAT, 6,250 alone), so that on such a machine the work cap,
not the clock, ends the search and the result is deterministic."""

STACKED_MIN_SHARE = 0.1
"""The stacked view (``stacking.py``) gets every other branch-and-bound round only when it
removes at least this share of the buffers: a view that merges a few classes is nearly the
problem itself, so its rounds would mostly repeat the problem's own at half their share."""

CPSAT_MIN_NODES = 3_000
"""Rounds whose node limit is below this (half a second) skip CP-SAT: its model building and
presolve would dominate such a short run."""

_OK, _FAIL, _ABORT = 0, 1, 2
_BIG = 1 << 62
_UMAX, _UMIN = np.maximum.reduce, np.minimum.reduce
_HEURISTICS = ("WAT", "TAW", "TWA")


class _Abort(Exception):
    pass


Stop = Callable[[], bool]
"""Asked now and then during counted work: True abandons the work (its result is then unused)."""


class _Work:
    """Counts work against a cap and a wall-clock deadline (the deadline is a hard stop only);
    ``stop``, when given, is asked at the same points as the clock."""

    def __init__(self, cap: int, deadline: float, stop: Stop | None = None) -> None:
        self.cap = cap
        self.used = 0
        self.deadline = deadline
        self.stop = stop
        self._next_clock = 0

    def spend(self, units: int = 1) -> bool:
        """Record work; False once the cap or the deadline is reached, or ``stop`` says so."""
        self.used += units
        if self.used >= self.cap:
            return False
        if self.used >= self._next_clock:
            self._next_clock = self.used + 256
            if time.perf_counter() >= self.deadline or (self.stop is not None and self.stop()):
                self.cap = self.used  # stay exhausted
                return False
        return True

    def charge(self, units: int) -> None:
        """Account for work done by a sub-budget (and notice a passed deadline or a stop)."""
        self.used += units
        if time.perf_counter() >= self.deadline or (self.stop is not None and self.stop()):
            self.cap = min(self.cap, self.used)

    @property
    def left(self) -> int:
        return max(0, self.cap - self.used)


# --------------------------------------------------------------------------------------------
# Static structure shared by every branch-and-bound run
# --------------------------------------------------------------------------------------------


class _Structure:
    """Neighbours, cross sections and cut counts of the non-empty buffers of a problem."""

    def __init__(self, problem: Problem) -> None:
        bufs = problem.buffers
        self.idx = [i for i, b in enumerate(bufs) if b.size > 0]
        m = len(self.idx)
        self.m = m
        self.size = [bufs[i].size for i in self.idx]
        self.align = [bufs[i].alignment for i in self.idx]
        starts = [bufs[i].start for i in self.idx]
        ends = [bufs[i].end for i in self.idx]
        self.control_flow = problem.has_control_flow
        paths = [bufs[i].path for i in self.idx]

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
            else:
                if last_time is None:
                    last_time = t
                sec_lo[k] = n_sections
                if self.control_flow:
                    pk = paths[k]
                    for j in active:
                        if not exclusive(pk, paths[j]):
                            nbrs[k].append(j)
                            nbrs[j].append(k)
                else:
                    for j in active:
                        nbrs[k].append(j)
                        nbrs[j].append(k)
                active.add(k)
        self.nbrs = nbrs
        self.sec_lo = sec_lo
        self.sec_hi = sec_hi
        self.n_sections = n_sections
        total = np.zeros(n_sections + 1, np.int64)
        cuts = np.zeros(n_sections + 1, np.int64)
        lo = np.asarray(sec_lo, np.int64)
        hi = np.asarray(sec_hi, np.int64)
        sz = np.asarray(self.size, np.int64)
        np.add.at(total, lo, sz)
        np.add.at(total, hi, -sz)
        self.total = np.cumsum(total)[:-1]
        # cuts[s]: buffers live across the boundary between sections s and s+1.
        span = hi - lo >= 2
        np.add.at(cuts, lo[span], 1)
        np.add.at(cuts, hi[span] - 1, -1)
        self.cuts = np.cumsum(cuts)[:-1]
        self.width = [ends[k] - starts[k] for k in range(m)]
        self.start, self.end = starts, ends
        sec_total_max = [int(self.total[sec_lo[k]:sec_hi[k]].max()) for k in range(m)]
        self.sec_total_max = sec_total_max
        # Section membership, flattened for np.minimum.reduceat. Every section also lists the
        # sentinel index m, whose "minimum offset" is the cap, so fully placed sections pass.
        counts = np.zeros(n_sections + 1, np.int64)
        np.add.at(counts, lo, 1)
        np.add.at(counts, hi, -1)
        counts = np.cumsum(counts)[:-1] + 1
        self.sec_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.sec_ptr_list = self.sec_ptr.tolist()
        flat = np.full(int(self.sec_ptr[-1]), m, np.int64)
        fill = self.sec_ptr[:-1].tolist()
        for k in range(m):
            for s_ in range(sec_lo[k], sec_hi[k]):
                flat[fill[s_]] = k
                fill[s_] += 1
        self.sec_members = flat

    def preorder(self, heuristic: str) -> "_Rank":
        """Rank of every buffer under a MiniMalloc preordering (all keys descending)."""
        order = self.preorder_of(range(self.m), heuristic, self.sec_total_max)
        rank = _Rank([0] * self.m)
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
        return self._split(list(range(self.m)), cut_points)

    def _split(self, members: list[int], cut_points: list[int]) -> list[tuple[list[int], int, int]]:
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


# --------------------------------------------------------------------------------------------
# Branch and bound (MiniMalloc-style)
# --------------------------------------------------------------------------------------------


class _Rank(list):
    """A preorder's rank per buffer; ``heuristic`` names the MiniMalloc preordering it came from
    (None for a jittered copy), so that sub-problems can be re-ranked by it."""

    heuristic: str | None = None


class _BranchAndBound:
    """Decide whether the buffers fit under ``cap``; offsets in :attr:`solution` on success."""

    def __init__(self, st: _Structure, cap: int, rank: _Rank, work: _Work) -> None:
        self.st = st
        self.cap = cap
        self.rank = rank
        self.work = work
        m = st.m
        self.assign = [-1] * m
        self.min_off = [0] * m
        self.solution = [-1] * m
        infer = not st.control_flow
        self.infer = infer
        self.floor = np.zeros(st.n_sections, np.int64)
        self.total = st.total.copy() if infer else np.zeros(st.n_sections, np.int64)
        self.cuts = st.cuts.copy()
        self.mo = np.zeros(m + 1, np.int64)  # min_off mirror; placed buffers hold _BIG
        self.mo[m] = cap  # the sections' sentinel member

    def run(self) -> int:
        """Solve every partition in turn (all must fit)."""
        for members, a, z in self.st.partitions():
            status = self.run_part(members, a, z)
            if status != _OK:
                return status
        return _OK

    def run_part(self, members: list[int], a: int, z: int) -> int:
        """Solve one independent partition (buffers ``members``, sections ``[a, z)``)."""
        st = self.st
        if any(st.size[k] > self.cap for k in members):
            return _FAIL
        # The depth-first search recurses once per placed buffer (pure-Python frames, which
        # CPython >= 3.11 runs without growing the C stack).
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, 3 * st.m + 1000))
        try:
            return self._solve(members, a, z)
        except _Abort:
            return _ABORT
        finally:
            sys.setrecursionlimit(old_limit)

    def _solve(self, members: list[int], a: int, z: int) -> int:
        rank = self.rank
        min_off = self.min_off
        keys = sorted((min_off[k], rank[k], k) for k in members if self.assign[k] < 0)
        if not keys:
            return _OK
        return self._dfs(keys, (-1, -1, -1), members, a, z)

    def _dfs(self, keys: list, last: tuple, members: list[int], a: int, z: int) -> int:
        if not self.work.spend():
            raise _Abort
        if not keys:
            sol, assign = self.solution, self.assign
            for k in members:
                sol[k] = assign[k]
            return _OK
        st = self.st
        size = st.size
        # Candidates: keys below the lowest reachable top (dominance), at or after `last`
        # (canonical order).
        mh = _BIG
        for off, _, k in keys:
            if off >= mh:
                break
            h = off + size[k]
            if h < mh:
                mh = h
        cands = keys[bisect.bisect_right(keys, last):bisect.bisect_left(keys, (mh,))]
        if not cands:
            return _FAIL
        cap = self.cap
        assign, min_off, align, nbrs, rank = self.assign, self.min_off, st.align, st.nbrs, self.rank
        floor, total, cuts = self.floor, self.total, self.cuts
        sec_lo, sec_hi = st.sec_lo, st.sec_hi
        infer = self.infer
        insort, bisect_left = bisect.insort, bisect.bisect_left
        F, T = floor[a:z], total[a:z]
        mo = self.mo
        ptr, ptrl, mem = st.sec_ptr, st.sec_ptr_list, st.sec_members
        umax, umin = _UMAX, _UMIN
        cached_off = -1
        vlo = vhi = 0
        nviol = 0
        for key in cands:
            off, _, b = key
            sb = size[b]
            h = off + sb
            lo, hi = sec_lo[b], sec_hi[b]
            ok = True
            if infer:
                # Placing b only relaxes its own sections (their floor rises to h but their
                # unplaced total drops by sb), so every section that already fails the
                # monotonic-floor test at `off` must lie inside b's range.
                if off != cached_off:
                    cached_off = off
                    v = np.maximum(F, off)
                    v += T
                    nviol = umax(v) > cap
                    if nviol:
                        viol = (v > cap).nonzero()[0]
                        vlo, vhi = int(viol[0]) + a, int(viol[-1]) + a
                if nviol:
                    if vlo < lo or vhi >= hi:
                        ok = False
                    else:
                        v = floor[lo:hi] - sb
                        np.maximum(v, off, out=v)
                        v += total[lo:hi]
                        if umax(v) > cap:
                            ok = False
            # Bump the minimum offsets of unplaced neighbours.
            cu: list[int] = []
            cnew: list[int] = []
            hatless = True
            ra, rz = lo, hi
            for u in nbrs[b]:
                if assign[u] >= 0:
                    continue
                hatless = False
                if not ok:
                    break
                if min_off[u] >= h:
                    continue
                al = align[u]
                new = h if al == 1 else -(-h // al) * al
                if new + size[u] > cap:
                    ok = False
                    break
                cu.append(u)
                cnew.append(new)
                if sec_lo[u] < ra:
                    ra = sec_lo[u]
                if sec_hi[u] > rz:
                    rz = sec_hi[u]
            if not ok:
                if hatless:
                    break
                continue
            assign[b] = off
            mo[b] = _BIG
            cold = [min_off[u] for u in cu]
            if cu:
                mo[cu] = cnew
            if infer:
                old_floor = floor[lo:hi].copy()
                np.maximum(old_floor, h, out=floor[lo:hi])
                total[lo:hi] -= sb
                # Unallocated floor: no unplaced buffer of a section sits below the lowest
                # minimum offset among them. Only b's sections and those of the buffers it
                # pushed up can have changed.
                p0 = ptrl[ra]
                uf = np.minimum.reduceat(mo[mem[p0:ptrl[rz]]], ptr[ra:rz] - p0)
                np.maximum(uf, floor[ra:rz], out=uf)
                np.maximum(uf, off, out=uf)
                uf += total[ra:rz]
                ok = umax(uf) <= cap
            if ok:
                pos = bisect_left(keys, key)
                del keys[pos]
                for u, new in zip(cu, cnew):
                    r = rank[u]
                    del keys[bisect_left(keys, (min_off[u], r, u))]
                    min_off[u] = new
                    insort(keys, (new, r, u))
                if hi - lo >= 2:
                    seg = cuts[lo:hi - 1]
                    seg -= 1
                    if umin(seg) == 0:
                        zero = (seg == 0).nonzero()[0].tolist()
                        status = self._decompose(members, a, z, [lo + 1 + s for s in zero])
                    else:
                        status = self._dfs(keys, key, members, a, z)
                    seg += 1
                else:
                    status = self._dfs(keys, key, members, a, z)
                for u, old in zip(cu, cold):
                    r = rank[u]
                    del keys[bisect_left(keys, (min_off[u], r, u))]
                    min_off[u] = old
                    insort(keys, (old, r, u))
                keys.insert(pos, key)
            else:
                status = _FAIL
            # Undo.
            if infer:
                total[lo:hi] += sb
                floor[lo:hi] = old_floor
            if cu:
                mo[cu] = cold
            assign[b] = -1
            mo[b] = off
            if status == _OK:
                self.solution[b] = off
                return _OK
            if hatless:
                break
        return _FAIL

    def _decompose(self, members: list[int], a: int, z: int, zeros: list[int]) -> int:
        st = self.st
        assign = self.assign
        unplaced = [k for k in members if assign[k] < 0]
        cut_points = [a, *[s for s in zeros if a < s < z], z]
        # A buffer belongs to every piece its section range meets; by construction it meets one.
        heuristic = self.rank.heuristic
        rerank = heuristic is not None and "T" in heuristic and self.infer
        for part, pa, pz in st._split(unplaced, cut_points):
            if rerank:
                # As MiniMalloc's SubSolve does: a sub-problem is preordered afresh, its ``T`` being
                # the sections' totals of what is still unplaced (measured on minimalloc's instance
                # I: the static ranks thrash past 100,000 nodes, re-ranked ones fit in 2,000).
                status = self._solve_reranked(part, pa, pz, heuristic)
            else:
                status = self._solve(part, pa, pz)
            if status != _OK:
                return _FAIL
        sol = self.solution
        for k in members:
            if assign[k] >= 0:
                sol[k] = assign[k]
        return _OK

    def _solve_reranked(self, part: list[int], a: int, z: int, heuristic: str) -> int:
        """:meth:`_solve` with the part's buffers ranked by ``heuristic`` on the current section
        totals. Ranks only compare within a part (parts are disjoint, and the enclosing search
        touches none of their keys meanwhile), so the part's entries are overwritten and put
        back afterwards."""
        st, rank, total = self.st, self.rank, self.total
        sec_lo, sec_hi = st.sec_lo, st.sec_hi
        totals = {k: int(total[sec_lo[k]:sec_hi[k]].max()) for k in part}
        order = st.preorder_of(part, heuristic, totals)
        base = min(rank[k] for k in part)
        saved = [rank[k] for k in part]
        for r, k in enumerate(order):
            rank[k] = base + r
        try:
            return self._solve(part, a, z)
        finally:
            for k, r in zip(part, saved):
                rank[k] = r


# --------------------------------------------------------------------------------------------
# Hill climbing over the first-fit order (Vela-style)
# --------------------------------------------------------------------------------------------


def _height(problem: Problem, offsets: Sequence[int]) -> int:
    if not len(offsets):
        return 0
    return int((np.asarray(offsets, np.int64) + problem.sizes).max())


def _order_of(problem: Problem, offsets: Sequence[int]) -> list[int]:
    """An order under which first fit reproduces a plan at least as low: bottom-up by offset."""
    return sorted(range(len(problem)), key=lambda i: (offsets[i], -problem.buffers[i].size, i))


def _hill_climb(problem: Problem, order: list[int], best_h: int, target: int, rng: random.Random,
                work: _Work) -> tuple[list[int], list[int], int]:
    """Move peak buffers earlier in the order while first fit's height does not grow."""
    n = len(problem)
    sizes = problem.sizes
    starts, ends = problem.starts, problem.ends
    cost = max(1, n // 32)
    offsets = first_fit(problem, order)
    h = _height(problem, offsets)
    best_order, best_offsets = list(order), offsets
    best_h = h
    cur = list(order)
    pos_of = {b: p for p, b in enumerate(cur)}
    while best_h > target and work.spend(cost):
        off_arr = np.asarray(offsets, np.int64)
        tops = off_arr + sizes
        peak = int(tops.max())
        at_peak = np.flatnonzero(tops == peak)
        i = int(at_peak[rng.randrange(len(at_peak))])
        if rng.random() < 0.3:
            # Also consider a buffer live with the peak buffer (moving it can free space below).
            live = np.flatnonzero((starts < ends[i]) & (starts[i] < ends) & (sizes > 0))
            i = int(live[rng.randrange(len(live))])
        p = pos_of[i]
        if p == 0:
            continue
        q = rng.randrange(p)
        cand = cur[:q] + [i] + cur[q:p] + cur[p + 1:]
        cand_offsets = first_fit(problem, cand)
        ch = _height(problem, cand_offsets)
        if ch <= h:
            cur, offsets, h = cand, cand_offsets, ch
            for r in range(q, p + 1):
                pos_of[cur[r]] = r
            if h < best_h:
                best_h, best_order, best_offsets = h, list(cur), offsets
    return best_order, best_offsets, best_h


def climb(problem: Problem, offsets: Sequence[int], target: int, evaluations: int,
          seed: int = 0, stop: Stop | None = None) -> tuple[list[int], int]:
    """A short, deterministic hill climb from a plan: at most ``evaluations`` first-fit runs.

    The cheap half of :class:`SearchStrategy` for callers that want a polish rather than a
    search (``plan_joint`` uses it when the greedy plans miss ``LB_nest``): starting from the
    order that reproduces ``offsets`` bottom-up, peak buffers move earlier while the height does
    not grow. Counted work only (no clock), so the result depends on the inputs and ``seed``
    alone (``stop`` abandons it: the result is then only some plan no higher than the input).
    Returns ``(offsets, height)``, never higher than the input plan.
    """
    h0 = _height(problem, offsets)
    if not len(problem) or h0 <= target or evaluations <= 0:
        return list(offsets), h0
    cost = max(1, len(problem) // 32)
    work = _Work(evaluations * cost, float("inf"), stop)
    _, offs, h = _hill_climb(problem, _order_of(problem, offsets), h0, target, random.Random(seed), work)
    return (list(offs), h) if h < h0 else (list(offsets), h0)


def _offsets(problem: Problem, st: _Structure, sol: list[int]) -> list[int]:
    """Offsets of every buffer of ``problem`` from a solution of its structure's non-empty ones
    (the empty ones at 0)."""
    offsets = [0] * len(problem)
    for k, i in enumerate(st.idx):
        offsets[i] = sol[k]
    return offsets


def exact_polish(problem: Problem, offsets: Sequence[int], nodes: int,
                 stop: Stop | None = None) -> tuple[list[int], int]:
    """A short branch and bound below a plan: a binary search over heights between the lower
    bound and the plan's, each probe one run per MiniMalloc preorder with :data:`POLISH_RUN`
    times the buffer count in nodes, at most ``nodes`` nodes in all (no CP-SAT: its start-up
    alone would exceed such a budget). What ``best`` runs on small problems instead of the hill
    climb. Why this schedule rather than :class:`SearchStrategy`'s rounds: those open with a
    probe at the lower bound — the hardest height — and jittered runs, which a few thousand nodes
    cannot afford; probing halfway with runs long enough for some backtracking (twice the buffer
    count) measured best on minimalloc's suite and 30 held-out instances (about 8-10 % over the
    best known in ~0.5 s, from ~15-20 % with the rounds; 8,000 nodes would give ~1 point more
    for 0.3 s more; a first probe at the bound itself would catch instances that reach it at once,
    such as the suite's C, but measured worse on the held-out ones). Counted work only (the clock is never
    consulted), so the result depends on the inputs alone; ``stop`` abandons it (the result is
    then only some plan no higher than the input). Returns ``(offsets, height)``, never higher
    than the input plan.

    With a stacked view (``stacking.py``, as the search uses it) half the nodes go to its
    blocks, from large-first's plan of them and below the height the first half reached: at
    the same 5,000 nodes, ``best`` on 120 fresh generated look-alikes (two sets of 60) went from
    8.6 and 8.3 % over the best known to 8.1 and 6.9 %, in the same time; on minimalloc's suite
    A-F from 6.7 to 7.3 % and G-K from 8.3 to 7.6 % (all eleven: 7.4 % either way).
    """
    stacked = _stacked_view(problem)
    if stacked is None:
        return _polish(problem, offsets, nodes, stop=stop)
    offsets, h = _polish(problem, offsets, nodes // 2, stop=stop)
    blocks, bh = _polish(stacked.problem, _large_first(stacked.problem), nodes - nodes // 2, below=h, stop=stop)
    if bh < h:
        expanded = stacked.expand(blocks)
        if not find_conflicts(problem, expanded):  # planners are never trusted
            return expanded, bh
    return offsets, h


def descent(problem: Problem, cap: int, stop: Stop | None = None) -> list[int] | None:
    """The branch and bound's first descent at ``cap``: one run in the ``WAT`` preorder with
    about one node per buffer (a little backtracking at most), on the stacked view first when
    there is one, then on the buffers themselves. Offsets of a plan under ``cap``, or None.

    Why: on real training traces (MindSpore's SOMAS dumps of ResNet-50 and TinyBERT) the greedy
    orders stay 0.1-0.3 % above the lower bound, and this descent — canonical placements, the
    lowest first, steered by the section floors — reaches the bound without backtracking. Its
    structure holds every pair of buffers live together, so ``best`` runs it only up to
    :data:`memopt.planning.strategies.DESCENT_MAX` buffers. Counted work only."""
    for view, stacking in stacked_first(problem, _stacked_view(problem)):
        st = _Structure(view)
        if st.m == 0:
            return [0] * len(problem)
        limit = st.m + st.m // 8
        work = _Work(limit, float("inf"), stop)
        status, sol = SearchStrategy._try_cap(st, cap, [(st.preorder("WAT"), limit)], work, _PartCache(st))
        if status == _OK:
            offsets = _offsets(view, st, sol)
            offsets = stacking.expand(offsets) if stacking is not None else offsets
            if not find_conflicts(problem, offsets):  # planners are never trusted
                return offsets
    return None


def _polish(problem: Problem, offsets: Sequence[int], nodes: int,
            below: int | None = None, stop: Stop | None = None) -> tuple[list[int], int]:
    """:func:`exact_polish` on one view: the binary search below the plan's height (or below
    ``below``, when lower), returning the plan itself when nothing lower is found."""
    h0 = _height(problem, offsets)
    best, best_offsets = h0, list(offsets)
    st = _Structure(problem)
    if st.m == 0 or nodes <= 0:
        return best_offsets, best
    ceiling = best if below is None else min(best, below)
    ranks = [st.preorder(h) for h in _HEURISTICS]
    cache = _PartCache(st)
    work = _Work(nodes, float("inf"), stop)
    lo = lower_bound(problem)
    limit = max(64, POLISH_RUN * st.m)
    while work.left > 0 and lo < ceiling:
        cap = lo + (ceiling - 1 - lo) // 2
        status, sol = SearchStrategy._try_cap(st, cap, [(r, limit) for r in ranks], work, cache)
        if status != _OK:
            lo = cap + 1
            continue
        offs = _offsets(problem, st, sol)
        h = _height(problem, offs)
        if h >= ceiling or find_conflicts(problem, offs):  # planners are never trusted
            break
        best, best_offsets, ceiling = h, offs, h
    return best_offsets, best


def _large_first(problem: Problem) -> list[int]:
    """First fit in size-descending order (ties by start): the search's cheap seed plan."""
    bufs = problem.buffers
    return first_fit(problem, sorted(range(len(bufs)), key=lambda i: (-bufs[i].size, bufs[i].start, i)))


def _stacked_view(problem: Problem) -> Stacking | None:
    """The stacked view (``stacking.py``) when it removes at least :data:`STACKED_MIN_SHARE` of
    the buffers, else None."""
    stacked = stack(problem)
    if stacked is None or len(stacked.problem) > (1 - STACKED_MIN_SHARE) * len(problem):
        return None
    return stacked


POLISH_RUN = 2
"""Node limit of one polish run, in multiples of the buffer count (see :func:`exact_polish`)."""


# --------------------------------------------------------------------------------------------
# The strategy
# --------------------------------------------------------------------------------------------


class SearchStrategy(Strategy):
    """Anytime search from the greedy portfolio's best plan (see module docstring).
    ``stacking=False`` leaves out the stacked view (the buffers alone, as before it)."""

    name = "search"
    uses_budget = True

    def __init__(self, budget: float = 10.0, seed: int = 0, capacity: int | None = None,
                 nodes: int | None = None, stacking: bool = True) -> None:
        if budget < 0:
            raise ValueError(f"budget must be >= 0, got {budget}")
        self.budget = float(budget)
        self.seed = seed
        self.capacity = capacity
        self.stacking = stacking
        self.nodes = nodes if nodes is not None else int(self.budget * NODES_PER_SECOND)
        self.stats: dict = {}

    # The greedy portfolio: every registered strategy that needs no budget.
    @staticmethod
    def _greedy(problem: Problem, skip: tuple[str, ...] = ()) -> Solution | None:
        best = None
        for name, factory in _REGISTRY.items():
            if name in skip or name == SearchStrategy.name:
                continue
            if getattr(factory, "uses_budget", False) or not getattr(factory, "in_portfolio", True):
                continue
            sol = factory().plan(problem)
            if best is None or sol.height < best.height:
                best = sol
        return best

    def plan(self, problem: Problem) -> Solution:
        t0 = time.perf_counter()
        n = len(problem)
        lb = lower_bound(problem)
        cap = self.capacity
        target = lb if cap is None else max(lb, cap)
        # Seed plan: large-first (cheap). The rest of the portfolio runs first with a capacity
        # (it often fits at once), otherwise only when the exact search has not proven the
        # optimum (no greedy plan can beat a proven optimum, so skipping it loses nothing).
        best_offsets = _large_first(problem)
        best_h = _height(problem, best_offsets)
        source = "large-first"
        portfolio_done = False
        portfolio_plan = best_offsets  # the portfolio's best plan, which ``best`` would polish
        self.stats = {"lb": lb, "greedy": best_h}

        def run_portfolio() -> None:
            nonlocal best_offsets, best_h, source, portfolio_done, portfolio_plan
            portfolio_done = True
            g = self._greedy(problem, skip=("large-first",))
            if g is not None:
                self.stats["greedy"] = min(self.stats["greedy"], g.height)
                if g.height < _height(problem, portfolio_plan):
                    portfolio_plan = list(g.offsets)
            if g is not None and g.height < best_h:
                best_offsets, best_h, source = list(g.offsets), g.height, g.strategy

        if cap is not None and best_h > target:
            run_portfolio()
        work = _Work(self.nodes, t0 + self.budget)
        proven = False
        if n and best_h > target:
            share = 0.7 if cap is None else 0.9
            bb_work = _Work(int(self.nodes * share), t0 + share * self.budget)
            res = self._branch_and_bound(problem, best_h, lb, bb_work, cap)
            work.charge(bb_work.used)
            # With branches the pruning is not exact, so nothing counts as proven there.
            proven = not problem.has_control_flow and (
                self.stats.get("proven_lb", -1) >= min(best_h, res[1] if res else best_h))
            # Planners are never trusted: a plan that fails the validator is dropped.
            if res is not None and res[1] < best_h and not find_conflicts(problem, res[0]):
                best_offsets, best_h, source = res[0], res[1], self.stats.get("exact", "branch-and-bound")
        if not portfolio_done and best_h > target and not proven:
            run_portfolio()
        if best_h > target and not proven and n <= EXACT_MAX and not problem.has_control_flow:
            # ``best``'s own polish of the portfolio's plan (a few thousand nodes), only when the
            # target was missed: so that the search ends no higher than the default would.
            offs, h = exact_polish(problem, portfolio_plan, EXACT_NODES)
            if h < best_h:
                best_offsets, best_h, source = offs, h, "exact-polish"
        if n and best_h > target and work.left > 0 and not proven:
            rng = random.Random(self.seed)
            _, offs, h = _hill_climb(problem, _order_of(problem, best_offsets), best_h, target,
                                     rng, work)
            if h < best_h:
                best_offsets, best_h, source = offs, h, "hill-climb"
        self.stats.update(height=best_h, source=source, work=work.used, portfolio=portfolio_done,
                          seconds=time.perf_counter() - t0)
        return Solution.of(problem, best_offsets, self.name)

    def _branch_and_bound(self, problem: Problem, best_h: int, lb: int, work: _Work,
                          capacity: int | None) -> tuple[list[int], int] | None:
        """Best plan found by round-robin branch and bound, or None.

        Every round doubles the node limit. With a capacity still open, a round first aims at
        it, then spends one probe (with an eighth of the node limit) of a binary search between
        the capacity and the best height (so that an unreachable capacity still yields a good
        plan); otherwise the whole round is that binary search. The rounds alternate between
        the problem and, when it removes at least :data:`STACKED_MIN_SHARE` of the buffers, its
        stacked view (``stacking.py``): each view gets every other round, so an instance that
        only one of them solves costs at most twice its time there."""
        original = _View(problem, lb, capacity, self.seed)
        views = [original]
        stacked = _stacked_view(problem) if self.stacking else None
        if stacked is not None:
            views.insert(0, _View(stacked.problem, lower_bound(stacked.problem), capacity, self.seed + 1, stacked))
        self.stats["views"] = "+".join(v.label() for v in views)
        if original.done:
            return None
        best = _Best(best_h)
        target = lb if capacity is None else max(lb, capacity)
        try:
            while work.left > 0 and not original.done:
                # CP-SAT joins every view from the first round in which one view's node limit
                # is worth it (CPSAT_MIN_NODES), so that the views' streams start together.
                active = [v for v in views if not v.done]
                for v in active:
                    v.advance()
                with_cpsat = cpsat.available() and any(v.limit >= CPSAT_MIN_NODES for v in active)
                if with_cpsat and capacity is not None:
                    for v in active:
                        v.start_cpsat(capacity, original.proven_lo, work.deadline)
                for v in active:
                    if v.done or work.left <= 0:
                        continue
                    self._round(v, problem, best, work, capacity, original.proven_lo, with_cpsat)
                    if v.done:
                        v.stop()
                    if best.height <= max(target, original.proven_lo):
                        original.done = True
                        break
        finally:
            for v in views:
                v.stop()
        self.stats["proven_lb"] = original.proven_lo
        self.stats["exact"] = (best.view or original).method()
        return None if best.offsets is None else (best.offsets, best.height)

    def _round(self, v: "_View", problem: Problem, best: "_Best", work: _Work, capacity: int | None,
               floor: int, with_cpsat: bool) -> None:
        """One round of view ``v``; ``floor`` is the problem's proven lower bound (every cap
        below it is infeasible for every view); ``with_cpsat``: CP-SAT runs beside it."""
        st, ranks, cache, runs, limit = v.st, v.ranks, v.cache, v.runs, v.limit
        cap = v.aim(capacity, floor) if capacity is not None else None
        if cap is not None:
            if cap >= best.height:
                v.done = True
                return
            status, sol = self._try_cap(st, cap, runs, work, cache, v.at_capacity)
            if status == _OK:
                best.offer(v, problem, sol)
                return
            if status == _FAIL:
                v.proven_lo = cap + 1
                v.close_capacity()
        lowest = max(v.proven_lo, floor)
        lo = max(lowest, capacity + 1) if v.open_capacity else lowest
        hi = best.height - 1  # look for plans strictly better than the best
        probes = 1 if v.open_capacity else -1
        if v.open_capacity:
            runs = [(r, max(64, limit // 8)) for r in ranks]
        while lo <= hi and work.left > 0 and probes != 0:
            probes -= 1
            cap = lo if lo == lowest and not v.open_capacity else (lo + hi) // 2
            # Below the capacity's search, one CP-SAT run per probe, worth its runs.
            probe = (_CpsatRuns(st, cap, _once(min(sum(n for _, n in runs), work.left), v.round_seed),
                                work.deadline)
                     if with_cpsat and not v.open_capacity else None)
            try:
                status, sol = self._try_cap(st, cap, runs, work, cache, probe)
            finally:
                if probe is not None:
                    probe.stop()
            if status == _OK:
                best.offer(v, problem, sol)
                hi = best.height - 1
            else:
                lo = cap + 1
                if status == _FAIL:
                    v.proven_lo = cap + 1
        if best.height <= max(v.proven_lo, floor):
            v.done = True

    @staticmethod
    def _try_cap(st: _Structure, cap: int, runs: list[tuple[list[int], int]], work: _Work,
                 cache: "_PartCache", exact: "_CpsatRuns | None" = None) -> tuple[int, list[int] | None]:
        """Fit every independent partition under ``cap``, each with its own preorder.

        ``runs`` are (preorder, node limit) pairs, tried in turn. Partitions are independent,
        so each one gets the first run that solves it (one
        order rarely suits all of them), and a partition solved at some cap stays solved for
        every larger cap (``cache``). One infeasible partition proves the cap infeasible.
        With ``exact``, CP-SAT works on every open partition meanwhile; its answer counts only
        when all of ``runs`` failed (a fixed rule, so the outcome does not depend on which
        thread finished first).
        """
        sol = [-1] * st.m
        status = _OK
        for pi, (members, a, z) in enumerate(cache.parts):
            if cap <= cache.infeasible[pi]:
                return _FAIL, None
            hit = cache.hit_at(pi, cap)
            if hit is None:
                if exact is not None:
                    exact.start(pi, members)
                for rank, limit in runs:
                    if work.left <= 0:
                        return _ABORT, None
                    sub = _Work(min(limit, work.left), work.deadline, work.stop)
                    bb = _BranchAndBound(st, cap, rank, sub)
                    part_status = bb.run_part(members, a, z)
                    work.charge(sub.used)
                    if part_status == _OK:
                        offs = [bb.solution[k] for k in members]
                        hit = (max(o + st.size[k] for k, o in zip(members, offs)), offs)
                        cache.solved[pi] = hit
                        cache.by[pi] = "branch-and-bound"
                        break
                    if part_status == _FAIL:
                        cache.infeasible[pi] = max(cache.infeasible[pi], cap)
                        return _FAIL, None
                if hit is None and exact is not None:
                    res = exact.consult(pi)
                    if res.status == cpsat.FIT:
                        offs = list(res.offsets)
                        hit = (max(o + st.size[k] for k, o in zip(members, offs)), offs)
                        cache.solved[pi] = hit
                        cache.by[pi] = "cp-sat"
                    elif res.status == cpsat.INFEASIBLE:  # the model is exact, even with branches
                        cache.infeasible[pi] = max(cache.infeasible[pi], cap)
                        return _FAIL, None
                if hit is not None and exact is not None:
                    exact.stop(pi)
            if hit is None:
                status = _ABORT  # keep going: the other partitions may still fit (and be cached)
                continue
            for k, o in zip(members, hit[1]):
                sol[k] = o
        return status, (sol if status == _OK else None)


class _View:
    """A problem the branch and bound works on in rounds of its own: the problem itself, or its
    stacked view (``stacking``: a restriction whose plans expand into plans of the problem, and
    whose failures prove nothing about it). ``proven_lo``: every cap below it is infeasible for
    this view's problem."""

    def __init__(self, problem: Problem, lb: int, capacity: int | None, seed: int,
                 stacking: Stacking | None = None) -> None:
        self.problem, self.stacking, self.seed = problem, stacking, seed
        self.st = _Structure(problem)
        self.ranks = [self.st.preorder(h) for h in _HEURISTICS]
        self.cache = _PartCache(self.st)
        self.proven_lo = lb
        self.limit = max(self.st.m, 64)
        self.rounds = 0
        self.round_seed = 0
        self.runs: list[tuple[_Rank, int]] = []
        self.open_capacity = capacity is not None
        self.aimed: int | None = None
        self.at_capacity: _CpsatRuns | None = None  # CP-SAT's runs at the capacity, across rounds
        self.done = self.st.m == 0

    def advance(self) -> None:
        """Next round: the node limit doubles. Its runs: the three MiniMalloc preorders with the
        full limit, then a jittered copy of each (fresh every round) with a quarter of it: run
        lengths are heavy-tailed, and a slightly different order often succeeds where its base
        order thrashes."""
        self.limit *= 2
        self.rounds += 1
        self.round_seed = self.seed * 1_000_003 + self.rounds
        rng = random.Random(self.round_seed)
        self.runs = [(r, self.limit) for r in self.ranks] + [
            (_perturb(r, rng), max(64, self.limit // 4)) for r in self.ranks]

    def start_cpsat(self, capacity: int, floor: int, deadline: float) -> None:
        """With the capacity open, CP-SAT's runs at it (``_CpsatRuns``) on every partition still
        open there, started now rather than when the branch and bound reaches the partition, so
        that every view's runs work while any view's branch and bound does. From the first
        such round on, CP-SAT's k-th run is worth the k-th round's branch-and-bound runs (their
        limits double, as the runs' do)."""
        cap = self.aim(capacity, floor)
        if cap is None:
            return
        if self.at_capacity is None:
            self.at_capacity = _CpsatRuns(self.st, cap, _doubling(sum(n for _, n in self.runs), self.round_seed),
                                          deadline)
        cache = self.cache
        for pi, (members, _, _) in enumerate(cache.parts):
            if cap > cache.infeasible[pi] and cache.hit_at(pi, cap) is None:
                self.at_capacity.start(pi, members)

    def aim(self, capacity: int, floor: int) -> int | None:
        """While the capacity is open, the height this view aims at: the capacity, or the lower
        bound where that is higher (``floor``: the problem's). None once that height is out of
        reach — proven infeasible for this view, or for the problem by its own rounds — and
        the capacity is closed for the view."""
        if not self.open_capacity:
            return None
        cap = max(capacity, self.proven_lo, floor)
        if self.aimed is not None and cap > self.aimed:
            self.close_capacity()
            return None
        self.aimed = cap
        return cap

    def expand(self, sol: list[int]) -> list[int]:
        """Offsets of the original problem's buffers from a solution of this view's structure."""
        offsets = _offsets(self.problem, self.st, sol)
        return offsets if self.stacking is None else self.stacking.expand(offsets)

    def label(self) -> str:
        return "problem" if self.stacking is None else f"stacked({len(self.problem)} blocks)"

    def method(self) -> str:
        """Which methods solved this view's partitions (``stacked`` in front for that view)."""
        by = "+".join(sorted(set(self.cache.by)))
        return by if self.stacking is None else f"stacked {by}"

    def close_capacity(self) -> None:
        """The capacity is out of this view's reach: stop aiming at it."""
        self.open_capacity = False
        self.stop()

    def stop(self) -> None:
        if self.at_capacity is not None:
            self.at_capacity.stop()


class _Best:
    """The lowest plan of the problem found so far by any view (and which view found it)."""

    def __init__(self, height: int) -> None:
        self.height = height
        self.offsets: list[int] | None = None
        self.view: _View | None = None

    def offer(self, view: _View, problem: Problem, sol: list[int]) -> None:
        offsets = view.expand(sol)
        h = _height(problem, offsets)
        if h < self.height:
            self.height, self.offsets, self.view = h, offsets, view


def _det(nodes: int) -> float:
    """CP-SAT's deterministic limit worth the wall time of ``nodes`` branch-and-bound nodes."""
    return nodes / NODES_PER_SECOND * cpsat.DET_PER_SECOND


def _doubling(nodes: int, seed: int):
    """CP-SAT's runs for a partition, the k-th worth ``nodes * 2**k`` nodes (as the rounds'
    limits double), the k-th with seed ``seed + k`` plus the partition's index."""
    return lambda pi: ((_det(nodes << k), seed + k + pi) for k in itertools.count())


def _once(nodes: int, seed: int):
    """One CP-SAT run per partition, worth ``nodes`` nodes."""
    return lambda pi: [(_det(nodes), seed + pi)]


class _CpsatRuns:
    """CP-SAT beside the branch and bound at one cap: for every open partition a
    :class:`cpsat.Stream` of runs (``runs_of(partition)`` yields their deterministic limits and
    seeds), whose k-th run answers the k-th :meth:`consult` — the point where that partition's
    branch-and-bound runs have all failed for the k-th time. The next run starts as soon as one
    ends, so CP-SAT never waits for the branch and bound; a fresh seed every run, since CP-SAT's
    run lengths are heavy-tailed in its seed."""

    def __init__(self, st: _Structure, cap: int, runs_of, deadline: float) -> None:
        self.st, self.cap, self.runs_of, self.deadline = st, cap, runs_of, deadline
        self.streams: dict[int, cpsat.Stream] = {}
        self.consulted: dict[int, int] = {}

    def start(self, pi: int, members: list[int]) -> None:
        if pi in self.streams:
            return
        st = self.st
        local = {k: i for i, k in enumerate(members)}
        neighbours = None
        if st.control_flow:
            neighbours = [[local[u] for u in st.nbrs[k] if u in local] for k in members]
        sizes, starts, ends, aligns = ([v[k] for k in members] for v in (st.size, st.start, st.end, st.align))
        self.streams[pi] = cpsat.Stream(
            sizes, starts, ends, aligns, self.cap,
            self.runs_of(pi), max(0.0, self.deadline - time.perf_counter()), neighbours,
            cpsat.sweep_orders(sizes, starts, ends, self.cap))

    def consult(self, pi: int) -> cpsat.Fit:
        k = self.consulted.get(pi, 0)
        self.consulted[pi] = k + 1
        return self.streams[pi].outcome(k)

    def stop(self, pi: int | None = None) -> None:
        for key in ([pi] if pi is not None else list(self.streams)):
            if key in self.streams:
                self.streams[key].stop()


def _perturb(rank: list[int], rng: random.Random, sigma: float = 3.0) -> "_Rank":
    """A jittered copy of a preorder: every buffer moves by about ``sigma`` places (no named
    heuristic, so its sub-problems keep these ranks)."""
    key = [r + rng.gauss(0.0, sigma) for r in rank]
    order = sorted(range(len(rank)), key=key.__getitem__)
    out = _Rank([0] * len(rank))
    for r, k in enumerate(order):
        out[k] = r
    return out


class _PartCache:
    """Per partition: the lowest plan found so far and the largest cap proven infeasible."""

    def __init__(self, st: _Structure) -> None:
        self.parts = st.partitions()
        self.solved: list[tuple[int, list[int]] | None] = [None] * len(self.parts)
        self.by = ["branch-and-bound"] * len(self.parts)  # which method solved each partition
        self.infeasible = [-1] * len(self.parts)

    def hit_at(self, pi: int, cap: int) -> tuple[int, list[int]] | None:
        """Partition ``pi``'s cached plan when it fits under ``cap`` (its height, offsets)."""
        hit = self.solved[pi]
        return hit if hit is not None and hit[0] <= cap else None


register_strategy("search", SearchStrategy)
