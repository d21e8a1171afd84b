"""``linalg`` structured ops, executed with upstream's real semantics.

Named ops run by name and attributes through :mod:`.linalg_semantics`; ``generic``, ``map``,
``reduce`` (and any op carrying ``indexing_maps`` and ``iterator_types`` with a body) evaluate
their body over the iteration space (:mod:`.memref_body`). An op with neither known semantics
nor a body to evaluate is refused, located and named — never guessed.

What an op reads and writes: its ``ins`` are read (but a pooling op's window, whose shape alone
counts, and an input whose block argument a body never uses); its ``outs`` are written, and read first
only where the op uses their values — the accumulating named ops (matmul, convolutions,
pooling: ``out = fold(out, ...)``), ``reduce`` (its inits), and ``generic`` for each output whose
block argument its body uses. Reading the other outputs' bytes would be reading garbage that
the op never looks at. After its writes, the op's inputs are checked again: an output placed
over an input the op is still reading clobbers it.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import TypeVar

import numpy as np
from xdsl.dialects.builtin import (
    AffineMapAttr, ArrayAttr, DenseArrayBase, DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, StringAttr,
    UnregisteredAttr,
)
from xdsl.ir import Attribute, Operation
from xdsl.ir.affine import AffineMap

from memopt.diagnostics import MemoptError
from memopt.dialects.structured import StructuredOp

from . import linalg_semantics as sem
from .core import Compiler
from .linalg_named import NAMED
from .memref_body import body_function
from .memref_machine import Machine
from .memref_program import compiles
from .memref_values import Ref

REGION_KINDS = ("generic", "map", "reduce")
Item = TypeVar("Item")


def plain(attr: Attribute):
    """An attribute as the plain Python value :mod:`.linalg_semantics` takes."""
    if isinstance(attr, DenseArrayBase):
        return tuple(attr.get_values())
    if isinstance(attr, DenseIntOrFPElementsAttr):  # a splat stands for all its elements
        values, count = tuple(attr.get_values()), int(np.prod(attr.get_shape() or (1,)))
        return values * count if len(values) == 1 else values
    if isinstance(attr, ArrayAttr):
        return [plain(a) for a in attr.data]
    if isinstance(attr, AffineMapAttr):
        return attr.data
    if isinstance(attr, (IntegerAttr, FloatAttr)):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, UnregisteredAttr):
        return str(attr.value.data).strip("<>\"")
    data = getattr(attr, "data", None)
    if isinstance(data, Enum):
        return data.value
    return attr


def attributes(op: StructuredOp) -> dict[str, object]:
    attrs = {k: plain(v) for k, v in {**op.attributes, **op.properties}.items() if k != "operandSegmentSizes"}
    if "static_inner_tiles" in attrs and "inner_tiles" not in attrs:
        attrs["inner_tiles"] = attrs["static_inner_tiles"]
    return attrs


def operand_values(m: Machine, op: Operation, frame: list, slots, read: list[bool]) -> list[np.ndarray]:
    """Each operand's value: a memref read (checked) where ``read`` says, else its current
    elements unchecked; a scalar as a 0-d array."""
    out = []
    for s, r in zip(slots, read):
        x = frame[s]
        if isinstance(x, Ref):
            out.append(m.read(x, op) if r else x.values())
        else:
            out.append(np.asarray(x))
    return out


def reads_inputs(op: StructuredOp) -> list[bool]:
    """Which inputs the op reads: with a body, those whose block argument it uses; else all but
    a pooling op's window (only its shape counts)."""
    reads = [True] * len(op.inputs)
    body = op.body
    if body is not None and op.kind in REGION_KINDS:
        return [bool(a.uses) for a in body.args[: len(reads)]]
    if op.kind.startswith("pooling_") and len(reads) > 1:
        reads[1] = False
    return reads


def reads_outputs(op: StructuredOp) -> list[bool]:
    """Which outputs the op reads before writing them."""
    n_out = len(op.outputs)
    if op.kind in NAMED or op.kind == "reduce":
        return [True] * n_out
    body = op.body
    if op.kind == "generic" and body is not None:
        return [bool(a.uses) for a in body.args[len(body.args) - n_out:]]
    return [False] * n_out


def semantics(c: Compiler, op: StructuredOp):
    """``run(m, frame, ins, outs) -> new outs`` for ``op``; a located error when there is none."""
    kind, attrs, body = op.kind, attributes(op), op.body
    if kind == "map" and body is not None:
        return lambda m, frame, ins, outs: sem.run_map(ins, outs, body_function(m, c, body, frame))
    if kind == "reduce" and body is not None:
        dims = _listed(attrs.get("dimensions", ()), int, "dimensions", op)
        return lambda m, frame, ins, outs: sem.run_reduce(ins, outs, dims, body_function(m, c, body, frame))
    generic = kind == "generic" or (not sem.known_named(kind) and "indexing_maps" in attrs and "iterator_types" in attrs)
    if generic and body is not None:
        maps = _listed(attrs["indexing_maps"], AffineMap, "indexing_maps", op)
        kinds = _listed(attrs["iterator_types"], str, "iterator_types", op)
        return lambda m, frame, ins, outs: sem.run_generic(maps, kinds, ins, outs, body_function(m, c, body, frame))
    if sem.known_named(kind):
        return lambda m, frame, ins, outs: sem.run_named(kind, ins, outs, attrs)
    raise MemoptError(f"cannot execute '{op.name}': no semantics known for it and no body to evaluate", op)


def _listed(value: object, kind: type[Item], name: str, op: Operation) -> Sequence[Item]:
    """``value``, an attribute read plain (:func:`plain`: a list or a tuple), as the sequence of
    ``kind`` it must be; a located error when it is not one."""
    if isinstance(value, (list, tuple)) and all(isinstance(v, kind) for v in value):
        return value
    raise MemoptError(f"cannot execute '{op.name}': its {name} {value!r} is not a list of {kind.__name__}", op)


@compiles("linalg.*")
def structured(c: Compiler, op: Operation):
    if not isinstance(op, StructuredOp):
        raise MemoptError(f"cannot execute operation '{op.name}' (no semantics for it in memopt-run)", op)
    run = semantics(c, op)
    ins, outs = c.slots_of(op.inputs), c.slots_of(op.outputs)
    read_ins, read_outs = reads_inputs(op), reads_outputs(op)

    def step(m: Machine, frame, op=op):
        in_values = operand_values(m, op, frame, ins, read_ins)
        out_values = operand_values(m, op, frame, outs, read_outs)
        try:
            results = run(m, frame, in_values, out_values)
        except (ValueError, TypeError, NotImplementedError, KeyError, IndexError) as e:
            raise MemoptError(f"cannot execute '{op.name}': {e}", op) from None
        for k, (s, value) in enumerate(zip(outs, results)):
            if not isinstance(frame[s], Ref):
                raise MemoptError(f"cannot execute '{op.name}' on tensors (bufferize it first)", op)
            m.write(frame[s], value, op, k)
        for s, r in zip(ins, read_ins):
            if r and isinstance(frame[s], Ref):
                m.check_owner(frame[s], op)
    return step


__all__ = ["attributes", "plain"]
