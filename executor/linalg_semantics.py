"""The numeric semantics of upstream MLIR's linalg ops, in numpy: what ``memopt-run --check``
computes when it executes a bufferized upstream program.

This is a pure numpy library (with xDSL's ``AffineMap`` for indexing maps); it knows nothing of
IR. The executor hands it arrays and plain attribute values and gets back the outputs' new
values:

* :func:`run_named` runs a named op (every one upstream defines, plus the ones older upstream
  had; :func:`known_named` says which), given its inputs, its outputs' current values (read by
  the ops that accumulate: matmul adds into its output, max pooling takes the max with it; fill,
  copy, transpose and the elementwise ops overwrite) and its attributes.
* :func:`run_generic`, :func:`run_map` and :func:`run_reduce` run the ops with a region, the
  region evaluated by the caller through a ``body`` callback over many points at once.

Semantics are upstream's own, as ``--linalg-generalize-named-ops`` spells them out: each named
op is its generic form (indexing maps, loop order, casts of the inputs to the output's element
type, integer wrap at the element width, float arithmetic in the element type rounded after
every operation) and every reduction is folded in the loop nest's lexicographic order, so
results are bit-identical from run to run (see :mod:`.linalg_loops` for how it is vectorised,
:mod:`.linalg_scalar` for element types, bf16 and transcendental functions).

Attribute keys read by :func:`run_named` (absent keys take upstream's defaults):

* ``strides``, ``dilations``: tuple of ints, one per spatial dim (convolutions, depthwise
  convolutions, pooling; default all 1).
* ``indexing_maps``: list of ``AffineMap``, ins then out (matmul, batch_matmul,
  batch_reduce_matmul, contract, where it is required, and elementwise).
* ``cast``: ``"cast_signed"`` (default) or ``"cast_unsigned"`` (copy, matmul, batch_matmul,
  contract, elemwise_unary, elemwise_binary; batch_reduce_matmul's is ignored, as upstream's
  body casts signed whatever it says).
* ``kind``: an ``ElementwiseKind`` name, ``"exp"``, ``"add"``, ``"select"`` ... (elementwise).
* ``fun``: a ``UnaryFn``/``BinaryFn`` name (elemwise_unary, elemwise_binary).
* ``permutation``: tuple of ints (transpose); ``dimensions``: tuple of ints, the output dims the
  input lacks (broadcast); ``dimension``: int (softmax).
* ``inner_dims_pos``, ``inner_tiles`` (tile sizes resolved to ints), ``outer_dims_perm``
  (optional): tuples of ints (pack, unpack).

Enum-valued attributes (``cast``, ``kind``, ``fun``, and run_generic's iterator types) may be
given as their case name (``"cast_unsigned"``) or as MLIR prints them
(``"#linalg.type_fn<cast_unsigned>"``). Scalar operands (fill's value, fill_rng_2d's min, max
and seed, the zero points of quantized ops, pack's padding value) are inputs like the others:
0-d arrays or Python numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from xdsl.ir.affine import AffineExpr, AffineMap

from . import linalg_data as data
from . import linalg_elementwise as pointwise
from .linalg_loops import Body, run_generic as _run_generic
from .linalg_named import NAMED, run_structured
from .linalg_scalar import enum_name

Handler = Callable[[list, list, Mapping[str, object]], list]

_REGULAR: dict[str, Handler] = {
    "fill": data.run_fill, "fill_rng_2d": data.run_fill_rng_2d, "copy": data.run_copy,
    "transpose": data.run_transpose, "broadcast": data.run_broadcast,
    "pack": data.run_pack, "unpack": data.run_unpack,
    "elementwise": pointwise.run_elementwise, "elemwise_unary": pointwise.run_elemwise_unary,
    "elemwise_binary": pointwise.run_elemwise_binary, "softmax": pointwise.run_softmax,
}


def _handler(name: str) -> Handler | None:
    key = name.removeprefix("linalg.")
    if key in _REGULAR:
        return _REGULAR[key]
    if key in NAMED:
        return lambda ins, outs, attrs: run_structured(key, ins, outs, attrs)
    if key in pointwise.ONE_FUNCTION_OPS:
        return lambda ins, outs, attrs: pointwise.run_one_function(key, ins, outs)
    return None


NAMED_OPS: tuple[str, ...] = tuple(sorted(
    f"linalg.{k}" for k in (*_REGULAR, *NAMED, *pointwise.ONE_FUNCTION_OPS)))
"""Every op :func:`run_named` runs."""


def known_named(name: str) -> bool:
    """Whether :func:`run_named` runs op ``name`` (``"linalg.matmul"``; the prefix may be left
    out). False for the ops with a region (generic, map, reduce: see :func:`run_generic`) and for
    the ones left out (winograd transforms, scaled_contract)."""
    return _handler(name) is not None


def run_named(name: str, ins: Sequence[np.ndarray], outs: Sequence[np.ndarray],
              attrs: Mapping[str, object] | None = None) -> list[np.ndarray]:
    """New values of the outs of linalg op ``name`` (e.g. ``"linalg.matmul"``) given its ins
    and the current outs (for accumulation); fresh arrays of the outs' dtypes and shapes.
    Raises NotImplementedError for an op :func:`known_named` rejects."""
    handler = _handler(name)
    if handler is None:
        raise NotImplementedError(f"no numeric semantics for '{name}'")
    with np.errstate(all="ignore"):
        return handler(list(ins), [np.asarray(o) for o in outs], dict(attrs or {}))


def run_generic(maps: Sequence[AffineMap], iterator_types: Sequence[str],
                ins: Sequence[np.ndarray], outs: Sequence[np.ndarray], body: Body) -> list[np.ndarray]:
    """``linalg.generic``: ``maps`` one indexing map per operand (ins then outs),
    ``iterator_types`` ``"parallel"``/``"reduction"`` per loop. ``body(args, index)`` evaluates
    the region vectorised: ``args`` are the block arguments (each input at its map, then each
    output's current value) as arrays over a set of iteration points, ``index(d)`` gives loop
    ``d``'s value at those points (``linalg.index``); it returns the yielded values, one per
    output. Parallel loops run vectorised, the others one point at a time in lexicographic
    order."""
    kinds = [enum_name(k) for k in iterator_types]
    with np.errstate(all="ignore"):
        return _run_generic(list(maps), kinds, ins, outs, body)


def run_map(ins: Sequence[np.ndarray], outs: Sequence[np.ndarray], body: Body) -> list[np.ndarray]:
    """``linalg.map``: ``body(args, index)`` with ``args`` the inputs only (the mapper's block
    arguments), at every point of the output."""
    out = np.asarray(outs[0])
    maps = [AffineMap.identity(out.ndim)] * (len(ins) + 1)
    n_in = len(ins)
    return run_generic(maps, ["parallel"] * out.ndim, ins, [out],
                       lambda args, index: body(args[:n_in], index))


def run_reduce(ins: Sequence[np.ndarray], outs: Sequence[np.ndarray], dimensions: Sequence[int],
               body: Body) -> list[np.ndarray]:
    """``linalg.reduce`` over the inputs' ``dimensions``: ``body(args, index)`` with ``args`` the
    inputs then the running outputs (the combiner's block arguments), folded in index order."""
    rank = np.asarray(ins[0]).ndim
    reduced = {int(d) for d in dimensions}
    kept = tuple(AffineExpr.dimension(d) for d in range(rank) if d not in reduced)
    maps = [AffineMap.identity(rank)] * len(ins) + [AffineMap(rank, 0, kept)] * len(outs)
    kinds = ["reduction" if d in reduced else "parallel" for d in range(rank)]
    return run_generic(maps, kinds, ins, outs, body)


__all__ = ["NAMED_OPS", "known_named", "run_generic", "run_map", "run_named", "run_reduce"]
