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

from xdsl.dialects import affine, arith, func, memref, scf
from xdsl.dialects.bufferization import CloneOp
from xdsl.dialects.builtin import (
    ArrayAttr, DictionaryAttr, FunctionType, IndexType, IntegerAttr, MemRefType, NoneAttr, StringAttr, UnitAttr, i1,
    i8, i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from memopt.dialects.walk import walk
from memopt.dialects.ownership import DeallocOp
from memopt.dialects.upstream_syntax import AllocOp
from memopt.dialects.plan_attr_names import (
    ARENA_ALIGNMENT_ATTR, ARENA_ARG_ATTR, ARENA_ATTR, ARENA_SIZE_ATTR, LOWER_BOUND_ATTR, ONCHIP_SIZE_ATTR,
    SPACE_SIZES_ATTR, STAGING_ATTR, STRATEGY_ATTR,
)
from memopt.dialects.upstream_attrs import arena_arg_index, is_marked_arena, recorded_int
from memopt.planning import Solution

from .lifetime_core import aliases
from .upstream_lifetime import VIEWS, MemrefFlavour, UpstreamLifetimes, scratch_name


def arena_value(f: func.FuncOp):
    """The arena of a planned function: its ``memopt.arena`` alloc's result or, with
    ``arena=arg``, the argument ``memopt.arena_arg`` names; None before planning."""
    k = arena_arg_index(f)
    if k is not None:
        return f.body.blocks[0].args[k]
    for op in f.body.blocks[0].ops:
        if isinstance(op, memref.AllocOp) and is_marked_arena(op) and isinstance(op.memref.type.memory_space, NoneAttr):
            return op.results[0]
    return None


def resize_arena(f: func.FuncOp, size: int):
    """Grow the arena of planned ``f`` to ``size`` bytes (staging buffers go after the planned
    ones); returns the new arena value."""
    old = arena_value(f)
    assert old is not None
    t = MemRefType(i8, [max(size, 1)])
    block = f.body.blocks[0]
    k = recorded_int(f, ARENA_ARG_ATTR)
    if k is not None:
        new = block.insert_arg(t, k)
        new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
        block.erase_arg(old)
        f.function_type = FunctionType.from_lists(list(block.arg_types), list(f.function_type.outputs.data))
        return new
    alloc = old.owner
    grown = AllocOp.get(i8, alloc.alignment, [max(size, 1)])
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
    """Rewrite ``lt.func``'s planned buffers into views of one arena (see module docstring).

    ``arena_mode="arg"``: the arena is a new trailing ``memref<Nxi8>`` argument the caller
    provides (a scratch buffer it sizes from ``memopt.arena_size`` and aligns to
    ``memopt.arena_alignment``, whose index is in ``memopt.arena_arg``), not an alloc."""
    f = lt.func
    f.attributes[ARENA_SIZE_ATTR] = IntegerAttr(solution.height, i64)
    f.attributes[LOWER_BOUND_ATTR] = IntegerAttr(lower_bound, i64)
    f.attributes[STRATEGY_ATTR] = StringAttr(solution.strategy)
    _erase_unused(lt.unused, lt.flavour)
    if not lt.allocs:
        return
    base_alignment = arena_alignment(lt)
    block = f.body.blocks[0]
    if arena_mode == "arg":
        arg = block.insert_arg(MemRefType(i8, [max(solution.height, 1)]), len(block.args))
        arg.name_hint = "arena"
        f.function_type = FunctionType.from_lists(list(block.arg_types), list(f.function_type.outputs.data))
        if f.arg_attrs is not None:
            f.arg_attrs = ArrayAttr([*f.arg_attrs.data, DictionaryAttr({})])
        f.attributes[ARENA_ARG_ATTR] = IntegerAttr(len(block.args) - 1, i64)
        f.attributes[ARENA_ALIGNMENT_ATTR] = IntegerAttr(base_alignment, i64)
        _views(lt, solution, arg)
        return
    _views(lt, solution, _arena_alloc(f, solution.height, None, base_alignment))


def arena_alignment(lt: UpstreamLifetimes) -> int:
    """The alignment the arena's base needs: the largest any planned buffer asks for (offsets
    are aligned relative to the base)."""
    return max([b.alignment for b in lt.problem.buffers] + [1])


def _arena_alloc(f: func.FuncOp, size: int, space: int | None, alignment: int = 1):
    """A ``memref<size x i8[, space]>`` arena alloc at the top of ``f``, freed before it returns;
    aligned to ``alignment`` when that exceeds 1 (printed as upstream does: ``alignment = N``)."""
    block = f.body.blocks[0]
    ms = IntegerAttr(space, i64) if space else None
    arena = AllocOp.get(i8, alignment if alignment > 1 else None, [max(size, 1)],
                        memory_space=ms if ms is not None else NoneAttr())
    arena.results[0].name_hint = "arena" if not space else f"arena_space{space}"
    arena.attributes[ARENA_ATTR] = UnitAttr()  # the executor reads views of it as planned buffers
    Rewriter.insert_op(arena, InsertPoint.at_start(block))
    for ret in [op for op in walk(f.body) if isinstance(op, func.ReturnOp) and op.parent_op() is f]:
        Rewriter.insert_op(memref.DeallocOp.get(arena), InsertPoint.before(ret))
    return arena.results[0]


def mark_staging(op: Operation) -> None:
    """Mark a view or alloc ``insert-dma`` made as a DMA staging buffer (not a planned buffer)."""
    op.attributes[STAGING_ATTR] = UnitAttr()


def write_onchip_size(f: func.FuncOp, size: int) -> None:
    """Record ``f``'s on-chip total, its arena grown by the staging buffers placed in it."""
    f.attributes[ONCHIP_SIZE_ATTR] = IntegerAttr(size, i64)


def write_space_plan(lt: UpstreamLifetimes, solution: Solution, space: int) -> None:
    """The allocs of memory space ``space`` (> 0) into views of that space's own arena (an alloc,
    whatever the default space's ``arena`` mode: a caller-provided buffer is the default space's);
    its size goes to ``memopt.space_arena_sizes = {"<space>" = N : i64}``."""
    f = lt.func
    recorded = f.attributes.get(SPACE_SIZES_ATTR)
    sizes = dict(recorded.data) if isinstance(recorded, DictionaryAttr) else {}
    sizes[str(space)] = IntegerAttr(solution.height, i64)
    f.attributes[SPACE_SIZES_ATTR] = DictionaryAttr(dict(sorted(sizes.items(), key=lambda kv: int(kv[0]))))
    _erase_unused(lt.unused, lt.flavour)
    if lt.allocs:
        _views(lt, solution, _arena_alloc(f, solution.height, space, arena_alignment(lt)))


def _views(lt: UpstreamLifetimes, solution: Solution, arena) -> None:
    """Every planned buffer becomes a view of ``arena`` at its offset (a double-buffered one at
    one of its two, by its loop's iteration parity); the deallocations of it and of its
    aliases go."""
    offsets: dict[Operation, list[int]] = {}
    for alloc, offset in zip(lt.allocs, solution.offsets):
        offsets.setdefault(alloc, []).append(offset)
    for alloc, offs in offsets.items():
        if isinstance(alloc, func.CallOp):
            _pass_scratch(alloc, arena, _constant(offs[0], alloc), lt.flavour)
            continue
        _drop_deallocations(aliases(alloc.results[0], lt.flavour, through_yields=True))
        at = _parity_offset(lt.carried[alloc], offs, alloc) if alloc in lt.carried else _constant(offs[0], alloc)
        _replace_with_view(alloc, arena, at)


def _pass_scratch(call: func.CallOp, arena: SSAValue, offset: SSAValue, flavour: MemrefFlavour) -> None:
    """The callee's arena, a view of the caller's at ``offset``, passed as the call's last
    argument (the callee's ``memopt.arena_arg``)."""
    assert flavour.call_scratch is not None  # the flavour the buffers were traced with
    scratch = flavour.call_scratch(call)
    assert scratch is not None
    view = memref.ViewOp(arena, offset, [], MemRefType(i8, [scratch[0]]))
    view.results[0].name_hint = scratch_name(call)
    new = func.CallOp(call.callee, [*call.arguments, view.results[0]], [r.type for r in call.results])
    new.attributes.update(call.attributes)
    Rewriter.insert_op([view, new], InsertPoint.before(call))
    for old, r in zip(call.results, new.results):
        old.replace_all_uses_with(r)
    Rewriter.erase_op(call)


def _constant(value: int, before: Operation) -> SSAValue:
    c = arith.ConstantOp(IntegerAttr(value, IndexType()))
    Rewriter.insert_op(c, InsertPoint.before(before))
    return c.results[0]


def _parity_offset(loop: Operation, offs: list[int], before: Operation) -> SSAValue:
    """``offs[0]`` in even iterations of ``loop``, ``offs[1]`` in odd ones (counted from its
    lower bound in steps)."""
    index = IndexType()
    ops: list[Operation] = []
    assert isinstance(loop, (scf.ForOp, affine.ForOp))  # what carries a buffer to the next iteration
    iv = loop.body.blocks[0].args[0]
    if isinstance(loop, scf.ForOp):
        lb, step = loop.lb, loop.step
    else:
        lb_op = affine.ApplyOp(list(loop.lowerBoundOperands), loop.lowerBoundMap)
        step_op = arith.ConstantOp(IntegerAttr(loop.step.value.data, index))
        ops += [lb_op, step_op]
        lb, step = lb_op.results[0], step_op.results[0]
    two = arith.ConstantOp(IntegerAttr(2, index))
    zero = arith.ConstantOp(IntegerAttr(0, index))
    delta = arith.SubiOp(iv, lb)
    count = arith.DivUIOp(delta, step)
    parity = arith.RemUIOp(count, two)
    even = arith.CmpiOp(parity, zero, "eq")
    off0 = arith.ConstantOp(IntegerAttr(offs[0], index))
    off1 = arith.ConstantOp(IntegerAttr(offs[1], index))
    chosen = arith.SelectOp(even, off0, off1)
    ops += [two, zero, delta, count, parity, even, off0, off1, chosen]
    Rewriter.insert_op(ops, InsertPoint.before(before))
    return chosen.results[0]


def _replace_with_view(alloc: Operation, arena: SSAValue, offset: SSAValue) -> None:
    """``alloc`` becomes a view of ``arena``; a ``bufferization.clone`` also copies its source in
    (and casts to its layout)."""
    t = alloc.results[0].type
    assert isinstance(t, MemRefType)
    view = memref.ViewOp(arena, offset, [], MemRefType(t.element_type, t.shape, memory_space=t.memory_space))
    view.results[0].name_hint = alloc.results[0].name_hint
    new: list[Operation] = [view]
    result = view.results[0]
    if isinstance(alloc, CloneOp):
        new.append(memref.CopyOp(alloc.input, result))
        if result.type != t:
            cast = memref.CastOp.get(result, t)
            new.append(cast)
            result = cast.results[0]
    Rewriter.insert_op(new, InsertPoint.before(alloc))
    alloc.results[0].replace_all_uses_with(result)
    Rewriter.erase_op(alloc)


def _drop_deallocations(storage: set[SSAValue]) -> None:
    """Remove every deallocation of ``storage`` (a buffer's values): ``memref.dealloc`` ops, and
    their entries in ``bufferization.dealloc`` (whose results, the retained values' ownership,
    do not depend on buffers that never escape)."""
    for v in storage:
        for use in list(v.uses):
            user = use.operation
            if isinstance(user, memref.DeallocOp):
                Rewriter.erase_op(user)
            elif isinstance(user, DeallocOp) and user.parent is not None:
                _drop_entries(user, storage)


def _drop_entries(op: DeallocOp, storage: set[SSAValue]) -> None:
    keep = [(m, c) for m, c in zip(op.memrefs, op.conditions) if m not in storage]
    if keep:
        new = DeallocOp([m for m, _ in keep], [c for _, c in keep], list(op.retained), dict(op.attributes))
        Rewriter.insert_op(new, InsertPoint.before(op))
        results = list(new.results)
    else:
        false = [arith.ConstantOp(IntegerAttr(0, i1)) for _ in op.results]
        Rewriter.insert_op(false, InsertPoint.before(op))
        results = [c.results[0] for c in false]
    for old, replacement in zip(op.results, results):
        old.replace_all_uses_with(replacement)
    Rewriter.erase_op(op)


def _erase_unused(unused: list[Operation], flavour: MemrefFlavour) -> None:
    """Allocs nothing reads or writes go, with their deallocations and the views made only for
    those; one whose alias is still needed (e.g. its address compared) stays."""
    for alloc in unused:
        _drop_deallocations(aliases(alloc.results[0], flavour))
        _erase_dead_views(alloc)


def _erase_dead_views(op: Operation) -> None:
    for r in op.results:
        for use in list(r.uses):
            if isinstance(use.operation, VIEWS):
                _erase_dead_views(use.operation)
    if all(not r.uses for r in op.results):
        Rewriter.erase_op(op)


__all__ = ["arena_value", "mark_staging", "resize_arena", "write_onchip_size", "write_space_plan",
           "write_upstream_plan"]
