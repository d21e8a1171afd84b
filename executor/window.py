"""Windowed kernels as the IR's attributes say: convolution (stride, padding, dilation, groups,
depthwise), max/average pooling, constant pad, and the slice / insert / empty ops of a tiled run.

Why their own module: the ``tile`` pass (:mod:`memopt.passes.tile`) rewrites a run of spatial ops
into per-patch ops whose windows are the original's, cut at other rows, with other paddings; its
proof (``memopt-run --check --against ORIGINAL``) compares the tiled program's bytes with the
untiled one's. That proves something only when every kernel computes each output element from
its receptive field alone, in the same arithmetic whatever the tensor's extent: so every
reduction here is an explicit, fixed-order sum of element-wise numpy operations (one per kernel
tap and input channel, accumulated in float64 — int64 for integers), never an ``einsum`` or BLAS
call whose summation order may depend on the shapes.

Attributes (discardable, on the ``memopt.compute`` op; the importers write them):

``layout``       ``"NCHW"`` (default; ONNX: filters ``[F, C/groups, KH, KW]``) or ``"NHWC"`` (TFLite:
                 filters ``[F, KH, KW, C/groups]``, depthwise filters ``[1, KH, KW, F]``)
``strides``      ``array<i64: SH, SW>`` (default 1, 1)
``dilations``    ``array<i64: DH, DW>`` (default 1, 1)
``pads``         ``array<i64: TOP, LEFT, BOTTOM, RIGHT>`` (ONNX order: begins, then ends); absent,
                 they are inferred from the shapes as TFLite's SAME does (the extra row at the end)
``groups``       integer (default: 1 for a convolution, C for a depthwise kind)
``kernel``       ``array<i64: KH, KW>``: a pooling window (required for pooling)
``activation``   a fused activation: ``"RELU"``, ``"RELU6"``, ``"RELU_N1_TO_1"``, ``"TANH"``
``count_include_pad``  average pooling counts padded cells (default: no, as TFLite and ONNX)

A kind whose attributes or shapes do not fit returns None (the executor's stand-in runs).
"""

from __future__ import annotations

import numpy as np

CONV_KINDS = frozenset({"conv", "conv2d", "depthwiseconv2d", "depthwiseconv"})
"""Convolution kinds (as :func:`memopt.executor.kernels.normalize_kind` gives them)."""
DEPTHWISE_KINDS = frozenset({"depthwiseconv2d", "depthwiseconv"})
POOL_KINDS = {"maxpool": "max", "maxpool2d": "max", "averagepool": "avg", "averagepool2d": "avg", "avgpool": "avg"}
"""Pooling kinds and their reduction."""
ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1", "TANH")


def ints(attrs: dict, key: str) -> list[int] | None:
    """An integer-list attribute (``array<i64: ...>``, ``[1, 2]``, or one integer), or None."""
    a = attrs.get(key)
    if a is None:
        return None
    if hasattr(a, "get_values"):
        return [int(v) for v in a.get_values()]
    if hasattr(a, "data") and isinstance(a.data, (tuple, list)):
        return [int(getattr(getattr(v, "value", v), "data", v)) for v in a.data]
    if hasattr(a, "data") and isinstance(a.data, int):
        return [int(a.data)]
    if isinstance(a, (int, np.integer)):
        return [int(a)]
    if isinstance(a, (list, tuple)):
        return [int(v) for v in a]
    return None


def text(attrs: dict, key: str, default: str = "") -> str:
    a = attrs.get(key, default)
    return str(getattr(a, "data", a))


def spatial_axes(layout: str) -> tuple[int, int, int]:
    """(channel, H, W) axes of a 4-D tensor in ``layout``."""
    return (3, 1, 2) if layout == "NHWC" else (1, 2, 3)


def _to_nchw(x: np.ndarray, layout: str) -> np.ndarray:
    return x.transpose(0, 3, 1, 2) if layout == "NHWC" else x


def _from_nchw(y: np.ndarray, layout: str) -> np.ndarray:
    return y.transpose(0, 2, 3, 1) if layout == "NHWC" else y


def window_params(attrs: dict, in_hw: tuple[int, int], out_hw: tuple[int, int], k_hw: tuple[int, int]):
    """(strides, dilations, pads [top, left, bottom, right]) of a windowed op, or None when the
    attributes are malformed or do not give exactly the output's extent."""
    strides = ints(attrs, "strides") or [1, 1]
    dil = ints(attrs, "dilations") or [1, 1]
    pads = ints(attrs, "pads")
    if len(strides) != 2 or len(dil) != 2 or min(strides) < 1 or min(dil) < 1:
        return None
    if pads is None:
        pads = [0, 0, 0, 0]
        for a in range(2):
            eff = (k_hw[a] - 1) * dil[a] + 1
            total = (out_hw[a] - 1) * strides[a] + eff - in_hw[a]
            if total > 0:
                pads[a], pads[a + 2] = total // 2, total - total // 2
    if len(pads) != 4 or min(pads) < 0:
        return None
    for a in range(2):
        eff = (k_hw[a] - 1) * dil[a] + 1
        span = in_hw[a] + pads[a] + pads[a + 2]
        if out_hw[a] < 1 or span < eff or (span - eff) // strides[a] + 1 != out_hw[a]:
            return None
    return strides, dil, pads


def _taps(xp: np.ndarray, kh: int, kw: int, strides, dil, oh: int, ow: int):
    """Each tap (i, j) of the window over padded NCHW ``xp``: the strided input slice it reads."""
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dil[0], j * dil[1]
            yield i, j, xp[:, :, r0: r0 + (oh - 1) * strides[0] + 1: strides[0], c0: c0 + (ow - 1) * strides[1] + 1: strides[1]]


def _accumulator(dtype: np.dtype):
    return np.int64 if dtype.kind in "iu" else np.float64


def activate(y: np.ndarray, name: str) -> np.ndarray | None:
    """A fused activation, element-wise (None: unknown)."""
    if name in ("", "NONE"):
        return y
    if name == "RELU":
        return np.maximum(y, 0)
    if name == "RELU6":
        return np.minimum(np.maximum(y, 0), 6)
    if name == "RELU_N1_TO_1":
        return np.minimum(np.maximum(y, -1), 1)
    if name == "TANH":
        return np.tanh(y)
    return None


def conv(kind: str, inputs: list[np.ndarray], out_shape: tuple[int, ...], out_dtype: np.dtype, attrs: dict):
    """A 2-D (grouped, depthwise) convolution with optional bias [F], or None."""
    if len(inputs) not in (2, 3) or len(out_shape) != 4:
        return None
    layout = text(attrs, "layout", "NCHW")
    x, w = inputs[0], inputs[1]
    if layout not in ("NCHW", "NHWC") or x.ndim != 4 or w.ndim != 4:
        return None
    acc = _accumulator(out_dtype)
    xc = _to_nchw(x, layout).astype(acc)
    n, c, h, wd = xc.shape
    yshape = (out_shape[0], out_shape[3], out_shape[1], out_shape[2]) if layout == "NHWC" else tuple(out_shape)
    on, f, oh, ow = yshape
    depthwise = kind in DEPTHWISE_KINDS
    if layout == "NHWC":
        w = w.transpose(3, 0, 1, 2) if depthwise else w.transpose(0, 3, 1, 2)  # -> [F, C/g, KH, KW]
    wf, wc, kh, kw = w.shape
    groups = (ints(attrs, "groups") or [c if depthwise else max(1, c // max(wc, 1))])[0]
    if on != n or wf != f or groups < 1 or c % groups or f % groups or wc != c // groups:
        return None
    params = window_params(attrs, (h, wd), (oh, ow), (kh, kw))
    if params is None:
        return None
    strides, dil, pads = params
    xp = np.pad(xc, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    wa = w.astype(acc)
    per_group_out = f // groups
    # input channel read by output channel o at its local input channel q: (o // (F/g)) * (C/g) + q
    base = (np.arange(f) // per_group_out) * wc
    y = np.zeros((n, f, oh, ow), acc)
    for i, j, tap in _taps(xp, kh, kw, strides, dil, oh, ow):
        for q in range(wc):
            y += tap[:, base + q] * wa[:, q, i, j][None, :, None, None]
    if len(inputs) == 3:
        b = inputs[2]
        if b.shape != (f,):
            return None
        y = y + b.astype(acc)[None, :, None, None]
    y = activate(y, text(attrs, "activation", "NONE"))
    if y is None:
        return None
    return _from_nchw(y, layout).astype(out_dtype)


def pool(kind: str, inputs: list[np.ndarray], out_shape: tuple[int, ...], out_dtype: np.dtype, attrs: dict):
    """Max or average pooling over ``kernel`` (padding excluded from an average's count unless
    ``count_include_pad``), or None."""
    k = ints(attrs, "kernel")
    layout = text(attrs, "layout", "NCHW")
    if len(inputs) != 1 or k is None or len(k) != 2 or min(k) < 1 or len(out_shape) != 4 or inputs[0].ndim != 4:
        return None
    acc = _accumulator(out_dtype)
    xc = _to_nchw(inputs[0], layout).astype(acc)
    n, c, h, wd = xc.shape
    yshape = (out_shape[0], out_shape[3], out_shape[1], out_shape[2]) if layout == "NHWC" else tuple(out_shape)
    if yshape[:2] != (n, c):
        return None
    oh, ow = yshape[2], yshape[3]
    params = window_params(attrs, (h, wd), (oh, ow), (k[0], k[1]))
    if params is None:
        return None
    strides, dil, pads = params
    widths = ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3]))
    if POOL_KINDS[kind] == "max":
        low = np.iinfo(acc).min if acc is np.int64 else -np.inf
        xp = np.pad(xc, widths, constant_values=low)
        y = None
        for _, _, tap in _taps(xp, k[0], k[1], strides, dil, oh, ow):
            y = tap.copy() if y is None else np.maximum(y, tap)
    else:
        xp = np.pad(xc, widths)
        ones = np.pad(np.ones((1, 1, h, wd), np.int64), widths)
        total = np.zeros((n, c, oh, ow), acc)
        count = np.zeros((1, 1, oh, ow), np.int64)
        for (_, _, tap), (_, _, one) in zip(_taps(xp, k[0], k[1], strides, dil, oh, ow),
                                            _taps(ones, k[0], k[1], strides, dil, oh, ow)):
            total += tap
            count += one
        if text(attrs, "count_include_pad", "0") in ("1", "true", "True"):
            count = np.full_like(count, k[0] * k[1])
        y = total // np.maximum(count, 1) if acc is np.int64 else total / np.maximum(count, 1)
    y = activate(y, text(attrs, "activation", "NONE"))
    if y is None:
        return None
    return _from_nchw(y, layout).astype(out_dtype)


def pad(inputs: list[np.ndarray], out_shape: tuple[int, ...], out_dtype: np.dtype, attrs: dict):
    """Constant (zero) padding by ``pads`` (begins of every dimension, then ends; negative
    values crop), or None. Extra operands (TFLite's paddings tensor) are ignored: the attribute
    is what the importer read from it."""
    p = ints(attrs, "pads")
    if not inputs or p is None:
        return None
    x = inputs[0]
    r = x.ndim
    if len(p) != 2 * r or len(out_shape) != r:
        return None
    if any(x.shape[d] + p[d] + p[d + r] != out_shape[d] for d in range(r)):
        return None
    crop = tuple(slice(max(0, -p[d]), x.shape[d] - max(0, -p[d + r])) for d in range(r))
    y = np.pad(x[crop], [(max(0, p[d]), max(0, p[d + r])) for d in range(r)])
    return y.astype(out_dtype)


def extract_slice(inputs: list[np.ndarray], out_shape: tuple[int, ...], out_dtype: np.dtype, attrs: dict):
    """``offsets``: the out-shaped block of input 0 starting there (the ``tile`` pass's input
    patches), or None."""
    off = ints(attrs, "offsets")
    if len(inputs) != 1 or off is None or len(off) != inputs[0].ndim or len(out_shape) != len(off):
        return None
    x = inputs[0]
    if any(o < 0 or o + s > d for o, s, d in zip(off, out_shape, x.shape)):
        return None
    return x[tuple(slice(o, o + s) for o, s in zip(off, out_shape))].astype(out_dtype)


def insert_slice(inputs: list[np.ndarray], out_shape: tuple[int, ...], out_dtype: np.dtype, attrs: dict):
    """``insert_slice(patch, dest) {offsets}``: ``dest`` with ``patch`` written at ``offsets``
    (element ``i`` of the result reads element ``i`` of ``dest`` or one of ``patch``: it may be
    written over ``dest``), or None."""
    off = ints(attrs, "offsets")
    if len(inputs) != 2 or off is None:
        return None
    patch, dest = inputs
    if dest.shape != tuple(out_shape) or patch.ndim != dest.ndim or len(off) != dest.ndim:
        return None
    if any(o < 0 or o + s > d for o, s, d in zip(off, patch.shape, dest.shape)):
        return None
    y = dest.astype(out_dtype).copy()
    y[tuple(slice(o, o + s) for o, s in zip(off, patch.shape))] = patch
    return y


def empty(inputs: list[np.ndarray], out_shape: tuple[int, ...], out_dtype: np.dtype, attrs: dict):
    """A zero-filled tensor (the buffer a tiled run's patches are inserted into)."""
    if inputs:
        return None
    return np.zeros(out_shape, out_dtype)


__all__ = ["ACTIVATIONS", "CONV_KINDS", "DEPTHWISE_KINDS", "POOL_KINDS", "activate", "conv", "empty",
           "extract_slice", "insert_slice", "ints", "pad", "pool", "spatial_axes", "text", "window_params"]
