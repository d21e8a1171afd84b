"""Read a planned module into a :class:`~memopt.report.model.PlanView`.

Nothing is re-planned: the plan is the dialect's one plan reader's
(:func:`memopt.passes.plan_io.read_function_plan`, the reader ``verify-plan`` uses: offsets read
back and checked, lifetimes in the numbering the plan records), staging buffers are the
placement ``insert-dma`` recorded, and the DMA timelines from the IR's ``dma_start``/``dma_wait`` ops as the
latency model schedules them (the same reading as ``report-latency``). So the pictures show
exactly what was planned. A plan that is not sound — overlapping tensors, one past the arena, an
arena below its lower bound, a recorded bound above the tensors' own — is a located error
(:mod:`memopt.report.validate`), never a picture that looks valid.

Upstream (``func``/``memref``) functions are read by :mod:`memopt.report.upstream`, from the one
reader of upstream plans.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import ComputeOp, DmaStartOp, DmaWaitOp, LoopOp, ViewOp, byte_size
from memopt.passes.dma_profile import op_profile, scheduled_items
from memopt.passes.dma_regions import cut_function, regions
from memopt.passes.lifetime import FunctionLifetimes, planned_functions, value_location_op
from memopt.passes.plan_io import MemoptPlan, read_function_plan, read_staging
from memopt.passes.tile_record import TILED_ATTR
from memopt.dialects.ir_flavour import is_upstream
from memopt.planning.latency import Target, lower_bound_time, serial_time, simulate
from memopt.planning import lower_bound

from .model import BranchSpan, FunctionView, PlanView, RegionTimeline, TensorBox, TiledRun, TimelineEvent
from .validate import bound_violation, layout_violation, recorded_bound_violation


def _kind(lt: FunctionLifetimes, b: int, returned: set[int], inplace: set[int]) -> str:
    owner = lt.owner[b]
    if b in returned:
        return "output"
    if isinstance(owner, BlockArgument):
        return "input" if owner.block.parent_op() is lt.func else "loop-carried"
    if isinstance(owner, OpResult) and isinstance(owner.op, LoopOp):
        return "loop-carried"
    if b in inplace:
        return "inplace"
    return "intermediate"


def _detail(value: SSAValue) -> str:
    op = value.owner if isinstance(value, OpResult) else None
    what = f'"{op.kind.data}"' if isinstance(op, ComputeOp) else (op.name if op is not None else "argument")
    return f"{what} : {value.type}"


def _branches(lt: FunctionLifetimes) -> list[BranchSpan]:
    num = lt.numbering
    spans = []
    for op, if_id in sorted(num.if_ids.items(), key=lambda kv: kv[1]):
        block = op.parent_block()
        path = num.path.get(block, ()) if block is not None else ()
        for k, region in enumerate(op.regions):
            steps = [num.begin[o] for blk in region.blocks for o in walk(blk) if o in num.begin]
            if steps:
                spans.append(BranchSpan(if_id, k, min(steps), max(steps) + 1, path))
    return spans


def function_view(lt: FunctionLifetimes, plan: MemoptPlan) -> FunctionView:
    """The boxes of one planned function (its on-chip arena: the buffers of ``lt.problem``)."""
    f = lt.func
    problem = lt.problem
    arena = plan.arenas[0]
    offsets = arena.offsets
    returned: set[int] = set()
    ret = f.body.blocks[0].last_op
    if isinstance(ret, func.ReturnOp):
        for v in ret.operands:
            loc = lt.storage_of.get(v)
            if loc is not None:
                returned.add(loc[0])
    over = {w.child: w.parent for w in problem.overwrites if offsets[w.child] == offsets[w.parent] + w.offset}
    boxes = [
        TensorBox(b.id, off, b.size, b.start, b.end, _kind(lt, i, returned, set(over)), b.path, _detail(lt.owner[i]),
                  problem.buffers[over[i]].id if i in over else "")
        for i, (b, off) in enumerate(zip(problem.buffers, offsets))
    ]
    # Views: drawn over the bytes of their source they expose, from the view op on.
    names = {id(lt.owner[i]): b.id for i, b in enumerate(problem.buffers)}
    for op in walk(f.body):
        if isinstance(op, ViewOp) and op.result in lt.storage_of and op in lt.numbering.begin:
            b, rel = lt.storage_of[op.result]
            src = problem.buffers[b]
            start = lt.numbering.begin[op]
            if start < src.end:
                name = op.result.name_hint or f"view of {names[id(lt.owner[b])]}"
                boxes.append(TensorBox(
                    name, offsets[b] + rel, byte_size(op.result.type), start, src.end, "view", src.path,
                    f"view of {src.id} at +{rel} : {op.result.type}",
                ))
    branches = tuple(_branches(lt))
    return FunctionView(
        f.sym_name.data, arena.size, plan.lower_bound or 0, plan.strategy, tuple(boxes), plan.lower_bound_inplace,
        plan.numbering if branches else "", branches, tiled=tiled_runs(f),
    )


def tiled_runs(f: func.FuncOp) -> tuple[TiledRun, ...]:
    """The runs ``tile`` recorded on ``f`` (:mod:`memopt.passes.tile_record`); a record it does
    not recognise is a located error, not a guess."""
    have = f.attributes.get(TILED_ATTR)
    if have is None:
        return ()
    try:
        out = []
        for entry in have.data:  # type: ignore[attr-defined]
            d = entry.data
            out.append(TiledRun(d["run"].data, d["ops"].value.data, d["grid"].data, d["macs"].value.data,
                                d["extra"].value.data, tuple(x.data for x in d["streamed"].data)))
        return tuple(out)
    except (AttributeError, KeyError, TypeError):
        raise MemoptError(f"{TILED_ATTR} of '@{f.sym_name.data}' is not what tile records (run, ops, grid, macs, "
                          "extra, streamed per run)", f) from None


def _labels(ops: list[Operation]) -> list[str]:
    """One label per schedule item, in the order :func:`scheduled_items` emits them."""
    out = []
    for op in ops:
        if isinstance(op, DmaStartOp):
            out.append(f"load {op.src.root_reference.data}")
        elif isinstance(op, DmaWaitOp):
            out.append("wait")
        elif isinstance(op, ComputeOp):
            out.append(op.results[0].name_hint if op.results and op.results[0].name_hint else op.kind.data)
    return out


def timelines(f: func.FuncOp, target: Target) -> list[RegionTimeline]:
    """Every Region with compute ops, scheduled by the latency model as the IR stands."""
    out = []
    for r in regions(cut_function(f, f"@{f.sym_name.data}")):
        computes = [o for o in r.ops if isinstance(o, ComputeOp)]
        if not computes:
            continue
        items = scheduled_items(r.ops, r.name)
        labels = _labels(r.ops)
        trace: list = []
        t = simulate(items, target, trace)
        profiles = [op_profile(o) for o in computes]
        events = tuple(TimelineEvent(e.lane, e.start, e.end, labels[e.item]) for e in trace)
        out.append(RegionTimeline(r.name, r.runs, events, serial_time(profiles, target), t, lower_bound_time(profiles, target)))
    return out


def _check(lt: FunctionLifetimes, plan: MemoptPlan) -> None:
    """A plan the report would draw as valid must be: no overlap, nothing past the arena, the
    arena not below the bound (with in-place reuse when the plan may use it); located error."""
    arena, lb = plan.arenas[0], plan.lower_bound or 0
    bound = plan.lower_bound_inplace if plan.lower_bound_inplace is not None else lb
    what = "in-place lower bound" if plan.lower_bound_inplace is not None else "lower bound"
    v = (layout_violation(lt.problem, list(arena.offsets), arena.size)
         or recorded_bound_violation(lb, lower_bound(lt.problem), exact=False)
         or bound_violation(arena.size, bound, what))
    if v is not None:
        raise MemoptError(v.message, value_location_op(lt.owner[v.buffer]) if v.buffer is not None else lt.func)


def plan_view(module: ModuleOp, source: str, target: Target, *, func_name: str | None = None,
              capacity: int | None = None) -> PlanView:
    """The report data of every planned function of ``module`` (or only ``func_name``)."""
    funcs = planned_functions(module)
    if func_name is not None:
        funcs = [f for f in funcs if f.sym_name.data == func_name]
        if not funcs:
            raise MemoptError(f"no function '@{func_name}' with a body in the module", module)
    views = []
    for f in funcs:
        if is_upstream(f):
            # Imported here: the upstream reader imports the upstream tracer and xDSL's upstream
            # dialects, which a report of a memopt-dialect plan never needs.
            from .upstream import upstream_function_views

            views += upstream_function_views(f, target)
            continue
        read = read_function_plan(f, memories=False)
        _check(read.lifetimes, read.plan)
        fv = function_view(read.lifetimes, read.plan)
        views.append(FunctionView(**{**fv.__dict__, "timelines": tuple(timelines(f, target))}))
    staging, total = read_staging(module)
    if capacity is None:
        capacity = target.capacity
    return PlanView(source, tuple(views), staging, total, capacity, target.describe())


__all__ = ["function_view", "plan_view", "timelines"]
