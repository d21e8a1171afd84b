"""The plan of an upstream function, read back from the IR: the one reader every tool uses.

``plan-memory`` writes an upstream plan as IR upstream MLIR can run — one ``memref<Nxi8>`` arena
per memory space and a ``memref.view`` of it per buffer, at a constant byte offset (or at one
of two, chosen by a loop's iteration parity, for a buffer carried to the next iteration) — plus
builtin attributes on the function (``memopt.arena_size``, ``memopt.lower_bound``,
``memopt.strategy``, ``memopt.space_arena_sizes``). Reading it back means tracing every view of
an arena exactly as the planner traced the allocs it replaced (the same tracer,
:mod:`memopt.passes.upstream_lifetime`, with views as the buffers), and reading the offsets off
the views. What comes back is IR-free enough for the core validator, the report, the pools and
the API: a :class:`~memopt.planning.function_plan.Plan`, each arena a :class:`~memopt.planning.Problem`,
its offsets and its size. A pass that needs one recorded fact (whether a function is planned,
its arena argument, a callee's arena argument at a call, a staging mark, the recorded arena size and that attribute's name for a
message) asks it here too, not the attributes.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, MemRefType
from xdsl.ir import Operation, OpResult, SSAValue

from memopt.diagnostics import MemoptError
from memopt.dialects.plan_attr_names import ARENA_SIZE_ATTR, LOWER_BOUND_ATTR, ONCHIP_SIZE_ATTR, SPACE_SIZES_ATTR, STRATEGY_ATTR
from memopt.dialects.upstream_attrs import (
    arena_arg_index, arena_argument, is_planned, is_staging, plan_arenas, recorded_arena_size, recorded_int, recorded_str,
)
from memopt.dialects.walk import walk
from memopt.planning import Buffer, Problem
from memopt.planning.function_plan import Arena, Plan

from .upstream_calls import callee_function
from .upstream_lifetime import BufferNames, BufferTracer, byte_size, memory_space, serial_numbering


ArenaPlan = Arena[Operation]
"""One arena of a planned upstream function: each buffer's site is its arena view (a
double-buffered view is the site of both its buffers)."""


def arenas(f: func.FuncOp) -> list[SSAValue]:
    """The arenas of a planned function: the argument ``memopt.arena_arg`` names and the allocs
    marked ``memopt.arena`` (the one finder, :func:`memopt.dialects.upstream_attrs.plan_arenas`)."""
    return plan_arenas(f)


def call_scratch(call: func.CallOp) -> tuple[int, int] | None:
    """``(bytes, alignment)`` of the arena the callee of ``call`` takes as an argument, once it
    is planned; None when it takes none (the tracer's :data:`~memopt.passes.upstream_lifetime.CallScratch`)."""
    callee = callee_function(call)
    return arena_argument(callee) if callee is not None else None


def read_upstream_plan(f: func.FuncOp, numbering: str = "joint") -> Plan[Operation]:
    """The plan of upstream function ``f``: every arena with its buffers, lifetimes and offsets,
    in the order the function holds them, and what the function's attributes record. A view
    whose offset the reader cannot tell is a located error (the plan is not explicit).

    ``numbering``: ``"joint"``, the planner's (exclusive branches overlaid), or ``"serial"``:
    every region after the previous one and no branch exclusive (what an eager pool, which
    cannot know only one branch runs, replays)."""
    serial = numbering == "serial"
    tracer = BufferTracer(f, call_scratch, serial_numbering(f.body.blocks[0]) if serial else None)
    plans = []
    for arena in arenas(f):
        t = arena.type
        assert isinstance(t, MemRefType)
        space = memory_space(arena.owner) if isinstance(arena, OpResult) else 0
        plans.append(_read_arena(f, tracer, arena, space, byte_size(t), serial))
    return Plan(
        f.sym_name.data, tuple(plans), recorded_str(f, STRATEGY_ATTR), recorded_int(f, ARENA_SIZE_ATTR),
        recorded_int(f, LOWER_BOUND_ATTR), numbering=numbering, onchip_size=recorded_int(f, ONCHIP_SIZE_ATTR),
    )


def _read_arena(f: func.FuncOp, tracer: BufferTracer, arena: SSAValue, space: int, size: int,
                serial: bool = False) -> ArenaPlan:
    buffers: list[Buffer] = []
    offsets: list[int] = []
    views: list[Operation] = []
    names = BufferNames()
    for use in arena.uses:
        view = use.operation
        if not isinstance(view, memref.ViewOp) or view.source is not arena:
            continue
        offs = view_offsets(view)
        trace = tracer.trace(view)
        name = names.take(view)
        if trace.carried_by is not None and len(offs) != 2:
            raise MemoptError("invalid plan: this buffer is carried to the next iteration of its loop but has "
                              f"{len(offs)} offset(s), not one per iteration parity", view)
        start, stop = trace.interval(tracer.num)
        path = () if serial else trace.path(tracer.num)
        t = view.results[0].type
        assert isinstance(t, MemRefType)
        n = byte_size(t)
        for k, off in enumerate(offs):
            buffers.append(Buffer(name if len(offs) == 1 else f"{name}#{k}", n, start, stop, 1, path))
            offsets.append(off)
            views.append(view)
    staging = frozenset(i for i, v in enumerate(views) if is_staging(v))
    return ArenaPlan("" if space == 0 else f"space{space}", space, size, _recorded_size(f, space), Problem.of(buffers),
                     tuple(offsets), tuple(views), staging)


def staging_allocs(f: func.FuncOp) -> list[memref.AllocOp]:
    """The staging buffers ``insert-dma`` made allocs of ``f`` (after planning, in a memory
    space of their own): on chip, but in no arena of the plan."""
    return [op for op in walk(f.body) if isinstance(op, memref.AllocOp) and is_staging(op)]


def view_offsets(view: memref.ViewOp) -> list[int]:
    """The byte offsets a view can take: one constant, or the two constants an
    ``arith.select`` chooses between (a double-buffered view)."""
    shift = view.byte_shift
    c = _constant(shift)
    if c is not None:
        return [c]
    if isinstance(shift, OpResult) and isinstance(shift.op, arith.SelectOp):
        a, b = _constant(shift.op.lhs), _constant(shift.op.rhs)
        if a is not None and b is not None:
            return [a, b]
    raise MemoptError("invalid plan: the offset of this arena view is not a constant (nor a choice of two)", view)


def _constant(v: SSAValue) -> int | None:
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp) and isinstance(v.op.value, IntegerAttr):
        return v.op.value.value.data
    return None


def _recorded_size(f: func.FuncOp, space: int) -> int | None:
    if space == 0:
        return recorded_int(f, ARENA_SIZE_ATTR)
    sizes = f.attributes.get(SPACE_SIZES_ATTR)
    entry = sizes.data.get(str(space)) if isinstance(sizes, DictionaryAttr) else None
    return entry.value.data if isinstance(entry, IntegerAttr) else None


__all__ = ["ARENA_SIZE_ATTR", "ArenaPlan", "arena_arg_index", "arenas", "call_scratch", "is_planned", "is_staging", "read_upstream_plan",
           "recorded_arena_size", "staging_allocs", "view_offsets"]
