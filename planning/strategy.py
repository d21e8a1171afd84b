"""The interface every placement strategy implements, and the three greedy first-fit orders.

A strategy turns a :class:`Problem` into a :class:`Solution`. The greedy ones here differ only in
the order in which the LUNA paper's Algorithm 1 (:func:`first_fit`) places buffers:

* ``sequential``  — execution order (first use), what a naive runtime allocator sees;
* ``large-first`` — size descending (TFLite Micro's rule; usually the best single order);
* ``short-first`` — lifetime length ascending (suits pool-like traces).

The registry that names every strategy is :mod:`memopt.planning.strategies`; this module sits
below every strategy so that none of them imports the registry.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from .firstfit import first_fit
from .inplace import plan_with_inplace
from .problem import Problem, Solution


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
    def key(problem: Problem, i: int) -> tuple[object, ...]: ...

    def plan(self, problem: Problem) -> Solution:
        if problem.overwrites:
            # Honour in-place permissions: plan the problem with overwrite chains folded.
            return plan_with_inplace(self, problem)
        order = sorted(range(len(problem)), key=lambda i: self.key(problem, i))
        return Solution.of(problem, first_fit(problem, order), self.name)


class Sequential(OrderedFirstFit):
    name = "sequential"

    @staticmethod
    def key(problem: Problem, i: int) -> tuple[object, ...]:
        b = problem.buffers[i]
        return (b.start, i)


class LargeFirst(OrderedFirstFit):
    name = "large-first"

    @staticmethod
    def key(problem: Problem, i: int) -> tuple[object, ...]:
        b = problem.buffers[i]
        return (-b.size, b.start, i)


class ShortFirst(OrderedFirstFit):
    name = "short-first"

    @staticmethod
    def key(problem: Problem, i: int) -> tuple[object, ...]:
        b = problem.buffers[i]
        return (b.length, -b.size, b.start, i)
