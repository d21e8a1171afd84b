"""What ``insert-dma`` streams on upstream MLIR: kernels, and the weights they read.

A *kernel* is a ``linalg`` structured op or a ``func.call``. A *weight* is a ``constant``
``memref.global`` a kernel reads (a structured op's ``ins``; any operand of a call) through
``memref.get_global`` and a chain of aliasing ops — ``view``, ``subview``, ``cast``,
``reinterpret_cast``, ``expand_shape``, ``collapse_shape``, ``memory_space_cast``,
``assume_alignment`` — whatever their offsets: the whole global is transferred, into a copy of
the same type, and the chain is applied again to the copy, so the kernel sees the same elements
in the same layout. A mutable global is state, not a weight; a global with a dynamic shape, a
layout other than the identity or elements that are not whole bytes cannot be copied into a
``memref.view`` of staging bytes, and one reached through any other op cannot be re-applied: those
are reported (:class:`Unstreamable`) rather than skipped silently.
"""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, NoneAttr, UnrankedMemRefType
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.traits import SymbolTable

from memopt.dialects.walk import walk
from memopt.dialects.structured import StructuredOp
from memopt.passes.upstream_lifetime import element_bytes, is_identity_layout

ALIASES = (memref.ViewOp, memref.SubviewOp, memref.CastOp, memref.ReinterpretCastOp, memref.ExpandShapeOp,
           memref.CollapseShapeOp, memref.MemorySpaceCastOp, memref.AssumeAlignmentOp)
"""Ops whose one result is (part of) their first operand's bytes: re-applied to a staged copy."""


def is_kernel(op: Operation) -> bool:
    """A linalg structured op or a call: the ops whose weights are streamed."""
    return isinstance(op, (StructuredOp, func.CallOp))


def read_operands(op: Operation) -> list[int]:
    """The operand indices a kernel only reads: a structured op's ``ins`` (its ``outs`` are
    written), every operand of a call."""
    if isinstance(op, StructuredOp):
        return list(range(len(op.inputs)))
    return list(range(len(op.operands)))


def space_of(t: Attribute) -> Attribute:
    """The memory space of a memref type, the default one as ``NoneAttr`` (``0`` is the default
    space too, as upstream MLIR reads it)."""
    space = getattr(t, "memory_space", NoneAttr())
    if isinstance(space, IntegerAttr) and space.value.data == 0:
        return NoneAttr()
    return space


@functools.lru_cache(maxsize=4096)
def in_space(t: Attribute, space: Attribute) -> Attribute:
    """``t`` (a ranked or unranked memref type) moved to memory ``space`` (memoised: building
    a memref type checks every parameter, and a model asks for the same few many times)."""
    if isinstance(t, MemRefType):
        return MemRefType(t.element_type, t.shape, t.layout, space)
    if isinstance(t, UnrankedMemRefType):
        return UnrankedMemRefType.from_type(t.element_type, space)
    return t


@dataclass(frozen=True)
class UpstreamWeight:
    """One weight operand of a kernel: the constant global it reads, and how."""

    operand: int
    symbol: str
    global_type: MemRefType
    chain: tuple[Operation, ...]
    """The aliasing ops from the ``get_global``'s result to the operand, in that order."""

    @property
    def elements(self) -> int:
        n = 1
        for d in self.global_type.get_shape():
            n *= d
        return n

    @property
    def nbytes(self) -> int:
        """Bytes of the whole global (one transfer moves it whole)."""
        return self.elements * (element_bytes(self.global_type) or 1)

    @property
    def space(self) -> Attribute:
        return space_of(self.global_type)


@dataclass(frozen=True)
class Unstreamable:
    """A kernel operand that reads a constant global but cannot be streamed, and why."""

    operand: int
    symbol: str
    why: str


_GLOBALS: "weakref.WeakKeyDictionary[Operation, dict[str, memref.GlobalOp]]" = weakref.WeakKeyDictionary()


def _global_decl(op: memref.GetGlobalOp) -> memref.GlobalOp | None:
    """The ``memref.global`` a ``get_global`` names, from a per-module table (a symbol lookup
    per read walks the module: quadratic on models with hundreds of weights); the table is
    rebuilt when a name is missing or its entry has left the module."""
    table_op = op.parent_op()
    while table_op is not None and not isinstance(table_op, ModuleOp):
        table_op = table_op.parent_op()
    sym = op.name_.root_reference.data
    if table_op is None:
        decl = SymbolTable.lookup_symbol(op, sym)
        return decl if isinstance(decl, memref.GlobalOp) else None
    table = _GLOBALS.get(table_op)
    decl = table.get(sym) if table is not None else None
    if decl is None or decl.parent is not table_op.body.block:
        table = {g.sym_name.data: g for g in table_op.body.block.ops if isinstance(g, memref.GlobalOp)}
        _GLOBALS[table_op] = table
        decl = table.get(sym)
    return decl


def _constant_global(op: memref.GetGlobalOp) -> memref.GlobalOp | None:
    decl = _global_decl(op)
    return decl if decl is not None and decl.constant is not None else None


def _copyable(t: Attribute) -> str | None:
    """None when a global of type ``t`` can be copied into a view of staging bytes, else why not."""
    if not isinstance(t, MemRefType) or any(d < 0 for d in t.get_shape()):
        return f"its type {t} has no static shape"
    if not is_identity_layout(t):
        return f"its layout {t.layout} is not the identity (a view of staging bytes cannot hold it)"
    if element_bytes(t) is None:
        return f"its element type {t.element_type} is not a whole number of bytes"
    return None


def _is_alias(op: Operation, value: SSAValue) -> bool:
    return isinstance(op, ALIASES) and len(op.results) == 1 and value is op.results[0]


def trace_weight(value: SSAValue, operand: int, through: int = 1) -> UpstreamWeight | Unstreamable | None:
    """Follow aliasing ops from ``value`` to a constant global's ``get_global``; None when it
    reads none (or a mutable global). ``through``: how many other ops to look through for a
    constant global to report (one: the producer of what the kernel reads, not the program)."""
    chain: list[Operation] = []
    while isinstance(value, OpResult):
        op = value.op
        if isinstance(op, memref.GetGlobalOp):
            decl = _constant_global(op)
            if decl is None:
                return None
            sym = op.name_.root_reference.data
            why = _copyable(decl.type)
            if why is not None:
                return Unstreamable(operand, sym, why)
            return UpstreamWeight(operand, sym, decl.type, tuple(reversed(chain)))
        if not _is_alias(op, value):
            return _through_other(op, operand) if through > 0 else None
        chain.append(op)
        value = op.operands[0]
    return None


def _through_other(op: Operation, operand: int) -> Unstreamable | None:
    """A value made by a non-aliasing op from a constant global's bytes: reported."""
    for v in op.operands:
        if isinstance(v.type, (MemRefType, UnrankedMemRefType)):
            found = trace_weight(v, operand, through=0)
            if found is not None:
                return Unstreamable(operand, found.symbol,
                                    f"it reaches it through '{op.name}', which a staged copy cannot be given")
    return None


def kernel_weights(op: Operation) -> tuple[list[UpstreamWeight], list[Unstreamable]]:
    """The streamable weights a kernel reads, and the constant-global reads it cannot stream."""
    weights: list[UpstreamWeight] = []
    refused: list[Unstreamable] = []
    for i in read_operands(op):
        found = trace_weight(op.operands[i], i)
        if isinstance(found, UpstreamWeight):
            weights.append(found)
        elif isinstance(found, Unstreamable):
            refused.append(found)
    return weights, refused


BOOKKEEPING = ("memref.dealloc", "bufferization.dealloc", "memref.dim", "memref.rank", "memref.extract_strided_metadata",
               "memref.extract_aligned_pointer_as_index", "memref.dma_start")
"""Uses of a global that read no element on the kernel's behalf (metadata, ownership, a transfer)."""


def _uses(value: SSAValue):
    """(op, operand index) of every use of ``value`` or of an alias of it, aliases skipped."""
    for use in value.uses:
        op = use.operation
        if use.index == 0 and isinstance(op, ALIASES) and len(op.results) == 1:
            yield from _uses(op.results[0])
        else:
            yield op, use.index


def other_readers(f: func.FuncOp) -> list[tuple[Operation, str]]:
    """Per constant global ``f`` reads other than as a kernel's read operand, its first such
    reader (a ``memref.load``, a ``memref.copy``, a structured op's ``outs`` ...)."""
    out: dict[str, Operation] = {}
    for op in walk(f.body):
        if not isinstance(op, memref.GetGlobalOp) or _constant_global(op) is None:
            continue
        sym = op.name_.root_reference.data
        for user, index in _uses(op.results[0]):
            if user.name in BOOKKEEPING or (is_kernel(user) and index in read_operands(user)):
                continue
            out.setdefault(sym, user)
            break
    return [(user, sym) for sym, user in out.items()]


__all__ = [
    "ALIASES", "UpstreamWeight", "Unstreamable", "in_space", "is_kernel", "kernel_weights",
    "other_readers", "read_operands", "space_of", "trace_weight",
]
