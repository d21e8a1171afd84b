"""Which ``memref.view``s are planned buffers: views of an arena.

memopt's ``plan-memory`` marks its arena ``memopt.arena`` (or names the function argument that
is one with ``memopt.arena_arg``); upstream MLIR's ``static-memory-planner-analysis`` leaves an
``i8`` alloc with an alignment, viewed more than once. A view of an arena is a buffer of its
own in the program before planning: unplanned execution gives it fresh storage, planned
execution places it in the arena at its offset. memopt's marks are read by the plan reader's own
arena finder (:mod:`memopt.dialects.upstream_attrs`), not decoded here.
"""

from __future__ import annotations

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Operation, SSAValue

from memopt.dialects.upstream_attrs import is_arena_argument, is_marked_arena
from memopt.dialects.walk import walk


def is_arena_alloc(alloc: Operation | Block | None) -> bool:
    """An ``i8`` alloc holding planned buffers: marked ``memopt.arena`` by memopt's plan; in a
    function without that mark, upstream MLIR's planner's arena: an ``i8`` alloc with an
    ``alignment`` (its planner always sets one) viewed more than once. (Views of an unaligned
    alloc are reshapes of one buffer, as ``lower-to-memref`` emits them, not planned buffers.)"""
    if not isinstance(alloc, memref.AllocOp) or not isinstance(t := alloc.results[0].type, MemRefType) \
            or len(t.get_shape()) != 1:
        return False
    if is_marked_arena(alloc):
        return True
    f = alloc.parent_op()
    while f is not None and not isinstance(f, func.FuncOp):
        f = f.parent_op()
    if f is None or any(is_marked_arena(o) for o in walk(f.body)):
        return False
    if alloc.alignment is None:
        return False
    return sum(1 for u in alloc.results[0].uses if isinstance(u.operation, memref.ViewOp)) > 1


def is_arena_arg(v: SSAValue) -> bool:
    """The caller-provided arena of ``plan-memory{arena=arg}`` (named by ``memopt.arena_arg``)."""
    return is_arena_argument(v)


def is_arena_view(op: Operation) -> bool:
    """A ``memref.view`` of an arena: a planned buffer."""
    return isinstance(op, memref.ViewOp) and (is_arena_arg(op.source) or is_arena_alloc(op.source.owner))


__all__ = ["is_arena_alloc", "is_arena_arg", "is_arena_view"]
