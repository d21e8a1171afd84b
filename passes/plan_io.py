"""The memopt dialect's plan: its one writer, and the plan model built over its one reader.

A plan lives in discardable attributes, so any later pass or tool can read it back:
``memopt.offsets`` on every op with arena-resident tensor results (one entry per result, -1 for
results that take no arena space, e.g. off-chip weights), ``memopt.arg_offsets`` on the function
for its arguments, ``memopt.plan = #memopt.plan<...>`` on the function for the arena size,
the lower bound and the strategy that produced it, and ``memopt.numbering`` for the
control-flow numbering it is valid in (a field of its own: never derived from the strategy).
:func:`write_plan` writes them, and the DMA staging buffers' on-chip places and the capacity they
were placed for (:func:`write_staging`, :func:`write_capacity`, placed by
:mod:`memopt.passes.dma_layout`). The attributes are decoded by :mod:`memopt.dialects.plan_attrs`
and read by one reader, :mod:`memopt.dialects.written_plan`, which gives the recorded numbers as
written (what the executor and the API run); this module imports the names and the decoder only
for what it writes (a contract in ``pyproject.toml``). :func:`read_function_plan` builds the plan
model over that reader — its recorded numbers and the lifetimes the plan's numbering gives — into
a :class:`~memopt.planning.function_plan.Plan`: what ``verify-plan``, the report and the pools
read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, DictionaryAttr, IntegerAttr, StringAttr, i64
from xdsl.ir import Operation, SSAValue

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import DmaBufferOp, PlanAttr, memory_of
from memopt.dialects.plan_attr_names import (
    ARG_OFFSETS_ATTR, CAPACITY_ATTR, LB_INPLACE_ATTR, MEMORIES_ATTR, NUMBERING_ATTR, OFFSETS_ATTR, ONCHIP_OFFSET_ATTR,
    ONCHIP_SIZE_ATTR, PLAN_ATTR,
)
from memopt.dialects.plan_attrs import NO_OFFSET, memory_sizes
from memopt.dialects.written_plan import WrittenPlan, onchip_size, placed_staging, read_written_plan
from memopt.passes.lifetime import FunctionLifetimes, analyze_function
from memopt.planning import Solution
from memopt.planning.function_plan import Arena, Plan, Staging

def _ops_with_arena_results(lt: FunctionLifetimes) -> list[Operation]:
    ops = []
    for op in walk(lt.func.body):
        if op is not lt.func and any(r in lt.storage_of for r in op.results):
            ops.append(op)
    return ops


def write_memory_plan(lt: FunctionLifetimes, solution: Solution) -> None:
    """Attach an off-chip memory's plan (``lt.memory``): offsets on its copies, its arena size
    in ``memopt.memories``."""
    assert lt.memory is not None
    for op in _ops_with_arena_results(lt):
        vals = [lt.value_offset(r, solution.offsets) for r in op.results]
        op.attributes[OFFSETS_ATTR] = DenseArrayBase.from_list(i64, [NO_OFFSET if v is None else v for v in vals])
    sizes = dict(memory_sizes(lt.func))
    sizes[lt.memory] = solution.height
    lt.func.attributes[MEMORIES_ATTR] = DictionaryAttr({k: IntegerAttr(v, i64) for k, v in sorted(sizes.items())})


def write_plan(lt: FunctionLifetimes, solution: Solution, lower_bound: int, numbering: str = "joint") -> None:
    """Attach ``solution`` (offsets per buffer of ``lt.problem``, whose steps are in control-flow
    numbering ``numbering``) to the function's IR."""
    offsets = solution.offsets
    if MEMORIES_ATTR in lt.func.attributes:
        del lt.func.attributes[MEMORIES_ATTR]
    for op in walk(lt.func.body):
        if OFFSETS_ATTR in op.attributes:
            del op.attributes[OFFSETS_ATTR]
    for op in _ops_with_arena_results(lt):
        vals = [lt.value_offset(r, offsets) for r in op.results]
        op.attributes[OFFSETS_ATTR] = DenseArrayBase.from_list(
            i64, [NO_OFFSET if v is None else v for v in vals]
        )
    args = lt.func.body.blocks[0].args
    arg_vals = [lt.value_offset(a, offsets) for a in args]
    if args:
        lt.func.attributes[ARG_OFFSETS_ATTR] = DenseArrayBase.from_list(
            i64, [NO_OFFSET if v is None else v for v in arg_vals]
        )
    lt.func.attributes[PLAN_ATTR] = PlanAttr.get(solution.height, lower_bound, solution.strategy)
    lt.func.attributes[NUMBERING_ATTR] = StringAttr(numbering)


def write_inplace_bound(f: func.FuncOp, bound: int | None) -> None:
    """Record the lower bound with in-place permissions counted (``None``: the plan has none to
    use, and a stale one is dropped)."""
    if bound is not None:
        f.attributes[LB_INPLACE_ATTR] = IntegerAttr(bound, i64)
    elif LB_INPLACE_ATTR in f.attributes:
        del f.attributes[LB_INPLACE_ATTR]


def write_staging(module: Operation, placed: Sequence[tuple[DmaBufferOp, int]], total: int) -> None:
    """Record the DMA staging buffers' on-chip offsets and the on-chip total (arena plus
    buffers) on ``module``: placed by :func:`memopt.passes.dma_layout.place_dma_buffers`."""
    for buffer, offset in placed:
        buffer.attributes[ONCHIP_OFFSET_ATTR] = IntegerAttr(offset, i64)
    module.attributes[ONCHIP_SIZE_ATTR] = IntegerAttr(total, i64)


def write_capacity(module: Operation, capacity: int) -> None:
    """Record the on-chip capacity a DMA schedule was made for, which a later plan must respect."""
    module.attributes[CAPACITY_ATTR] = IntegerAttr(capacity, i64)


def staging_unplaced(op: Operation) -> MemoptError:
    """The located error for a staging buffer ``op`` the plan gives no on-chip place (on the
    module: no on-chip total)."""
    name = ONCHIP_OFFSET_ATTR if isinstance(op, DmaBufferOp) else ONCHIP_SIZE_ATTR
    return MemoptError(f"missing '{name}' attribute (run plan-memory after insert-dma)", op)


MemoptPlan = Plan[SSAValue]
"""A memopt-dialect function's plan: each buffer's site is the value that owns its storage."""


@dataclass(frozen=True)
class ReadPlan:
    """A function's plan and the lifetimes of its on-chip arena (what a reader needs beside the
    plan to say what each buffer is)."""

    plan: MemoptPlan
    lifetimes: FunctionLifetimes


def read_function_plan(f: func.FuncOp, *, memories: bool = True) -> ReadPlan:
    """The plan of ``f`` read back: each arena's buffers with their lifetimes in the numbering the
    plan records, and their offsets (the off-chip memories' arenas too, unless ``memories`` is
    false). A missing, malformed or inconsistent attribute is a located :class:`MemoptError`."""
    written = read_written_plan(f)
    numbering = written.numbering()
    onchip = analyze_function(f, mode=numbering, inplace=True, alignment=1)
    arenas = [_arena(onchip, written)]
    if memories:
        for memory in written.offchip_memories():
            lt = analyze_function(f, mode=numbering, inplace=False, alignment=1, memory=memory)
            arenas.append(_arena(lt, written))
    plan = MemoptPlan(
        f.sym_name.data, tuple(arenas), written.strategy, written.arena_size, written.lower_bound,
        written.lower_bound_inplace(), numbering, written.placed_staging(), written.onchip_size(),
    )
    return ReadPlan(plan, onchip)


def read_staging(module: Operation) -> tuple[tuple[Staging, ...], int | None]:
    """The DMA staging buffers placed on chip (module-wide on the memopt dialect: every function
    shares them) and the recorded on-chip total, as
    :func:`memopt.passes.dma_layout.place_dma_buffers` wrote them."""
    return placed_staging(module), onchip_size(module)


def _arena(lt: FunctionLifetimes, written: WrittenPlan) -> Arena[SSAValue]:
    offsets, size = read_plan(lt, written)
    return Arena(lt.memory or "", 0, size, size, lt.problem, tuple(offsets), tuple(lt.owner))


def read_plan(lt: FunctionLifetimes, written: WrittenPlan | None = None) -> tuple[list[int], int]:
    """Offsets per buffer of ``lt.problem`` and the recorded size of its arena, from the plan as
    written (``written``: ``lt.func``'s, read here when not given).

    Raises a located :class:`MemoptError` for missing, malformed or inconsistent attributes.
    """
    f = lt.func
    plan = written if written is not None else read_written_plan(f)
    buffer_offset: list[int | None] = [None] * len(lt.problem)

    def record(value, off: int, op: Operation) -> None:
        loc = lt.storage_of.get(value)
        if loc is None:
            if off != NO_OFFSET:
                raise MemoptError(f"offset {off} given for a value that takes no arena space", op)
            return
        b, rel = loc
        if off < 0:
            raise MemoptError(f"arena value has invalid offset {off}", op)
        base, known = off - rel, buffer_offset[b]
        if known is None:
            buffer_offset[b] = base
        elif known != base:
            raise MemoptError(f"offset {off} disagrees with the storage it aliases (expected {known + rel})", op)

    args = f.body.blocks[0].args
    if any(a in lt.storage_of for a in args):
        for a, off in zip(args, plan.arg_offsets()):
            record(a, off, f)
    for op in _ops_with_arena_results(lt):
        for r, off in zip(op.results, plan.result_offsets(op)):
            record(r, off, op)
    # Offsets on ops without arena results are not harmless noise: a reader would trust them.
    for op in walk(lt.func.body):
        if plan.has_result_offsets(op) and not any(r in lt.storage_of for r in op.results):
            if any(memory_of(r) != lt.memory for r in op.results):
                continue  # another memory's tensor: its offset is in that memory's arena
            for r, off in zip(op.results, plan.result_offsets(op)):
                record(r, off, op)
    missing = [i for i, o in enumerate(buffer_offset) if o is None]
    if missing:
        raise MemoptError(f"no offset recorded for buffer '{lt.problem.buffers[missing[0]].id}'", f)
    offsets = [o for o in buffer_offset if o is not None]
    if lt.memory is not None:
        return offsets, plan.memory_size(lt.memory, f)
    return offsets, plan.arena_size


__all__ = [
    "MemoptPlan", "ReadPlan", "read_function_plan", "read_plan", "read_staging", "staging_unplaced",
    "write_capacity", "write_inplace_bound", "write_memory_plan", "write_plan", "write_staging",
]
