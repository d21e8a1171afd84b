"""``verify-plan``: re-check a planned module and fail on any overlap.

Lifetimes are recomputed from the IR (branches of an ``if`` are exclusive, values read inside a
loop live until the loop ends, in-place writes are accepted only where the ``inplace`` hint
allows them), offsets are read back from the plan attributes — both by each flavour's one plan
reader (:func:`memopt.passes.plan_io.read_function_plan`,
:func:`memopt.passes.upstream_plan_io.read_upstream_plan`) — and the core validator checks
that no two buffers that can be live at the same time overlap and that everything fits in the
recorded arena size. The on-chip placement of the DMA staging buffers is read by the same
reader (:func:`memopt.passes.plan_io.read_staging`) and checked against the arenas read back
(:func:`memopt.passes.dma_layout.check_dma_layout`). It trusts nothing the planner wrote:
corrupted or hand-edited attributes are reported at the op that carries them.

The lifetimes are those of the numbering the plan records (``memopt.numbering``: ``serial`` or
``joint``, the plan model's ``numbering``). Each numbering is a sound abstraction of every execution path, but
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
from xdsl.dialects import builtin, func
from xdsl.passes import ModulePass

from memopt.diagnostics import MemoptError
from memopt.dialects.ir_flavour import is_upstream
from memopt.passes.dma_layout import check_dma_layout
from memopt.passes.dma_safety import check_dma_safety
from memopt.passes.lifetime import analyze_function, if_spans, planned_functions, value_location_op
from memopt.passes.plan_io import MemoptPlan, read_function_plan, read_staging
from memopt.planning import Problem, find_conflicts, lower_bound
from memopt.planning.function_plan import Arena, Plan


def _check_lower_bound(f, plan: MemoptPlan) -> None:
    """The recorded ``lower_bound`` must be the function's bound as ``plan-memory`` defines it
    (``LB_nest`` of the joint numbering, or the serial max-live when lower): a reader compares
    arenas against it, so a hand-edited or stale one is an error, not a comment."""
    joint = analyze_function(f, mode="joint", inplace=True, alignment=1)
    lb = lower_bound(joint.problem)
    if if_spans(joint.numbering):
        lb = min(lb, lower_bound(analyze_function(f, mode="serial", inplace=True, alignment=1).problem))
    if plan.lower_bound != lb:
        raise MemoptError(
            f"invalid plan: recorded lower_bound {plan.lower_bound} is not the function's lower bound {lb}", f
        )


def _check_arena(arena: Arena) -> None:
    """No two buffers of one arena (on chip, or an off-chip memory) overlap, none exceeds it."""
    offsets, arena_size = arena.offsets, arena.size
    conflicts = find_conflicts(arena.problem, offsets, limit=1)
    where = f" in memory '{arena.memory}'" if arena.memory else ""
    if conflicts:
        c = conflicts[0]
        ids = [b.id for b in arena.problem.buffers]
        culprit = arena.sites[ids.index(c.b)]
        raise MemoptError(f"invalid plan{where}: {c.message}", value_location_op(culprit))
    for b, off, owner in zip(arena.problem.buffers, offsets, arena.sites):
        if off + b.size > arena_size:
            raise MemoptError(
                f"invalid plan{where}: buffer '{b.id}' [{off}, {off + b.size}) exceeds the arena size {arena_size}",
                value_location_op(owner),
            )


def verify_upstream_function(f) -> None:
    """An upstream function's plan, read back from its arena views (the planner's own tracer
    re-run on them): no two views live together overlap, each lies inside its arena, and the
    recorded sizes are the arenas' (a function without a plan is an error)."""
    from memopt.passes.upstream_plan_io import is_planned, read_upstream_plan  # upstream only (module docstring)

    if not is_planned(f):
        raise MemoptError(f"function '@{f.sym_name.data}' has no plan (memopt.arena_size): run plan-memory first", f)
    plan = read_upstream_plan(f)
    for arena in plan.arenas:
        where = f" in memory space {arena.space}" if arena.space else ""
        conflicts = find_conflicts(arena.problem, arena.offsets, limit=1)
        if conflicts:
            c = conflicts[0]
            culprit = arena.sites[[b.id for b in arena.problem.buffers].index(c.b)]
            raise MemoptError(f"invalid plan{where}: {c.message}", culprit)
        for b, off, view in zip(arena.problem.buffers, arena.offsets, arena.sites):
            if off < 0 or off + b.size > arena.size:
                raise MemoptError(f"invalid plan{where}: buffer '{b.id}' [{off}, {off + b.size}) lies outside its "
                                  f"{arena.size}-byte arena", view)
        _check_upstream_lower_bound(f, plan, arena)
        onchip = plan.onchip_size if arena.space == 0 else None
        recorded = onchip if onchip is not None else arena.recorded_size
        if recorded is not None and recorded != max(arena.size, 1) and not (recorded == 0 and arena.size == 1):
            raise MemoptError(f"invalid plan{where}: the recorded size {recorded} is not the arena's {arena.size} "
                              "bytes", f)


def _check_upstream_lower_bound(f, plan: Plan, arena: Arena) -> None:
    """The recorded ``memopt.lower_bound`` is the bound of the buffers read back (the default
    space's arena; DMA staging views, placed after the plan, are not counted)."""
    if arena.space != 0 or plan.lower_bound is None:
        return
    lb = lower_bound(Problem.of([arena.problem.buffers[i] for i in arena.planned()]))
    if plan.lower_bound != lb:
        raise MemoptError(f"invalid plan: recorded lower_bound {plan.lower_bound} is not the plan's lower bound "
                          f"{lb}", f)


@dataclass(frozen=True)
class VerifyPlanPass(ModulePass):
    """Re-check a planned module: fail, located, on any overlap or malformed plan."""

    name = "verify-plan"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        funcs = planned_functions(op)
        arenas: list[tuple[func.FuncOp, int]] = []
        for f in funcs:
            if is_upstream(f):
                verify_upstream_function(f)
                continue
            # Every off-chip memory that spilled tensors live in is an arena of its own.
            plan = read_function_plan(f).plan
            for arena in plan.arenas:
                _check_arena(arena)
            _check_lower_bound(f, plan)
            if plan.arena_size is not None:
                arenas.append((f, plan.arena_size))
        # DMA schedule safety, then the on-chip placement of the staging buffers (insert-dma)
        # as the plan reader reads it: after every function's arena.
        for f in funcs:
            check_dma_safety(f)
        check_dma_layout(op, arenas, *read_staging(op))
