"""What a ``memopt.compute`` op computes: numpy kernels for common kinds, a byte mix for the rest.

The executor exists to prove memory plans, not to be a fast inference engine, so the kernels only
need to be *deterministic functions of every input byte*. The common kinds the importers produce
(add, mul, relu, matmul ...) run as real numpy code when the operand shapes fit the simple case,
and the windowed kinds (convolution, depthwise, pooling, pad, resize, depth-to-space, LRN;
:mod:`memopt.executor.window`) as their attributes say; everything else -- unknown kinds, odd shapes, opaque element types -- uses
:func:`mix`, which hashes every input byte (with the op's kind and identity) into a seed and
fills every output byte from it. Either way, a plan that corrupts any byte an op reads changes
what the op writes, and a plan that loses any byte an op writes is visible to its readers.

Kernels must be bit-reproducible between planned and unplanned execution: they run on fresh
typed copies (see :func:`memopt.executor.data.typed`), reductions use ``einsum`` without BLAS
(whose blocking may vary), and floating-point warnings are silenced (overflow is still
deterministic).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import numpy as np

from . import window
from .data import TensorInfo, as_bytes, crc_seed, sample, typed

Kernel = Callable[[list[np.ndarray], list[TensorInfo], dict], "list[np.ndarray] | None"]
"""(typed inputs, output infos, attributes) -> typed outputs, or None when the shapes don't fit."""


def normalize_kind(kind: str) -> str:
    """``"onnx.Conv"``, ``"Conv2D"``, ``"conv_2d"`` -> ``"conv"``-style lookup keys."""
    k = kind.rsplit(".", 1)[-1].lower().replace("_", "").replace("-", "")
    return k


def _same_out(inputs: list[np.ndarray], outs: list[TensorInfo], arity: int) -> bool:
    return (
        len(inputs) == arity
        and len(outs) == 1
        and all(x.dtype == outs[0].kind.dtype for x in inputs)
    )


def _elementwise(fn: Callable[..., np.ndarray], arity: int, floats_only: bool = False) -> Kernel:
    def kernel(inputs, outs, attrs):
        if not _same_out(inputs, outs, arity):
            return None
        if floats_only and outs[0].kind.family != "float":
            return None
        try:
            shape = np.broadcast_shapes(*(x.shape for x in inputs))
        except ValueError:
            return None
        if tuple(shape) != outs[0].shape:
            return None
        return [np.asarray(fn(*inputs)).astype(outs[0].kind.dtype)]

    return kernel


def _relu(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0, x, np.zeros_like(x))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _windowed(fn, kind: str | None = None) -> Kernel:
    """A kernel of :mod:`memopt.executor.window` (conv, pooling, pad, slices) as a :data:`Kernel`:
    one output of a numpy type, the window read from the op's attributes."""

    def kernel(inputs, outs, attrs):
        if len(outs) != 1 or outs[0].kind.dtype is None or outs[0].kind.family not in ("float", "int"):
            return None
        args = (inputs, tuple(outs[0].shape), outs[0].kind.dtype, attrs)
        y = fn(kind, *args) if kind is not None else fn(*args)
        return None if y is None else [y]

    return kernel


def _matmul(inputs, outs, attrs):
    if len(inputs) != 2 or len(outs) != 1 or outs[0].kind.family != "float":
        return None
    a, b = inputs
    if a.ndim < 2 or b.ndim < 2 or a.shape[-1] != b.shape[-2]:
        return None
    try:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        return None
    if tuple(batch) + (a.shape[-2], b.shape[-1]) != outs[0].shape:
        return None
    y = np.einsum("...mk,...kn->...mn", a.astype(np.float64), b.astype(np.float64), optimize=False)
    return [y.astype(outs[0].kind.dtype)]


def _gemm(inputs, outs, attrs):
    """ONNX Gemm without alpha/beta: A[M,K] x B (as [K,N], or [N,K] when that is what fits) + C."""
    if len(inputs) not in (2, 3) or len(outs) != 1 or outs[0].kind.family != "float":
        return None
    a, b = inputs[0], inputs[1]
    if a.ndim != 2 or b.ndim != 2 or len(outs[0].shape) != 2:
        return None
    m, n = outs[0].shape
    if a.shape[0] != m:
        return None
    if b.shape == (a.shape[1], n):
        bt = b
    elif b.shape == (n, a.shape[1]):
        bt = b.T
    else:
        return None
    y = np.einsum("mk,kn->mn", a.astype(np.float64), bt.astype(np.float64), optimize=False)
    if len(inputs) == 3:
        try:
            y = y + np.broadcast_to(inputs[2].astype(np.float64), (m, n))
        except ValueError:
            return None
    return [y.astype(outs[0].kind.dtype)]


def _softmax(inputs, outs, attrs):
    """Softmax along ``axis`` (default the last, as ONNX opset >= 13): every output element
    reads its whole row, so it is not element-wise (written in place it reads its own writes)."""
    if len(inputs) != 1 or len(outs) != 1 or outs[0].kind.family != "float" or inputs[0].shape != outs[0].shape:
        return None
    x = inputs[0].astype(np.float64)
    if x.ndim == 0:
        return None
    axis = int(attrs.get("axis", -1)) if isinstance(attrs.get("axis", -1), (int, np.integer)) else -1
    if not -x.ndim <= axis < x.ndim:
        return None
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return [e / e.sum(axis=axis, keepdims=True)]


def _reshape(inputs, outs, attrs):
    """Reshape-like kinds: the first input's bytes, reinterpreted with the output's shape."""
    if not inputs or len(outs) != 1 or inputs[0].dtype != outs[0].kind.dtype:
        return None
    if inputs[0].size != outs[0].count:
        return None
    return [inputs[0].reshape(outs[0].shape)]


def _concat(inputs, outs, attrs):
    if not inputs or len(outs) != 1 or any(x.dtype != outs[0].kind.dtype for x in inputs):
        return None
    out = outs[0].shape
    if any(x.ndim != len(out) for x in inputs):
        return None
    axes = range(len(out))
    axis_attr = attrs.get("axis")
    if axis_attr is not None:
        axes = [int(axis_attr) % max(1, len(out))]
    for ax in axes:
        if all(x.shape[:ax] + x.shape[ax + 1:] == out[:ax] + out[ax + 1:] for x in inputs) and sum(
            x.shape[ax] for x in inputs
        ) == out[ax]:
            return [np.concatenate(inputs, axis=ax)]
    return None


KERNELS: dict[str, Kernel] = {
    "add": _elementwise(np.add, 2),
    "sub": _elementwise(np.subtract, 2),
    "mul": _elementwise(np.multiply, 2),
    "max": _elementwise(np.maximum, 2),
    "min": _elementwise(np.minimum, 2),
    "relu": _elementwise(_relu, 1),
    "neg": _elementwise(np.negative, 1),
    "sigmoid": _elementwise(_sigmoid, 1, floats_only=True),
    "tanh": _elementwise(np.tanh, 1, floats_only=True),
    **{k: _windowed(window.conv, k) for k in window.CONV_KINDS},
    **{k: _windowed(window.pool, k) for k in window.POOL_KINDS},
    "pad": _windowed(window.pad),
    **{k: _windowed(window.resize) for k in window.RESIZE_KINDS},
    **{k: _windowed(window.depth_to_space) for k in window.DEPTH_TO_SPACE_KINDS},
    **{k: _windowed(window.space_to_depth) for k in window.SPACE_TO_DEPTH_KINDS},
    **{k: _windowed(window.lrn) for k in window.LRN_KINDS},
    **{k: _windowed(window.channel_shuffle) for k in window.SHUFFLE_KINDS},
    "transpose": _windowed(window.transpose),
    "extractslice": _windowed(window.extract_slice),
    "insertslice": _windowed(window.insert_slice),
    "empty": _windowed(window.empty),
    "matmul": _matmul,
    "gemm": _gemm,
    "reshape": _reshape,
    "flatten": _reshape,
    "squeeze": _reshape,
    "unsqueeze": _reshape,
    "expandshape": _reshape,
    "collapseshape": _reshape,
    "identity": _reshape,
    "copy": _reshape,
    "concat": _concat,
    "concatenate": _concat,
    "concatenation": _concat,
    "softmax": _softmax,
}
"""Kinds with a real numpy kernel (keys as :func:`normalize_kind` gives them)."""


def mix(kind: str, ident: int, inputs: Sequence[np.ndarray], outs: Sequence[TensorInfo]) -> list[np.ndarray]:
    """Output bytes that depend on every input byte, the kind and the op's identity.

    Values stay in the output type's small, finite range (see :func:`~.data.sample`), so a mix
    feeding a numpy kernel never produces NaN/inf."""
    h = hashlib.blake2b(digest_size=16)
    h.update(kind.encode())
    h.update(int(ident).to_bytes(8, "little", signed=True))
    for x in inputs:
        h.update(len(x).to_bytes(8, "little"))
        h.update(np.ascontiguousarray(x).data)
    rng = np.random.default_rng(int.from_bytes(h.digest(), "little"))
    return [sample(rng, info) for info in outs]


ELEMENTWISE_KINDS = frozenset(normalize_kind(k) for k in (
    # Output element i reads input element i alone (and broadcast operands): the kinds the
    # importers may mark in place (memopt.importers.onnx_import/tflite_import INPLACE_OPS).
    "Abs", "Acos", "Acosh", "Add", "And", "Asin", "Asinh", "Atan", "Atanh", "BatchNormalization",
    "BitShift", "Ceil", "Celu", "Clip", "Cos", "Cosh", "Div", "Dropout", "Elu", "Erf", "Exp", "Floor",
    "Gelu", "HardSigmoid", "HardSwish", "LeakyRelu", "Log", "Max", "Mean", "Min", "Mish", "Mod", "Mul",
    "Neg", "Not", "Or", "Pow", "PRelu", "QuantizeLinear", "Reciprocal", "Relu", "Round", "Selu",
    "Shrink", "Sigmoid", "Sign", "Sin", "Sinh", "Softplus", "Softsign", "Sqrt", "Sub", "Sum", "Tan",
    "Tanh", "ThresholdedRelu", "Xor", "Cast", "CEIL", "DEQUANTIZE", "EXP", "FLOOR", "HARD_SWISH",
    "LEAKY_RELU", "LOGICAL_AND", "LOGICAL_NOT", "LOGICAL_OR", "LOGISTIC", "MAXIMUM", "MINIMUM", "QUANTIZE",
    "RELU6", "RELU_0_TO_1", "RELU_N1_TO_1", "RSQRT", "SQUARE", "SQUARED_DIFFERENCE",
))
"""Kinds executed element by element when no numpy kernel fits (:func:`mix_elementwise`)."""


def _channel_broadcast(per: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """A per-channel operand (ONNX BatchNormalization's scale/bias/mean/var: one value per
    channel of an NCHW tensor) broadcast along the axis it indexes — axis 1 first, as ONNX
    defines it, else the only axis of that length; None when it indexes none."""
    if per.ndim != 1 or len(shape) < 2:
        return None
    axes = [1] if shape[1] == per.shape[0] else [k for k, d in enumerate(shape) if d == per.shape[0]]
    if len(axes) != 1:
        return None
    view = [1] * len(shape)
    view[axes[0]] = per.shape[0]
    return np.broadcast_to(per.reshape(view), shape)


def _whole(x: np.ndarray) -> int:
    """A 64-bit hash of every byte of ``x``."""
    return int.from_bytes(hashlib.blake2b(np.ascontiguousarray(x).data, digest_size=8).digest(), "little")


def _positional(x: np.ndarray, out: TensorInfo) -> np.ndarray:
    """Per output element, a hash of the input bytes at the same byte positions (zeros past
    the input's end): what an output written over ``x`` reads as it overwrites it."""
    width = max(out.nbytes // max(out.count, 1), 1)
    raw = np.zeros(out.count * width, np.uint8)
    flat = np.ascontiguousarray(x).reshape(-1).view(np.uint8)[: raw.size]
    raw[: flat.size] = flat
    weights = np.uint64(257) ** np.arange(width, dtype=np.uint64)
    return (raw.reshape(out.count, width).astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64).reshape(out.shape)


def mix_elementwise(
    kind: str, ident: int, inputs: Sequence[np.ndarray], in_infos: Sequence[TensorInfo], out: TensorInfo,
    whole_others: bool = False, overlay: int = -1,
) -> np.ndarray | None:
    """Output bytes where element ``i`` is a hash of input element ``i`` of every operand
    (broadcast as numpy does), the kind and the op's identity — what an element-wise op
    computes, as far as memory is concerned. None when the shapes do not broadcast, unless
    ``whole_others``: then the input the output is written over (``overlay``) counts by byte
    position — element ``i`` reads the bytes it overwrites — and any other operand that does
    not broadcast counts whole, in every element (a weight beside the tensor written in place)."""
    if out.kind.family not in ("float", "int", "bool") or out.count == 0:
        return None
    h = np.full(out.shape, np.uint64(crc_seed(kind, ident)), np.uint64)
    for j, (x, info) in enumerate(zip(inputs, in_infos)):
        width = info.nbytes // max(info.count, 1)
        if whole_others and j == overlay and tuple(info.shape) != tuple(out.shape):
            h = h * np.uint64(1000003) ^ _positional(x, out)
            continue
        if width == 0 or info.nbytes % max(info.count, 1):
            if not whole_others:
                return None
            h = h * np.uint64(1000003) ^ np.uint64(_whole(x))
            continue
        cells = x.reshape(info.count, width).astype(np.uint64)
        weights = np.uint64(257) ** np.arange(width, dtype=np.uint64)
        per = (cells * weights).sum(axis=1, dtype=np.uint64).reshape(info.shape)
        try:
            per = np.broadcast_to(per, out.shape)
        except ValueError:
            per = _channel_broadcast(per, out.shape)
            if per is None:
                if not whole_others:
                    return None
                per = np.uint64(_whole(x))
        h = h * np.uint64(1000003) ^ per
    h = h ^ (h >> np.uint64(29))
    vals: np.ndarray
    if out.kind.family == "float":
        vals = ((h % np.uint64(128)).astype(np.int64) - 64) / 64.0
    elif out.kind.family == "int":
        vals = (h % np.uint64(16)).astype(np.int64) - 8
    else:
        return (h % np.uint64(2)).astype(np.uint8).reshape(-1)
    return as_bytes(np.asarray(vals).astype(out.kind.dtype).reshape(-1))


def compute(
    kind: str, ident: int, inputs: Sequence[np.ndarray], in_infos: Sequence[TensorInfo],
    outs: Sequence[TensorInfo], attrs: dict | None = None, inplace: Sequence[int] = (),
) -> list[np.ndarray]:
    """Output bytes of a compute op from its input bytes (numpy kernel if one fits, else an
    element-wise hash for element-wise kinds, else mix). ``inplace``: the op's ``inplace`` hint
    (per result, the input it may be written over, or -1) — the IR's promise that it may write
    over that input as it reads it — so a stand-in (no numpy kernel) is element-wise whatever
    the kind, keeping that promise."""
    kernel = KERNELS.get(normalize_kind(kind))
    if kernel is not None and outs and all(o.kind.dtype is not None for o in outs):
        typed_in = [typed(x, info) for x, info in zip(inputs, in_infos)]
        if all(t is not None for t in typed_in):
            with np.errstate(all="ignore"):
                result = kernel(typed_in, list(outs), attrs or {})  # type: ignore[arg-type]
            if result is not None:
                return [as_bytes(np.asarray(r, dtype=o.kind.dtype)).copy() for r, o in zip(result, outs)]
    hinted = any(j >= 0 for j in inplace)
    if (hinted or normalize_kind(kind) in ELEMENTWISE_KINDS) and outs:
        # Every output element-wise (ONNX Dropout's mask beside its output): an op marked in
        # place must be checked as what it is, not as a whole-tensor mix.
        with np.errstate(all="ignore"):
            rs = [mix_elementwise(kind if k == 0 else f"{kind}#{k}", ident, inputs, in_infos, o, whole_others=hinted,
                                  overlay=inplace[k] if k < len(inplace) else -1)
                  for k, o in enumerate(outs)]
        if all(r is not None for r in rs):
            return rs  # type: ignore[return-value]
    return mix(kind, ident, inputs, outs)


__all__ = ["ELEMENTWISE_KINDS", "KERNELS", "Kernel", "compute", "mix", "mix_elementwise", "normalize_kind"]
