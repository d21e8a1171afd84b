"""Upstream's pointwise linalg ops, and softmax, which is built from them.

* ``linalg.elementwise`` (attribute ``kind``: an ``ElementwiseKind`` name such as ``"exp"``,
  ``"add"``, ``"max_signed"``, ``"select"``; optional ``indexing_maps``, identity by default):
  the function on the inputs, no casts (upstream yields the inputs' type).
* ``linalg.elemwise_unary`` / ``linalg.elemwise_binary`` (older upstream; attributes ``fun``,
  a ``UnaryFn``/``BinaryFn`` name, default ``"exp"``/``"add"``, and ``cast``, default
  ``"cast_signed"``): ``fun`` of the inputs cast to the output's element type.
* The one-function named ops of older upstream (``linalg.exp`` ... ``linalg.erf``,
  ``linalg.add`` ... ``linalg.powf``, ``linalg.max``/``min`` (signed), ``linalg.select``): the
  function on inputs of the output's own type, no casts.
* ``linalg.softmax`` (attribute ``dimension``): upstream's decomposition, step for step: the
  maximum along the dimension with ``maxnumf`` from a NaN start, ``exp(x - max)``, its sum along
  the dimension from 0 in index order, then ``exp(x - max) / sum``.

Every op here is parallel over the output, whose current values are never read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.ir.affine import AffineMap

from .linalg_loops import run_folding
from .linalg_scalar import (
    BINARY_NAMES, UNARY, binary, cast, enum_name, integer, is_float, select, unary, unsigned_cast,
)

KINDS: dict[str, int] = {**{k: 1 for k in UNARY}, **{k: 2 for k in BINARY_NAMES}, "select": 3}
"""``linalg.elementwise`` kinds and how many inputs each takes."""

ONE_FUNCTION_OPS: dict[str, str] = {
    **{k: k for k in ("exp", "log", "abs", "ceil", "floor", "negf", "reciprocal", "round", "sqrt",
                      "rsqrt", "square", "tanh", "erf")},
    **{k: k for k in ("add", "sub", "mul", "div", "div_unsigned", "powf")},
    "max": "max_signed", "min": "min_signed", "select": "select",
}
"""The older one-function named ops and the function each applies."""


def apply(fn: str, args: Sequence[np.ndarray]) -> np.ndarray:
    """Function ``fn`` (a unary, binary or ``select`` name) on its arguments."""
    if KINDS.get(fn) != len(args):
        raise ValueError(f"'{fn}' does not take {len(args)} operands")
    if fn == "select":
        return select(*args)
    if len(args) == 1:
        return unary(fn, args[0])
    return binary(fn, args[0], args[1])


def _pointwise(ins: Sequence[np.ndarray], out: np.ndarray, fn, maps=None) -> np.ndarray:
    """``out = fn(ins)`` at every point, the operands read through ``maps`` (identity if none)."""
    if maps is None:
        ident = AffineMap.identity(out.ndim)
        maps = [ident] * (len(ins) + 1)
    ins = [np.asarray(x) for x in ins]

    def term(args: list[np.ndarray]) -> np.ndarray:
        value = fn(args)
        if value.dtype != out.dtype:
            raise TypeError(f"the op yields {value.dtype} into an output of {out.dtype}")
        return value

    return run_folding(list(maps), ins, out, term, None)


def run_elementwise(ins, outs, attrs: Mapping[str, object]) -> list[np.ndarray]:
    """``linalg.elementwise``."""
    kind = enum_name(attrs.get("kind"))
    if kind not in KINDS:
        raise ValueError(f"unknown elementwise kind {kind!r}")
    out = _single(outs)
    return [_pointwise(ins, out, lambda a: apply(kind, a), attrs.get("indexing_maps"))]


def run_elemwise_unary(ins, outs, attrs: Mapping[str, object]) -> list[np.ndarray]:
    """``linalg.elemwise_unary``: ``fun(cast(U, in))``."""
    fun, unsigned = enum_name(attrs.get("fun") or "exp"), unsigned_cast(attrs.get("cast"))
    out = _single(outs)
    return [_pointwise(ins, out, lambda a: unary(fun, cast(a[0], out.dtype, unsigned)))]


def run_elemwise_binary(ins, outs, attrs: Mapping[str, object]) -> list[np.ndarray]:
    """``linalg.elemwise_binary``: ``fun(cast(U, lhs), cast(U, rhs))``."""
    fun, unsigned = enum_name(attrs.get("fun") or "add"), unsigned_cast(attrs.get("cast"))
    out = _single(outs)
    return [_pointwise(ins, out, lambda a: binary(fun, *(cast(x, out.dtype, unsigned) for x in a)))]


def run_one_function(name: str, ins, outs) -> list[np.ndarray]:
    """One of :data:`ONE_FUNCTION_OPS`."""
    fn = ONE_FUNCTION_OPS[name]
    return [_pointwise(ins, _single(outs), lambda a: apply(fn, a))]


def run_softmax(ins, outs, attrs: Mapping[str, object]) -> list[np.ndarray]:
    """``linalg.softmax`` along ``dimension``, as upstream decomposes it."""
    x, out = np.asarray(_single(ins)), _single(outs)
    if not is_float(x.dtype) or x.dtype != out.dtype or x.shape != out.shape:
        raise TypeError(f"softmax of {x.dtype}{list(x.shape)} into {out.dtype}{list(out.shape)}")
    axis = integer(attrs["dimension"])
    if x.shape[axis] == 0:
        return [np.array(out, copy=True)]
    peak = np.full(np.delete(x.shape, axis), np.nan, dtype=x.dtype)
    for i in range(x.shape[axis]):
        peak = np.fmax(np.take(x, i, axis=axis), peak)  # maxnumf(in, out)
    numerator = np.exp(x - np.expand_dims(peak, axis))
    total = np.zeros_like(peak)
    for i in range(x.shape[axis]):
        total = np.take(numerator, i, axis=axis) + total  # addf(in, out), in index order
    return [(numerator / np.expand_dims(total, axis)).astype(x.dtype, copy=False)]


def _single(values: Sequence[np.ndarray]) -> np.ndarray:
    if len(values) != 1:
        raise ValueError(f"expected one operand, got {len(values)}")
    return np.asarray(values[0])


__all__ = [
    "KINDS", "ONE_FUNCTION_OPS", "apply", "run_elementwise", "run_elemwise_binary",
    "run_elemwise_unary", "run_one_function", "run_softmax",
]
