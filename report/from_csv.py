"""Read a plan CSV (``id,lower,upper,size,offset``: what ``memopt-pack`` writes and
``plan-memory{export=…}`` exports) into a :class:`~memopt.report.model.PlanView`.

A CSV carries no IR, so every box is a ``buffer`` and there are no branches or timelines; the
arena is the highest ``offset + size`` and the lower bound is recomputed from the rows (the
planning core's max-live), so the picture of an exported plan and of the IR it came from agree.
Rows that overlap while both live (beyond the one step an in-place write shares, see
:func:`possible_inplace`), or a negative offset, are refused with the row's line.
"""

from __future__ import annotations

from dataclasses import replace

from memopt.planning import Overwrite, PlanningError, Problem, Solution, lower_bound
from memopt.planning.csvio import read_problem

from .model import FunctionView, PlanView, TensorBox
from .validate import layout_violation


def function_view_of_solution(problem: Problem, solution: Solution, name: str = "plan") -> FunctionView:
    """A planned problem (``memopt-pack``'s, before it is written) as report data."""
    boxes = tuple(
        TensorBox(b.id, off, b.size, b.start, b.end, "buffer", b.path) for b, off in zip(problem.buffers, solution.offsets)
    )
    return FunctionView(name, solution.height, lower_bound(problem), solution.strategy, boxes)


def function_view_of_csv(text: str, source: str, name: str = "plan") -> FunctionView:
    """The plan of a CSV, checked first (:mod:`.validate`): an invalid plan is an error located
    at its row, never a picture that looks valid."""
    problem, offsets = read_problem(text, source)
    if offsets is None:
        raise PlanningError(f"{source}:1: no offset column: a report needs a plan (plan it with memopt-pack first)")
    problem = Problem.of(problem.buffers, possible_inplace(problem, offsets))
    solution = Solution.of(problem, offsets, "given")
    v = layout_violation(problem, list(offsets), solution.height)
    if v is not None:
        row = f":{v.buffer + 2}" if v.buffer is not None else ""  # the header is line 1
        raise PlanningError(f"{source}{row}: {v.message}")
    view = function_view_of_solution(problem, solution, name)
    parent_of = {w.child: problem.buffers[w.parent].id for w in problem.overwrites}
    boxes = tuple(replace(box, kind="inplace", inplace_of=parent_of[k]) if k in parent_of else box
                  for k, box in enumerate(view.tensors))
    return replace(view, tensors=boxes)


def possible_inplace(problem: Problem, offsets) -> list[Overwrite]:
    """Rows that share bytes while meeting in one step only — one made by the op that last reads
    the other — may be an in-place write (what ``plan-memory`` exports when an op's ``inplace``
    hint is used). A CSV cannot say whether that op writes in place, so such a pair is taken as
    one; any other overlap is an error."""
    ending: dict[int, list[int]] = {}
    for k, b in enumerate(problem.buffers):
        ending.setdefault(b.end, []).append(k)
    out = []
    for child, b in enumerate(problem.buffers):
        for parent in ending.get(b.start + 1, ()):
            p, inside = problem.buffers[parent], offsets[child] - offsets[parent]
            if parent != child and p.start < b.start and 0 <= inside and inside + b.size <= p.size:
                out.append(Overwrite(child, parent, inside))  # within the parent's bytes
    return out


def plan_view_of_csv(text: str, source: str, capacity: int | None = None) -> PlanView:
    return PlanView(source, (function_view_of_csv(text, source),), capacity=capacity)


__all__ = ["function_view_of_csv", "function_view_of_solution", "plan_view_of_csv"]
