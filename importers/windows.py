"""The window of a spatial op, kept on its ``memopt.compute`` as discardable attributes.

A convolution, depthwise convolution, pooling or pad reads a window of its input whose shape the
tensor types do not say (strides, padding, dilation, groups, kernel of a pooling, a fused
activation). The executor's windowed kernels (:mod:`memopt.executor.window`, which documents
each attribute) and the ``tile`` pass (which cuts such ops into patches) read them:

``layout`` ``"NHWC"`` (TFLite) / ``"NCHW"`` (ONNX), ``strides``, ``dilations``, ``pads``
(``[top, left, bottom, right]``: SAME and ONNX's ``auto_pad`` are resolved here, on static
shapes), ``groups``, ``kernel``, ``activation`` (TFLite's fused one), ``count_include_pad``;
a pad's ``pads`` (every dimension's begin, then every end) when its paddings are constant.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr, i64
from xdsl.ir import Attribute

TFLITE_CONV = frozenset({"CONV_2D", "DEPTHWISE_CONV_2D"})
TFLITE_POOL = frozenset({"MAX_POOL_2D", "AVERAGE_POOL_2D"})
TFLITE_ACTIVATIONS = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH", 5: "SIGN_BIT"}
ONNX_CONV = frozenset({"Conv"})
ONNX_POOL = frozenset({"MaxPool", "AveragePool"})


def _array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def same_pads(in_hw: Sequence[int], out_hw: Sequence[int], k_hw: Sequence[int], strides: Sequence[int],
              dil: Sequence[int], upper: bool = True) -> list[int]:
    """[top, left, bottom, right] of SAME padding (TFLite's and ONNX's SAME_UPPER: the odd
    row at the end; SAME_LOWER: at the start)."""
    pads = [0, 0, 0, 0]
    for a in range(2):
        total = max(0, (out_hw[a] - 1) * strides[a] + (k_hw[a] - 1) * dil[a] + 1 - in_hw[a])
        small, big = total // 2, total - total // 2
        pads[a], pads[a + 2] = (small, big) if upper else (big, small)
    return pads


def window_attributes(layout: str, strides: Sequence[int], dil: Sequence[int], pads: Sequence[int],
                      groups: int | None = None, kernel: Sequence[int] | None = None,
                      activation: str = "NONE", count_include_pad: bool = False) -> dict[str, Attribute]:
    attrs: dict[str, Attribute] = {
        "layout": StringAttr(layout), "strides": _array(strides), "dilations": _array(dil), "pads": _array(pads),
    }
    if groups is not None:
        attrs["groups"] = IntegerAttr(groups, i64)
    if kernel is not None:
        attrs["kernel"] = _array(kernel)
    if activation != "NONE":
        attrs["activation"] = StringAttr(activation)
    if count_include_pad:
        attrs["count_include_pad"] = IntegerAttr(1, i64)
    return attrs


def tflite_window(kind: str, options: dict, in_shape: Sequence[int], w_shape: Sequence[int] | None,
                  out_shape: Sequence[int]) -> dict[str, Attribute]:
    """The attributes of a TFLite conv / depthwise / pooling op read from its builtin options
    (NHWC; {} when the shapes are not 4-D or the options are missing)."""
    if len(in_shape) != 4 or len(out_shape) != 4 or "stride" not in options:
        return {}
    strides = options["stride"]
    dil = options.get("dilation", (1, 1))
    in_hw, out_hw = (in_shape[1], in_shape[2]), (out_shape[1], out_shape[2])
    if kind in TFLITE_POOL:
        k = options["filter"]
    elif w_shape is not None and len(w_shape) == 4:
        k = (w_shape[1], w_shape[2])
    else:
        return {}
    pads = same_pads(in_hw, out_hw, k, strides, dil) if options.get("padding") == 0 else [0, 0, 0, 0]
    groups = None
    if kind == "DEPTHWISE_CONV_2D":
        groups = in_shape[3]
    elif kind == "CONV_2D" and w_shape is not None and w_shape[3] and in_shape[3] % w_shape[3] == 0:
        groups = in_shape[3] // w_shape[3]
    activation = TFLITE_ACTIVATIONS.get(int(options.get("activation", 0)), "NONE")
    return window_attributes("NHWC", strides, dil, pads, groups, k if kind in TFLITE_POOL else None, activation)


def onnx_window(node, in_shape: Sequence[int], w_shape: Sequence[int] | None,
                out_shape: Sequence[int]) -> dict[str, Attribute]:
    """The attributes of an ONNX Conv / MaxPool / AveragePool (NCHW; {} unless 2-D spatial)."""
    if len(in_shape) != 4 or len(out_shape) != 4:
        return {}
    a = {x.name: x for x in node.attribute}

    def ints(name: str, default: Sequence[int]) -> list[int]:
        return [int(v) for v in a[name].ints] if name in a and a[name].ints else list(default)

    if node.op_type in ONNX_POOL:
        k = ints("kernel_shape", ())
    else:
        k = ints("kernel_shape", tuple(w_shape[2:]) if w_shape is not None and len(w_shape) == 4 else ())
    if len(k) != 2:
        return {}
    strides, dil = ints("strides", (1, 1)), ints("dilations", (1, 1))
    auto = a["auto_pad"].s.decode() if "auto_pad" in a else "NOTSET"
    in_hw, out_hw = in_shape[2:], out_shape[2:]
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        pads = same_pads(in_hw, out_hw, k, strides, dil, upper=auto == "SAME_UPPER")
    elif auto == "VALID":
        pads = [0, 0, 0, 0]
    else:
        pads = ints("pads", (0, 0, 0, 0))
    if len(strides) != 2 or len(dil) != 2 or len(pads) != 4:
        return {}
    groups = int(a["group"].i) if node.op_type in ONNX_CONV and "group" in a else None
    include = node.op_type == "AveragePool" and "count_include_pad" in a and a["count_include_pad"].i == 1
    return window_attributes("NCHW", strides, dil, pads, groups, k if node.op_type in ONNX_POOL else None,
                             count_include_pad=include)


def pad_attributes(begins_ends: Sequence[int]) -> dict[str, Attribute]:
    """A constant pad's ``pads`` (every dimension's begin, then every end)."""
    return {"pads": _array(begins_ends)}


__all__ = ["onnx_window", "pad_attributes", "same_pads", "tflite_window", "window_attributes"]
