"""Read a plan CSV (``id,lower,upper,size,offset``: what ``memopt-pack`` writes and
``plan-memory{export=…}`` exports) into a :class:`~memopt.report.model.PlanView`.

A CSV carries no IR, so every box is a ``buffer`` and there are no branches or timelines; the
arena is the highest ``offset + size`` and the lower bound is recomputed from the rows (the
planning core's max-live), so the picture of an exported plan and of the IR it came from agree.
"""

from __future__ import annotations

from memopt.planning import PlanningError, Problem, Solution, lower_bound
from memopt.planning.csvio import read_problem

from .model import FunctionView, PlanView, TensorBox


def function_view_of_solution(problem: Problem, solution: Solution, name: str = "plan") -> FunctionView:
    """A planned problem (``memopt-pack``'s, before it is written) as report data."""
    boxes = tuple(
        TensorBox(b.id, off, b.size, b.start, b.end, "buffer", b.path) for b, off in zip(problem.buffers, solution.offsets)
    )
    return FunctionView(name, solution.height, lower_bound(problem), solution.strategy, boxes)


def function_view_of_csv(text: str, source: str, name: str = "plan") -> FunctionView:
    problem, offsets = read_problem(text, source)
    if offsets is None:
        raise PlanningError(f"{source}:1: no offset column: a report needs a plan (plan it with memopt-pack first)")
    return function_view_of_solution(problem, Solution.of(problem, offsets, "given"), name)


def plan_view_of_csv(text: str, source: str, capacity: int | None = None) -> PlanView:
    return PlanView(source, (function_view_of_csv(text, source),), capacity=capacity)


__all__ = ["function_view_of_csv", "function_view_of_solution", "plan_view_of_csv"]
