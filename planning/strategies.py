"""The registry that names every placement strategy, and ``best``, the portfolio of them all.

The built-in strategies are listed once, explicitly, in :data:`_REGISTRY`: the greedy ones in
portfolio order (:data:`memopt.planning.portfolio.GREEDY`), then the anytime ``search``. No
strategy registers itself when its module is imported, so the order never depends on which
module was imported first. :func:`register_strategy` adds one at run time (after the built-ins).

``best`` runs every registered strategy that takes part in the portfolio and keeps the lowest
arena (ties go to the earlier registered strategy, so the choice is deterministic). The greedy
first-fit orders and the :class:`Strategy` interface live in :mod:`memopt.planning.strategy`.
"""

from __future__ import annotations

import math
from typing import Callable

from . import aim
from .bounds import lower_bound_inplace
from .firstfit import first_fit_cost, first_fit_work
from .portfolio import GREEDY
from .problem import PlanningError, Problem, Solution
from .search import climb, descent, exact_polish
from .search.polish import EXACT_MAX, EXACT_NODES
from .search.strategy import SearchStrategy
from .strategy import LargeFirst, OrderedFirstFit, Sequential, ShortFirst, Strategy
from .validate import find_conflicts


_BUILT_IN: tuple[type[Strategy], ...] = (*GREEDY, SearchStrategy)
_REGISTRY: dict[str, Callable[..., Strategy]] = {cls.name: cls for cls in _BUILT_IN}
"""Every selectable strategy by name, in portfolio order (``best`` aside)."""


def register_strategy(name: str, factory: Callable[..., Strategy]) -> None:
    """Make ``factory`` available as ``name`` (to passes, ``memopt-pack`` and ``best``)."""
    _REGISTRY[name] = factory


def strategy_names() -> list[str]:
    """Every selectable name, ``best`` included, in registration order."""
    return [*_REGISTRY, "best"]


def make_strategy(name: str, **options) -> Strategy:
    """Instantiate a registered strategy; unknown names raise a one-line :class:`PlanningError`."""
    if name == "best":
        return Best(**options)
    factory = _REGISTRY.get(name)
    if factory is None:
        raise PlanningError(
            f"unknown strategy '{name}' (expected one of: {', '.join(strategy_names())})"
        )
    return factory(**options)


POLISH_WORK = 600_000
"""Work a polish may spend in all, in first-fit work units (see :func:`first_fit_work`): about
0.7 s on this code, whatever the problem's shape."""


def polish_evaluations(problem: Problem) -> int:
    """First-fit runs a polish may spend on ``problem``: :data:`POLISH_WORK` over one run's
    :func:`first_fit_work`, at most 256 (none when one run alone exceeds the budget)."""
    work = first_fit_work(problem)
    return min(256, POLISH_WORK // work) if work else 0


class Best(Strategy):
    """Run the whole portfolio, keep the smallest arena, and polish it when above the bound.

    ``budget`` (seconds) admits the anytime strategies, each given that budget; ``options`` maps
    a member's name to its constructor keywords.

    Exact step: on problems of a few hundred buffers (:func:`aim.eligible`), CP-SAT aims at
    ``LB_inplace`` in a background thread while the portfolio runs (``aim.py``: a few attempts of
    its fixed search, the stacked view first, limited by counted work); when the portfolio ends
    above the bound and an attempt fitted, that plan is taken (``"cp-sat"``, optimal). Why:
    minimalloc-like instances, where the greedy orders stay several percent above a reachable
    bound, fit there within a few dozen of CP-SAT's conflicts.

    Polish: when the lowest plan is still above ``LB_inplace`` (a valid bound, in-place reuse
    counted), problems of at most :data:`EXACT_MAX` buffers without branches get a short
    branch and bound (:data:`EXACT_NODES` nodes, ``"<member>+exact"``); otherwise, or when it
    finds nothing lower, a short deterministic hill climb over the first-fit order
    (:func:`memopt.planning.search.climb`, at most :func:`polish_evaluations` runs, about
    0.7 s at worst) tries to
    close the gap; the name then reads ``"<member>+climb"``. Why: the greedy orders leave a
    few long-lived tensors above others on real models (mediapipe hand_landmark_full: 4,315,136
    bytes, 7 % above the bound, which the first re-packing in offset order reaches), and a few
    hundred first-fit runs cost far less than the anytime search. ``polish=False`` keeps the
    portfolio's plan as is.

    Large inputs: from :attr:`MEDIUM` buffers four members run (:attr:`MEDIUM_MEMBERS`); above
    :attr:`LARGE` (50,000) buffers the portfolio is cut to ``skyline`` and ``large-first``, the
    one estimated cheaper first (:func:`large_members`: ``large-first`` is the fastest member on
    short lifetimes, ``nnvm`` alone takes minutes at a million buffers; the skyline the fastest
    on long-lived training traces, where a first fit scans a third of the trace per buffer), and
    the polish is skipped, so the default answers in seconds to tens of seconds at 10^6 buffers.
    Size and counted-work rules, not a clock: the same input gives the same plan on every
    machine. An explicit ``budget`` keeps the whole portfolio.
    """

    name = "best"
    LARGE = 50_000
    MEDIUM = 5_000
    """From this many buffers (up to :attr:`LARGE`) only :attr:`MEDIUM_MEMBERS` run, in
    their order: on generated traces of 5k-20k buffers of four shapes (long-lived training
    steps, ``training_like``, ``nn_like``, ``dense``) none of the other members was ever lower
    than the best of these (``bench/portfolio.py``), and each costs as much as one of them.
    Peak stacking runs here and, after the portfolio, from :data:`DESCENT_MAX` buffers on
    (:attr:`PAST_DESCENT`)."""
    PAST_DESCENT = ("peak-stack",)
    """Members that join the portfolio above :data:`DESCENT_MAX` buffers, where the polish is
    no longer the descent at the bound (which closes the holes they close) but a climb."""
    MEDIUM_MEMBERS = ("skyline", "peak-stack", "megengine", "large-first")
    """Skyline first: it is the member that reaches the bound on most long-lived training traces
    (where a member reaching the bound ends the run), and the lowest on the other shapes; then
    peak stacking (not in the small portfolio), which closes the holes the others leave at the
    peak step of the rest; large-first, the costliest there (its first fit scans a third of the
    trace per buffer), last."""

    def __init__(
        self, budget: float | None = None, options: dict[str, dict] | None = None, polish: bool = True
    ) -> None:
        self.budget = budget
        self.options = options or {}
        self.polish = polish
        self.stats: dict = {}

    def members(self, named: tuple[str, ...] = ()) -> list[Strategy]:
        """The portfolio's members, or the strategies ``named`` whether in the portfolio or not."""
        members = []
        for name, factory in _REGISTRY.items():
            if not (name in named if named else getattr(factory, "in_portfolio", True)):
                continue
            kwargs = dict(self.options.get(name, {}))
            if getattr(factory, "uses_budget", False):
                if self.budget is None:
                    continue
                kwargs.setdefault("budget", self.budget)
            members.append(factory(**kwargs))
        return members

    def plan(self, problem: Problem) -> Solution:
        n = len(problem)
        portfolio = self.members()
        if self.budget is None and n > self.LARGE:
            keep: tuple[str, ...] = large_members(problem)
        elif self.budget is None and n >= self.MEDIUM:
            keep = self.MEDIUM_MEMBERS
        else:
            keep = tuple(m.name for m in portfolio)
            if self.budget is None and n > DESCENT_MAX:
                keep += self.PAST_DESCENT
        skipped = [m.name for m in portfolio if m.name not in keep]
        members = sorted(self.members(keep), key=lambda m: keep.index(m.name))
        lb = lower_bound_inplace(problem)  # no plan goes below it: a member reaching it ends the run
        # The exact step (aim.py) works beside the portfolio; its fit counts only when the
        # portfolio ends above the bound, so the outcome does not depend on which finished first.
        # It starts once the first member has run and left a gap (most small problems close
        # it there, and the thread's set-up would slow the portfolio for nothing).
        aims = self.polish and self.budget is None and n <= self.LARGE and aim.eligible(problem)
        aiming: aim.Aim | None = None
        best: Solution | None = None
        ran: list[str] = []
        for strategy in members:
            if best is not None and best.height <= lb:
                skipped.append(f"{strategy.name} (lower bound reached)")
                continue
            sol = strategy.plan(problem)
            ran.append(strategy.name)
            if best is None or sol.height < best.height:
                best = sol
            if aims and aiming is None and best.height > lb:
                aiming = aim.Aim(problem, lb)
        assert best is not None
        polish = "none"
        if aiming is not None and best.height <= lb:
            aiming.stop()
        elif aiming is not None:
            best, polish = self._aim_and_polish(problem, best, aiming)
        elif self.polish and n <= self.LARGE and best.height > lb:
            best, polish = self._polished(problem, best)
        elif self.polish and best.height > lb:
            polish = f"skipped (over {self.LARGE:,} buffers)"
        self.stats = {"members": ran, "skipped": skipped, "polish": polish,
                      "aim": aiming.attempts if aiming is not None else None}
        return best

    @staticmethod
    def _polished(problem: Problem, best: Solution, stop: Callable[[], bool] | None = None) -> tuple[Solution, str]:
        """The polish of ``best`` and what it did, for the stats."""
        sol = polished(problem, best, stop)
        if sol is not best:
            return sol, sol.strategy.rsplit("+", 1)[1]
        return sol, "no gain" if _polish_searches(problem) else "none possible (one first fit exceeds the climb's work)"

    def _aim_and_polish(self, problem: Problem, best: Solution, aiming: aim.Aim) -> tuple[Solution, str]:
        """The exact step's fit when it has one, else the polish of ``best``. The polish runs
        while the attempts do (on another core: CP-SAT releases the GIL) and stops once they
        fit, since a fit is taken whenever there is one: which finishes first never decides
        the plan, so a fit costs its attempts' time, a miss the longer of the two, not their sum."""
        low, done = self._polished(problem, best, stop=aiming.fitted)
        offsets = aiming.offsets()
        if offsets is not None and not find_conflicts(problem, offsets):  # never trusted
            return Solution.of(problem, offsets, "cp-sat"), "cp-sat"
        if offsets is not None:  # the polish stopped for a fit that failed its check: run it whole
            low, done = self._polished(problem, best)
        return low, f"cp-sat found none, {done}"


SKYLINE_RULE_WORK = 2_500
"""What one fill rule of the skyline costs per buffer, in :func:`first_fit_work` units (about
four heap steps of a few microseconds each per buffer)."""

LARGE_SECOND_WORK = 300_000_000
"""Work the skyline (both fill rules) may cost above :attr:`Best.LARGE` buffers when it runs
second, in :func:`first_fit_work` units (about three seconds)."""


def large_members(problem: Problem) -> tuple[str, ...]:
    """The members ``best`` runs above :attr:`Best.LARGE` buffers, in order: the skyline and
    large-first, the one whose first plan costs less first (a first fit
    :func:`memopt.planning.firstfit.first_fit_cost`, a skyline fill rule
    :data:`SKYLINE_RULE_WORK` per buffer);
    large-first always (so the plan is never above its), the skyline second only when it costs
    at most :data:`LARGE_SECOND_WORK`. Why both: on long-lived training traces (IOPDDL's, tens
    of thousands of buffers) the skyline reaches the bound where large-first stays a few tenths
    of a percent above it, at a fraction of its cost (a first fit there scans a third of the
    trace per buffer); on short lifetimes large-first is the cheaper and reaches it."""
    n = len(problem)
    if SKYLINE_RULE_WORK * n < first_fit_cost(problem):
        return ("skyline", "large-first")
    return ("large-first", "skyline") if 2 * SKYLINE_RULE_WORK * n <= LARGE_SECOND_WORK else ("large-first",)


DESCENT_MAX = 2_000
"""Problems above :data:`EXACT_MAX` and up to this many buffers (without branches) first try
the branch and bound's descent at the bound (:func:`memopt.planning.search.descent`): about
3 s at 2,000 buffers, and its structure grows with the pairs of buffers live together."""


def _exact_applies(problem: Problem) -> bool:
    return len(problem) <= EXACT_MAX and not problem.has_control_flow


def _descent_applies(problem: Problem) -> bool:
    return len(problem) <= DESCENT_MAX and not problem.has_control_flow and not problem.overwrites


def _polish_searches(problem: Problem) -> bool:
    """Whether :func:`polished` searches at all on ``problem``: the branch and bound or the
    descent where they apply, else a climb of at least one first-fit run."""
    return _exact_applies(problem) or _descent_applies(problem) or polish_evaluations(problem) > 0


def polished(problem: Problem, solution: Solution, stop: Callable[[], bool] | None = None) -> Solution:
    """``solution``, or a lower plan found by a short polish when it is above ``LB_inplace``:
    a branch and bound on small problems without branches (``<member>+exact``); on larger ones
    up to :data:`DESCENT_MAX` buffers, the branch and bound's descent at the bound
    (``<member>+descent``, optimal); else (or when those find nothing lower) a hill climb over
    the first-fit order (``<member>+climb``). ``stop``, asked now and then, abandons the polish
    (for a caller that will not use its result)."""
    target = lower_bound_inplace(problem)
    if solution.height <= target:
        return solution
    if _exact_applies(problem):
        offsets, height = exact_polish(problem, solution.offsets, EXACT_NODES, stop)
        if height < solution.height:
            name = solution.strategy.split("+")[0] + "+exact"
            return Solution.of(problem, offsets, name)
    elif _descent_applies(problem):
        low = descent(problem, target, stop)
        if low is not None:
            return Solution.of(problem, low, solution.strategy.split("+")[0] + "+descent")
    offsets, height = climb(problem, solution.offsets, target, polish_evaluations(problem), stop=stop)
    if height >= solution.height:
        return solution
    name = solution.strategy if solution.strategy.endswith("+climb") else f"{solution.strategy}+climb"
    return Solution.of(problem, offsets, name)


def strategy_options(
    strategy: str,
    *,
    budget: float | None = None,
    capacity: int | None = None,
    match_range: str | float = "auto",
    num_groups: int = 1,
) -> dict:
    """Constructor keywords for ``strategy`` from tool-level options (``best`` forwards them).

    Shared by ``plan-memory`` and ``memopt-pack`` so both accept the same options: ``budget``
    and ``capacity`` for the anytime ``search``, ``match_range``/``num_groups`` for ``nnvm``.
    """
    mr: float | str = match_range
    if isinstance(match_range, str) and match_range != "auto":
        try:
            mr = float(match_range)
        except ValueError:
            raise PlanningError(f"match-range must be a number >= 0 or 'auto', got '{match_range}'") from None
    if mr != "auto" and not (isinstance(mr, int | float) and math.isfinite(mr) and mr >= 0):
        raise PlanningError(f"match-range must be a number >= 0 or 'auto', got '{match_range}'")
    if not isinstance(num_groups, int) or num_groups < 1:
        raise PlanningError(f"num-groups must be an integer >= 1, got {num_groups}")
    nnvm = {"match_range": mr, "num_groups": num_groups}
    search: dict = {"capacity": capacity} if capacity is not None else {}
    if budget is not None:
        search["budget"] = budget
    if strategy == "nnvm":
        return nnvm
    if strategy == "search":
        return search
    if strategy == "best":
        return {"budget": budget, "options": {"nnvm": nnvm, "search": search}}
    return {}


def plan(problem: Problem, strategy: str = "best", **options) -> Solution:
    """Convenience: plan ``problem`` with the named strategy."""
    return make_strategy(strategy, **options).plan(problem)



__all__ = [
    "Best", "DESCENT_MAX", "EXACT_MAX", "EXACT_NODES", "LargeFirst", "OrderedFirstFit", "POLISH_WORK", "Sequential",
    "ShortFirst", "Strategy", "first_fit_work", "make_strategy", "plan", "polish_evaluations", "polished",
    "register_strategy", "strategy_names", "strategy_options",
]
