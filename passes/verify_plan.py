"""``verify-plan``: re-check a planned module and fail on any overlap.

Lifetimes are recomputed from the IR (branches of an ``if`` are exclusive, values read inside a
loop live until the loop ends, in-place writes are accepted only where the ``inplace`` hint
allows them), offsets are read back from the plan attributes, and the core validator checks
that no two buffers that can be live at the same time overlap and that everything fits in the
recorded arena size. It trusts nothing the planner wrote: corrupted or hand-edited attributes
are reported at the op that carries them.

The lifetimes are those of the numbering the plan's recorded mode names
(``memopt.numbering``, :func:`memopt.passes.lifetime.plan_numbering`: ``serial`` for ``".../serial"`` plans,
``joint`` otherwise). Each numbering is a sound abstraction of every execution path, but
neither contains all of the other's conflicts, so checking a serial plan in the joint numbering
would reject sound plans (and the reverse). The mode string is not a trust hole: whichever
numbering it names, a plan that passes is safe on every path. The check is the planner's own
analysis re-run from the IR, independent of the planner's attributes except for the mode.

The upstream plan readers are imported inside the functions that check upstream plans: a
memopt-dialect module is verified without xDSL's upstream dialects (start-up).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import IntegerAttr
from xdsl.passes import ModulePass

from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import PLAN_ATTR, PlanAttr
from memopt.dialects.plan_attrs import offchip_memories
from memopt.dialects.upstream_attrs import LOWER_BOUND_ATTR, is_upstream
from memopt.passes.dma_safety import verify_dma
from memopt.passes.lifetime import analyze_function, if_spans, plan_numbering, planned_functions, value_location_op
from memopt.passes.plan_io import read_plan
from memopt.planning import Problem, find_conflicts, lower_bound


def _check_lower_bound(f, plan: PlanAttr) -> None:
    """The recorded ``lower_bound`` must be the function's bound as ``plan-memory`` defines it
    (``LB_nest`` of the joint numbering, or the serial max-live when lower): a reader compares
    arenas against it, so a hand-edited or stale one is an error, not a comment."""
    joint = analyze_function(f, mode="joint", inplace=True, alignment=1)
    lb = lower_bound(joint.problem)
    if if_spans(joint.numbering):
        lb = min(lb, lower_bound(analyze_function(f, mode="serial", inplace=True, alignment=1).problem))
    if plan.lower_bound.data != lb:
        raise MemoptError(
            f"invalid plan: recorded lower_bound {plan.lower_bound.data} is not the function's lower bound {lb}", f
        )


def _check_arena(lt) -> None:
    """No two buffers of one arena (on chip, or an off-chip memory) overlap, none exceeds it."""
    offsets, arena_size, _ = read_plan(lt)
    conflicts = find_conflicts(lt.problem, offsets, limit=1)
    where = f" in memory '{lt.memory}'" if lt.memory else ""
    if conflicts:
        c = conflicts[0]
        ids = [b.id for b in lt.problem.buffers]
        culprit = lt.owner[ids.index(c.b)]
        raise MemoptError(f"invalid plan{where}: {c.message}", value_location_op(culprit))
    for b, off, owner in zip(lt.problem.buffers, offsets, lt.owner):
        if off + b.size > arena_size:
            raise MemoptError(
                f"invalid plan{where}: buffer '{b.id}' [{off}, {off + b.size}) exceeds the arena size {arena_size}",
                value_location_op(owner),
            )


def verify_upstream_function(f) -> None:
    """An upstream function's plan, read back from its arena views (the planner's own tracer
    re-run on them): no two views live together overlap, each lies inside its arena, and the
    recorded sizes are the arenas' (a function without a plan is an error)."""
    from memopt.passes.upstream_dma import ONCHIP_SIZE_ATTR  # upstream only (module docstring)
    from memopt.passes.upstream_plan_io import is_planned, read_upstream_plan

    if not is_planned(f):
        raise MemoptError(f"function '@{f.sym_name.data}' has no plan (memopt.arena_size): run plan-memory first", f)
    for plan in read_upstream_plan(f):
        where = f" in memory space {plan.space}" if plan.space else ""
        conflicts = find_conflicts(plan.problem, plan.offsets, limit=1)
        if conflicts:
            c = conflicts[0]
            culprit = plan.views[[b.id for b in plan.problem.buffers].index(c.b)]
            raise MemoptError(f"invalid plan{where}: {c.message}", culprit)
        for b, off, view in zip(plan.problem.buffers, plan.offsets, plan.views):
            if off < 0 or off + b.size > plan.size:
                raise MemoptError(f"invalid plan{where}: buffer '{b.id}' [{off}, {off + b.size}) lies outside its "
                                  f"{plan.size}-byte arena", view)
        _check_upstream_lower_bound(f, plan)
        onchip = f.attributes.get(ONCHIP_SIZE_ATTR) if plan.space == 0 else None
        recorded = onchip.value.data if onchip is not None else plan.recorded_size  # type: ignore[union-attr]
        if recorded is not None and recorded != max(plan.size, 1) and not (recorded == 0 and plan.size == 1):
            raise MemoptError(f"invalid plan{where}: the recorded size {recorded} is not the arena's {plan.size} bytes",
                              f)


def _check_upstream_lower_bound(f, plan) -> None:
    """The recorded ``memopt.lower_bound`` is the bound of the buffers read back (the default
    space's arena; DMA staging views, placed after the plan, are not counted)."""
    from memopt.passes.upstream_dma import STAGING_ATTR  # upstream only (module docstring)

    recorded = f.attributes.get(LOWER_BOUND_ATTR)
    if plan.space != 0 or not isinstance(recorded, IntegerAttr):
        return
    planned = [b for b, v in zip(plan.problem.buffers, plan.views) if STAGING_ATTR not in v.attributes]
    lb = lower_bound(Problem.of(planned))
    if recorded.value.data != lb:
        raise MemoptError(f"invalid plan: recorded lower_bound {recorded.value.data} is not the plan's lower bound "
                          f"{lb}", f)


@dataclass(frozen=True)
class VerifyPlanPass(ModulePass):
    """Re-check a planned module: fail, located, on any overlap or malformed plan."""

    name = "verify-plan"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for f in planned_functions(op):
            if is_upstream(f):
                verify_upstream_function(f)
                continue
            plan = f.attributes.get(PLAN_ATTR)
            mode = plan_numbering(f)
            _check_arena(analyze_function(f, mode=mode, inplace=True, alignment=1))
            # Every off-chip memory that spilled tensors live in is an arena of its own.
            for memory in offchip_memories(f):
                _check_arena(analyze_function(f, mode=mode, inplace=False, alignment=1, memory=memory))
            _check_lower_bound(f, plan)
        # DMA schedule safety and on-chip placement of the staging buffers (insert-dma).
        verify_dma(op)
