"""The loop nest of a linalg op, executed with numpy: ``linalg.generic`` and the engine that runs
every named op from its generalised form.

A linalg op is a perfect loop nest over dims ``d0 .. dn-1`` whose extents come from its operands'
shapes (the first operand result that is exactly ``dk`` gives ``dk``'s extent, as upstream's
static loop ranges do); at every point it reads each operand at its indexing map and updates the
outputs. The semantics is that of the sequential nest in lexicographic order. Here the dims
whose points write distinct output elements (parallel dims that each output map names once)
run vectorised, and the others (reduction dims, and parallel dims an output map leaves out or
mixes into an expression) run one point at a time in lexicographic order, so each output
element sees exactly the sequence of updates the sequential nest gives it, with a rounding
after each: results are bit-identical run to run and independent of how they are vectorised.

Indexing maps are ``xdsl.ir.affine.AffineMap`` values without symbols, one per operand (ins,
then outs); results may be any affine expression of the dims (constants, ``d0 + d1``,
``d0 * 2 + d1``, ``floordiv``/``ceildiv``/``mod`` by constants), and a map may have fewer
results than dims (broadcast) or none (a 0-d operand). Each operand is seen through a read-only
view over the whole iteration space: a strided view of the operand itself when every result is
linear in the dims, else a gather of just the dims it uses, broadcast over the rest.
Out-of-bounds accesses are reported, never read.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.ir.affine import (
    AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineExpr,
    AffineMap,
)

from .linalg_scalar import binary, is_bool

BLOCK_ELEMENTS = 1 << 18
"""How many (point, element) pairs a block of sequential points gathers at once."""

Body = Callable[[list[np.ndarray], Callable[[int], np.ndarray]], Sequence[np.ndarray]]


# -- affine expressions -------------------------------------------------------------------------

def linear_form(expr: AffineExpr, ndims: int) -> tuple[tuple[int, ...], int] | None:
    """``expr`` as (coefficient per dim, constant), or None when it is not linear."""
    if isinstance(expr, AffineDimExpr):
        return tuple(int(d == expr.position) for d in range(ndims)), 0
    if isinstance(expr, AffineConstantExpr):
        return (0,) * ndims, expr.value
    if not isinstance(expr, AffineBinaryOpExpr):
        raise ValueError(f"indexing maps must not use symbols: {expr}")
    lhs, rhs = linear_form(expr.lhs, ndims), linear_form(expr.rhs, ndims)
    if lhs is None or rhs is None:
        return None
    if expr.kind == AffineBinaryOpKind.Add:
        return tuple(a + b for a, b in zip(lhs[0], rhs[0])), lhs[1] + rhs[1]
    if expr.kind == AffineBinaryOpKind.Mul and not any(rhs[0]):
        return tuple(a * rhs[1] for a in lhs[0]), lhs[1] * rhs[1]
    if expr.kind == AffineBinaryOpKind.Mul and not any(lhs[0]):
        return tuple(b * lhs[1] for b in rhs[0]), lhs[1] * rhs[1]
    return None


def evaluate(expr: AffineExpr, dims: Sequence[np.ndarray | int]):
    """``expr`` at the given dim values (numpy arrays broadcast together, or ints)."""
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineConstantExpr):
        return expr.value
    if not isinstance(expr, AffineBinaryOpExpr):
        raise ValueError(f"indexing maps must not use symbols: {expr}")
    a, b = evaluate(expr.lhs, dims), evaluate(expr.rhs, dims)
    kind = expr.kind
    if kind == AffineBinaryOpKind.Add:
        return a + b
    if kind == AffineBinaryOpKind.Mul:
        return a * b
    if kind == AffineBinaryOpKind.FloorDiv:
        return a // b
    if kind == AffineBinaryOpKind.CeilDiv:
        return -((-a) // b)
    return a % b  # Mod: non-negative for a positive divisor, as in affine


def used_dims(expr: AffineExpr) -> set[int]:
    if isinstance(expr, AffineDimExpr):
        return {expr.position}
    if isinstance(expr, AffineBinaryOpExpr):
        return used_dims(expr.lhs) | used_dims(expr.rhs)
    return set()


def loop_extents(maps: Sequence[AffineMap], shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """Each dim's extent: the size of the first operand axis indexed by exactly that dim."""
    ndims = maps[0].num_dims
    extents: list[int | None] = [None] * ndims
    for amap, shape in zip(maps, shapes):
        if len(amap.results) != len(shape):
            raise ValueError(f"indexing map {amap} does not fit an operand of shape {shape}")
        for expr, size in zip(amap.results, shape):
            if isinstance(expr, AffineDimExpr) and extents[expr.position] is None:
                extents[expr.position] = size
    if None in extents:
        raise ValueError(f"loop d{extents.index(None)} is not the whole of any operand dimension")
    return tuple(int(e) for e in extents)  # type: ignore[arg-type]


# -- operands seen over the iteration space -------------------------------------------------------

def _check_bounds(lo: int, hi: int, size: int, amap: AffineMap) -> None:
    if lo < 0 or hi >= size:
        raise IndexError(f"indexing map {amap} reaches [{lo}, {hi}] outside an axis of size {size}")


def _strided_view(x: np.ndarray, amap: AffineMap, forms, extents) -> np.ndarray:
    """The zero-copy view ``v[d0, .., dn-1] = x[map(d)]`` of an operand whose map is linear."""
    x = np.ascontiguousarray(x)
    offset = 0
    strides = [0] * len(extents)
    for (coeffs, const), size, stride in zip(forms, x.shape, x.strides):
        lo = const + sum(c * (e - 1) for c, e in zip(coeffs, extents) if c < 0)
        hi = const + sum(c * (e - 1) for c, e in zip(coeffs, extents) if c > 0)
        _check_bounds(lo, hi, size, amap)
        offset += const * stride // x.itemsize
        for d, c in enumerate(coeffs):
            strides[d] += c * stride
    base = x.reshape(-1)[offset:]
    return np.lib.stride_tricks.as_strided(base, extents, strides, writeable=False)


def _gathered_view(x: np.ndarray, amap: AffineMap, extents) -> np.ndarray:
    """``v[d] = x[map(d)]`` for a non-linear map: gathered over the dims it uses, broadcast."""
    n = len(extents)
    grid = [np.arange(e, dtype=np.int64).reshape([e if k == d else 1 for k in range(n)])
            for d, e in enumerate(extents)]
    index = []
    for expr, size in zip(amap.results, x.shape):
        ix = np.asarray(evaluate(expr, grid), dtype=np.int64)
        _check_bounds(int(ix.min()), int(ix.max()), size, amap)
        index.append(ix if ix.ndim == n else ix.reshape((1,) * n))
    picked = x[tuple(index)] if index else x.reshape((1,) * n)
    return np.broadcast_to(picked, extents)


def operand_view(x: np.ndarray, amap: AffineMap, extents: tuple[int, ...]) -> np.ndarray:
    """Read-only ``v`` of shape ``extents`` with ``v[d] = x[amap(d)]``."""
    x = np.asarray(x)
    if amap.num_dims != len(extents) or len(amap.results) != x.ndim:
        raise ValueError(f"indexing map {amap} does not fit an operand of shape {x.shape}")
    if 0 in extents:
        return np.broadcast_to(np.zeros((), x.dtype), extents)
    forms = [linear_form(e, len(extents)) for e in amap.results]
    if all(f is not None for f in forms):
        return _strided_view(x, amap, forms, extents)
    return _gathered_view(x, amap, extents)


# -- the loop nest -----------------------------------------------------------------------------

def _names_once(amap: AffineMap, d: int) -> bool:
    """Whether output map ``amap`` has ``d`` as one whole result and nowhere else."""
    whole = sum(isinstance(e, AffineDimExpr) and e.position == d for e in amap.results)
    inside = sum(d in used_dims(e) for e in amap.results)
    return whole == 1 and inside == 1


class Loops:
    """The loop nest of one op: each dim's extent, the dims run vectorised (``vector``, in dim
    order) and those run point by point in lexicographic order (``sequential``)."""

    def __init__(self, maps: Sequence[AffineMap], iterator_types: Sequence[str],
                 shapes: Sequence[tuple[int, ...]], n_outs: int):
        if len(maps) != len(shapes):
            raise ValueError(f"{len(maps)} indexing maps for {len(shapes)} operands")
        if len(iterator_types) != maps[0].num_dims:
            raise ValueError(f"{len(iterator_types)} iterator types for {maps[0].num_dims} loops")
        self.extents = loop_extents(maps, shapes)
        out_maps = maps[len(maps) - n_outs:]
        self.vector = tuple(d for d, kind in enumerate(iterator_types)
                            if kind != "reduction" and all(_names_once(m, d) for m in out_maps))
        self.sequential = tuple(d for d in range(len(self.extents)) if d not in self.vector)
        self.vshape = tuple(self.extents[d] for d in self.vector)

    @property
    def empty(self) -> bool:
        return 0 in self.extents

    def points(self, dims: Sequence[int]):
        """The points of ``dims`` in lexicographic order, as {dim: value}."""
        for values in itertools.product(*(range(self.extents[d]) for d in dims)):
            yield dict(zip(dims, values))

    def select(self, fixed: dict[int, int]) -> tuple:
        """Index into an iteration-space view: the fixed dims' values, the others whole."""
        return tuple(fixed.get(d, slice(None)) for d in range(len(self.extents)))

    def out_region(self, out: np.ndarray, amap: AffineMap, fixed: dict[int, int]) -> np.ndarray:
        """The writable part of ``out`` the vector dims reach at the fixed point, axes in
        ``vector`` order."""
        values: list = [fixed.get(d) for d in range(len(self.extents))]
        index: list[slice | int] = []
        order: list[int] = []
        for expr, size in zip(amap.results, out.shape):
            if isinstance(expr, AffineDimExpr) and expr.position in self.vector:
                index.append(slice(None))
                order.append(expr.position)
            else:
                at = int(evaluate(expr, values))
                _check_bounds(at, at, size, amap)
                index.append(at)
        region = out[tuple(index) + (Ellipsis,)]
        return region.transpose(np.argsort(order)) if order else region

    def index_fn(self, fixed: dict[int, int]) -> Callable[[int], np.ndarray]:
        """``linalg.index``: loop ``d``'s value at each vectorised point."""
        def index(d: int) -> np.ndarray:
            if d in fixed:
                return np.broadcast_to(np.int64(fixed[d]), self.vshape)
            shape = [1] * len(self.vector)
            shape[self.vector.index(d)] = self.extents[d]
            values = np.arange(self.extents[d], dtype=np.int64).reshape(shape)
            return np.broadcast_to(values, self.vshape)
        return index

    def blocks(self, budget: int):
        """Blocks of sequential points covering them all in lexicographic order, each at most
        ``budget`` (point, vector element) pairs when it can be: ``(perm, indices)`` where each
        index tuple picks a block out of an iteration-space view and ``perm`` orders the picked
        axes as (the block's sequential dims..., vector dims...)."""
        size, seq = max(1, math.prod(self.vshape)), list(self.sequential)
        cut = len(seq)
        while cut > 0 and size * self.extents[seq[cut - 1]] <= budget:
            cut -= 1
            size *= self.extents[seq[cut]]
        outer, inner = seq[:max(cut - 1, 0)], seq[cut:]
        split = seq[cut - 1] if cut else None  # the dim cut into runs of `step` points
        step = max(1, budget // size)
        in_block = ([split] if split is not None else []) + inner
        remaining = [d for d in range(len(self.extents)) if d not in outer]
        perm = [remaining.index(d) for d in (*in_block, *self.vector)]

        def indices():
            for fixed in self.points(outer):
                starts = range(0, self.extents[split], step) if split is not None else [None]
                for start in starts:
                    index = [fixed.get(d, slice(None)) for d in range(len(self.extents))]
                    if split is not None:
                        index[split] = slice(start, start + step)
                    yield tuple(index)

        return perm, indices()


def _as_dtype(value, dtype: np.dtype) -> np.ndarray:
    value = np.asarray(value)
    return value if value.dtype == dtype else value.astype(dtype)


def _read_only(x: np.ndarray) -> np.ndarray:
    view = x.view()
    view.flags.writeable = False
    return view


def run_generic(maps: Sequence[AffineMap], iterator_types: Sequence[str],
                ins: Sequence[np.ndarray], outs: Sequence[np.ndarray], body: Body) -> list[np.ndarray]:
    """``linalg.generic``: the new values of ``outs``.

    ``body(args, index)`` is the payload, called once per sequential point with ``args`` the
    block arguments (each input at its map, then each output's current value) as read-only
    arrays over the vectorised points, and ``index(d)`` giving loop ``d`` there; it returns the
    yielded values, one per output (anything broadcastable; converted to the output's dtype).
    """
    ins = [np.asarray(x) for x in ins]
    results = [np.array(o, copy=True) for o in outs]
    loops = Loops(maps, iterator_types, [x.shape for x in (*ins, *results)], len(results))
    if loops.empty:
        return results
    views = [operand_view(x, m, loops.extents) for x, m in zip(ins, maps)]
    out_maps = maps[len(ins):]
    for fixed in loops.points(loops.sequential):
        select = loops.select(fixed)
        regions = [loops.out_region(r, m, fixed) for r, m in zip(results, out_maps)]
        args = [v[select] for v in views] + [_read_only(r) for r in regions]
        values = [_detached(v, regions) for v in body(args, loops.index_fn(fixed))]
        if len(values) != len(regions):
            raise ValueError(f"the body yields {len(values)} values for {len(regions)} outputs")
        for region, value in zip(regions, values):
            region[...] = _as_dtype(value, region.dtype)
    return results


def _detached(value, regions: Sequence[np.ndarray]):
    """A yielded value that no output write can change (a body may yield one output's
    current value into another)."""
    if isinstance(value, np.ndarray) and any(np.may_share_memory(value, r) for r in regions):
        return value.copy()
    return value


Term = Callable[[list[np.ndarray]], np.ndarray]


def run_folding(maps: Sequence[AffineMap], ins: Sequence[np.ndarray], out: np.ndarray,
                term: Term, fold: str | None) -> np.ndarray:
    """The new value of ``out`` for an op whose body is ``out = fold(out, term(ins))``, the form
    of every named op: ``fold`` a ``BinaryFn`` name (``"add"`` for ``+=``, ``"max_signed"`` for
    max pooling ...) or None for ``out = term(ins)``. Dims the output map names are parallel,
    the others reductions. ``term`` gets each input over a block of points, axes (reduction
    points..., parallel dims...), and returns the value in ``out``'s dtype.

    The fold runs in lexicographic order over the reduction points, one rounding per step,
    exactly as the loop nest would; blocks of points are gathered at once to keep the Python
    loop short."""
    ins = [np.asarray(x) for x in ins]
    result = np.array(out, copy=True)
    out_dims = set().union(*(used_dims(e) for e in maps[-1].results))
    kinds = ["parallel" if d in out_dims else "reduction" for d in range(maps[0].num_dims)]
    loops = Loops(maps, kinds, [x.shape for x in (*ins, result)], 1)
    if set(loops.vector) != out_dims:
        raise ValueError(f"output map {maps[-1]} is not a projected permutation")
    if loops.empty:
        return result
    if fold is None and loops.sequential:
        raise ValueError("an overwriting op has no reduction loops")
    views = [operand_view(x, m, loops.extents) for x, m in zip(ins, maps)]
    region = loops.out_region(result, maps[-1], {})
    perm, indices = loops.blocks(BLOCK_ELEMENTS)
    acc = np.array(region, copy=True)
    for index in indices:
        parts = [v[index].transpose(perm) for v in views]
        terms = np.broadcast_to(term(parts), parts[0].shape).reshape((-1,) + loops.vshape)
        acc = _fold_block(fold, acc, terms)
    region[...] = acc
    return result


def _fold_block(fold: str | None, acc: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """``acc`` folded with ``terms[0]``, then ``terms[1]`` ... in order."""
    if fold is None:
        return _as_dtype(terms[-1], acc.dtype)
    if fold == "add" and not is_bool(acc.dtype):
        return _sum_in_order(acc, _as_dtype(terms, acc.dtype))
    for t in terms:
        acc = binary(fold, acc, _as_dtype(t, acc.dtype))
    return acc


def _sum_in_order(acc: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """``((acc + terms[0]) + terms[1]) + ...``, rounding after each add: a vectorised add per
    term when there are many elements, else a sequential ``add.accumulate`` along each
    element's (contiguous) run of terms."""
    if acc.size >= 256 or len(terms) == 1:
        acc = np.array(acc, copy=True)
        for t in terms:
            np.add(acc, t, out=acc)
        return acc
    runs = np.concatenate([acc.reshape(1, -1), terms.reshape(len(terms), -1)]).T.copy()
    np.add.accumulate(runs, axis=1, dtype=acc.dtype, out=runs)
    return runs[:, -1].reshape(acc.shape)


__all__ = [
    "BLOCK_ELEMENTS", "Body", "Loops", "Term", "evaluate", "linear_form", "loop_extents",
    "operand_view", "run_folding", "run_generic", "used_dims",
]
