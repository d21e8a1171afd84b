"""Embedding memopt in another compiler flow: the passes as classes, one call for a plan.

Two ways in, for a flow that already holds an xDSL ``ModuleOp`` (memopt's dialect or upstream
``func``/``memref``/``scf``/``linalg`` after bufferization):

* the pass classes, with typed options, in the flow's own ``PassPipeline`` —
  :class:`~memopt.passes.plan_memory.PlanMemoryPass`, :class:`~memopt.passes.insert_dma.InsertDmaPass`,
  :class:`~memopt.passes.lower_to_memref.LowerToMemrefPass` (re-exported here; ``examples/embed.py``
  builds such a pipeline with xDSL's ``canonicalize``);
* :func:`plan`: plan the module in place and return what the flow needs next — per function
  the arena size (the scratch buffer a caller allocates), the lower bound, the strategy, the
  on-chip total with DMA staging buffers, and every planned buffer's offset.

:func:`context` is an xDSL ``Context`` with every dialect memopt reads, for flows that parse text.
The plan is read back from the IR the passes wrote, never recomputed: on upstream IR by the one
reader of upstream plans (:func:`~memopt.passes.upstream_plan_io.read_upstream_plan`: the arena
views and their offsets, every memory space's arena), on memopt's dialect by its one plan reader
(:func:`~memopt.dialects.written_plan.read_written_plan`: the arena size, bounds and strategy, and
the offsets of every value, aliases included).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType

from memopt.dialects.context import make_context
from memopt.dialects.memopt import byte_size
from memopt.dialects.written_plan import WrittenPlan, is_planned, read_written_plan
from memopt.passes.insert_dma import InsertDmaPass
from memopt.passes.lower_to_memref import LowerToMemrefPass
from memopt.passes.names import display_names
from memopt.passes.options import validate_pass
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.passes.upstream_plan_io import is_planned as is_upstream_planned
from memopt.passes.upstream_plan_io import read_upstream_plan


@dataclass(frozen=True)
class PlannedBuffer:
    name: str
    offset: int
    """Byte offset in its arena."""
    size: int
    space: int = 0
    """The memory space whose arena holds it (upstream IR: one arena per integer memory space;
    always 0 on memopt's dialect)."""


@dataclass(frozen=True)
class FunctionSummary:
    """The plan of one function."""

    name: str
    arena_size: int
    """Bytes of the arena (planned tensors only)."""
    lower_bound: int
    """Max bytes live at once: no plan of this function's tensors can be smaller."""
    strategy: str
    onchip_size: int
    """Arena plus DMA staging buffers (= ``arena_size`` without ``dma``)."""
    buffers: tuple[PlannedBuffer, ...] = field(default=())
    space_arena_sizes: tuple[tuple[int, int], ...] = field(default=())
    """``(space, bytes)`` of every arena in a memory space other than the default one."""
    lower_bound_inplace: int | None = None
    """The lower bound with in-place reuse counted, when the plan may use it (memopt's dialect)."""


@dataclass(frozen=True)
class PlanSummary:
    functions: tuple[FunctionSummary, ...]

    @property
    def arena_size(self) -> int:
        """The largest arena of the module's functions."""
        return max((f.arena_size for f in self.functions), default=0)

    def __getitem__(self, name: str) -> FunctionSummary:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)


def context() -> Context:
    """An xDSL context with every dialect memopt reads (memopt, builtin, func, arith, scf,
    memref, tensor, linalg)."""
    return make_context()


def plan(
    module: ModuleOp,
    *,
    strategy: str = "best",
    alignment: int = 16,
    arena: str = "alloc",
    capacity: int | None = None,
    dma: bool | dict = False,
    ctx: Context | None = None,
) -> PlanSummary:
    """Plan ``module`` in place (``plan-memory``, then ``insert-dma`` when ``dma`` is true or a
    dict of its options) and return the plan. Options mean what they mean on the command line
    (``memopt-opt --help``); a bad one raises :class:`~memopt.diagnostics.MemoptError`, as the
    passes do on input they refuse."""
    ctx = ctx or context()
    planner = PlanMemoryPass(strategy=strategy, alignment=alignment, arena=arena, capacity=capacity)
    validate_pass(planner, planner.name)
    planner.apply(ctx, module)
    if dma:
        streamer = InsertDmaPass(**(dma if isinstance(dma, dict) else {}))
        validate_pass(streamer, streamer.name)
        streamer.apply(ctx, module)
    return summarize(module)


def _memopt_buffers(plan: WrittenPlan) -> tuple[PlannedBuffer, ...]:
    """memopt dialect: every value with an arena offset, aliases included, by offset."""
    keep = [(v, o, v.type) for v, o in plan.value_offsets() if o >= 0]
    tensors = [(v, o, t) for v, o, t in keep if isinstance(t, TensorType)]
    names = display_names([v for v, _, _ in tensors])
    bufs = [PlannedBuffer(n, o, byte_size(t)) for n, (_, o, t) in zip(names, tensors)]
    return tuple(sorted(bufs, key=lambda b: (b.offset, b.name)))


def _upstream_summary(f: func.FuncOp) -> FunctionSummary | None:
    """An upstream function's plan, read back by the one reader of upstream plans (every arena
    view, double-buffered ones as ``name#0``/``name#1``; DMA staging buffers left out: they are
    in ``onchip_size``); None when the function is not planned."""
    if not is_upstream_planned(f):
        return None
    plan = read_upstream_plan(f)
    size = plan.arena_size or 0
    arenas = sorted(plan.arenas, key=lambda a: a.space)
    bufs = sorted((PlannedBuffer(a.problem.buffers[i].id, a.offsets[i], a.problem.buffers[i].size, a.space)
                   for a in arenas for i in a.planned()),
                  key=lambda b: (b.space, b.offset, b.name))
    return FunctionSummary(
        f.sym_name.data, size, plan.lower_bound or 0, plan.strategy,
        plan.onchip_size if plan.onchip_size is not None else size, tuple(bufs),
        tuple((a.space, a.size) for a in arenas if a.space != 0),
    )


def _memopt_summary(p: WrittenPlan) -> FunctionSummary:
    """A memopt-dialect function's plan as written (the on-chip total: the module's, staging
    buffers included, else the arena)."""
    module_onchip = p.onchip_size()
    onchip = module_onchip if module_onchip is not None else p.arena_size
    return FunctionSummary(p.func.sym_name.data, p.arena_size, p.lower_bound, p.strategy, onchip, _memopt_buffers(p),
                           lower_bound_inplace=p.lower_bound_inplace())


def summarize(module: ModuleOp) -> PlanSummary:
    """The plan already written in ``module`` (by ``plan-memory`` and ``insert-dma``)."""
    out = []
    for f in module.body.block.ops:
        if not isinstance(f, func.FuncOp) or not f.body.blocks:
            continue
        if is_planned(f):
            out.append(_memopt_summary(read_written_plan(f, module)))
            continue
        summary = _upstream_summary(f)
        if summary is not None:
            out.append(summary)
    return PlanSummary(tuple(out))


__all__ = [
    "FunctionSummary", "InsertDmaPass", "LowerToMemrefPass", "PlanMemoryPass", "PlanSummary", "PlannedBuffer",
    "context", "plan", "summarize",
]
