"""Planning one memopt-dialect function in one control-flow mode: trace, plan, validate.

The core of ``plan-memory`` (see :mod:`memopt.passes.plan_memory` for the modes), without the
pass around it: the lifetimes of the function's tensors, the chosen strategy's layout in the
mode asked for (the serial or merge layout kept when lower), checked by the validator, and the
bounds every mode's plan is measured against. ``rematerialize`` measures a function's arena
with it; ``plan-memory`` writes what it returns.
"""

from __future__ import annotations

from dataclasses import dataclass

from memopt.diagnostics import MemoptError
from memopt.passes.lifetime import FunctionLifetimes, analyze_function, if_spans
from memopt.planning import PlanningError, Solution, Strategy, lower_bound, lower_bound_inplace, validate
from memopt.planning.control_flow import flat_problem, plan_joint, plan_merge, unpolished, with_mode
from memopt.planning.numbers import INT64_MAX


@dataclass(frozen=True)
class FunctionPlan:
    """A function's layout, the lifetimes it was planned on, and the true lower bound."""

    lifetimes: FunctionLifetimes
    """Storage of every value; its problem is the one ``solution`` was planned and checked on."""
    solution: Solution
    lower_bound: int
    """``min(LB_nest`` of the joint numbering, serial max-live``)``: bounds every mode's plan."""
    lower_bound_inplace: int
    """The same bound with the in-place permissions counted (equal to it without any)."""
    numbering: str = "joint"
    """The control-flow numbering ``lifetimes`` (and so the plan) is in: ``joint`` or ``serial``."""


def plan_function_memory(
    f, strategy: Strategy, *, control_flow: str = "joint", inplace: bool = True, alignment: int = 16
) -> FunctionPlan:
    """Plan one function in one control-flow mode (see module docstring); validated."""
    joint = analyze_function(f, mode="joint", inplace=inplace, alignment=alignment)
    if sum(b.size + b.alignment for b in joint.problem.buffers) > INT64_MAX:
        raise MemoptError("the function's tensors total more bytes than a 64-bit arena can address", f)
    lb = lower_bound(joint.problem)
    lb_inplace = lower_bound_inplace(joint.problem)
    spans = if_spans(joint.numbering)
    lt = joint
    if spans:
        # Serial and joint numberings are each sound but neither contains the other's
        # conflicts: a plan is valid in one of them, so the smaller bound bounds every mode.
        serial = analyze_function(f, mode="serial", inplace=inplace, alignment=alignment)
        lb = min(lb, lower_bound(serial.problem))
        lb_inplace = min(lb_inplace, lower_bound_inplace(serial.problem))
    if not spans:
        solution = strategy.plan(joint.problem)
    elif control_flow == "joint":
        solution = plan_joint(
            joint.problem, spans, strategy, [("serial", serial.problem, unpolished(strategy).plan(serial.problem))]
        )
        if solution.mode == "serial":
            lt = serial  # kept the serial layout: valid (and verified) in serial numbering
    elif control_flow == "merge":
        solution = plan_merge(joint.problem, spans, strategy)
    elif control_flow == "flat":
        lt = FunctionLifetimes(joint.func, flat_problem(joint.problem), joint.numbering, joint.storage_of, joint.owner)
        solution = with_mode(strategy.plan(lt.problem), "flat")
    else:
        lt = serial
        solution = with_mode(strategy.plan(lt.problem), control_flow)
    try:
        validate(lt.problem, solution)
    except PlanningError as e:
        raise MemoptError(f"internal error: strategy '{solution.strategy}' produced an invalid plan: {e}", f) from None
    return FunctionPlan(lt, solution, lb, min(lb, lb_inplace), "serial" if solution.mode == "serial" else "joint")


__all__ = ["FunctionPlan", "plan_function_memory"]
