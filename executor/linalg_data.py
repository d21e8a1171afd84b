"""Upstream's linalg ops that create or move data: fill, fill_rng_2d, copy, transpose, broadcast,
pack and unpack. None of them reads its output's current values.

Attributes read: ``cast`` (copy; ``"cast_signed"`` by default), ``permutation`` (transpose:
output dim ``j`` is input dim ``permutation[j]``), ``dimensions`` (broadcast: the output dims
the input lacks), and for pack/unpack ``inner_dims_pos``, ``inner_tiles`` (ints, tile sizes
resolved), ``outer_dims_perm`` (optional). Pack's optional padding value is its second input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.ir.affine import AffineExpr, AffineMap

from .linalg_loops import run_folding
from .linalg_scalar import cast, ints, unsigned_cast


def run_fill(ins, outs, attrs: Mapping[str, object]) -> list[np.ndarray]:
    """``linalg.fill``: every element the scalar input (of the output's element type)."""
    out = np.asarray(_one(outs))
    value = cast(np.asarray(_one(ins)), out.dtype)
    return [np.full(out.shape, value, dtype=out.dtype)]


def run_fill_rng_2d(ins, outs, attrs: Mapping[str, object]) -> list[np.ndarray]:
    """``linalg.fill_rng_2d``: upstream's per-element linear congruential generator, seeded by
    the i32 seed and the element's indices, scaled into [min, max) in f64."""
    lo, hi, seed = (np.asarray(v) for v in ins)
    out = np.asarray(_one(outs))
    mult, inc = np.int32(1103515245), np.int32(12345)
    rows = np.arange(out.shape[0], dtype=np.int32).reshape(-1, 1)
    cols = np.arange(out.shape[1], dtype=np.int32).reshape(1, -1)
    rand1 = (rows + cast(seed, np.dtype(np.int32))) * mult + inc
    rand2 = (cols + rand1) * mult + inc
    scaling = (np.float64(hi) - np.float64(lo)) * np.float64(2.3283064e-10)
    value = (rand2.astype(np.float64) + np.float64(2147483647)) * scaling + np.float64(lo)
    return [cast(value, out.dtype)]


def run_copy(ins, outs, attrs: Mapping[str, object]) -> list[np.ndarray]:
    """``linalg.copy``: the input cast to the output's element type."""
    source, out = np.asarray(_one(ins)), np.asarray(_one(outs))
    unsigned = unsigned_cast(attrs.get("cast"))
    ident = AffineMap.identity(out.ndim)
    return [run_folding([ident, ident], [source], out, lambda a: cast(a[0], out.dtype, unsigned), None)]


def run_transpose(ins, outs, attrs: Mapping[str, object]) -> list[np.ndarray]:
    """``linalg.transpose``: ``out[i0, .., in-1] = in[j]`` where ``j[permutation[k]] = ik``."""
    source, out = np.asarray(_one(ins)), np.asarray(_one(outs))
    perm = ints(attrs["permutation"])
    if sorted(perm) != list(range(out.ndim)) or source.ndim != out.ndim:
        raise ValueError(f"permutation {perm} does not fit ranks {source.ndim} -> {out.ndim}")
    dims = [AffineExpr.dimension(perm.index(i)) for i in range(source.ndim)]
    maps = [AffineMap(out.ndim, 0, tuple(dims)), AffineMap.identity(out.ndim)]
    return [run_folding(maps, [source], out, lambda a: _same_type(a[0], out), None)]


def run_broadcast(ins, outs, attrs: Mapping[str, object]) -> list[np.ndarray]:
    """``linalg.broadcast``: the input repeated along the output's ``dimensions``."""
    source, out = np.asarray(_one(ins)), np.asarray(_one(outs))
    added = set(ints(attrs["dimensions"]))
    kept = tuple(AffineExpr.dimension(d) for d in range(out.ndim) if d not in added)
    maps = [AffineMap(out.ndim, 0, kept), AffineMap.identity(out.ndim)]
    return [run_folding(maps, [source], out, lambda a: _same_type(a[0], out), None)]


def _tiling(attrs: Mapping[str, object], rank: int):
    """(inner_dims_pos, inner_tiles, outer_dims_perm) of a pack/unpack over an unpacked rank."""
    pos = ints(attrs["inner_dims_pos"])
    tiles = ints(attrs["inner_tiles"])
    outer = attrs.get("outer_dims_perm")
    perm = ints(outer) if outer else tuple(range(rank))
    if len(pos) != len(tiles) or sorted(perm) != list(range(rank)):
        raise ValueError(f"bad tiling: inner_dims_pos {pos}, inner_tiles {tiles}, outer_dims_perm {perm}")
    return pos, tiles, perm


def _tiled_axes(rank: int, pos, perm) -> list[int]:
    """Axis order taking the (outer, tile) split of an unpacked array to the packed layout."""
    split = []  # the split array's axes: each dim's outer axis, then its tile axis if tiled
    for d in range(rank):
        split.append(("outer", d))
        if d in pos:
            split.append(("tile", d))
    order = [("outer", d) for d in perm] + [("tile", d) for d in pos]
    return [split.index(a) for a in order]


def run_pack(ins, outs, attrs: Mapping[str, object]) -> list[np.ndarray]:
    """``linalg.pack``: the source padded (with the padding value, at the high end) to whole
    tiles, cut into tiles along ``inner_dims_pos``, outer dims permuted by ``outer_dims_perm``,
    tile dims last."""
    source, out = np.asarray(ins[0]), np.asarray(_one(outs))
    pos, tiles, perm = _tiling(attrs, source.ndim)
    tile_of = dict(zip(pos, tiles))
    padded_shape = [-(-n // tile_of[d]) * tile_of[d] if d in tile_of else n
                    for d, n in enumerate(source.shape)]
    if padded_shape != list(source.shape) and len(ins) < 2:
        raise ValueError("pack of partial tiles needs a padding value")
    padded = np.full(padded_shape, cast(ins[1], out.dtype) if len(ins) > 1 else 0, dtype=out.dtype)
    padded[tuple(slice(0, n) for n in source.shape)] = _same_type(source, out)
    split = []
    for d, n in enumerate(padded_shape):
        split += [n // tile_of[d], tile_of[d]] if d in tile_of else [n]
    packed = padded.reshape(split).transpose(_tiled_axes(source.ndim, pos, perm))
    return [_fitted(packed, out)]


def run_unpack(ins, outs, attrs: Mapping[str, object]) -> list[np.ndarray]:
    """``linalg.unpack``: the inverse of pack, dropping the padding past the output's shape."""
    source, out = np.asarray(_one(ins)), np.asarray(_one(outs))
    pos, tiles, perm = _tiling(attrs, out.ndim)
    axes = _tiled_axes(out.ndim, pos, perm)
    split = source.transpose(np.argsort(axes))
    padded = split.reshape([split.shape[i] * (split.shape[i + 1] if j else 1)
                            for i, j in _split_groups(out.ndim, pos)])
    if any(p < n for p, n in zip(padded.shape, out.shape)):
        raise ValueError(f"unpack of {source.shape} cannot fill {out.shape}")
    return [_same_type(padded[tuple(slice(0, n) for n in out.shape)], out).copy()]


def _split_groups(rank: int, pos) -> list[tuple[int, bool]]:
    """For each unpacked dim: (index of its outer axis in the split array, whether tiled)."""
    groups, at = [], 0
    for d in range(rank):
        groups.append((at, d in pos))
        at += 2 if d in pos else 1
    return groups


def _fitted(value: np.ndarray, out: np.ndarray) -> np.ndarray:
    if value.shape != out.shape:
        raise ValueError(f"result of shape {value.shape} into an output of shape {out.shape}")
    return np.ascontiguousarray(value)


def _same_type(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    if x.dtype != out.dtype:
        raise TypeError(f"an input of {x.dtype} moved into an output of {out.dtype}")
    return x


def _one(values: Sequence) -> object:
    if len(values) != 1:
        raise ValueError(f"expected one operand, got {len(values)}")
    return values[0]


__all__ = ["run_broadcast", "run_copy", "run_fill", "run_fill_rng_2d", "run_pack", "run_transpose",
           "run_unpack"]
