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
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, StringAttr, UnitAttr, i8, i64
from xdsl.rewriter import InsertPoint, Rewriter

from memopt.planning import Solution

from .upstream_lifetime import UpstreamLifetimes

ARENA_SIZE_ATTR = "memopt.arena_size"
LOWER_BOUND_ATTR = "memopt.lower_bound"
STRATEGY_ATTR = "memopt.strategy"
ARENA_ATTR = "memopt.arena"


def write_upstream_plan(lt: UpstreamLifetimes, solution: Solution, lower_bound: int, alignment: int) -> None:
    """Rewrite ``lt.func``'s planned allocs into views of one arena (see module docstring)."""
    f = lt.func
    f.attributes[ARENA_SIZE_ATTR] = IntegerAttr(solution.height, i64)
    f.attributes[LOWER_BOUND_ATTR] = IntegerAttr(lower_bound, i64)
    f.attributes[STRATEGY_ATTR] = StringAttr(solution.strategy)
    if not lt.allocs:
        return
    block = f.body.blocks[0]
    # No alignment property: xDSL 0.74 prints it in the attribute dictionary, which upstream
    # MLIR's strict property parsing rejects; offsets inside the arena are aligned to ``alignment``
    # relative to its base, and the base gets the allocator's default alignment.
    arena = memref.AllocOp.get(i8, None, [max(solution.height, 1)])
    arena.results[0].name_hint = "arena"
    arena.attributes[ARENA_ATTR] = UnitAttr()  # the executor reads views of it as planned buffers
    Rewriter.insert_op(arena, InsertPoint.at_start(block))
    for ret in [op for op in f.body.walk() if isinstance(op, func.ReturnOp) and op.parent_op() is f]:
        Rewriter.insert_op(memref.DeallocOp.get(arena), InsertPoint.before(ret))
    for alloc, offset in zip(lt.allocs, solution.offsets):
        t = alloc.results[0].type
        assert isinstance(t, MemRefType)
        for use in list(alloc.results[0].uses):
            if isinstance(use.operation, memref.DeallocOp):
                Rewriter.erase_op(use.operation)
        off = arith.ConstantOp(IntegerAttr(offset, IndexType()))
        view = memref.ViewOp(arena, off, [], MemRefType(t.element_type, t.shape))
        view.results[0].name_hint = alloc.results[0].name_hint
        Rewriter.insert_op([off, view], InsertPoint.before(alloc))
        alloc.results[0].replace_all_uses_with(view.results[0])
        Rewriter.erase_op(alloc)


__all__ = ["ARENA_ATTR", "ARENA_SIZE_ATTR", "LOWER_BOUND_ATTR", "STRATEGY_ATTR", "write_upstream_plan"]
