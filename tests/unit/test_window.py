"""The windowed kernels (memopt.executor.window) against a direct numpy reference, and the
property the tile pass's proof rests on: a patch computed from its receptive field, with the
image's own padding at the image's borders, is bit-exact with the same rows of the whole."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from memopt.executor import window
from memopt.planning.tiling import ROUNDINGS, TRANSFORMS, Resample, receptive


def _reference_conv(x, w, b, stride, dil, pads, groups, oh, ow):
    """NCHW x, OIHW w: the definition, one output element at a time."""
    n, c, h, wd = x.shape
    f, cg, kh, kw = w.shape
    y = np.zeros((n, f, oh, ow))
    for o in range(f):
        g = o // (f // groups)
        for r in range(oh):
            for s in range(ow):
                acc = 0.0
                for q in range(cg):
                    for i in range(kh):
                        for j in range(kw):
                            rr = r * stride[0] + i * dil[0] - pads[0]
                            cc = s * stride[1] + j * dil[1] - pads[1]
                            if 0 <= rr < h and 0 <= cc < wd:
                                acc += x[0, g * cg + q, rr, cc] * w[o, q, i, j]
                y[0, o, r, s] = acc + (b[o] if b is not None else 0)
    return y


def _out(extent, k, s, d, p0, p1):
    return (extent + p0 + p1 - (k - 1) * d - 1) // s + 1


@st.composite
def conv_cases(draw):
    groups = draw(st.sampled_from([1, 2, 3]))
    cg = draw(st.integers(1, 2))
    fg = draw(st.integers(1, 2))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    stride = [draw(st.integers(1, 2)), draw(st.integers(1, 2))]
    dil = [draw(st.integers(1, 2)), draw(st.integers(1, 2))]
    pads = [draw(st.integers(0, 2)) for _ in range(4)]
    h, wd = draw(st.integers(4, 9)), draw(st.integers(4, 9))
    if _out(h, kh, stride[0], dil[0], pads[0], pads[2]) < 1 or _out(wd, kw, stride[1], dil[1], pads[1], pads[3]) < 1:
        h, wd = 9, 9
    return groups, cg, fg, kh, kw, stride, dil, pads, h, wd, draw(st.integers(0, 2**31))


def _ints_as_floats(rng, shape):
    return rng.integers(-4, 5, shape).astype(np.float32)


@settings(max_examples=25, deadline=None)
@given(conv_cases(), st.booleans())
def test_conv_matches_reference(case, nhwc):
    groups, cg, fg, kh, kw, stride, dil, pads, h, wd, seed = case
    rng = np.random.default_rng(seed)
    c, f = groups * cg, groups * fg
    x = _ints_as_floats(rng, (1, c, h, wd))
    w = _ints_as_floats(rng, (f, cg, kh, kw))
    b = _ints_as_floats(rng, (f,))
    oh, ow = _out(h, kh, stride[0], dil[0], pads[0], pads[2]), _out(wd, kw, stride[1], dil[1], pads[1], pads[3])
    attrs = {"strides": stride, "dilations": dil, "pads": pads, "groups": groups}
    want = _reference_conv(x, w, b, stride, dil, pads, groups, oh, ow)
    if nhwc:
        got = window.conv("conv2d", [x.transpose(0, 2, 3, 1), w.transpose(0, 2, 3, 1), b], (1, oh, ow, f),
                          np.dtype(np.float32), {**attrs, "layout": "NHWC"})
        got = got.transpose(0, 3, 1, 2)
    else:
        got = window.conv("conv", [x, w, b], (1, f, oh, ow), np.dtype(np.float32), attrs)
    assert np.array_equal(got, want.astype(np.float32))


def test_depthwise_nhwc_filter_layout():
    """TFLite's depthwise filter [1, KH, KW, C*M]: output channel o reads input channel o // M."""
    rng = np.random.default_rng(0)
    x = _ints_as_floats(rng, (1, 2, 6, 6))
    w = _ints_as_floats(rng, (4, 1, 3, 3))  # M = 2
    want = _reference_conv(x, w, None, [2, 2], [1, 1], [0, 0, 1, 1], 2, 3, 3)
    got = window.conv("depthwiseconv2d", [x.transpose(0, 2, 3, 1), w.transpose(1, 2, 3, 0)], (1, 3, 3, 4),
                      np.dtype(np.float32), {"layout": "NHWC", "strides": [2, 2]})  # SAME: pads inferred
    assert np.array_equal(got.transpose(0, 3, 1, 2), want.astype(np.float32))


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["maxpool", "averagepool"]), st.integers(1, 3), st.integers(1, 3),
       st.integers(1, 3), st.lists(st.integers(0, 1), min_size=4, max_size=4), st.integers(0, 2**31))
def test_pool_matches_reference(kind, k, s, d, pads, seed):
    rng = np.random.default_rng(seed)
    pads = [min(p, k - 1) for p in pads]  # every window holds a real cell
    d = min(d, 5 // max(k - 1, 1))  # and fits in the image
    x = _ints_as_floats(rng, (1, 2, 7, 6))
    oh, ow = _out(7, k, s, d, pads[0], pads[2]), _out(6, k, s, d, pads[1], pads[3])
    want = np.zeros((1, 2, oh, ow))
    for ch in range(2):
        for r in range(oh):
            for q in range(ow):
                cells = [x[0, ch, r * s + i * d - pads[0], q * s + j * d - pads[1]]
                         for i in range(k) for j in range(k)
                         if 0 <= r * s + i * d - pads[0] < 7 and 0 <= q * s + j * d - pads[1] < 6]
                want[0, ch, r, q] = max(cells) if kind == "maxpool" else sum(cells) / len(cells)
    got = window.pool(kind, [x], (1, 2, oh, ow), np.dtype(np.float32),
                      {"kernel": [k, k], "strides": [s, s], "dilations": [d, d], "pads": pads})
    assert np.array_equal(got, want.astype(np.float32))


def test_pad_crop_slice_insert():
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    y = window.pad([x], (1, 2, 5, 3), np.dtype(np.float32), {"pads": [0, 0, 1, 0, 0, 0, 1, -1]})
    assert np.array_equal(y, np.pad(x[..., :3], ((0, 0), (0, 0), (1, 1), (0, 0))))
    s = window.extract_slice([x], (1, 2, 2, 4), np.dtype(np.float32), {"offsets": [0, 0, 1, 0]})
    assert np.array_equal(s, x[:, :, 1:3])
    z = window.insert_slice([s, np.zeros_like(x)], x.shape, np.dtype(np.float32), {"offsets": [0, 0, 1, 0]})
    assert np.array_equal(z[:, :, 1:3], s) and not z[:, :, 0].any()
    assert window.extract_slice([x], (1, 2, 3, 4), np.dtype(np.float32), {"offsets": [0, 0, 1, 0]}) is None


@settings(max_examples=20, deadline=None)
@given(conv_cases(), st.integers(0, 2**31))
def test_a_patch_is_bit_exact_with_its_rows_of_the_whole(case, cut_seed):
    """Random float data (sums not exact): rows [a, b) of the output computed from input rows
    [a*s - top, (b-1)*s - top + eff) alone, with the image's padding only at its borders."""
    groups, cg, fg, kh, kw, stride, dil, pads, h, wd, seed = case
    rng = np.random.default_rng(seed)
    c, f = groups * cg, groups * fg
    x = rng.standard_normal((1, c, h, wd)).astype(np.float32)
    w = rng.standard_normal((f, cg, kh, kw)).astype(np.float32)
    oh, ow = _out(h, kh, stride[0], dil[0], pads[0], pads[2]), _out(wd, kw, stride[1], dil[1], pads[1], pads[3])
    attrs = {"strides": stride, "dilations": dil, "pads": pads, "groups": groups}
    whole = window.conv("conv", [x, w], (1, f, oh, ow), np.dtype(np.float32), attrs)
    cut = np.random.default_rng(cut_seed)
    a = int(cut.integers(0, oh))
    b = int(cut.integers(a + 1, oh + 1))
    lo = a * stride[0] - pads[0]
    hi = (b - 1) * stride[0] - pads[0] + (kh - 1) * dil[0] + 1
    first = min(max(lo, 0), h)  # rows wholly in the padding read no image row
    top, bottom = max(0, min(hi, 0) - lo), max(0, hi - max(lo, h))
    patch = window.conv("conv", [x[:, :, first: max(min(hi, h), first)], w], (1, f, b - a, ow), np.dtype(np.float32),
                        {**attrs, "pads": [top, pads[1], bottom, pads[3]]})
    assert np.array_equal(patch, whole[:, :, a:b])


def test_integers_accumulate_exactly_and_wrap():
    x = np.full((1, 1, 3, 3), 100, np.int8)
    w = np.full((1, 1, 3, 3), 100, np.int8)
    y = window.conv("conv", [x, w], (1, 1, 1, 1), np.dtype(np.int8), {})
    assert y[0, 0, 0, 0] == np.int64(90000).astype(np.int8)


def test_attributes_that_do_not_give_the_output_extent_are_refused():
    x = np.zeros((1, 1, 5, 5), np.float32)
    w = np.zeros((1, 1, 3, 3), np.float32)
    assert window.conv("conv", [x, w], (1, 1, 5, 5), np.dtype(np.float32), {"pads": [0, 0, 0, 0]}) is None
    assert window.conv("conv", [x, w], (1, 1, 3, 3), np.dtype(np.float32), {"strides": [0, 1]}) is None


# Resize, depth-to-space / space-to-depth, LRN: their kernels, and a patch placed by origin/extent.

def _nhwc(rng, shape):
    return rng.integers(-8, 8, shape).astype(np.float32) / 4


def test_depth_to_space_is_tf_dcr_and_space_to_depth_inverts_it():
    x = _nhwc(np.random.default_rng(1), (1, 3, 4, 12))
    attrs = {"layout": "NHWC", "block_size": 2}
    y = window.depth_to_space([x], (1, 6, 8, 3), np.dtype(np.float32), attrs)
    ref = x.reshape(1, 3, 4, 2, 2, 3).transpose(0, 1, 3, 2, 4, 5).reshape(1, 6, 8, 3)
    assert np.array_equal(y, ref)
    assert np.array_equal(window.space_to_depth([y], x.shape, np.dtype(np.float32), attrs), x)
    crd = window.depth_to_space([x.transpose(0, 3, 1, 2)], (1, 3, 6, 8), np.dtype(np.float32),
                                {"layout": "NCHW", "block_size": 2, "order": "CRD"})
    ref_crd = x.transpose(0, 3, 1, 2).reshape(1, 3, 2, 2, 3, 4).transpose(0, 1, 4, 2, 5, 3).reshape(1, 3, 6, 8)
    assert np.array_equal(crd, ref_crd)


def test_lrn_is_the_formula_and_bilinear_align_corners_keeps_the_corners():
    x = _nhwc(np.random.default_rng(2), (1, 2, 2, 5))
    attrs = {"layout": "NHWC", "lrn": [1, 2], "alpha": 0.5, "beta": 0.75, "bias": 2.0}
    y = window.lrn([x], x.shape, np.dtype(np.float32), attrs)
    sq = np.pad(x.astype(np.float64) ** 2, ((0, 0), (0, 0), (0, 0), (1, 2)))
    ref = x / (2.0 + 0.5 * sum(sq[..., k: k + 5] for k in range(4))) ** 0.75
    assert np.array_equal(y, ref.astype(np.float32))
    r = window.resize([x], (1, 5, 7, 5), np.dtype(np.float32), {"layout": "NHWC", "mode": "linear",
                                                               "coordinates": "align_corners"})
    assert np.array_equal(r[:, [0, -1]][:, :, [0, -1]], x)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["nearest", "linear", "block"]), st.sampled_from(TRANSFORMS), st.sampled_from(ROUNDINGS),
       st.integers(1, 9), st.integers(1, 4), st.integers(1, 20), st.data())
def test_a_resampled_patch_is_bit_exact_with_its_cells_of_the_whole(mode, transform, rounding, n_in, bs, n_out, data):
    """The input rows :func:`receptive` gives a patch are enough, and the kernel placed by
    ``origin``/``extent`` computes the whole's cells (resize, depth-to-space)."""
    n_out = n_in * bs if mode == "block" else n_out
    x = _nhwc(np.random.default_rng(n_in * 31 + n_out), (1, n_in, 2, 4 * bs * bs if mode == "block" else 3))
    c_out = 4 if mode == "block" else 3
    if mode == "block":
        fn, attrs = window.depth_to_space, {"layout": "NHWC", "block_size": bs}
        x = x[:, :, :1]
        shape, w_in = (1, n_out, bs, c_out), 1
    else:
        fn, attrs = window.resize, {"layout": "NHWC", "mode": mode, "coordinates": transform, "rounding": rounding}
        shape, w_in = (1, n_out, 2, c_out), 2
    whole = fn([x], shape, np.dtype(np.float32), attrs)
    a = data.draw(st.integers(0, n_out - 1))
    b = data.draw(st.integers(a + 1, n_out))
    cells = receptive(Resample(mode, n_in, n_out, transform, rounding), (a, b), n_in).cells
    placed = dict(attrs, origin=[a, 0, cells[0], 0], extent=[n_in, w_in, n_out, shape[2]])
    patch = fn([x[:, cells[0]: cells[1]]], (1, b - a) + shape[2:], np.dtype(np.float32), placed)
    assert np.array_equal(patch, whole[:, a:b])


def test_onnx_resize_lrn_depth_to_space_keep_their_parameters(tmp_path):
    import onnx
    from onnx import TensorProto as TP, helper

    from memopt.dialects.memopt import ComputeOp
    from memopt.importers.api import import_model

    nodes = [helper.make_node("LRN", ["x"], ["n"], size=3, alpha=0.3),
             helper.make_node("Resize", ["n", "", "scales"], ["r"], mode="linear", coordinate_transformation_mode="align_corners"),
             helper.make_node("DepthToSpace", ["r"], ["y"], blocksize=2, mode="CRD")]
    scales = helper.make_tensor("scales", TP.FLOAT, [4], [1, 1, 2, 2])
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TP.FLOAT, [1, 8, 3, 3])],
                              [helper.make_tensor_value_info("y", TP.FLOAT, [1, 2, 12, 12])], [scales])
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    ops = {op.kind.data: op.attributes for op in import_model(str(path)).module.walk() if isinstance(op, ComputeOp)}
    assert window.ints(ops["LRN"], "lrn") == [1, 1] and abs(ops["LRN"]["alpha"].value.data - 0.1) < 1e-7
    assert window.text(ops["Resize"], "coordinates") == "align_corners" and window.text(ops["Resize"], "mode") == "linear"
    assert window.ints(ops["DepthToSpace"], "block_size") == [2] and window.text(ops["DepthToSpace"], "order") == "CRD"
