"""Where ``insert-dma`` puts the staging buffers and the transfer tags on upstream MLIR.

``memref.dma_start`` copies between two memory spaces, so the staging buffers must be in a space
other than the weights'. With ``staging-space`` unset (``auto``):

* weights all in other spaces than the default one (what ``lower-to-memref`` emits: off-chip
  space 1) — the staging buffers are on-chip bytes of the default space: views of the arena
  placed after the planned bytes when the function is planned (the arena grows, and
  ``memopt.onchip_size`` records the total next to ``memopt.arena_size``), else plain
  ``memref.alloc``\\ s that a later ``plan-memory`` places like any buffer;
* some weight in the default space (what bufferization emits for constants) — the staging
  buffers go to an on-chip memory space of their own: the lowest space >= 1 that holds no
  weight, said in a remark. ``plan-memory`` gives that space its own arena.

``staging-space=N`` puts them in space ``N`` (0: the default space, as allocs) whatever the
weights' spaces; a weight already in space ``N`` makes it a located error. One ``i32`` tag buffer
per function (a tag per transfer) sits with the staging buffers: after them in the arena, or in
their memory space.

A planned function's ``memopt.arena_size`` is checked against its arena before anything is put
after it: a recorded size below the bytes its views use, or above its arena, is a located error
(staging bytes placed after it would overwrite live buffers).
"""

from __future__ import annotations

import sys

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, NoneAttr, i8, i32, i64
from xdsl.ir import Attribute, Operation, OpResult, SSAValue

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError, where
from memopt.dialects.upstream_syntax import AllocOp
from memopt.passes.dma_layout import TAG_BYTES, layout_after_arena
from memopt.passes.upstream_dma_weights import UpstreamWeight
from memopt.passes.upstream_lifetime import byte_size
from memopt.passes.upstream_plan import arena_value, mark_staging, resize_arena, write_onchip_size
from memopt.passes.upstream_plan_io import ARENA_SIZE_ATTR, arena_arg_index, is_staging, recorded_arena_size

ARENA = None
"""The staging space meaning "the default space, with the arena"."""


def _space_number(space: Attribute) -> int | None:
    if isinstance(space, NoneAttr):
        return 0
    return space.value.data if isinstance(space, IntegerAttr) else None


def choose_space(weights: list[tuple[UpstreamWeight, Operation]], option: int | None) -> Attribute | None:
    """The staging buffers' memory space for streaming ``weights`` (each with its kernel):
    ``ARENA`` or a memory-space attribute (see module docstring)."""
    spaces = {_space_number(w.space) for w, _ in weights}
    if option is not None:
        for w, kernel in weights:
            if _space_number(w.space) == option:
                raise MemoptError(
                    f"insert-dma: staging-space={option} is the memory space of weight @{w.symbol} "
                    f"(memref.dma_start copies between memory spaces; choose another or leave it unset)", kernel)
        return NoneAttr() if option == 0 else IntegerAttr(option, i64)
    if 0 not in spaces:
        return ARENA
    k = 1
    while k in spaces:
        k += 1
    sys.stderr.write(
        f"insert-dma: remark: weights in the default memory space (the arena's): staging buffers and transfer "
        f"tags in memory space {k}, an on-chip memory of their own (staging-space=N chooses another)\n")
    return IntegerAttr(k, i64)


def _offset_bound(v: SSAValue) -> int | None:
    """The largest value a constant (or a select of constants: a parity offset) can take."""
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp) and isinstance(v.op.value, IntegerAttr):
        return v.op.value.value.data
    if isinstance(v, OpResult) and isinstance(v.op, arith.SelectOp):
        a, b = _offset_bound(v.op.lhs), _offset_bound(v.op.rhs)
        return None if a is None or b is None else max(a, b)
    return None


def _views_end(arena: SSAValue, staging: bool) -> tuple[int, Operation | None]:
    """The end of the furthest view of ``arena`` that is (or is not) a staging buffer, and that
    view; a view at an unknown offset reaches the arena's end."""
    arena_type = arena.type
    assert isinstance(arena_type, MemRefType)  # an arena is a byte buffer
    end, furthest = 0, None
    for use in arena.uses:
        v = use.operation
        if not isinstance(v, memref.ViewOp) or is_staging(v) != staging:
            continue
        off = _offset_bound(v.byte_shift)
        e = byte_size(arena_type) if off is None else off + byte_size(v.result.type)
        if e > end:
            end, furthest = e, v
    return end, furthest


def planned_base(f: func.FuncOp) -> tuple[SSAValue | None, int]:
    """The arena ``plan-memory`` made in ``f`` (alloc result or argument) and the first byte
    staging may use: past the planned bytes and any earlier staging (None, 0 before planning)."""
    arena = arena_value(f)
    if arena is None:
        return None, 0
    recorded = recorded_arena_size(f)
    total = byte_size(arena.type)
    size = recorded if recorded is not None else total
    used, view = _views_end(arena, staging=False)
    if used > size:
        raise MemoptError(
            f"insert-dma: '@{f.sym_name.data}' records {ARENA_SIZE_ATTR} = {size} but this view of its arena "
            f"ends at byte {used}: the plan does not hold (plan the unplanned program again)", view)
    if size > total:
        raise MemoptError(
            f"insert-dma: '@{f.sym_name.data}' records {ARENA_SIZE_ATTR} = {size}, more than its "
            f"{total}-byte arena: the plan does not hold (plan the unplanned program again)", f)
    return arena, max(size, _views_end(arena, staging=True)[0])


def _called_in(module: ModuleOp, f: func.FuncOp) -> bool:
    name = f.sym_name.data
    return any(isinstance(op, func.CallOp) and op.callee.root_reference.data == name for op in walk(module))


def make_staging(module: ModuleOp, f: func.FuncOp, used: list[tuple[str, int]], n_tags: int, alignment: int,
                 space: Attribute | None) -> dict[str, SSAValue]:
    """The staging buffers (``used``: name and bytes) and the ``tags`` buffer of ``f``."""
    arena, base = planned_base(f)
    if space is ARENA and arena is not None and not (arena_arg_index(f) is not None and _called_in(module, f)):
        return _in_arena(f, base, used, n_tags, alignment)
    if space is ARENA and arena is not None:
        sys.stderr.write(
            f"insert-dma: remark: {where(f)}'@{f.sym_name.data}' takes its arena as an argument from callers in "
            f"this module: its staging buffers are allocs (growing the arena would change the callers' view)\n")
    return _as_allocs(f, used, n_tags, NoneAttr() if space is ARENA else space)


def _index(v: int, before: Operation) -> SSAValue:
    c = arith.ConstantOp(IntegerAttr(v, IndexType()))
    block = before.parent_block()
    assert block is not None  # an op of the function body
    block.insert_op_before(c, before)
    return c.result


def _in_arena(f: func.FuncOp, base: int, used: list[tuple[str, int]], n_tags: int,
              alignment: int) -> dict[str, SSAValue]:
    """Staging buffers and tags as views of the arena after byte ``base``; the arena grows."""
    block = f.body.blocks[0]
    tag_t = MemRefType(i32, [max(n_tags, 1)])
    offsets, end = layout_after_arena(base, [s for _, s in used] + [TAG_BYTES * max(n_tags, 1)], alignment)
    grown = resize_arena(f, max(end, byte_size(arena_value(f).type)))
    write_onchip_size(f, byte_size(grown.type))
    anchor = grown.owner.next_op if isinstance(grown, OpResult) else block.first_op
    assert anchor is not None  # the function's return at least follows the arena
    out: dict[str, SSAValue] = {}
    for (name, size), off in zip(used + [("tags", 0)], offsets):
        t = tag_t if name == "tags" else MemRefType(i8, [max(size, 1)])
        v = memref.ViewOp(grown, _index(off, anchor), [], t)
        v.results[0].name_hint = name
        mark_staging(v)
        block.insert_op_before(v, anchor)
        out[name] = v.results[0]
    return out


def _as_allocs(f: func.FuncOp, used: list[tuple[str, int]], n_tags: int, space: Attribute) -> dict[str, SSAValue]:
    """Staging buffers and tags as allocs in ``space`` at the top of ``f``, freed before it returns."""
    block = f.body.blocks[0]
    out: dict[str, SSAValue] = {}
    allocs: list[AllocOp] = []
    for name, size in used + [("tags", 0)]:
        elem, n = (i32, max(n_tags, 1)) if name == "tags" else (i8, max(size, 1))
        a = AllocOp.get(elem, None, [n], memory_space=space)
        a.results[0].name_hint = name
        mark_staging(a)
        if block.first_op is not None and allocs:
            block.insert_op_after(a, allocs[-1])
        elif block.first_op is not None:
            block.insert_op_before(a, block.first_op)
        else:
            block.add_op(a)
        allocs.append(a)
        out[name] = a.results[0]
    for ret in [o for o in walk(f.body) if isinstance(o, func.ReturnOp) and o.parent_op() is f]:
        at = ret.parent_block()
        assert at is not None  # a return of the function body
        for a in allocs:
            at.insert_op_before(memref.DeallocOp.get(a.results[0]), ret)
    return out


__all__ = ["ARENA", "choose_space", "make_staging", "planned_base"]
