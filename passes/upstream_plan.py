"""The mutator of ``plan-memory`` on upstream MLIR: one arena per function, a view per buffer.

Given the offsets the planner chose for :class:`~memopt.passes.upstream_lifetime.UpstreamLifetimes`,
each planned ``memref.alloc`` becomes ``memref.view %arena[%offset][]`` of one
``memref.alloc() : memref<Nxi8>`` at the top of the function, and its
``memref.dealloc`` goes (the arena is freed once, before every return). The plan is explicit in
the IR users keep: the views carry the offsets, and the function carries builtin attributes —
``memopt.arena_size = N : i64``, ``memopt.lower_bound = N : i64``, ``memopt.strategy = "…"`` —
never a ``#memopt.…`` attribute, so the output parses and verifies in upstream MLIR.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    ArrayAttr, DictionaryAttr, FunctionType, IndexType, IntegerAttr, MemRefType, NoneAttr, StringAttr, UnitAttr, i8,
    i64,
)
from xdsl.rewriter import InsertPoint, Rewriter

from memopt.planning import Solution

from .upstream_lifetime import UpstreamLifetimes

from .upstream_attrs import (  # noqa: F401 - re-exported
    ARENA_ARG_ATTR, ARENA_ATTR, ARENA_MODES, ARENA_SIZE_ATTR, LOWER_BOUND_ATTR, SPACE_SIZES_ATTR, STRATEGY_ATTR,
)


def arena_value(f: func.FuncOp):
    """The arena of a planned function: its ``memopt.arena`` alloc's result or, with
    ``arena=arg``, the argument ``memopt.arena_arg`` names; None before planning."""
    k = f.attributes.get(ARENA_ARG_ATTR)
    if isinstance(k, IntegerAttr):
        return f.body.blocks[0].args[k.value.data]
    for op in f.body.blocks[0].ops:
        if isinstance(op, memref.AllocOp) and ARENA_ATTR in op.attributes \
                and isinstance(op.results[0].type.memory_space, NoneAttr):
            return op.results[0]
    return None


def resize_arena(f: func.FuncOp, size: int):
    """Grow the arena of planned ``f`` to ``size`` bytes (staging buffers go after the planned
    ones); returns the new arena value."""
    old = arena_value(f)
    assert old is not None
    t = MemRefType(i8, [max(size, 1)])
    block = f.body.blocks[0]
    if isinstance(f.attributes.get(ARENA_ARG_ATTR), IntegerAttr):
        k = f.attributes[ARENA_ARG_ATTR].value.data
        new = block.insert_arg(t, k)
        new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
        block.erase_arg(old)
        f.function_type = FunctionType.from_lists(list(block.arg_types), list(f.function_type.outputs.data))
        return new
    alloc = old.owner
    grown = memref.AllocOp.get(i8, None, [max(size, 1)])
    grown.attributes.update(alloc.attributes)
    grown.results[0].name_hint = old.name_hint
    block.insert_op_before(grown, alloc)
    old.replace_all_uses_with(grown.results[0])
    alloc.detach()
    alloc.erase()
    return grown.results[0]


def write_upstream_plan(
    lt: UpstreamLifetimes, solution: Solution, lower_bound: int, alignment: int, arena_mode: str = "alloc"
) -> None:
    """Rewrite ``lt.func``'s planned allocs into views of one arena (see module docstring).

    ``arena_mode="arg"``: the arena is a new trailing ``memref<Nxi8>`` argument the caller
    provides (a scratch buffer it sizes from ``memopt.arena_size``, whose index is in
    ``memopt.arena_arg``), not an alloc."""
    f = lt.func
    f.attributes[ARENA_SIZE_ATTR] = IntegerAttr(solution.height, i64)
    f.attributes[LOWER_BOUND_ATTR] = IntegerAttr(lower_bound, i64)
    f.attributes[STRATEGY_ATTR] = StringAttr(solution.strategy)
    if not lt.allocs:
        return
    block = f.body.blocks[0]
    if arena_mode == "arg":
        arg = block.insert_arg(MemRefType(i8, [max(solution.height, 1)]), len(block.args))
        arg.name_hint = "arena"
        f.function_type = FunctionType.from_lists(list(block.arg_types), list(f.function_type.outputs.data))
        if f.arg_attrs is not None:
            f.arg_attrs = ArrayAttr([*f.arg_attrs.data, DictionaryAttr({})])
        f.attributes[ARENA_ARG_ATTR] = IntegerAttr(len(block.args) - 1, i64)
        _views(lt, solution, arg)
        return
    _views(lt, solution, _arena_alloc(f, solution.height, None))


def _arena_alloc(f: func.FuncOp, size: int, space: int | None):
    """A ``memref<size x i8[, space]>`` arena alloc at the top of ``f``, freed before it returns."""
    # No alignment property: xDSL 0.74 prints it in the attribute dictionary, which upstream
    # MLIR's strict property parsing rejects; offsets inside the arena are aligned to ``alignment``
    # relative to its base, and the base gets the allocator's default alignment.
    block = f.body.blocks[0]
    ms = IntegerAttr(space, i64) if space else None
    arena = memref.AllocOp.get(i8, None, [max(size, 1)], memory_space=ms if ms is not None else NoneAttr())
    arena.results[0].name_hint = "arena" if not space else f"arena_space{space}"
    arena.attributes[ARENA_ATTR] = UnitAttr()  # the executor reads views of it as planned buffers
    Rewriter.insert_op(arena, InsertPoint.at_start(block))
    for ret in [op for op in f.body.walk() if isinstance(op, func.ReturnOp) and op.parent_op() is f]:
        Rewriter.insert_op(memref.DeallocOp.get(arena), InsertPoint.before(ret))
    return arena.results[0]


def write_space_plan(lt: UpstreamLifetimes, solution: Solution, space: int) -> None:
    """The allocs of memory space ``space`` (> 0) into views of that space's own arena (an alloc,
    whatever the default space's ``arena`` mode: a caller-provided buffer is the default space's);
    its size goes to ``memopt.space_arena_sizes = {"<space>" = N : i64}``."""
    f = lt.func
    sizes = dict(f.attributes[SPACE_SIZES_ATTR].data) if SPACE_SIZES_ATTR in f.attributes else {}
    sizes[str(space)] = IntegerAttr(solution.height, i64)
    f.attributes[SPACE_SIZES_ATTR] = DictionaryAttr(dict(sorted(sizes.items(), key=lambda kv: int(kv[0]))))
    if lt.allocs:
        _views(lt, solution, _arena_alloc(f, solution.height, space))


def _views(lt: UpstreamLifetimes, solution: Solution, arena) -> None:
    """Every planned alloc becomes a view of ``arena`` at its offset; its deallocs go."""
    for alloc, offset in zip(lt.allocs, solution.offsets):
        t = alloc.results[0].type
        assert isinstance(t, MemRefType)
        for use in list(alloc.results[0].uses):
            if isinstance(use.operation, memref.DeallocOp):
                Rewriter.erase_op(use.operation)
        off = arith.ConstantOp(IntegerAttr(offset, IndexType()))
        view = memref.ViewOp(arena, off, [], MemRefType(t.element_type, t.shape, memory_space=t.memory_space))
        view.results[0].name_hint = alloc.results[0].name_hint
        Rewriter.insert_op([off, view], InsertPoint.before(alloc))
        alloc.results[0].replace_all_uses_with(view.results[0])
        Rewriter.erase_op(alloc)


__all__ = ["ARENA_ARG_ATTR", "ARENA_MODES", "arena_value", "resize_arena", "ARENA_ATTR", "ARENA_SIZE_ATTR", "LOWER_BOUND_ATTR", "STRATEGY_ATTR", "SPACE_SIZES_ATTR", "write_space_plan", "write_upstream_plan"]
