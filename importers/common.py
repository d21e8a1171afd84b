"""Format-independent half of the importers: names, element types, input shapes, and the
builder that emits the memopt dialect.

The ONNX and TFLite readers only understand their file format; they walk the model in its
execution order and call :class:`ModuleBuilder` with *tensor keys* (any hashable id unique in
the model: ONNX value names, ``(instance, subgraph, index)`` for TFLite) and the original tensor
names. The builder owns everything IR-shaped, so both formats produce the same conventions:

* every tensor keeps its original name: the SSA name hint is the name sanitized to
  ``[A-Za-z0-9_.$-]`` (unique, never ending in ``_<digits>``, which xDSL would strip), and the
  original is kept verbatim in a ``names = [...]`` attribute (one entry per result) on the op,
  on ``memopt.global``, in ``memopt.name`` argument/result attributes of ``func.func`` and in
  ``arg_names`` on ``memopt.loop`` for the body's block arguments;
* constants become ``memopt.global`` symbols (type only, no data), read through
  ``memopt.get_global`` in the block that uses them (one read per block);
* graph inputs/outputs become the arguments/results of ``func.func @main``;
* ``If`` branches and loop bodies become ``memopt.if`` / ``memopt.loop`` regions; values of outer
  scopes are used directly (the lifetime analysis keeps them live until the region op ends);
  a yielded value whose type differs from the region op's result gets an explicit
  ``"branch_result"`` copy op, since both branches must yield one type.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IntegerType,
    ModuleOp,
    Signedness,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from memopt.dialects.memopt import (
    ComputeOp, GetGlobalOp, GlobalOp, IfOp, LoopOp, ViewOp, YieldOp, byte_size,
)
from memopt.planning.numbers import parse_int64

Key = Hashable
EmittedOp = TypeVar("EmittedOp", bound=Operation)
"""An op the builder appends (its own type comes back)."""


def read_model_file(path: str, limit: int = -1) -> bytes:
    """The bytes of a model file (at most ``limit``), with one-line import errors."""
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except FileNotFoundError:
        raise ModelImportError("no such file") from None
    except IsADirectoryError:
        raise ModelImportError("is a directory") from None
    except OSError as e:
        raise ModelImportError(f"cannot read file: {e.strerror}") from None


class ModelImportError(Exception):
    """A problem with the model (or the options), reported as one line, never a traceback."""


# --------------------------------------------------------------------------- element types

DTYPE_BYTES = {
    "i1": 1, "i4": 1, "ui4": 1, "i8": 1, "ui8": 1, "i16": 2, "ui16": 2, "i32": 4, "ui32": 4,
    "i64": 8, "ui64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8,
}
"""Bytes per element of every element type the importers emit (bool is ``i1`` stored in one
byte, 4-bit integers take one byte each: an over-estimate, never an under-estimate)."""


def element_type(dtype: str) -> Attribute:
    """The xDSL element type of a dtype name (``f32``, ``ui8``, ``i1``...)."""
    if dtype == "f16":
        return Float16Type()
    if dtype == "bf16":
        return BFloat16Type()
    if dtype == "f32":
        return Float32Type()
    if dtype == "f64":
        return Float64Type()
    m = re.fullmatch(r"(u?)i(\d+)", dtype)
    if m is None:
        raise ValueError(f"unknown dtype {dtype}")
    return IntegerType(int(m.group(2)), Signedness.UNSIGNED if m.group(1) else Signedness.SIGNLESS)


def tensor_type(shape: Sequence[int], dtype: str) -> TensorType:
    return TensorType(element_type(dtype), list(shape))


def num_elements(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def nbytes(shape: Sequence[int], dtype: str) -> int:
    return num_elements(shape) * DTYPE_BYTES[dtype]


# --------------------------------------------------------------------------- input shapes


MAX_ELEMENTS = 1 << 56
"""The most elements an input may have: its byte size (at 8 bytes an element, shifted into
offsets) stays well inside int64."""


def parse_input_shapes(specs: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """``["input=1x576", "sr="]`` → ``{"input": (1, 576), "sr": ()}``; the last ``=`` splits,
    so names may contain ``=``-free colons and slashes. An empty shape is a scalar. The same
    input named twice is an error (not "last wins"); dimensions are ASCII integers in the 64-bit
    range (:mod:`memopt.planning.numbers`)."""
    out: dict[str, tuple[int, ...]] = {}
    for spec in specs:
        name, eq, dims = spec.rpartition("=")
        if not eq or not name:
            raise ModelImportError(f"--input-shape '{spec}': expected NAME=DIMS, e.g. input=1x576")
        if name in out:
            raise ModelImportError(f"--input-shape gives input '{name}' twice")
        dims = dims.strip()
        if dims in ("", "scalar"):
            shape: tuple[int, ...] = ()
        else:
            try:
                shape = tuple(parse_int64(d, "dimension") for d in re.split(r"[x,]", dims))
            except ValueError as e:
                raise ModelImportError(f"--input-shape '{spec}': {e}; dimensions are integers separated by 'x'") from None
            if any(d < 0 for d in shape):
                raise ModelImportError(f"--input-shape '{spec}': dimensions must be >= 0")
            if math.prod(shape) > MAX_ELEMENTS:
                raise ModelImportError(f"--input-shape '{spec}': {math.prod(shape)} elements, more than 2^56 (its "
                                       "byte size would not fit a 64-bit integer)")
        out[name] = shape
    return out


def parse_dims(specs: Sequence[str], flag: str = "--dim") -> dict[str, int]:
    """``["batch=1", "seq=512"]`` → ``{"batch": 1, "seq": 512}`` (``--dim``, ``--trip-count``;
    each name once)."""
    out: dict[str, int] = {}
    for spec in specs:
        name, eq, value = spec.rpartition("=")
        if not eq or not name:
            raise ModelImportError(f"{flag} '{spec}': expected NAME=N, e.g. batch=1")
        if name in out:
            raise ModelImportError(f"{flag} gives '{name}' twice")
        try:
            n = parse_int64(value, "value")
        except ValueError as e:
            raise ModelImportError(f"{flag} '{spec}': {e}") from None
        if n < 0:
            raise ModelImportError(f"{flag} '{spec}': the value must be >= 0")
        out[name] = n
    return out


def format_shape(shape: Sequence[int]) -> str:
    return "x".join(str(d) for d in shape) if shape else "scalar"


# --------------------------------------------------------------------------- names

_VALID = re.compile(r"[^A-Za-z0-9_.$-]")


def sanitize(name: str) -> str:
    """A valid xDSL SSA name for an arbitrary tensor name (see module docstring)."""
    s = _VALID.sub(".", name) or "t"
    if not re.match(r"[A-Za-z_$.-]", s[0]):
        s = "v" + s
    m = re.search(r"_(\d+)$", s)
    if m:  # xDSL strips a trailing _<digits> from name hints
        s = s[: m.start()] + "." + m.group(1)
    return s


@dataclass
class NameTable:
    """Hands out unique sanitized names."""

    used: set[str] = field(default_factory=set)

    def unique(self, name: str) -> str:
        base = sanitize(name)
        cand, n = base, 1
        while cand in self.used:
            cand = f"{base}.{n}"
            n += 1
        self.used.add(cand)
        return cand


def _names_attr(names: Sequence[str]) -> ArrayAttr:
    return ArrayAttr([StringAttr(n) for n in names])


# --------------------------------------------------------------------------- the builder


@dataclass(frozen=True)
class TensorDecl:
    """Name, shape and element type of one tensor of the model."""

    name: str
    shape: tuple[int, ...]
    dtype: str

    @property
    def type(self) -> TensorType:
        return tensor_type(self.shape, self.dtype)

    @property
    def nbytes(self) -> int:
        return nbytes(self.shape, self.dtype)


@dataclass
class _Scope:
    block: Block
    env: dict[Key, SSAValue] = field(default_factory=dict)
    reads: dict[str, SSAValue] = field(default_factory=dict)


class ModuleBuilder:
    """Emits one ``func.func @main`` plus its ``memopt.global`` symbols (see module docstring)."""

    def __init__(self) -> None:
        self.decls: dict[Key, TensorDecl] = {}
        self.symbols: dict[Key, str] = {}
        self.globals: list[GlobalOp] = []
        self.value_names = NameTable()
        self.symbol_names = NameTable()
        self.scopes: list[_Scope] = []
        self.n_ops = 0
        self.func_inputs: list[Key] = []
        self.warnings: list[str] = []
        """Things the user should know about the import (printed by memopt-import)."""

    # ---- declarations
    def declare(self, key: Key, name: str, shape: Sequence[int], dtype: str) -> TensorDecl:
        decl = TensorDecl(name, tuple(int(d) for d in shape), dtype)
        self.decls[key] = decl
        return decl

    def decl(self, key: Key) -> TensorDecl:
        try:
            return self.decls[key]
        except KeyError:
            raise ModelImportError(f"tensor {key!r} has no known type") from None

    def add_global(self, key: Key, attributes: dict[str, Attribute] | None = None) -> str:
        """Make ``key`` an off-chip symbol; returns the symbol name."""
        if key in self.symbols:
            return self.symbols[key]
        d = self.decl(key)
        sym = self.symbol_names.unique(d.name)
        attrs: dict[str, Attribute] = {"names": _names_attr([d.name])}
        attrs.update(attributes or {})
        self.globals.append(GlobalOp(sym, d.type, attributes=attrs))
        self.symbols[key] = sym
        return sym

    def is_global(self, key: Key) -> bool:
        return key in self.symbols

    # ---- values
    @property
    def scope(self) -> _Scope:
        return self.scopes[-1]

    def _name(self, v: SSAValue, key: Key) -> None:
        v.name_hint = self.value_names.unique(self.decl(key).name)

    def bind(self, key: Key, value: SSAValue) -> None:
        self.scope.env[key] = value

    def value(self, key: Key) -> SSAValue:
        """The SSA value of a tensor visible from the current block (a global is read here)."""
        for scope in reversed(self.scopes):
            if key in scope.env:
                return scope.env[key]
        if key in self.symbols:
            sym = self.symbols[key]
            cached = self.scope.reads.get(sym)
            if cached is not None:
                return cached
            op = GetGlobalOp(sym, self.decl(key).type)
            self._name(op.result, key)
            self._add(op)
            self.scope.reads[sym] = op.result
            return op.result
        raise ModelImportError(f"tensor '{self._display(key)}' is used before it is defined")

    def _display(self, key: Key) -> str:
        d = self.decls.get(key)
        return d.name if d is not None else str(key)

    def _add(self, op: Operation) -> None:
        self.scope.block.add_op(op)

    # ---- ops
    def _emit(self, op: EmittedOp, outputs: Sequence[Key]) -> EmittedOp:
        """Name and bind ``op``'s results to ``outputs``, append it, count it as a graph op."""
        for res, key in zip(op.results, outputs):
            self._name(res, key)
            self.bind(key, res)
        self._add(op)
        self.n_ops += 1
        return op

    def compute(
        self,
        kind: str,
        inputs: Sequence[Key],
        outputs: Sequence[Key],
        cost: int | None = None,
        inplace: bool = False,
        attributes: dict[str, Attribute] | None = None,
    ) -> ComputeOp:
        """A ``memopt.compute``; ``inplace`` lets result 0 overwrite operand 0 when both are
        tensors of the same byte size."""
        operands = [self.value(k) for k in inputs]
        decls = [self.decl(k) for k in outputs]
        hint = None
        if inplace and operands and outputs:
            t0 = operands[0].type
            # Same shape too: an operand 0 broadcast to the output (fewer elements) is read at
            # every output element, so writing over it element by element would corrupt it.
            if (isinstance(t0, TensorType) and byte_size(t0) == decls[0].nbytes
                    and tuple(t0.get_shape()) == tuple(decls[0].shape)):
                hint = [0] + [-1] * (len(outputs) - 1)
        attrs: dict[str, Attribute] = {"names": _names_attr([d.name for d in decls])}
        attrs.update(attributes or {})
        op = ComputeOp(kind, operands, [d.type for d in decls], cost=cost, inplace=hint, attributes=attrs)
        return self._emit(op, outputs)

    def view(self, kind: str, source: Key, output: Key) -> Operation:
        """A ``memopt.view`` (reshape-like: aliases its source) or, if the result would not fit
        in the source, an ordinary compute op."""
        src = self.value(source)
        d = self.decl(output)
        if not isinstance(src.type, TensorType) or d.nbytes > byte_size(src.type):
            return self.compute(kind, [source], [output], cost=0)
        op = ViewOp(src, d.type, 0, attributes={"names": _names_attr([d.name]), "kind": StringAttr(kind)})
        return self._emit(op, [output])

    def _yield(self, keys: Sequence[Key], types: Sequence[Attribute]) -> None:
        values: list[SSAValue] = []
        for key, t in zip(keys, types):
            v = self.value(key)
            if v.type != t:
                assert isinstance(t, TensorType), t  # what a branch or loop body yields: tensors
                d = self.decl(key)
                cast = ComputeOp(
                    "branch_result", [v], [t], cost=num_elements(t.get_shape()),
                    attributes={"names": _names_attr([d.name])},
                )
                cast.results[0].name_hint = self.value_names.unique(d.name + ".result")
                self._add(cast)
                self.n_ops += 1
                v = cast.results[0]
            values.append(v)
        self._add(YieldOp(*values))

    @contextmanager
    def _block(self, block: Block):
        self.scopes.append(_Scope(block))
        try:
            yield block
        finally:
            self.scopes.pop()

    def if_(
        self,
        cond: Key,
        outputs: Sequence[Key],
        branches: Sequence[Callable[[], Sequence[Key]]],
        attributes: dict[str, Attribute] | None = None,
    ) -> IfOp:
        """A ``memopt.if``: each branch callable emits its ops and returns the keys it yields."""
        c = self.value(cond)
        types = [self.decl(k).type for k in outputs]
        regions = []
        for emit in branches:
            with self._block(Block()) as block:
                self._yield(emit(), types)
            regions.append(Region(block))
        attrs: dict[str, Attribute] = {"names": _names_attr([self.decl(k).name for k in outputs])}
        attrs.update(attributes or {})
        op = IfOp(c, types, regions[0], regions[1], attributes=attrs)
        return self._emit(op, outputs)

    def loop(
        self,
        trip_count: int | None,
        inits: Sequence[Key],
        body_args: Sequence[Key],
        body: Callable[[], Sequence[Key]],
        outputs: Sequence[Key],
        attributes: dict[str, Attribute] | None = None,
    ) -> LoopOp:
        """A ``memopt.loop`` carrying ``inits`` (bound to ``body_args`` in the body, to
        ``outputs`` after it). An unknown trip count is planned as 1 and marked
        ``unknown_trip_count``: lifetimes of a loop do not depend on its trip count, only
        the cost estimate does."""
        values = [self.value(k) for k in inits]
        types = [v.type for v in values]
        block = Block(arg_types=types)
        for arg, key in zip(block.args, body_args):
            self._name(arg, key)
        with self._block(block):
            for arg, key in zip(block.args, body_args):
                self.bind(key, arg)
            self._yield(body(), types)
        attrs: dict[str, Attribute] = {
            "names": _names_attr([self.decl(k).name for k in outputs]),
            "arg_names": _names_attr([self.decl(k).name for k in body_args]),
        }
        if trip_count is None:
            attrs["unknown_trip_count"] = UnitAttr()
        attrs.update(attributes or {})
        op = LoopOp(1 if trip_count is None else trip_count, values, Region(block), attributes=attrs)
        return self._emit(op, outputs)

    # ---- the function
    @contextmanager
    def function(self, inputs: Sequence[Key], name: str = "main"):
        """Open ``func.func @name`` with the given inputs as arguments; inside the ``with``,
        emit the body; then call :meth:`finish` with the outputs."""
        self.func_inputs = list(inputs)
        block = Block(arg_types=[self.decl(k).type for k in inputs])
        self._func_block = block
        self._func_name = name
        with self._block(block):
            for arg, key in zip(block.args, inputs):
                self._name(arg, key)
                self.bind(key, arg)
            yield self

    def finish(self, outputs: Sequence[Key], attributes: dict[str, Attribute] | None = None) -> ModuleOp:
        """Close the function (must be called inside :meth:`function`) and build the module."""
        results = [self.value(k) for k in outputs]
        self._add(func.ReturnOp(*results))
        block = self._func_block

        def named(keys: Sequence[Key]) -> ArrayAttr[DictionaryAttr]:
            return ArrayAttr([DictionaryAttr({"memopt.name": StringAttr(self.decl(k).name)}) for k in keys])

        f = func.FuncOp(
            self._func_name,
            FunctionType.from_lists([a.type for a in block.args], [r.type for r in results]),
            Region(block),
            arg_attrs=named(self.func_inputs) if self.func_inputs else None,
            res_attrs=named(outputs) if outputs else None,
        )
        for k, v in (attributes or {}).items():
            f.attributes[k] = v
        return ModuleOp([*self.globals, f])


__all__ = [
    "DTYPE_BYTES", "Key", "ModelImportError", "ModuleBuilder", "NameTable", "TensorDecl",
    "element_type", "format_shape", "nbytes", "num_elements", "parse_input_shapes", "sanitize",
    "tensor_type",
]
