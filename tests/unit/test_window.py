"""The windowed kernels (memopt.executor.window) against a direct numpy reference, and the
property the tile pass's proof rests on: a patch computed from its receptive field, with the
image's own padding at the image's borders, is bit-exact with the same rows of the whole."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from memopt.executor import window


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
