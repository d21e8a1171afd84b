"""Affine maps compiled once into Python functions over a frame of SSA values.

A map becomes a function reading its dims and symbols straight from the frame, with MLIR's
integer semantics (``floordiv`` and ``mod`` round toward minus infinity, ``ceildiv`` toward plus
infinity: Python's and numpy's ``//`` and ``%`` do exactly that), so the same function evaluates
Python ints in loops and int64 arrays inside vectorised linalg bodies. Used by the ``affine``
ops (:mod:`.memref_affine`), loop nests (:mod:`.memref_nest`) and linalg bodies
(:mod:`.memref_body`).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir.affine import (
    AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap, AffineSymExpr,
)

_OPS = {
    AffineBinaryOpKind.Add: "({} + {})", AffineBinaryOpKind.Mul: "({} * {})", AffineBinaryOpKind.Mod: "({} % {})",
    AffineBinaryOpKind.FloorDiv: "({} // {})", AffineBinaryOpKind.CeilDiv: "(-((-{}) // {}))",
}


def source(e: AffineExpr, dims: list[str], syms: list[str]) -> str:
    """Python source of ``e`` over the given dim and symbol expressions."""
    if isinstance(e, AffineDimExpr):
        return dims[e.position]
    if isinstance(e, AffineSymExpr):
        return syms[e.position]
    if isinstance(e, AffineConstantExpr):
        return f"({e.value})"
    if isinstance(e, AffineBinaryOpExpr):
        return _OPS[e.kind].format(source(e.lhs, dims, syms), source(e.rhs, dims, syms))
    raise ValueError(f"affine expression {e}")


_FUNCTIONS: dict[tuple, Callable[[list], tuple]] = {}


def map_function(amap: AffineMap, slots: tuple[int, ...]) -> Callable[[list], tuple]:
    """``amap`` applied to the frame slots of its operands (dims, then symbols): a tuple."""
    key = (amap, tuple(slots))
    fn = _FUNCTIONS.get(key)
    if fn is None:
        fn = _FUNCTIONS[key] = _map_source(amap, slots)
    return fn


def _map_source(amap: AffineMap, slots: tuple[int, ...]) -> Callable[[list], tuple]:
    names = [f"f[{s}]" for s in slots]
    dims, syms = names[:amap.num_dims], names[amap.num_dims:]
    body = "".join(source(e, dims, syms) + ", " for e in amap.results)
    return eval(f"lambda f: ({body})")  # noqa: S307 - generated from the map alone
