"""The problems the exact search works on in rounds of their own: the problem itself, and its
stacked view (``stacking.py``: every class of buffers that share their whole lifetime packed as
one block).

Why the stacked view: the exact methods also try every interleaving of a class with the buffers
around it, which is most of their tree where they thrash; the blocks remove that. The view is a
restriction: its plans expand into plans of the buffers, but its failures prove nothing — only
the problem's own rounds raise the proven lower bound.
"""

from __future__ import annotations

import random

from ..problem import Problem
from ..stacking import Stacking, stack
from .cpsat_runs import CpsatRuns, doubling
from .partitions import PartCache
from .plans import height
from .sections import HEURISTICS, Rank, Structure

STACKED_MIN_SHARE = 0.1
"""The stacked view is used only when it removes at least this share of the buffers: a view that
merges a few classes is nearly the problem itself, so its rounds would mostly repeat the
problem's own at half their share."""


def stacked_view(problem: Problem) -> Stacking | None:
    """The stacked view when it removes at least :data:`STACKED_MIN_SHARE` of the buffers, else
    None."""
    stacked = stack(problem)
    if stacked is None or len(stacked.problem) > (1 - STACKED_MIN_SHARE) * len(problem):
        return None
    return stacked


def perturb(rank: list[int], rng: random.Random, sigma: float = 3.0) -> Rank:
    """A jittered copy of a preorder: every buffer moves by about ``sigma`` places (no named
    heuristic, so its sub-problems keep these ranks)."""
    key = [r + rng.gauss(0.0, sigma) for r in rank]
    order = sorted(range(len(rank)), key=key.__getitem__)
    out = Rank([0] * len(rank))
    for r, k in enumerate(order):
        out[k] = r
    return out


class View:
    """A problem the branch and bound works on in rounds of its own: the problem itself, or its
    stacked view (``stacking``). ``proven_lo``: every cap below it is infeasible for this view's
    problem."""

    def __init__(self, problem: Problem, lb: int, capacity: int | None, seed: int,
                 stacking: Stacking | None = None) -> None:
        self.problem, self.stacking, self.seed = problem, stacking, seed
        self.st = Structure(problem)
        self.ranks = [self.st.preorder(h) for h in HEURISTICS]
        self.cache = PartCache(self.st)
        self.proven_lo = lb
        self.limit = max(self.st.m, 64)
        self.rounds = 0
        self.round_seed = 0
        self.runs: list[tuple[Rank, int]] = []
        self.open_capacity = capacity is not None
        self.aimed: int | None = None
        self.at_capacity: CpsatRuns | None = None  # CP-SAT's runs at the capacity, across rounds
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
            (perturb(r, rng), max(64, self.limit // 4)) for r in self.ranks]

    def start_cpsat(self, capacity: int, floor: int, deadline: float) -> None:
        """With the capacity open, CP-SAT's runs at it on every partition still open there,
        started now rather than when the branch and bound reaches the partition, so that every
        view's runs work while any view's branch and bound does. From the first such round on,
        CP-SAT's k-th run is worth the k-th round's branch-and-bound runs (their limits double,
        as the runs' do)."""
        cap = self.aim(capacity, floor)
        if cap is None:
            return
        if self.at_capacity is None:
            self.at_capacity = CpsatRuns(self.st, cap, doubling(sum(n for _, n in self.runs), self.round_seed),
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
        offsets = self.st.expand(sol)
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


class Best:
    """The lowest plan of the problem found so far by any view (and which view found it)."""

    def __init__(self, height: int) -> None:
        self.height = height
        self.offsets: list[int] | None = None
        self.view: View | None = None

    def offer(self, view: View, problem: Problem, sol: list[int]) -> None:
        offsets = view.expand(sol)
        h = height(problem, offsets)
        if h < self.height:
            self.height, self.offsets, self.view = h, offsets, view
