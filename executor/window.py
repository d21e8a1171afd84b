"""Windowed kernels as the IR's attributes say: convolution (stride, padding, dilation, groups,
depthwise), max/average pooling, constant pad, resize, depth-to-space / space-to-depth, local
response normalization, and the slice / insert / empty ops of a tiled run.

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
``mode``         a resize's ``"nearest"`` or ``"linear"``, with ``coordinates`` (a transform of
                 :data:`memopt.planning.tiling.TRANSFORMS`) and ``rounding`` (nearest only)
``block_size``   depth-to-space / space-to-depth; ``order`` ``"DCR"`` (default, TFLite's) or ``"CRD"``
``origin``       ``array<i64: OH0, OW0, IH0, IW0>``: where a resize's or depth-to-space's output and
                 input patches start in the whole tensors, whose extents ``extent`` gives
                 (``array<i64: IH, IW, OH, OW>``); absent, the op is whole
``lrn``          ``array<i64: BEFORE, AFTER>``: channels a local response normalization sums over
                 around each one, with ``alpha`` (per summed square), ``beta``, ``bias`` (floats)
``perm``         ``array<i64: ...>``: a transpose's output axes, as input axes
``groups``       a channel shuffle's groups (``channel_shuffle``, the ``tile`` pass's fusion of
                 ShuffleNet's reshape, transpose, reshape)

A kind whose attributes or shapes do not fit returns None (the executor's stand-in runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from memopt.planning.tiling import ROUNDINGS, TRANSFORMS, Resample

CONV_KINDS = frozenset({"conv", "conv2d", "depthwiseconv2d", "depthwiseconv"})
"""Convolution kinds (as :func:`memopt.executor.kernels.normalize_kind` gives them)."""
DEPTHWISE_KINDS = frozenset({"depthwiseconv2d", "depthwiseconv"})
POOL_KINDS = {"maxpool": "max", "maxpool2d": "max", "averagepool": "avg", "averagepool2d": "avg", "avgpool": "avg"}
"""Pooling kinds and their reduction."""
RESIZE_KINDS = frozenset({"resize", "upsample", "resizebilinear", "resizenearestneighbor"})
DEPTH_TO_SPACE_KINDS = frozenset({"depthtospace"})
SPACE_TO_DEPTH_KINDS = frozenset({"spacetodepth"})
LRN_KINDS = frozenset({"lrn", "localresponsenormalization"})
SHUFFLE_KINDS = frozenset({"channelshuffle"})
ACTIVATIONS = ("NONE", "RELU", "RELU6", "RELU_N1_TO_1", "TANH")


def ints(attrs: dict, key: str) -> list[int] | None:
    """An integer-list attribute (``array<i64: ...>``, ``[1, 2]``, or one integer), or None."""
    a: Any = attrs.get(key)  # an attribute, or the plain value a caller passed
    if a is None:
        return None
    if hasattr(a, "get_values"):
        return [int(v) for v in a.get_values()]
    if hasattr(a, "data") and isinstance(a.data, (tuple, list)):
        return [int(_element(v)) for v in a.data]
    a = getattr(a, "value", a)  # an IntegerAttr: its IntAttr
    if hasattr(a, "data") and isinstance(a.data, int):
        return [int(a.data)]
    if isinstance(a, (int, np.integer)):
        return [int(a)]
    if isinstance(a, (list, tuple)):
        return [int(v) for v in a]
    return None


def _element(v: Any) -> Any:
    """An array element's number: an IntegerAttr's, an IntAttr's, or ``v`` itself."""
    inner = getattr(v, "value", v)
    return inner.data if hasattr(inner, "data") else inner


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
    activated = activate(y, text(attrs, "activation", "NONE"))
    if activated is None:
        return None
    return _from_nchw(activated, layout).astype(out_dtype)


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
        assert y is not None  # a window (k >= 1) has a tap
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


def _number(attrs: dict, key: str) -> float | None:
    a = attrs.get(key)
    v = getattr(getattr(a, "value", a), "data", a)
    return float(v) if isinstance(v, (int, float)) else None


def _placement(attrs: dict, in_hw: Sequence[int], out_hw: Sequence[int]):
    """(origin [OH0, OW0, IH0, IW0], whole extents [IH, IW, OH, OW]) of a patch, or None when
    the patch does not lie inside the whole."""
    origin = ints(attrs, "origin") or [0, 0, 0, 0]
    extent = ints(attrs, "extent") or [in_hw[0], in_hw[1], out_hw[0], out_hw[1]]
    if len(origin) != 4 or len(extent) != 4 or min(origin) < 0 or min(extent) < 1:
        return None
    for a in range(2):
        if origin[a] + out_hw[a] > extent[2 + a] or origin[2 + a] + in_hw[a] > extent[a]:
            return None
    return origin, extent


def _source_rows(r: Resample, first: int, count: int, in_first: int, in_count: int):
    """Per output cell ``first..first+count``: (local first tap, local second tap, weight), or
    None when a tap falls outside the patch's input."""
    taps = [r.taps(o) for o in range(first, first + count)]
    lo = np.array([t[0] for t in taps], np.int64) - in_first
    hi = np.array([t[1] for t in taps], np.int64) - in_first
    if count and (lo.min() < 0 or hi.min() < 0 or lo.max() >= in_count or hi.max() >= in_count):
        return None
    return lo, hi, np.array([t[2] for t in taps], np.float64)


def resize(inputs: list[np.ndarray], out_shape: tuple[int, ...], out_dtype: np.dtype, attrs: dict):
    """Nearest or (bi)linear resize along H and W; every output cell computed from the global
    coordinates :class:`~memopt.planning.tiling.Resample` maps it to (so a patch, placed by
    ``origin``/``extent``, computes the whole's cells). Extra operands (sizes, scales) are
    ignored: the shapes say them. None when the attributes do not fit."""
    mode, layout = text(attrs, "mode"), text(attrs, "layout", "NCHW")
    transform, rounding = text(attrs, "coordinates", "asymmetric"), text(attrs, "rounding", "floor")
    if (not inputs or mode not in ("nearest", "linear") or transform not in TRANSFORMS or rounding not in ROUNDINGS
            or layout not in ("NCHW", "NHWC") or inputs[0].ndim != 4 or len(out_shape) != 4):
        return None
    x = _to_nchw(inputs[0], layout).astype(np.float64 if out_dtype.kind == "f" else np.int64)
    yshape = (out_shape[0], out_shape[3], out_shape[1], out_shape[2]) if layout == "NHWC" else tuple(out_shape)
    if yshape[:2] != x.shape[:2]:
        return None
    placed = _placement(attrs, x.shape[2:], yshape[2:])
    if placed is None:
        return None
    origin, extent = placed
    rows = _source_rows(Resample(mode, extent[0], extent[2], transform, rounding), origin[0], yshape[2], origin[2], x.shape[2])
    cols = _source_rows(Resample(mode, extent[1], extent[3], transform, rounding), origin[1], yshape[3], origin[3], x.shape[3])
    if rows is None or cols is None:
        return None
    if mode == "nearest":
        y = x[:, :, rows[0]][:, :, :, cols[0]]
    else:
        x = x.astype(np.float64)
        fr, fc = rows[2][None, None, :, None], cols[2][None, None, None, :]
        top = x[:, :, rows[0]] * (1 - fr) + x[:, :, rows[1]] * fr
        y = top[:, :, :, cols[0]] * (1 - fc) + top[:, :, :, cols[1]] * fc
        if out_dtype.kind in "iu":
            y = np.rint(y)
    return _from_nchw(y, layout).astype(out_dtype)


def depth_to_space(inputs: list[np.ndarray], out_shape: tuple[int, ...], out_dtype: np.dtype, attrs: dict):
    """Channels to ``block_size`` x ``block_size`` cells (``order`` DCR: depth, then column, then
    row of the block, as TFLite and ONNX's default; CRD: channel first); a patch placed by
    ``origin``/``extent``. None when the attributes do not fit."""
    bs = (ints(attrs, "block_size") or [0])[0]
    layout, order = text(attrs, "layout", "NCHW"), text(attrs, "order", "DCR")
    if (len(inputs) != 1 or bs < 1 or order not in ("DCR", "CRD") or layout not in ("NCHW", "NHWC")
            or inputs[0].ndim != 4 or len(out_shape) != 4):
        return None
    x = _to_nchw(inputs[0], layout)
    yshape = (out_shape[0], out_shape[3], out_shape[1], out_shape[2]) if layout == "NHWC" else tuple(out_shape)
    n, c = yshape[:2]
    if x.shape[:2] != (n, c * bs * bs):
        return None
    placed = _placement(attrs, x.shape[2:], yshape[2:])
    if placed is None:
        return None
    origin, extent = placed
    if extent[2] != extent[0] * bs or extent[3] != extent[1] * bs:
        return None
    gy = np.arange(origin[0], origin[0] + yshape[2])
    gx = np.arange(origin[1], origin[1] + yshape[3])
    ly, lx = gy // bs - origin[2], gx // bs - origin[3]
    if len(ly) and (ly.min() < 0 or ly.max() >= x.shape[2] or lx.min() < 0 or lx.max() >= x.shape[3]):
        return None
    block = (gy % bs)[:, None] * bs + (gx % bs)[None, :]  # [OH, OW]
    chans = np.arange(c)
    ch = (block[None] * c + chans[:, None, None]) if order == "DCR" else (chans[:, None, None] * bs * bs + block[None])
    y = x[:, ch, ly[:, None], lx[None, :]]  # [N, C, OH, OW]
    return _from_nchw(y, layout).astype(out_dtype)


def space_to_depth(inputs: list[np.ndarray], out_shape: tuple[int, ...], out_dtype: np.dtype, attrs: dict):
    """Each ``block_size`` x ``block_size`` block of cells to channels (DCR order, as TFLite and
    ONNX), or None."""
    bs = (ints(attrs, "block_size") or [0])[0]
    layout = text(attrs, "layout", "NCHW")
    if len(inputs) != 1 or bs < 1 or layout not in ("NCHW", "NHWC") or inputs[0].ndim != 4 or len(out_shape) != 4:
        return None
    x = _to_nchw(inputs[0], layout)
    n, c, h, w = x.shape
    yshape = (out_shape[0], out_shape[3], out_shape[1], out_shape[2]) if layout == "NHWC" else tuple(out_shape)
    if h % bs or w % bs or yshape != (n, c * bs * bs, h // bs, w // bs):
        return None
    y = x.reshape(n, c, h // bs, bs, w // bs, bs).transpose(0, 3, 5, 1, 2, 4).reshape(yshape)
    return _from_nchw(y, layout).astype(out_dtype)


def lrn(inputs: list[np.ndarray], out_shape: tuple[int, ...], out_dtype: np.dtype, attrs: dict):
    """Local response normalization across channels: ``x / (bias + alpha * sum(x^2))^beta``, the
    sum over ``lrn`` = [BEFORE, AFTER] channels around each, in a fixed order; spatially
    pointwise. None when the attributes do not fit."""
    window, layout = ints(attrs, "lrn"), text(attrs, "layout", "NCHW")
    alpha, beta, bias = _number(attrs, "alpha"), _number(attrs, "beta"), _number(attrs, "bias")
    if (len(inputs) != 1 or window is None or len(window) != 2 or min(window) < 0 or None in (alpha, beta, bias)
            or layout not in ("NCHW", "NHWC") or out_dtype.kind != "f" or inputs[0].shape != tuple(out_shape)
            or inputs[0].ndim != 4):
        return None
    x = _to_nchw(inputs[0], layout).astype(np.float64)
    sq = np.pad(x * x, ((0, 0), (window[0], window[1]), (0, 0), (0, 0)))
    c = x.shape[1]
    total = np.zeros_like(x)
    for k in range(window[0] + window[1] + 1):
        total += sq[:, k: k + c]
    y = x / (bias + alpha * total) ** beta  # type: ignore[operator]
    return _from_nchw(y, layout).astype(out_dtype)


def transpose(inputs: list[np.ndarray], out_shape: tuple[int, ...], out_dtype: np.dtype, attrs: dict):
    """``perm``: output axis ``k`` is input axis ``perm[k]`` (ONNX's Transpose, TFLite's with its
    constant perm read by the importer), or None."""
    perm = ints(attrs, "perm")
    if len(inputs) != 1 or perm is None or sorted(perm) != list(range(inputs[0].ndim)):
        return None
    y = inputs[0].transpose(perm)
    return y.astype(out_dtype) if y.shape == tuple(out_shape) else None


def channel_shuffle(inputs: list[np.ndarray], out_shape: tuple[int, ...], out_dtype: np.dtype, attrs: dict):
    """ShuffleNet's channel shuffle of a 4-D tensor in ``layout``: its channels as ``groups`` rows
    of C/groups, transposed (channel ``g * C/groups + i`` goes to ``i * groups + g``) — a
    reshape, transpose, reshape; spatially pointwise. None when the attributes do not fit."""
    groups, layout = (ints(attrs, "groups") or [0])[0], text(attrs, "layout", "NCHW")
    if len(inputs) != 1 or layout not in ("NCHW", "NHWC") or inputs[0].ndim != 4 or inputs[0].shape != tuple(out_shape):
        return None
    c = spatial_axes(layout)[0]
    x, n = inputs[0], inputs[0].shape[c]
    if groups < 1 or n % groups:
        return None
    split = x.shape[:c] + (groups, n // groups) + x.shape[c + 1:]
    return x.reshape(split).swapaxes(c, c + 1).reshape(x.shape).astype(out_dtype)


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


__all__ = ["ACTIVATIONS", "CONV_KINDS", "DEPTHWISE_KINDS", "DEPTH_TO_SPACE_KINDS", "LRN_KINDS", "POOL_KINDS",
           "RESIZE_KINDS", "SPACE_TO_DEPTH_KINDS", "activate", "conv",
           "depth_to_space", "empty", "extract_slice", "insert_slice", "ints", "lrn", "pad", "pool", "resize",
           "space_to_depth", "spatial_axes", "text", "window_params"]
