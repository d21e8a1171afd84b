"""``arith`` and ``math`` with MLIR's semantics, on numpy scalars and arrays alike.

The same functions evaluate one scalar (a loop body after ``--convert-linalg-to-loops``) and a
whole array of them (a ``linalg.generic`` body evaluated over every iteration point at once),
so an op means the same thing however its program was lowered.

Values: integers of type ``iN`` are numpy signed integers of width N (signless bits: the
unsigned ops reinterpret them), wrapping at the width; ``i1`` is ``numpy.bool_`` (as a signed
value, true is -1); ``index`` scalars are Python ints (int64 arrays inside vectorised bodies);
floats compute in their own dtype, rounding after every op (``bf16`` in float32, rounded to
bf16 after every op). Poison (division by zero, out-of-range float-to-int casts, shifts past
the width) gives whatever numpy gives — deterministic, never an error.

:func:`scalar_function` turns one op into a Python function of its operand values, once.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr
from xdsl.ir import Attribute, Operation

from .memref_values import Unsupported, elem_of, round_bf16

ScalarFn = Callable[..., object]
BOOL = np.dtype(np.bool_)
INDEX = np.dtype(np.int64)


def _unsigned(dt: np.dtype) -> np.dtype:
    return np.dtype(f"u{dt.itemsize}")


def _as(x, dt: np.dtype):
    """``x`` as a numpy value of ``dt`` (Python ints from index arithmetic included)."""
    return x if getattr(x, "dtype", None) == dt else np.asarray(x).astype(dt)


def _u(x, dt: np.dtype):
    """The unsigned reading of integer value ``x`` of type ``dt`` (i1: 0 or 1)."""
    x = _as(x, dt)
    return x.astype(np.uint8) if dt == BOOL else x.view(_unsigned(dt))


def _s(x, dt: np.dtype):
    """The signed reading of integer value ``x`` (i1: 0 or -1)."""
    x = _as(x, dt)
    return -(x.astype(np.int8)) if dt == BOOL else x


def _back(r, dt: np.dtype):
    """A result of integer type ``dt`` from a wider or unsigned numpy result (wrapping)."""
    r = np.asarray(r)
    if dt == BOOL:
        return (r.astype(np.int64) & 1).astype(BOOL)
    if r.dtype == dt:
        return r
    if r.dtype.kind == "u" and r.dtype.itemsize == dt.itemsize:
        return r.view(dt)
    return r.astype(dt)


# ---------------------------------------------------------------------- integers

def _divsi(a, b):
    q = np.floor_divide(a, b)
    inexact = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return q + inexact.astype(q.dtype)


def _ceildiv(a, b):
    return np.floor_divide(a, b) + (np.remainder(a, b) != 0).astype(np.asarray(a).dtype)


_SIGNED: dict[str, Callable[..., Any]] = {
    "arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
    "arith.divsi": _divsi, "arith.ceildivsi": _ceildiv, "arith.floordivsi": np.floor_divide,
    "arith.remsi": np.fmod, "arith.maxsi": np.maximum, "arith.minsi": np.minimum,
    "arith.shrsi": np.right_shift, "math.absi": np.abs,
}
_UNSIGNED: dict[str, Callable[..., Any]] = {
    "arith.divui": np.floor_divide, "arith.ceildivui": _ceildiv, "arith.remui": np.remainder,
    "arith.maxui": np.maximum, "arith.minui": np.minimum, "arith.shrui": np.right_shift,
    "arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor,
    "arith.shli": np.left_shift,
}
_PY_INDEX: dict[str, Callable[..., Any]] = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b, "arith.muli": lambda a, b: a * b,
    "arith.floordivsi": lambda a, b: a // b, "arith.maxsi": max, "arith.minsi": min,
    "arith.remui": lambda a, b: a % b if a >= 0 and b > 0 else None,
    "arith.divui": lambda a, b: a // b if a >= 0 and b > 0 else None,
    "arith.divsi": lambda a, b: (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1) if b else None,
    "arith.remsi": lambda a, b: a - b * ((abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1)) if b else None,
    "arith.ceildivsi": lambda a, b: -((-a) // b) if b else None,
}
"""Index arithmetic on Python ints (None: leave it to numpy)."""


def _integer_op(name: str, dt: np.dtype) -> ScalarFn | None:
    if name in _SIGNED:
        fn = _SIGNED[name]
        if dt == BOOL and name in ("arith.addi", "arith.subi"):
            return lambda a, b: np.logical_xor(a, b)
        if dt == BOOL and name == "arith.muli":
            return lambda a, b: np.logical_and(a, b)
        sig = lambda *xs: _back(fn(*(_s(x, dt) for x in xs)), dt)  # noqa: E731
    elif name in _UNSIGNED:
        fn = _UNSIGNED[name]
        sig = lambda *xs: _back(fn(*(_u(x, dt) for x in xs)), dt)  # noqa: E731
    else:
        return None
    if dt == INDEX and name in _PY_INDEX:
        return _index_fast(_PY_INDEX[name], sig)
    return _index_result(sig) if dt == INDEX else sig


def _index_fast(py: Callable, slow: ScalarFn) -> ScalarFn:
    def f(a, b):
        if type(a) is int and type(b) is int:
            r = py(a, b)
            if r is not None:
                return r
        return _to_index(slow(a, b))
    return f


def _index_result(fn: ScalarFn) -> ScalarFn:
    return lambda *xs: _to_index(fn(*xs))


def _to_index(r):
    """Index results: Python ints for scalars, int64 arrays otherwise."""
    return int(r) if np.ndim(r) == 0 else r


_CMPI = {
    "eq": (np.equal, _s), "ne": (np.not_equal, _s), "slt": (np.less, _s), "sle": (np.less_equal, _s),
    "sgt": (np.greater, _s), "sge": (np.greater_equal, _s), "ult": (np.less, _u), "ule": (np.less_equal, _u),
    "ugt": (np.greater, _u), "uge": (np.greater_equal, _u),
}
_PY_CMP = {"eq": int.__eq__, "ne": int.__ne__, "slt": int.__lt__, "sle": int.__le__, "sgt": int.__gt__,
           "sge": int.__ge__}


def _cmpi(op: Operation) -> ScalarFn:
    assert isinstance(op, arith.CmpiOp)  # chosen by its name
    pred = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
    dt = _operand_dtype(op, 0)
    cmp, read = _CMPI[pred]
    slow = lambda a, b: np.bool_(cmp(read(a, dt), read(b, dt))) if np.ndim(a) == np.ndim(b) == 0 \
        else cmp(read(a, dt), read(b, dt))  # noqa: E731
    if dt == INDEX and pred in _PY_CMP:
        fast = _PY_CMP[pred]
        return lambda a, b: np.bool_(fast(a, b)) if type(a) is int and type(b) is int else slow(a, b)
    return slow


# ---------------------------------------------------------------------- floats

def maximumf(a, b):
    """``arith.maximumf``: NaN if either is NaN, +0 above -0."""
    r = np.maximum(a, b)
    return np.where((a == 0) & (b == 0), a + b, r) if np.ndim(r) else (a + b if a == 0 and b == 0 else r)


def minimumf(a, b):
    """``arith.minimumf``: NaN if either is NaN, -0 below +0."""
    r = np.minimum(a, b)
    both = (a == 0) & (b == 0)
    return np.where(both, -((-a) + (-b)), r) if np.ndim(r) else (-((-a) + (-b)) if both else r)


def _round_half_away(x):
    whole = np.trunc(x)
    step = np.where(np.abs(x - whole) >= 0.5, np.sign(x), 0).astype(np.asarray(x).dtype)
    return np.copysign(whole + step, x)


def _erf(x):
    x = np.asarray(x)
    out = np.frompyfunc(math.erf, 1, 1)(x.astype(np.float64))
    return np.asarray(out, np.float64).astype(x.dtype)


def _fma(a, b, c):
    a = np.asarray(a)
    if a.dtype == np.float64:
        return a * b + c
    return (a.astype(np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(a.dtype)


def _one(x):
    return np.ones((), np.asarray(x).dtype)


_FLOAT: dict[str, Callable[..., Any]] = {
    "arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply, "arith.divf": np.divide,
    "arith.remf": np.fmod, "arith.negf": np.negative, "arith.maximumf": maximumf, "arith.minimumf": minimumf,
    "arith.maxnumf": np.fmax, "arith.minnumf": np.fmin,
    "math.absf": np.abs, "math.ceil": np.ceil, "math.floor": np.floor, "math.trunc": np.trunc,
    "math.round": _round_half_away, "math.roundeven": np.rint, "math.copysign": np.copysign,
    "math.sqrt": np.sqrt, "math.rsqrt": lambda x: _one(x) / np.sqrt(x), "math.cbrt": np.cbrt,
    "math.exp": np.exp, "math.exp2": np.exp2, "math.expm1": np.expm1, "math.log": np.log,
    "math.log2": np.log2, "math.log10": np.log10, "math.log1p": np.log1p, "math.powf": np.power,
    "math.sin": np.sin, "math.cos": np.cos, "math.tan": np.tan, "math.asin": np.arcsin,
    "math.acos": np.arccos, "math.atan": np.arctan, "math.atan2": np.arctan2, "math.sinh": np.sinh,
    "math.cosh": np.cosh, "math.tanh": np.tanh, "math.asinh": np.arcsinh, "math.acosh": np.arccosh,
    "math.atanh": np.arctanh, "math.erf": _erf, "math.fma": _fma,
}
_FLOAT_TESTS = {"math.isnan": np.isnan, "math.isinf": np.isinf, "math.isfinite": np.isfinite}

_CMPF = {
    "oeq": np.equal, "ogt": np.greater, "oge": np.greater_equal, "olt": np.less, "ole": np.less_equal,
    "ueq": np.equal, "ugt": np.greater, "uge": np.greater_equal, "ult": np.less, "ule": np.less_equal,
}


def _cmpf(op: Operation) -> ScalarFn:
    assert isinstance(op, arith.CmpfOp)  # chosen by its name
    pred = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]

    def f(a, b):
        unordered = np.isnan(a) | np.isnan(b)
        if pred in ("false", "true"):
            return np.full(np.broadcast(a, b).shape, pred == "true")[()]
        if pred in ("ord", "uno"):
            return ~unordered if pred == "ord" else unordered
        if pred in ("one", "une"):
            ne = np.not_equal(a, b)
            return ne & ~unordered if pred == "one" else ne
        r = _CMPF[pred](a, b)
        return r | unordered if pred[0] == "u" else r & ~unordered
    return f


def _float_op(name: str, dt: np.dtype, bf16: bool) -> ScalarFn | None:
    fn = _FLOAT.get(name)
    if fn is None:
        return None
    if bf16:
        return lambda *xs: round_bf16(fn(*xs))[()]
    return fn


def _powi(op: Operation, dt: np.dtype, bf16: bool) -> ScalarFn:
    def f(x, n):
        r = np.power(x, np.asarray(n).astype(np.asarray(x).dtype))
        return round_bf16(r)[()] if bf16 else r
    return f


def _ipowi(dt: np.dtype) -> ScalarFn:
    def f(a, n):
        a, n = _s(a, dt), _s(n, dt)
        pos = np.power(a, np.maximum(n, 0))
        neg = np.where(a == 1, 1, np.where(a == -1, np.where(n % 2 == 0, 1, -1), 0))
        return _back(np.where(n < 0, neg, pos), dt)[()]
    return f


# ---------------------------------------------------------------------- casts

def _cast(name: str, src: np.dtype, dst: np.dtype, dst_bf16: bool) -> ScalarFn | None:
    def done(r):
        r = np.asarray(r)
        if dst_bf16:
            r = round_bf16(r.astype(np.float32))
        return _to_index(r) if dst == INDEX else r[()]

    if name in ("arith.extsi", "arith.index_cast", "arith.trunci"):
        return lambda x: done(_back(_s(x, src).astype(np.int64) if dst != BOOL else _as(x, src), dst))
    if name in ("arith.extui", "arith.index_castui"):
        return lambda x: done(_back(_u(x, src).astype(np.uint64), dst))
    if name == "arith.sitofp":
        return lambda x: done(_s(x, src).astype(dst))
    if name == "arith.uitofp":
        return lambda x: done(_u(x, src).astype(dst))
    if name == "arith.fptosi":
        return lambda x: done(_back(np.trunc(x).astype(np.int64), dst))
    if name == "arith.fptoui":
        return lambda x: done(_back(np.trunc(x).astype(np.uint64), dst))
    if name in ("arith.extf", "arith.truncf"):
        return lambda x: done(np.asarray(x).astype(dst))
    return None


def _bitcast(src_t: Attribute, dst_t: Attribute) -> ScalarFn:
    src, dst = elem_of(src_t), elem_of(dst_t)

    def f(x):
        raw = src.encode(x)
        r = dst.decode(np.asarray(raw).view(dst.storage))
        return _to_index(r) if dst.name == "index" else r[()]
    return f


# ---------------------------------------------------------------------- entry points

def constant_value(value: Attribute, t: Attribute):
    """The value of an ``arith.constant`` of scalar type ``t``."""
    if isinstance(t, IndexType):
        assert isinstance(value, IntegerAttr)  # what an index constant holds
        return int(value.value.data)
    e = elem_of(t)
    if isinstance(value, IntegerAttr):
        v = int(value.value.data)
        if e.value == BOOL:
            return np.bool_(v & 1)
        bits = e.value.itemsize * 8
        return e.value.type((v + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1)))
    if isinstance(value, FloatAttr):
        arr = np.asarray(value.value.data).astype(e.value)
        return (round_bf16(arr) if e.name == "bf16" else arr)[()]
    raise Unsupported(f"constant {value} of type {t} (only scalar constants execute)")


def _operand_dtype(op: Operation, k: int) -> np.dtype:
    return elem_of(op.operands[k].type).value


def select(cond, a, b):
    """``arith.select``: per element when ``cond`` is an array, else one of the two values
    (memrefs included)."""
    if np.ndim(cond) == 0:
        return a if cond else b
    return np.where(cond, a, b)


def scalar_function(op: Operation) -> ScalarFn | None:
    """The function computing ``op``'s one result from its operand values, or None when ``op``
    is not a scalar ``arith``/``math`` op; :class:`Unsupported` for one that is, but cannot run."""
    name = op.name
    if not (name.startswith("arith.") or name.startswith("math.")) or len(op.results) != 1:
        return None
    if name == "arith.select":
        return select
    if name == "arith.cmpi":
        return _cmpi(op)
    if name == "arith.cmpf":
        return _cmpf(op)
    rt = op.results[0].type
    if name == "arith.constant":
        assert isinstance(op, arith.ConstantOp)  # chosen by its name
        value = constant_value(op.value, rt)
        return lambda: value
    e = elem_of(rt)
    dt = e.value
    if name == "arith.bitcast":
        return _bitcast(op.operands[0].type, rt)
    cast = _cast(name, _operand_dtype(op, 0), dt, e.name == "bf16") if op.operands else None
    if cast is not None:
        return cast
    if name in _FLOAT_TESTS:
        return _FLOAT_TESTS[name]
    if name == "math.fpowi":
        return _powi(op, dt, e.name == "bf16")
    if name == "math.ipowi":
        return _ipowi(dt)
    if name == "math.ctpop":
        return lambda x: _back(np.unpackbits(np.atleast_1d(_u(x, dt)).view(np.uint8)[..., None], axis=-1)
                               .reshape(np.shape(x) + (-1,)).sum(axis=-1), dt)[()]
    fn = _float_op(name, dt, e.name == "bf16") if dt.kind == "f" else _integer_op(name, dt)
    if fn is None:
        raise Unsupported(f"'{name}' on {rt}")
    return fn


__all__ = ["ScalarFn", "constant_value", "maximumf", "minimumf", "scalar_function", "scalar_step", "select"]


def scalar_step(c, op: Operation):
    """``op`` compiled into a step writing its result slot, or None when it is not scalar
    ``arith``/``math``."""
    fn = scalar_function(op)
    if fn is None:
        return None
    args, r = c.slots_of(op.operands), c.slot(op.results[0])
    if not args:
        def step0(m, frame, op=op):
            frame[r] = fn()
        return step0
    if len(args) == 1:
        (a,) = args

        def step1(m, frame, op=op):
            frame[r] = fn(frame[a])
        return step1
    if len(args) == 2:
        a, b = args

        def step2(m, frame, op=op):
            frame[r] = fn(frame[a], frame[b])
        return step2

    def step(m, frame, op=op):
        frame[r] = fn(*[frame[s] for s in args])
    return step
