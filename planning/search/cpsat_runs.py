"""CP-SAT beside the branch and bound: the runs OR-Tools' CP-SAT (``cpsat.py``) makes on every
partition the branch and bound works on at one cap.

Why a stream of runs rather than one run per round: the k-th run is worth the wall time of the
k-th round's branch-and-bound runs and answers that round, and the next starts as soon as one
ends, so CP-SAT never waits for the branch and bound and the second core stays busy. A fresh seed
every run: CP-SAT's run lengths are heavy-tailed in its seed, so restarting with a new seed and a
doubled limit beats replaying the same search. Which answer counts is fixed by the caller
(``partitions.try_cap``), never by which thread finished first.
"""

from __future__ import annotations

import itertools
import time

from .. import cpsat
from .sections import Structure
from .work import NODES_PER_SECOND


def det(nodes: int) -> float:
    """CP-SAT's deterministic limit worth the wall time of ``nodes`` branch-and-bound nodes."""
    return nodes / NODES_PER_SECOND * cpsat.DET_PER_SECOND


def doubling(nodes: int, seed: int):
    """CP-SAT's runs for a partition, the k-th worth ``nodes * 2**k`` nodes (as the rounds'
    limits double), the k-th with seed ``seed + k`` plus the partition's index."""
    return lambda pi: ((det(nodes << k), seed + k + pi) for k in itertools.count())


def once(nodes: int, seed: int):
    """One CP-SAT run per partition, worth ``nodes`` nodes."""
    return lambda pi: [(det(nodes), seed + pi)]


class CpsatRuns:
    """CP-SAT beside the branch and bound at one cap: for every open partition a
    :class:`cpsat.Stream` of runs (``runs_of(partition)`` yields their deterministic limits and
    seeds), whose k-th run answers the k-th :meth:`consult` — the point where that partition's
    branch-and-bound runs have all failed for the k-th time."""

    def __init__(self, st: Structure, cap: int, runs_of, deadline: float) -> None:
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
