"""One cap, every independent partition: the branch and bound's runs on each, CP-SAT's answer
where they all fail, and what is known per partition across caps.

Why per partition: partitions (no buffer live across their boundary) are independent, and one
preorder rarely suits all of them, so each gets the first run that solves it; and a partition
solved at some cap stays solved for every larger cap.
"""

from __future__ import annotations

from .. import cpsat
from .bnb import ABORT, FAIL, OK, BranchAndBound
from .cpsat_runs import CpsatRuns
from .sections import Rank, Structure
from .work import Work

_OPEN = -1
"""A partition neither solved nor refuted at a cap by every run and CP-SAT's answer."""


class PartCache:
    """Per partition: the lowest plan found so far and the largest cap proven infeasible."""

    def __init__(self, st: Structure) -> None:
        self.st = st
        self.parts = st.partitions()
        self.solved: list[tuple[int, list[int]] | None] = [None] * len(self.parts)
        self.by = ["branch-and-bound"] * len(self.parts)  # which method solved each partition
        self.infeasible = [-1] * len(self.parts)

    def hit_at(self, pi: int, cap: int) -> tuple[int, list[int]] | None:
        """Partition ``pi``'s cached plan when it fits under ``cap`` (its height, offsets)."""
        hit = self.solved[pi]
        return hit if hit is not None and hit[0] <= cap else None

    def solve(self, pi: int, offsets: list[int], by: str) -> tuple[int, list[int]]:
        """Record ``offsets`` (of the partition's members, in order) as partition ``pi``'s plan."""
        size = self.st.size
        hit = (max(o + size[k] for k, o in zip(self.parts[pi][0], offsets)), offsets)
        self.solved[pi] = hit
        self.by[pi] = by
        return hit

    def refute(self, pi: int, cap: int) -> None:
        """Partition ``pi`` does not fit under ``cap``."""
        self.infeasible[pi] = max(self.infeasible[pi], cap)


def try_cap(st: Structure, cap: int, runs: list[tuple[Rank, int]], work: Work, cache: PartCache,
            exact: CpsatRuns | None = None) -> tuple[int, list[int] | None]:
    """Fit every independent partition under ``cap``: ``(OK, offsets)``, ``(FAIL, None)`` when
    one partition is proven infeasible (so is the cap), else ``(ABORT, None)``.

    ``runs`` are (preorder, node limit) pairs, tried in turn on each partition not cached. With
    ``exact``, CP-SAT works on every open partition meanwhile; its answer counts only when all of
    ``runs`` failed (a fixed rule, so the outcome does not depend on which thread finished first).
    """
    sol = [-1] * st.m
    status = OK
    for pi, (members, _, _) in enumerate(cache.parts):
        if cap <= cache.infeasible[pi]:
            return FAIL, None
        hit = cache.hit_at(pi, cap)
        if hit is None:
            part_status, hit = _fit_partition(st, cap, runs, work, cache, pi, exact)
            if part_status in (FAIL, ABORT):
                return part_status, None
        if hit is None:
            status = ABORT  # keep going: the other partitions may still fit (and be cached)
            continue
        for k, o in zip(members, hit[1]):
            sol[k] = o
    return status, (sol if status == OK else None)


def _fit_partition(st: Structure, cap: int, runs: list[tuple[Rank, int]], work: Work, cache: PartCache,
                   pi: int, exact: CpsatRuns | None) -> tuple[int, tuple[int, list[int]] | None]:
    """Partition ``pi`` under ``cap``: ``(OK, its plan)``, ``(FAIL, None)`` when proven
    infeasible, ``(ABORT, None)`` when the work ran out, ``(_OPEN, None)`` when nothing
    decided it."""
    members, a, z = cache.parts[pi]
    if exact is not None:
        exact.start(pi, members)
    status, hit = _runs(st, cap, runs, work, cache, pi)
    if status == _OPEN and exact is not None:
        res = exact.consult(pi)
        if res.status == cpsat.FIT:
            assert res.offsets is not None  # a fit has its offsets
            status, hit = OK, cache.solve(pi, list(res.offsets), "cp-sat")
        elif res.status == cpsat.INFEASIBLE:  # the model is exact, even with branches
            cache.refute(pi, cap)
            status = FAIL
    if status == OK and exact is not None:
        exact.stop(pi)
    return status, hit


def _runs(st: Structure, cap: int, runs: list[tuple[Rank, int]], work: Work, cache: PartCache,
          pi: int) -> tuple[int, tuple[int, list[int]] | None]:
    """The branch and bound's ``runs`` on partition ``pi``, until one decides it."""
    members, a, z = cache.parts[pi]
    for rank, limit in runs:
        if work.left <= 0:
            return ABORT, None
        sub = Work(min(limit, work.left), work.deadline, work.stop)
        bb = BranchAndBound(st, cap, rank, sub)
        part_status = bb.run_part(members, a, z)
        work.charge(sub.used)
        if part_status == OK:
            return OK, cache.solve(pi, [bb.solution[k] for k in members], "branch-and-bound")
        if part_status == FAIL:
            cache.refute(pi, cap)
            return FAIL, None
    return _OPEN, None
