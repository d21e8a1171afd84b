"""MLIR's scalar arithmetic on numpy arrays: the casts and functions linalg op bodies are made of.

Upstream builds every named linalg op's body from a few scalar functions (``TypeFn``,
``UnaryFn``, ``BinaryFn``, ``TernaryFn`` in ``LinalgOps.cpp``); this module gives each of them
the meaning of the ``arith``/``math`` op it becomes, elementwise over numpy arrays.

Element types: MLIR integers are signless bit patterns, so an ``int8`` and a ``uint8`` array hold
the same ``i8`` values; whether a value is read as signed or unsigned is the *function's*
choice (``cast_signed`` vs ``cast_unsigned``, ``max_signed`` vs ``max_unsigned``), never the
dtype's. Integer results wrap at the element width (two's complement), as ``arith`` does.
``i1`` is ``numpy.bool_``; as a signed value ``true`` is -1 (``arith.extsi``). ``index`` is
``int64``. Floats compute in the array's own dtype (``float16``/``float32``/``float64``),
rounding after every operation; ``bf16`` has no numpy dtype and is handled by callers as
``float32`` values (its results are then not rounded to bf16). Transcendental functions use
numpy's implementations: deterministic, but not bit-identical to any particular LLVM lowering.
Division by zero, out-of-range float-to-int casts and similar cases that are undefined
behaviour (poison) in MLIR give whatever numpy gives, without a warning.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import SupportsIndex, SupportsInt

import numpy as np

BOOL = np.dtype(np.bool_)


def is_float(dt: np.dtype) -> bool:
    return np.dtype(dt).kind == "f"


def is_bool(dt: np.dtype) -> bool:
    return np.dtype(dt) == BOOL


def signed(dt: np.dtype) -> np.dtype:
    return np.dtype(f"i{np.dtype(dt).itemsize}")


def unsigned(dt: np.dtype) -> np.dtype:
    return np.dtype(f"u{np.dtype(dt).itemsize}")


def width(dt: np.dtype) -> int:
    """Bit width of an element type (1 for i1)."""
    return 1 if is_bool(dt) else np.dtype(dt).itemsize * 8


def cast(x, to: np.dtype, is_unsigned: bool = False) -> np.ndarray:
    """``TypeFn.cast_signed`` / ``cast_unsigned``: ``x`` converted to element type ``to`` by the
    ``arith`` op upstream picks (ext/trunc, sitofp/uitofp, fptosi/fptoui, extf/truncf)."""
    x = np.asarray(x)
    to = np.dtype(to)
    if x.dtype == to:
        return x
    if is_float(x.dtype):
        return _from_float(x, to, is_unsigned)
    if is_float(to):
        return _as_integer_value(x, is_unsigned).astype(to)
    return _int_to_int(x, to, is_unsigned)


def _as_integer_value(x: np.ndarray, is_unsigned: bool) -> np.ndarray:
    """The integer each element stands for, read signed or unsigned (``i1`` true: -1 or 1)."""
    if is_bool(x.dtype):
        return x.astype(np.int8) if is_unsigned else -x.astype(np.int8)
    return x.view(unsigned(x.dtype) if is_unsigned else signed(x.dtype))


def _int_to_int(x: np.ndarray, to: np.dtype, is_unsigned: bool) -> np.ndarray:
    if width(to) > width(x.dtype):  # extsi / extui
        return _as_integer_value(x, is_unsigned).astype(to)
    if is_bool(to):  # trunci to i1 keeps the lowest bit
        return (x.astype(np.int64) & 1).astype(BOOL)
    if width(to) < width(x.dtype):  # trunci
        return x.astype(to)
    return x.view(to)  # same width: the same bits


def _from_float(x: np.ndarray, to: np.dtype, is_unsigned: bool) -> np.ndarray:
    if is_float(to):  # extf / truncf (round to nearest even)
        return x.astype(to)
    with np.errstate(all="ignore"):
        if is_bool(to):
            return (x.astype(np.int64) & 1).astype(BOOL)
        bits = x.astype(unsigned(to) if is_unsigned else signed(to))
    return bits.view(to)


# -- unary functions (UnaryFn / ElementwiseKind): floats only, as upstream ---------------------

def _round_half_away(x: np.ndarray) -> np.ndarray:
    """``math.round``: to nearest, ties away from zero (numpy's ``round`` ties to even)."""
    whole = np.trunc(x)
    frac = x - whole  # exact in floating point
    step = np.where(np.abs(frac) >= 0.5, np.sign(x), 0).astype(x.dtype)
    return np.copysign(whole + step, x)  # -0.3 rounds to -0


def _erf(x: np.ndarray) -> np.ndarray:
    out = np.frompyfunc(math.erf, 1, 1)(x.astype(np.float64))
    return np.asarray(out, dtype=np.float64).astype(x.dtype)


def _one(x: np.ndarray) -> np.ndarray:
    return np.ones((), dtype=x.dtype)


UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp, "log": np.log, "abs": np.abs, "ceil": np.ceil, "floor": np.floor,
    "negf": np.negative, "reciprocal": lambda x: _one(x) / x, "round": _round_half_away,
    "sqrt": np.sqrt, "rsqrt": lambda x: _one(x) / np.sqrt(x), "square": lambda x: x * x,
    "tanh": np.tanh, "erf": _erf, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh,
    "atan": np.arctan, "atanh": np.arctanh, "log10": np.log10, "log1p": np.log1p,
    "log2": np.log2,
}
"""The unary functions: ``rsqrt`` is ``1 / sqrt`` and ``reciprocal`` ``1 / x`` (two roundings
and one, as upstream builds them); ``round`` ties away from zero."""


def unary(fn: str, x) -> np.ndarray:
    x = np.asarray(x)
    if fn not in UNARY:
        raise ValueError(f"unknown unary function '{fn}'")
    if not is_float(x.dtype):
        raise TypeError(f"unary '{fn}' is defined on floats only, not {x.dtype}")
    with np.errstate(all="ignore"):
        return np.asarray(UNARY[fn](x), dtype=x.dtype)


# -- binary functions (BinaryFn): the arith op depends on the element type --------------------

def maximumf(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``arith.maximumf``: NaN if either is NaN, and +0 above -0."""
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, a + b, np.maximum(a, b))  # +0 unless both are -0


def minimumf(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``arith.minimumf``: NaN if either is NaN, and -0 below +0."""
    both_zero = (a == 0) & (b == 0)
    return np.where(both_zero, -((-a) + (-b)), np.minimum(a, b))  # -0 unless both are +0


def _divsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``arith.divsi``: signed division rounding toward zero (numpy floors)."""
    q = np.floor_divide(a, b)
    inexact = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return (q + inexact.astype(q.dtype)).astype(a.dtype)


def _as_unsigned(op):
    """``op`` on the operands' bits read unsigned (divui, maxui, minui)."""
    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        u = unsigned(a.dtype)
        return np.asarray(op(a.view(u), b.view(u))).astype(u).view(a.dtype)
    return run


def _as_signed(op):
    """``op`` on the operands' bits read signed (maxsi, minsi)."""
    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        s = signed(a.dtype)
        return np.asarray(op(a.view(s), b.view(s))).view(a.dtype)
    return run


def _on_signed_bools(op):
    """maxsi/minsi on i1, where true is -1."""
    return lambda a, b: op(-a.astype(np.int8), -b.astype(np.int8)) != 0


_Fns = dict[str, Callable[..., np.ndarray]]
_FLOAT_FNS: _Fns = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
                    "max_signed": maximumf, "min_signed": minimumf, "powf": np.power}
_INT_FNS: _Fns = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": _divsi,
                  "div_unsigned": _as_unsigned(np.floor_divide),
                  "max_signed": _as_signed(np.maximum), "min_signed": _as_signed(np.minimum),
                  "max_unsigned": _as_unsigned(np.maximum), "min_unsigned": _as_unsigned(np.minimum)}
_BOOL_FNS: _Fns = {"add": np.logical_or, "mul": np.logical_and,
                   "max_signed": _on_signed_bools(np.maximum), "min_signed": _on_signed_bools(np.minimum)}


def binary(fn: str, a, b) -> np.ndarray:
    """``BinaryFn`` ``fn`` on two arrays of one element type: ``addf``/``addi`` (``ori`` on i1),
    ``mulf``/``muli`` (``andi`` on i1), ``divf``/``divsi``, ``divui``, ``maximumf``/``maxsi``,
    ``maxui`` (integers only), ``powf`` (floats only) and so on."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype:
        raise TypeError(f"binary '{fn}' on different element types {a.dtype} and {b.dtype}")
    table = _FLOAT_FNS if is_float(a.dtype) else _BOOL_FNS if is_bool(a.dtype) else _INT_FNS
    op = table.get(fn)
    if op is None:
        raise TypeError(f"binary '{fn}' is not defined on {a.dtype}")
    with np.errstate(all="ignore"):
        return np.asarray(op(a, b)).astype(a.dtype, copy=False)


def select(cond, a, b) -> np.ndarray:
    """``arith.select``: ``a`` where the i1 ``cond`` is true, else ``b``."""
    a, b = np.asarray(a), np.asarray(b)
    return np.where(np.asarray(cond).astype(BOOL), a, b).astype(a.dtype, copy=False)


BINARY_NAMES = ("add", "sub", "mul", "div", "div_unsigned", "max_signed", "min_signed",
                "max_unsigned", "min_unsigned", "powf")


def enum_name(value: object) -> str:
    """The case name of an enum attribute given as its name (``"exp"``) or as MLIR prints it
    (``"#linalg.elementwise_kind<exp>"``, ``"<exp>"``)."""
    text = str(value).strip().strip('"')
    if "<" in text and text.endswith(">"):
        text = text[text.rindex("<") + 1:-1]
    return text.strip().strip('"')


def unsigned_cast(value: object) -> bool:
    """Whether a ``cast`` attribute (``"cast_signed"``, ``"cast_unsigned"``, or None for the
    default, signed) asks for unsigned casts."""
    name = "cast_signed" if value is None else enum_name(value)
    if name not in ("cast_signed", "cast_unsigned"):
        raise ValueError(f"unknown cast {value!r}")
    return name == "cast_unsigned"


def ints(value: object) -> tuple[int, ...]:
    """An attribute's integers (``permutation``, ``dimensions`` ...): any iterable of numbers, as
    the callers hand attributes over."""
    if not isinstance(value, Iterable):
        raise TypeError(f"'{type(value).__name__}' object is not iterable")
    return tuple(int(v) for v in value)


def integer(value: object) -> int:
    """An attribute's integer (``dimension`` ...); what ``int()`` refuses, refused as it does."""
    if isinstance(value, (str, bytes, SupportsInt, SupportsIndex)):
        return int(value)
    raise TypeError(f"int() argument must be a string, a bytes-like object or a real number, not "
                    f"'{type(value).__name__}'")


__all__ = [
    "BINARY_NAMES", "BOOL", "UNARY", "binary", "cast", "is_bool", "is_float",
    "enum_name", "integer", "ints", "maximumf", "minimumf", "select", "signed", "unary", "unsigned", "unsigned_cast",
    "width",
]
