"""Placement strategies behind one interface, and the registry that names them.

A strategy turns a :class:`Problem` into a :class:`Solution`. The greedy ones differ only in the
order in which seed 002's Algorithm 1 (:func:`first_fit`) places buffers:

* ``sequential``  — execution order (first use), what a naive runtime allocator sees;
* ``large-first`` — size descending (TFLite Micro's rule; usually the best single order);
* ``short-first`` — lifetime length ascending (suits pool-like traces).

``best`` runs every registered strategy that takes part in the portfolio and keeps the lowest
arena (ties go to the earlier registered strategy, so the choice is deterministic). New
strategies (``megengine``, ``nnvm``, ``search`` ...) join with :func:`register_strategy`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Callable, ClassVar

from .firstfit import first_fit
from .inplace import plan_with_inplace
from .problem import PlanningError, Problem, Solution


class Strategy(ABC):
    """Plans a problem. Subclasses set ``name``; options arrive as constructor keywords."""

    name: ClassVar[str]
    in_portfolio: ClassVar[bool] = True
    """Whether ``best`` runs this strategy."""
    uses_budget: ClassVar[bool] = False
    """Anytime strategies (``search``) join ``best`` only when a time budget is given, and get it."""

    @abstractmethod
    def plan(self, problem: Problem) -> Solution: ...


class OrderedFirstFit(Strategy):
    """Algorithm 1 with an order given by :meth:`key` (smaller keys are placed first)."""

    @staticmethod
    @abstractmethod
    def key(problem: Problem, i: int): ...

    def plan(self, problem: Problem) -> Solution:
        if problem.overwrites:
            # Honour in-place permissions: plan the problem with overwrite chains folded.
            return plan_with_inplace(self, problem)
        order = sorted(range(len(problem)), key=lambda i: self.key(problem, i))
        return Solution.of(problem, first_fit(problem, order), self.name)


class Sequential(OrderedFirstFit):
    name = "sequential"

    @staticmethod
    def key(problem: Problem, i: int):
        b = problem.buffers[i]
        return (b.start, i)


class LargeFirst(OrderedFirstFit):
    name = "large-first"

    @staticmethod
    def key(problem: Problem, i: int):
        b = problem.buffers[i]
        return (-b.size, b.start, i)


class ShortFirst(OrderedFirstFit):
    name = "short-first"

    @staticmethod
    def key(problem: Problem, i: int):
        b = problem.buffers[i]
        return (b.length, -b.size, b.start, i)


_REGISTRY: dict[str, Callable[..., Strategy]] = {}


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


class Best(Strategy):
    """Run the whole portfolio and keep the smallest arena.

    ``budget`` (seconds) admits the anytime strategies, each given that budget; ``options`` maps
    a member's name to its constructor keywords.
    """

    name = "best"

    def __init__(self, budget: float | None = None, options: dict[str, dict] | None = None) -> None:
        self.budget = budget
        self.options = options or {}

    def members(self) -> list[Strategy]:
        members = []
        for name, factory in _REGISTRY.items():
            if not getattr(factory, "in_portfolio", True):
                continue
            kwargs = dict(self.options.get(name, {}))
            if getattr(factory, "uses_budget", False):
                if self.budget is None:
                    continue
                kwargs.setdefault("budget", self.budget)
            members.append(factory(**kwargs))
        return members

    def plan(self, problem: Problem) -> Solution:
        best: Solution | None = None
        for strategy in self.members():
            sol = strategy.plan(problem)
            if best is None or sol.height < best.height:
                best = sol
        assert best is not None
        return best


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


for _cls in (Sequential, LargeFirst, ShortFirst):
    register_strategy(_cls.name, _cls)
