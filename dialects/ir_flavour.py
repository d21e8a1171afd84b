"""Which IR flavour a function or module is: upstream MLIR (bufferized ``memref``) or the
memopt dialect. Read off the ops and types alone, never off a plan, so that every pass, the
executor and the report can choose their flavour's path without importing a plan reader or the
upstream dialects' tracer.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType, ModuleOp

from memopt.dialects.walk import walk


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


__all__ = ["is_memref_function", "is_upstream", "is_upstream_module"]
