"""What marks a function as upstream MLIR, and the function-level plan attributes memopt writes
on one read back (:func:`recorded_int`, :func:`recorded_str`, :func:`arena_argument`); the
plan's buffers, read off the arena's views, are :mod:`memopt.passes.upstream_plan_io`'s.

Kept apart from the upstream tracer and mutator (``upstream_lifetime``, ``upstream_plan``) so
that ``plan-memory`` on a memopt-dialect program does not import the upstream dialects it never
touches (about 0.1 s of a ``memopt-opt`` run).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, StringAttr
from memopt.dialects.walk import walk

from memopt.dialects.plan_attr_names import (
    ARENA_ALIGNMENT_ATTR, ARENA_ARG_ATTR, ARENA_ATTR, ARENA_SIZE_ATTR, LOWER_BOUND_ATTR, SPACE_SIZES_ATTR, STRATEGY_ATTR,
)

ARENA_MODES = ("alloc", "arg")


def recorded_int(f: func.FuncOp, name: str) -> int | None:
    """The integer plan attribute ``name`` of ``f`` (None: not recorded)."""
    a = f.attributes.get(name)
    return a.value.data if isinstance(a, IntegerAttr) else None


def recorded_str(f: func.FuncOp, name: str) -> str:
    """The string plan attribute ``name`` of ``f`` (``""``: not recorded)."""
    a = f.attributes.get(name)
    return a.data if isinstance(a, StringAttr) else ""


def arena_argument(f: func.FuncOp) -> tuple[int, int] | None:
    """``(bytes, alignment)`` of the arena ``f`` takes as an argument (``plan-memory{arena=arg}``,
    or a planned callee); None when it takes none."""
    size = recorded_int(f, ARENA_SIZE_ATTR)
    if ARENA_ARG_ATTR not in f.attributes or size is None:
        return None
    return max(size, 1), recorded_int(f, ARENA_ALIGNMENT_ATTR) or 1


def is_upstream(f: func.FuncOp) -> bool:
    """True when ``f`` is a bufferized upstream function: memref arguments or ops, and no
    memopt dialect op."""
    has_memref = any(isinstance(t, MemRefType) for t in f.function_type.inputs.data)
    for op in walk(f.body):
        if op.name.startswith("memopt."):
            return False
        has_memref = has_memref or op.name.startswith("memref.")
    return has_memref


def is_memref_function(f: func.FuncOp) -> bool:
    """A function the memref executor runs (``memopt-run``'s upstream flavour): it takes memrefs,
    or holds memref, linalg or affine ops."""
    if any(isinstance(a.type, MemRefType) for b in f.body.blocks for a in b.args):
        return True
    return any(op.name.split(".")[0] in ("memref", "linalg", "affine") for op in walk(f.body))


def is_upstream_module(module: ModuleOp) -> bool:
    """True when the module is upstream IR: no memopt dialect op, and a function that
    :func:`is_upstream` (memref arguments or memref ops) or a memref op at module level."""
    if any(op.name.startswith("memopt.") for op in walk(module)):
        return False
    return any(op.name.startswith("memref.") or isinstance(op, func.FuncOp) and is_upstream(op)
               for op in module.body.block.ops)


__all__ = ["ARENA_ALIGNMENT_ATTR", "ARENA_ARG_ATTR", "ARENA_ATTR", "ARENA_MODES", "ARENA_SIZE_ATTR", "LOWER_BOUND_ATTR", "SPACE_SIZES_ATTR",
           "STRATEGY_ATTR", "arena_argument", "is_memref_function", "is_upstream", "is_upstream_module", "recorded_int",
           "recorded_str"]
