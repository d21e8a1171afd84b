"""Branch and bound over canonical placements: does a partition of the buffers fit under a cap?

In the style of MiniMalloc (Moffitt, "MiniMalloc: A Lightweight Memory Allocator for
Hardware-Accelerated Machine Learning", ASPLOS 2023; google/minimalloc ``src/solver.cc``).
Buffers are placed one at a time, each at its *canonical* offset: the top of the already-placed
buffers it overlaps (aligned up), so the search never tries offsets inside gaps. Pruning rules:

* **canonical ordering** — placements happen in non-decreasing ``(offset, preorder)``; a buffer
  whose key is below the last placement's is skipped at this node;
* **dominance** — no buffer is placed at or above the lowest possible top
  ``min(min_offset + size)`` of the unplaced buffers (that would leave a gap another buffer
  fills), and when a placed buffer has nothing unplaced above it ("hatless") its siblings need
  not be tried after it fails;
* **section inference with a monotonic floor** — in every section (``sections.py``) the unplaced
  bytes must still fit on top of ``max(section floor, current offset)``;
* **dynamic ordering** — candidates are tried by their current minimum offset, ties broken by a
  static preorder (MiniMalloc's ``WAT``/``TAW``/``TWA``);
* **dynamic decomposition** — once every buffer crossing a section boundary is placed, the two
  sides are solved independently, each preordered afresh on the sections' remaining totals (as
  MiniMalloc's ``SubSolve`` does: with the static ranks some instances thrash where MiniMalloc
  fits them at once).

Control flow: buffers in exclusive branches are not neighbours, so they may share addresses.
Section totals and floors assume that every buffer of a section conflicts with every other, which
branches break, so with branch paths those two pruning rules are off (plans stay valid; the search
is weaker, and its failures prove nothing). Alignment is honoured by rounding every canonical
offset up.
"""

from __future__ import annotations

import bisect
import sys

import numpy as np

from .sections import Rank, Structure
from .work import Work

OK, FAIL, ABORT = 0, 1, 2
"""A run's outcome: a plan under the cap, the cap proven infeasible, or the work ran out."""

_BIG = 1 << 62
_UMAX, _UMIN = np.maximum.reduce, np.minimum.reduce


class Abort(Exception):
    """The work ran out in the middle of the search."""


class BranchAndBound:
    """Decide whether the buffers fit under ``cap``; offsets in :attr:`solution` on success.

    The state of a node: ``assign`` (offset of every placed buffer, -1 otherwise), ``min_off``
    (every unplaced buffer's canonical offset; ``mo`` mirrors it in numpy, placed buffers at
    ``_BIG``), per section the ``floor`` under which placed buffers leave no room and the ``total``
    of unplaced bytes, and ``cuts``, the unplaced buffers across every section boundary. Every
    placement is undone on the way back up."""

    def __init__(self, st: Structure, cap: int, rank: Rank, work: Work) -> None:
        self.st = st
        self.cap = cap
        self.rank = rank
        self.work = work
        m = st.m
        self.size, self.align, self.nbrs = st.size, st.align, st.nbrs
        self.sec_lo, self.sec_hi = st.sec_lo, st.sec_hi
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
            if status != OK:
                return status
        return OK

    def run_part(self, members: list[int], a: int, z: int) -> int:
        """Solve one independent partition (buffers ``members``, sections ``[a, z)``)."""
        if any(self.size[k] > self.cap for k in members):
            return FAIL
        # The depth-first search recurses once per placed buffer (pure-Python frames, which
        # CPython >= 3.11 runs without growing the C stack).
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, 3 * self.st.m + 1000))
        try:
            return self._solve(members, a, z)
        except Abort:
            return ABORT
        finally:
            sys.setrecursionlimit(old_limit)

    def _solve(self, members: list[int], a: int, z: int) -> int:
        rank = self.rank
        min_off = self.min_off
        keys = sorted((min_off[k], rank[k], k) for k in members if self.assign[k] < 0)
        if not keys:
            return OK
        return self._dfs(keys, (-1, -1, -1), members, a, z)

    # ---------------------------------------------------------------------------- one node

    def _dfs(self, keys: list, last: tuple, members: list[int], a: int, z: int) -> int:
        """One node: place one more unplaced buffer of the partition (``keys``, sorted
        ``(min_off, rank, buffer)``; ``last``: the key placed at the parent), trying the
        candidates in key order, and search on below it."""
        if not self.work.spend():
            raise Abort
        if not keys:
            self._record(members)
            return OK
        cands = self._candidates(keys, last)
        if not cands:
            return FAIL
        size, infer = self.size, self.infer
        checked_off, violated = -1, None
        for key in cands:
            off, _, b = key
            h = off + size[b]
            ok = True
            if infer:
                # Every section at `off` is checked once per offset (the candidates come sorted).
                if off != checked_off:
                    checked_off, violated = off, self._violated(a, z, off)
                ok = violated is None or self._relieves(b, off, violated)
            ok, hatless, pushed = self._push_up(b, h, ok)
            if ok:
                status = self._place(keys, key, h, pushed, members, a, z)
                if status == OK:
                    self.solution[b] = off
                    return OK
            if hatless:
                break
        return FAIL

    def _record(self, members: list[int]) -> None:
        """Every buffer of the partition is placed: that is its solution."""
        sol, assign = self.solution, self.assign
        for k in members:
            sol[k] = assign[k]

    def _candidates(self, keys: list, last: tuple) -> list:
        """The keys below the lowest reachable top (dominance), after ``last`` (canonical order)."""
        size = self.size
        mh = _BIG
        for off, _, k in keys:
            if off >= mh:
                break
            h = off + size[k]
            if h < mh:
                mh = h
        return keys[bisect.bisect_right(keys, last):bisect.bisect_left(keys, (mh,))]

    def _violated(self, a: int, z: int, off: int) -> tuple[int, int] | None:
        """The first and last section of ``[a, z)`` whose unplaced bytes no longer fit on top of
        its floor or ``off`` (the monotonic floor: nothing unplaced goes below ``off``), or None."""
        v = np.maximum(self.floor[a:z], off)
        v += self.total[a:z]
        if not _UMAX(v) > self.cap:
            return None
        viol = (v > self.cap).nonzero()[0]
        return int(viol[0]) + a, int(viol[-1]) + a

    def _relieves(self, b: int, off: int, violated: tuple[int, int]) -> bool:
        """Whether placing ``b`` at ``off`` mends the ``violated`` sections: it only relaxes its
        own sections (their floor rises to its top, their unplaced total drops by its size), so
        they must all lie inside its range, and fit there once it is placed."""
        lo, hi = self.sec_lo[b], self.sec_hi[b]
        vlo, vhi = violated
        if vlo < lo or vhi >= hi:
            return False
        v = self.floor[lo:hi] - self.size[b]
        np.maximum(v, off, out=v)
        v += self.total[lo:hi]
        return not _UMAX(v) > self.cap

    def _push_up(self, b: int, h: int, ok: bool) -> tuple[bool, bool, tuple]:
        """The unplaced neighbours that ``b``, topped at ``h``, pushes up: ``(ok, hatless,
        (buffers, their new minimum offsets, the sections they and b cover))``. ``ok`` turns
        False when one of them no longer fits under the cap; ``hatless``: ``b`` has no unplaced
        neighbour. With ``ok`` False on entry, only ``hatless`` is worked out."""
        assign, min_off, align, size, sec_lo, sec_hi = (
            self.assign, self.min_off, self.align, self.size, self.sec_lo, self.sec_hi)
        cap = self.cap
        cu: list[int] = []
        cnew: list[int] = []
        hatless = True
        ra, rz = sec_lo[b], sec_hi[b]
        for u in self.nbrs[b]:
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
        return ok, hatless, (cu, cnew, ra, rz)

    # ------------------------------------------------------------------ place, descend, undo

    def _place(self, keys: list, key: tuple, h: int, pushed: tuple, members: list[int], a: int, z: int) -> int:
        """Place the buffer of ``key`` (topped at ``h``), pushing its neighbours up, search on
        below it when the sections still admit the unplaced bytes, then undo the placement."""
        off, _, b = key
        cu, cnew, ra, rz = pushed
        lo, hi, sb = self.sec_lo[b], self.sec_hi[b], self.size[b]
        floor, total, mo = self.floor, self.total, self.mo
        self.assign[b] = off
        mo[b] = _BIG
        cold = [self.min_off[u] for u in cu]
        if cu:
            mo[cu] = cnew
        ok = True
        if self.infer:
            old_floor = floor[lo:hi].copy()
            np.maximum(old_floor, h, out=floor[lo:hi])
            total[lo:hi] -= sb
            ok = self._unallocated_floor_fits(off, ra, rz)
        status = self._descend(keys, key, cu, cnew, cold, members, a, z) if ok else FAIL
        if self.infer:
            total[lo:hi] += sb
            floor[lo:hi] = old_floor
        if cu:
            mo[cu] = cold
        self.assign[b] = -1
        mo[b] = off
        return status

    def _unallocated_floor_fits(self, off: int, ra: int, rz: int) -> bool:
        """The unallocated floor: no unplaced buffer of a section sits below the lowest minimum
        offset among them, so each section's unplaced bytes must fit on top of that (or of its
        floor, or of ``off``). Only the sections ``[ra, rz)`` — the placed buffer's and those of
        the buffers it pushed up — can have changed."""
        st = self.st
        ptr, ptrl, mem = st.sec_ptr, st.sec_ptr_list, st.sec_members
        p0 = ptrl[ra]
        uf = np.minimum.reduceat(self.mo[mem[p0:ptrl[rz]]], ptr[ra:rz] - p0)
        np.maximum(uf, self.floor[ra:rz], out=uf)
        np.maximum(uf, off, out=uf)
        uf += self.total[ra:rz]
        return _UMAX(uf) <= self.cap

    def _descend(self, keys: list, key: tuple, cu: list[int], cnew: list[int], cold: list[int],
                 members: list[int], a: int, z: int) -> int:
        """The search below a placement: ``key`` leaves the keys and the pushed neighbours ``cu``
        move to their new minimum offsets ``cnew`` (back to ``cold`` afterwards). Where the
        placement leaves no buffer across a section boundary inside its range, the sides are
        solved apart (:meth:`_decompose`)."""
        b = key[2]
        pos = bisect.bisect_left(keys, key)
        del keys[pos]
        self._move(keys, cu, cnew)
        lo, hi = self.sec_lo[b], self.sec_hi[b]
        if hi - lo >= 2:
            seg = self.cuts[lo:hi - 1]
            seg -= 1
            if _UMIN(seg) == 0:
                zero = (seg == 0).nonzero()[0].tolist()
                status = self._decompose(members, a, z, [lo + 1 + s for s in zero])
            else:
                status = self._dfs(keys, key, members, a, z)
            seg += 1
        else:
            status = self._dfs(keys, key, members, a, z)
        self._move(keys, cu, cold)
        keys.insert(pos, key)
        return status

    def _move(self, keys: list, buffers: list[int], offsets: list[int]) -> None:
        """Give ``buffers`` the minimum offsets ``offsets``, keeping ``keys`` sorted."""
        rank, min_off = self.rank, self.min_off
        for u, new in zip(buffers, offsets):
            r = rank[u]
            del keys[bisect.bisect_left(keys, (min_off[u], r, u))]
            min_off[u] = new
            bisect.insort(keys, (new, r, u))

    # ------------------------------------------------------------------------ decomposition

    def _decompose(self, members: list[int], a: int, z: int, zeros: list[int]) -> int:
        """Solve the unplaced buffers of the partition as independent pieces, split at the section
        boundaries ``zeros`` that no unplaced buffer crosses any more."""
        st = self.st
        assign = self.assign
        unplaced = [k for k in members if assign[k] < 0]
        cut_points = [a, *[s for s in zeros if a < s < z], z]
        # A buffer belongs to every piece its section range meets; by construction it meets one.
        heuristic = self.rank.heuristic
        rerank = heuristic if heuristic is not None and "T" in heuristic and self.infer else None
        for part, pa, pz in st.split(unplaced, cut_points):
            if rerank is not None:
                # As MiniMalloc's SubSolve does: a sub-problem is preordered afresh, its ``T`` being
                # the sections' totals of what is still unplaced.
                status = self._solve_reranked(part, pa, pz, rerank)
            else:
                status = self._solve(part, pa, pz)
            if status != OK:
                return FAIL
        sol = self.solution
        for k in members:
            if assign[k] >= 0:
                sol[k] = assign[k]
        return OK

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
