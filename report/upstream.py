"""Read a planned upstream (``func``/``memref``) function into report data, checked first.

Everything comes from the one reader of upstream plans,
:func:`memopt.passes.upstream_plan_io.read_upstream_plan` (the planner's tracer re-run on the
arena views, offsets read off them, and what the function's attributes record); kinds and branch spans
from :mod:`memopt.passes.upstream_plan_detail`. One :class:`~memopt.report.model.FunctionView`
per arena: the default memory space's under the function's name, with the staging buffers
``insert-dma`` placed after the planned bytes in their own panel; each other memory space's
as ``name (memory space N)``. A plan that is not sound — overlapping buffers, a buffer outside
its arena, recorded sizes or bounds that disagree with the buffers — is a located error, never
a picture. The DMA timelines are :mod:`memopt.report.upstream_timeline`'s, on the default
space's view.
"""

from __future__ import annotations

from dataclasses import replace

from xdsl.dialects import func
from xdsl.ir import Operation

from memopt.diagnostics import MemoptError
from memopt.planning import Problem, lower_bound

from memopt.planning.latency import Target
from memopt.planning.function_plan import Plan, Staging
from memopt.passes.upstream_lifetime import byte_size, memory_space
from memopt.passes.upstream_plan_detail import STAGING, branch_spans, buffer_kinds, describe
from memopt.passes.upstream_plan_io import ARENA_SIZE_ATTR, ArenaPlan, is_planned, read_upstream_plan, staging_allocs

from .model import BranchSpan, FunctionView, TensorBox
from .upstream_timeline import upstream_timelines
from .validate import Violation, bound_violation, extent_violation, layout_violation, recorded_bound_violation



def upstream_function_views(f: func.FuncOp, target: Target) -> list[FunctionView]:
    """The report data of planned upstream function ``f``: one view per arena, default space
    first, its DMA timelines on the default space's (an unplanned function or an unsound plan:
    a located :class:`MemoptError`)."""
    if not is_planned(f):
        raise MemoptError(f"function '@{f.sym_name.data}' is not planned: no '{ARENA_SIZE_ATTR}' attribute "
                          "(run memopt-opt --plan-memory first)", f)
    plan = read_upstream_plan(f)
    branches = tuple(BranchSpan(b.if_id, b.branch, b.start, b.end, b.path) for b in branch_spans(f))
    views = [_arena_view(f, plan, a, branches) for a in sorted(plan.arenas, key=lambda a: a.space)]
    if not any(v.space == 0 for v in views):  # nothing planned in the default space: no arena op
        views.insert(0, _empty_view(f, plan))
    loose = _unplanned_staging(f)
    views[0] = replace(views[0], timelines=tuple(upstream_timelines(f, target)), notes=(loose,) if loose else ())
    return views


def _unplanned_staging(f: func.FuncOp) -> str:
    """Staging buffers ``insert-dma`` made allocs (after planning, in a memory space of their
    own): on chip but in no arena of the plan, so said rather than drawn."""
    allocs = staging_allocs(f)
    if not allocs:
        return ""
    named = ", ".join(f"{op.memref.name_hint or '?'} {byte_size(op.memref.type)} B (space {memory_space(op)})"
                      for op in allocs)
    return f"staging buffers outside the plan (memref.alloc): {named}"


def _empty_view(f: func.FuncOp, plan: Plan[Operation]) -> FunctionView:
    size, lb = plan.arena_size or 0, plan.lower_bound or 0
    _raise(f, None, bound_violation(size, lb) or recorded_bound_violation(lb, 0))
    return FunctionView(f.sym_name.data, size, lb, plan.strategy, ())


def _arena_view(f: func.FuncOp, plan: Plan[Operation], arena: ArenaPlan,
                branches: tuple[BranchSpan, ...]) -> FunctionView:
    """One arena's view, after :func:`_check` has accepted it."""
    kinds = buffer_kinds(f, arena)
    arena_size, lb, onchip = _check(f, plan, arena, kinds)
    rows = list(zip(arena.problem.buffers, arena.offsets, arena.sites, kinds))
    boxes = tuple(TensorBox(b.id, off, b.size, b.start, b.end, k, b.path, describe(v, k))
                  for b, off, v, k in rows if k != STAGING)
    staging = tuple(sorted((Staging(b.id, off, b.size) for b, off, _, k in rows if k == STAGING),
                           key=lambda s: (s.offset, s.name)))
    name = f.sym_name.data if arena.space == 0 else f"{f.sym_name.data} (memory space {arena.space})"
    # every memory space's arena is planned by the same strategy; upstream branches are numbered jointly
    return FunctionView(name, arena_size, lb, plan.strategy, boxes, branches=branches, staging=staging,
                        onchip_size=onchip, space=arena.space)


def _check(f: func.FuncOp, plan: Plan[Operation], arena: ArenaPlan, kinds: list[str]) -> tuple[int, int, int | None]:
    """``(arena size, lower bound, on-chip total)`` of an arena whose plan is sound; else a
    located error. The planned buffers lie below the recorded arena size (staging buffers,
    placed after it, below the arena's own size), and the recorded bound is the buffers'."""
    onchip = plan.onchip_size if arena.space == 0 else None
    recorded = onchip if onchip is not None else arena.recorded_size
    if recorded is not None and recorded != arena.size and not (recorded == 0 and arena.size == 1):
        _raise(f, arena, Violation(None, f"invalid plan: the recorded size {recorded} is not the {arena.size} bytes "
                                         "of the arena"))
    _raise(f, arena, layout_violation(arena.problem, arena.offsets, arena.size))
    planned = [k for k, kind in enumerate(kinds) if kind != STAGING]
    arena_size = (plan.arena_size or 0) if arena.space == 0 else arena.size
    _raise(f, arena, extent_violation(arena.problem, arena.offsets, arena_size, planned))
    own = Problem.of([arena.problem.buffers[k] for k in planned])
    lb = lower_bound(own)
    recorded_lb = plan.lower_bound if arena.space == 0 else lb
    if recorded_lb is None:
        recorded_lb = lb
    _raise(f, arena, bound_violation(arena_size, recorded_lb) or recorded_bound_violation(recorded_lb, lb))
    return arena_size, recorded_lb, onchip


def _raise(f: func.FuncOp, arena: ArenaPlan | None, v: Violation | None) -> None:
    """A violation as a located error: at the buffer's view, else at the function."""
    if v is None:
        return
    where = f" in memory space {arena.space}" if arena is not None and arena.space else ""
    message = v.message.replace("invalid plan:", f"invalid plan{where}:", 1)
    raise MemoptError(message, arena.sites[v.buffer] if arena is not None and v.buffer is not None else f)


__all__ = ["upstream_function_views"]
