"""The window of a spatial op, kept on its ``memopt.compute`` as discardable attributes.

A convolution, depthwise convolution, pooling or pad reads a window of its input whose shape the
tensor types do not say (strides, padding, dilation, groups, kernel of a pooling, a fused
activation). The executor's windowed kernels (:mod:`memopt.executor.window`, which documents
each attribute) and the ``tile`` pass (which cuts such ops into patches) read them:

``layout`` ``"NHWC"`` (TFLite) / ``"NCHW"`` (ONNX), ``strides``, ``dilations``, ``pads``
(``[top, left, bottom, right]``: SAME and ONNX's ``auto_pad`` are resolved here, on static
shapes), ``groups``, ``kernel``, ``activation`` (TFLite's fused one), ``count_include_pad``;
a pad's ``pads`` (every dimension's begin, then every end) when its paddings are constant;
a resize's ``mode``, ``coordinates``, ``rounding``; a transpose's ``perm`` (TFLite's read from
its constant input, which the op then no longer takes); a depth-to-space's or space-to-depth's
``block_size`` (and ONNX's ``order``); a local response normalization's ``lrn`` (channels summed
before and after each), ``alpha`` (per summed square), ``beta``, ``bias``.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, StringAttr, f64, i64
from xdsl.ir import Attribute

TFLITE_CONV = frozenset({"CONV_2D", "DEPTHWISE_CONV_2D"})
TFLITE_POOL = frozenset({"MAX_POOL_2D", "AVERAGE_POOL_2D"})
TFLITE_ACTIVATIONS = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH", 5: "SIGN_BIT"}
ONNX_CONV = frozenset({"Conv"})
ONNX_POOL = frozenset({"MaxPool", "AveragePool"})
TFLITE_RESHAPING = frozenset({"RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR", "DEPTH_TO_SPACE", "SPACE_TO_DEPTH",
                              "LOCAL_RESPONSE_NORMALIZATION", "TRANSPOSE"})
ONNX_RESHAPING = frozenset({"Resize", "Upsample", "DepthToSpace", "SpaceToDepth", "LRN", "Transpose"})


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


def _lrn(layout: str, before: int, after: int, alpha: float, beta: float, bias: float) -> dict[str, Attribute]:
    return {"layout": StringAttr(layout), "lrn": _array([before, after]), "alpha": FloatAttr(float(alpha), f64),
            "beta": FloatAttr(float(beta), f64), "bias": FloatAttr(float(bias), f64)}


def tflite_reshaping(kind: str, options: dict) -> dict[str, Attribute]:
    """A TFLite resize's, depth-to-space's, space-to-depth's or LRN's attributes (NHWC), a
    transpose's ``perm`` (read from its constant input); {} when its options are missing."""
    nhwc = StringAttr("NHWC")
    if kind == "TRANSPOSE" and "perm" in options:
        return {"perm": _array(options["perm"])}
    if kind.startswith("RESIZE_") and "align_corners" in options:
        nearest = kind == "RESIZE_NEAREST_NEIGHBOR"
        if options["align_corners"]:
            transform, rounding = "align_corners", "round_prefer_ceil"
        elif options.get("half_pixel_centers"):
            transform, rounding = ("tf_half_pixel_for_nn" if nearest else "half_pixel"), "floor"
        else:
            transform, rounding = "asymmetric", "floor"
        attrs: dict[str, Attribute] = {"layout": nhwc, "mode": StringAttr("nearest" if nearest else "linear"),
                                       "coordinates": StringAttr(transform)}
        if nearest:
            attrs["rounding"] = StringAttr(rounding)
        return attrs
    if kind in ("DEPTH_TO_SPACE", "SPACE_TO_DEPTH") and int(options.get("block_size", 0)) > 0:
        return {"layout": nhwc, "block_size": IntegerAttr(int(options["block_size"]), i64)}
    if kind == "LOCAL_RESPONSE_NORMALIZATION" and "radius" in options:
        r = int(options["radius"])
        return _lrn("NHWC", r, r, options["alpha"], options["beta"], options["bias"])
    return {}


def onnx_reshaping(node) -> dict[str, Attribute]:
    """An ONNX Resize's / Upsample's, DepthToSpace's, SpaceToDepth's or LRN's attributes (NCHW), a
    Transpose's ``perm``."""
    a = {x.name: x for x in node.attribute}

    def word(name: str, default: str) -> str:
        return a[name].s.decode() if name in a else default

    def number(name: str, default: float) -> float:
        return float(a[name].f) if name in a else default

    nchw = StringAttr("NCHW")
    if node.op_type in ("Resize", "Upsample"):
        mode = word("mode", "nearest")
        if mode not in ("nearest", "linear", "bilinear"):
            return {}
        transform = "asymmetric" if node.op_type == "Upsample" else word("coordinate_transformation_mode", "half_pixel")
        attrs: dict[str, Attribute] = {
            "layout": nchw, "mode": StringAttr("nearest" if mode == "nearest" else "linear"),
            "coordinates": StringAttr(transform)}
        if mode == "nearest":
            attrs["rounding"] = StringAttr("floor" if node.op_type == "Upsample" else word("nearest_mode", "round_prefer_floor"))
        return attrs
    if node.op_type in ("DepthToSpace", "SpaceToDepth") and "blocksize" in a:
        attrs = {"layout": nchw, "block_size": IntegerAttr(int(a["blocksize"].i), i64)}
        if node.op_type == "DepthToSpace":
            attrs["order"] = StringAttr(word("mode", "DCR"))
        return attrs
    if node.op_type == "Transpose" and "perm" in a:
        return {"perm": _array([int(v) for v in a["perm"].ints])}
    if node.op_type == "LRN" and "size" in a:
        size = int(a["size"].i)
        return _lrn("NCHW", (size - 1) // 2, size // 2, number("alpha", 1e-4) / size, number("beta", 0.75),
                    number("bias", 1.0))
    return {}


def pad_attributes(begins_ends: Sequence[int]) -> dict[str, Attribute]:
    """A constant pad's ``pads`` (every dimension's begin, then every end)."""
    return {"pads": _array(begins_ends)}


__all__ = ["onnx_reshaping", "onnx_window", "pad_attributes", "same_pads", "tflite_reshaping", "tflite_window",
           "window_attributes"]
