"""The ``search`` strategy: the driver that runs the search's parts in turn within a budget."""

from __future__ import annotations

import random
import time
from typing import Sequence

from ..bounds import lower_bound
from ..problem import Problem, Solution
from ..portfolio import GREEDY
from ..strategy import Strategy
from ..validate import find_conflicts
from .climb import hill_climb, order_of
from .plans import height, large_first
from .polish import EXACT_MAX, EXACT_NODES, exact_polish
from .rounds import exact_search
from .work import NODES_PER_SECOND, Work

EXACT_SHARE = 0.7
"""The exact search's share of the budget without a capacity; the hill climb gets the rest."""

EXACT_SHARE_CAPACITY = 0.9
"""The exact search's share of the budget with a capacity (it is what fits a capacity)."""


class _Incumbent:
    """The best plan so far and the method that found it."""

    def __init__(self, problem: Problem, offsets: Sequence[int], source: str) -> None:
        self.problem = problem
        self.offsets: Sequence[int] = offsets
        self.height, self.source = height(problem, offsets), source

    def offer(self, offsets: Sequence[int], h: int, source: str) -> None:
        """Keep the plan when it is strictly lower."""
        if h < self.height:
            self.offsets, self.height, self.source = offsets, h, source


class SearchStrategy(Strategy):
    """Anytime search from the greedy portfolio's best plan (see :mod:`memopt.planning.search`).
    ``stacking=False`` leaves out the stacked view (the buffers alone)."""

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

    @staticmethod
    def _greedy(problem: Problem, skip: tuple[str, ...] = ()) -> Solution | None:
        """The greedy portfolio's best plan: every built-in greedy strategy of the portfolio
        (:data:`GREEDY`)."""
        best = None
        for factory in GREEDY:
            if factory.name in skip or not factory.in_portfolio:
                continue
            sol = factory().plan(problem)
            if best is None or sol.height < best.height:
                best = sol
        return best

    def plan(self, problem: Problem) -> Solution:
        """Large-first, the portfolio (first with a capacity, since it often fits at once; else
        only when the exact search has not proven its plan optimal), the exact search, ``best``'s
        polish of the portfolio's plan, then the hill climb; each step only while the best plan
        misses the target (the lower bound, or the capacity)."""
        t0 = time.perf_counter()
        n = len(problem)
        lb = lower_bound(problem)
        target = lb if self.capacity is None else max(lb, self.capacity)
        seed_plan = large_first(problem)
        best = _Incumbent(problem, seed_plan, "large-first")
        self.stats = {"lb": lb, "greedy": best.height}
        portfolio: list[int] | None = None  # the portfolio's best plan, once it has run
        if self.capacity is not None and best.height > target:
            portfolio = self._portfolio(problem, best, seed_plan)
        work = Work(self.nodes, t0 + self.budget)
        proven = n > 0 and best.height > target and self._exact(problem, best, lb, work, t0)
        if portfolio is None and best.height > target and not proven:
            portfolio = self._portfolio(problem, best, seed_plan)
        if best.height > target and not proven and n <= EXACT_MAX and not problem.has_control_flow:
            # ``best``'s own polish of the portfolio's plan (a few thousand nodes), only when the
            # target was missed: so that the search ends no higher than the default would.
            assert portfolio is not None  # made just above when the target was missed
            best.offer(*exact_polish(problem, portfolio, EXACT_NODES), "exact-polish")
        if n and best.height > target and work.left > 0 and not proven:
            _, offs, h = hill_climb(problem, order_of(problem, best.offsets), target, random.Random(self.seed), work)
            best.offer(offs, h, "hill-climb")
        self.stats.update(height=best.height, source=best.source, work=work.used, portfolio=portfolio is not None,
                          seconds=time.perf_counter() - t0)
        return Solution.of(problem, best.offsets, self.name)

    def _portfolio(self, problem: Problem, best: _Incumbent, seed_plan: list[int]) -> list[int]:
        """Run the rest of the greedy portfolio: offer its plan to ``best`` and return the lowest
        of it and large-first's ``seed_plan`` (what ``best``, the default strategy, would polish)."""
        g = self._greedy(problem, skip=("large-first",))
        if g is None:
            return seed_plan
        self.stats["greedy"] = min(self.stats["greedy"], g.height)
        best.offer(list(g.offsets), g.height, g.strategy)
        return list(g.offsets) if g.height < height(problem, seed_plan) else seed_plan

    def _exact(self, problem: Problem, best: _Incumbent, lb: int, work: Work, t0: float) -> bool:
        """The exact search with its share of the budget, charged to ``work``; offers its plan to
        ``best`` and says whether the best plan is proven optimal. With branches the pruning is
        not exact, so nothing counts as proven there."""
        share = EXACT_SHARE if self.capacity is None else EXACT_SHARE_CAPACITY
        bb_work = Work(int(self.nodes * share), t0 + share * self.budget)
        res = exact_search(problem, best.height, lb, bb_work, self.capacity, self.seed, self.stacking, self.stats)
        work.charge(bb_work.used)
        proven = not problem.has_control_flow and (
            self.stats.get("proven_lb", -1) >= min(best.height, res[1] if res else best.height))
        # Planners are never trusted: a plan that fails the validator is dropped.
        if res is not None and res[1] < best.height and not find_conflicts(problem, res[0]):
            best.offer(res[0], res[1], self.stats.get("exact", "branch-and-bound"))
        return proven

