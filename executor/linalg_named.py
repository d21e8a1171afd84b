"""Upstream's contraction, convolution and pooling named ops, each as its generalised form.

Every op here is written as upstream's ``--linalg-generalize-named-ops`` writes it: the loops
(dims in upstream's domain order, which fixes the order of the reductions), one indexing map per
operand, and a body ``out = fold(out, term(ins))``:

* ``mac``: ``out += cast(U, a) * cast(U, b)`` (matmuls, convolutions);
* ``mac_q``: ``out += (cast(U, a) - cast(U, a_zp)) * (cast(U, b) - cast(U, b_zp))``
  (the ``quantized_*`` and ``*_q`` ops, whose zero points are two i32 scalar inputs);
* ``pool``: ``out = fold(out, cast(U, in))`` with ``fold`` add, max or min, signed or unsigned
  (pooling; the window operand gives the window's shape, its values are never read).

``U`` is the output's element type; ``cast`` is ``cast_signed`` unless the op reads a ``cast``
attribute (matmul, batch_matmul, contract) or is an unsigned variant. Upstream's
batch_reduce_matmul carries a ``cast`` attribute too, but its body casts signed regardless, and
so does this one. The loops run through :func:`memopt.executor.linalg_loops.run_folding`.

Attributes read (plain Python values): ``strides``, ``dilations`` (tuples of ints, one per
spatial dim; default all 1) on the windowed ops; ``indexing_maps`` (one ``AffineMap`` per
operand) on matmul, batch_matmul, batch_reduce_matmul and contract (required on contract);
``cast`` (``"cast_signed"``/``"cast_unsigned"``) on matmul, batch_matmul and contract.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir.affine import AffineExpr, AffineMap

from .linalg_loops import Term, run_folding
from .linalg_scalar import binary, cast, ints, unsigned_cast


class Window:
    """The input index of a windowed op's spatial dim ``i``: ``out * stride + win * dilation``."""

    def __init__(self, strides: Sequence[int], dilations: Sequence[int]):
        self.strides, self.dilations = tuple(strides), tuple(dilations)

    def __call__(self, out: AffineExpr, win: AffineExpr, i: int) -> AffineExpr:
        return out * self.strides[i] + win * self.dilations[i]


@dataclass(frozen=True)
class Named:
    """One named op: ``loops(*dims[, w=Window])`` gives each operand's index expressions."""

    loops: Callable[..., tuple]
    body: str  # "mac", "mac_q" or "pool"
    fold: str = "add"
    spatial: int = 0  # how many strides/dilations the op takes
    unsigned: bool = False  # casts are cast_unsigned
    takes_maps: bool = False  # reads `indexing_maps`
    takes_cast: bool = False  # reads `cast`

    def maps(self, attrs: Mapping[str, object]) -> list[AffineMap]:
        given = attrs.get("indexing_maps") if self.takes_maps else None
        if given is not None:
            if not isinstance(given, Iterable):
                raise TypeError(f"'{type(given).__name__}' object is not iterable")
            return list(given)
        ndims = self.loops.__code__.co_argcount
        dims = [AffineExpr.dimension(i) for i in range(ndims)]
        if self.spatial:
            ones = (1,) * self.spatial
            window = Window(_ints(attrs, "strides", ones), _ints(attrs, "dilations", ones))
            operands = self.loops(*dims, w=window)
        else:
            operands = self.loops(*dims)
        return [AffineMap(ndims, 0, tuple(_expr(e) for e in op)) for op in operands]

    def is_unsigned(self, attrs: Mapping[str, object]) -> bool:
        if self.takes_cast and attrs.get("cast") is not None:
            return unsigned_cast(attrs["cast"])
        return self.unsigned


def _expr(e) -> AffineExpr:
    return AffineExpr.constant(e) if isinstance(e, int) else e


def _ints(attrs: Mapping[str, object], key: str, default: tuple[int, ...]) -> tuple[int, ...]:
    value = attrs.get(key)
    if value is None:
        return default
    values = ints(value)
    if len(values) != len(default):
        raise ValueError(f"'{key}' has {len(values)} values, expected {len(default)}")
    return values


# -- contractions (domain order as upstream) -----------------------------------------------------

def _mac(loops, **kw) -> Named:
    return Named(loops, "mac", **kw)


CONTRACTIONS: dict[str, Named] = {
    "matmul": _mac(lambda m, n, k: ((m, k), (k, n), (m, n)), takes_maps=True, takes_cast=True),
    "batch_matmul": _mac(lambda b, m, n, k: ((b, m, k), (b, k, n), (b, m, n)),
                         takes_maps=True, takes_cast=True),
    # Upstream's region for batch_reduce_matmul casts signed whatever its `cast` attribute says.
    "batch_reduce_matmul": _mac(lambda b, m, n, k: ((b, m, k), (b, k, n), (m, n)), takes_maps=True),
    "contract": _mac(lambda: (), takes_maps=True, takes_cast=True),
    "matvec": _mac(lambda m, n: ((m, n), (n,), (m,))),
    "vecmat": _mac(lambda n, m: ((m,), (m, n), (n,))),
    "batch_matvec": _mac(lambda b, m, k: ((b, m, k), (b, k), (b, m))),
    "batch_vecmat": _mac(lambda b, n, k: ((b, k), (b, k, n), (b, n))),
    "dot": _mac(lambda m: ((m,), (m,), ())),
    "mmt4d": _mac(lambda m, n, k, m0, n0, k0: ((m, k, m0, k0), (n, k, n0, k0), (m, n, m0, n0))),
    "batch_mmt4d": _mac(lambda b, m, n, k, m0, n0, k0:
                        ((b, m, k, m0, k0), (b, n, k, n0, k0), (b, m, n, m0, n0))),
    "quantized_matmul": Named(lambda m, n, k: ((m, k), (k, n), (), (), (m, n)), "mac_q"),
    "quantized_batch_matmul": Named(lambda b, m, n, k: ((b, m, k), (b, k, n), (), (), (b, m, n)),
                                    "mac_q"),
    # Removed upstream (now matmul/batch_matmul with indexing_maps); older programs have them.
    "matmul_transpose_a": _mac(lambda m, n, k: ((k, m), (k, n), (m, n))),
    "matmul_transpose_b": _mac(lambda m, n, k: ((m, k), (n, k), (m, n))),
    "batch_matmul_transpose_a": _mac(lambda b, m, n, k: ((b, k, m), (b, k, n), (b, m, n))),
    "batch_matmul_transpose_b": _mac(lambda b, m, n, k: ((b, m, k), (b, n, k), (b, m, n))),
    "matmul_unsigned": _mac(lambda m, n, k: ((m, k), (k, n), (m, n)), unsigned=True),
}


# -- convolutions --------------------------------------------------------------------------------

def _conv(loops, spatial: int, body: str = "mac") -> Named:
    return Named(loops, body, spatial=spatial)


CONVOLUTIONS: dict[str, Named] = {
    "conv_1d": _mac(lambda ow, kw: ((ow + kw,), (kw,), (ow,))),
    "conv_2d": _mac(lambda oh, ow, kh, kw: ((oh + kh, ow + kw), (kh, kw), (oh, ow))),
    "conv_3d": _mac(lambda od, oh, ow, kd, kh, kw:
                    ((od + kd, oh + kh, ow + kw), (kd, kh, kw), (od, oh, ow))),
    "conv_1d_nwc_wcf": _conv(lambda n, ow, f, kw, c, *, w:
                             ((n, w(ow, kw, 0), c), (kw, c, f), (n, ow, f)), 1),
    "conv_1d_ncw_fcw": _conv(lambda n, f, ow, c, kw, *, w:
                             ((n, c, w(ow, kw, 0)), (f, c, kw), (n, f, ow)), 1),
    "conv_2d_nhwc_hwcf": _conv(lambda n, oh, ow, f, kh, kw, c, *, w:
                               ((n, w(oh, kh, 0), w(ow, kw, 1), c), (kh, kw, c, f), (n, oh, ow, f)), 2),
    "conv_2d_nhwc_fhwc": _conv(lambda n, oh, ow, f, kh, kw, c, *, w:
                               ((n, w(oh, kh, 0), w(ow, kw, 1), c), (f, kh, kw, c), (n, oh, ow, f)), 2),
    "conv_2d_nhwc_hwcf_q": _conv(lambda n, oh, ow, f, kh, kw, c, *, w:
                                 ((n, w(oh, kh, 0), w(ow, kw, 1), c), (kh, kw, c, f), (), (),
                                  (n, oh, ow, f)), 2, "mac_q"),
    "conv_2d_nhwc_fhwc_q": _conv(lambda n, oh, ow, f, kh, kw, c, *, w:
                                 ((n, w(oh, kh, 0), w(ow, kw, 1), c), (f, kh, kw, c), (), (),
                                  (n, oh, ow, f)), 2, "mac_q"),
    "conv_2d_nchw_fchw": _conv(lambda n, f, oh, ow, c, kh, kw, *, w:
                               ((n, c, w(oh, kh, 0), w(ow, kw, 1)), (f, c, kh, kw), (n, f, oh, ow)), 2),
    "conv_2d_nchw_fchw_q": _conv(lambda n, f, oh, ow, c, kh, kw, *, w:
                                 ((n, c, w(oh, kh, 0), w(ow, kw, 1)), (f, c, kh, kw), (), (),
                                  (n, f, oh, ow)), 2, "mac_q"),
    "conv_2d_ngchw_fgchw": _conv(lambda n, g, fg, oh, ow, c, kh, kw, *, w:
                                 ((n, g, c, w(oh, kh, 0), w(ow, kw, 1)), (fg, g, c, kh, kw),
                                  (n, g, fg, oh, ow)), 2),
    "conv_2d_ngchw_gfchw": _conv(lambda n, g, fg, oh, ow, c, kh, kw, *, w:
                                 ((n, g, c, w(oh, kh, 0), w(ow, kw, 1)), (g, fg, c, kh, kw),
                                  (n, g, fg, oh, ow)), 2),
    "conv_2d_ngchw_gfchw_q": _conv(lambda n, g, fg, oh, ow, c, kh, kw, *, w:
                                   ((n, g, c, w(oh, kh, 0), w(ow, kw, 1)), (g, fg, c, kh, kw), (), (),
                                    (n, g, fg, oh, ow)), 2, "mac_q"),
    "conv_2d_nhwgc_gfhwc": _conv(lambda n, oh, ow, g, fg, kh, kw, c, *, w:
                                 ((n, w(oh, kh, 0), w(ow, kw, 1), g, c), (g, fg, kh, kw, c),
                                  (n, oh, ow, g, fg)), 2),
    "conv_2d_nhwgc_gfhwc_q": _conv(lambda n, oh, ow, g, fg, kh, kw, c, *, w:
                                   ((n, w(oh, kh, 0), w(ow, kw, 1), g, c), (g, fg, kh, kw, c), (), (),
                                    (n, oh, ow, g, fg)), 2, "mac_q"),
    "conv_3d_ndhwc_dhwcf": _conv(lambda n, od, oh, ow, f, kd, kh, kw, c, *, w:
                                 ((n, w(od, kd, 0), w(oh, kh, 1), w(ow, kw, 2), c), (kd, kh, kw, c, f),
                                  (n, od, oh, ow, f)), 3),
    "conv_3d_ndhwc_dhwcf_q": _conv(lambda n, od, oh, ow, f, kd, kh, kw, c, *, w:
                                   ((n, w(od, kd, 0), w(oh, kh, 1), w(ow, kw, 2), c),
                                    (kd, kh, kw, c, f), (), (), (n, od, oh, ow, f)), 3, "mac_q"),
    "conv_3d_ncdhw_fcdhw": _conv(lambda n, f, od, oh, ow, c, kd, kh, kw, *, w:
                                 ((n, c, w(od, kd, 0), w(oh, kh, 1), w(ow, kw, 2)), (f, c, kd, kh, kw),
                                  (n, f, od, oh, ow)), 3),
}

DEPTHWISE: dict[str, Named] = {
    "depthwise_conv_1d_nwc_wc": _conv(lambda n, ow, ic, kw, *, w:
                                      ((n, w(ow, kw, 0), ic), (kw, ic), (n, ow, ic)), 1),
    "depthwise_conv_1d_ncw_cw": _conv(lambda n, ow, ic, kw, *, w:
                                      ((n, ic, w(ow, kw, 0)), (ic, kw), (n, ic, ow)), 1),
    "depthwise_conv_1d_nwc_wcm": _conv(lambda n, ow, ic, cm, kw, *, w:
                                       ((n, w(ow, kw, 0), ic), (kw, ic, cm), (n, ow, ic, cm)), 1),
    "depthwise_conv_2d_nhwc_hwc": _conv(lambda n, oh, ow, ic, kh, kw, *, w:
                                        ((n, w(oh, kh, 0), w(ow, kw, 1), ic), (kh, kw, ic),
                                         (n, oh, ow, ic)), 2),
    "depthwise_conv_2d_nchw_chw": _conv(lambda n, oh, ow, ic, kh, kw, *, w:
                                        ((n, ic, w(oh, kh, 0), w(ow, kw, 1)), (ic, kh, kw),
                                         (n, ic, oh, ow)), 2),
    "depthwise_conv_2d_nhwc_hwc_q": _conv(lambda n, oh, ow, ic, kh, kw, *, w:
                                          ((n, w(oh, kh, 0), w(ow, kw, 1), ic), (kh, kw, ic), (), (),
                                           (n, oh, ow, ic)), 2, "mac_q"),
    "depthwise_conv_2d_nhwc_hwcm": _conv(lambda n, oh, ow, ic, cm, kh, kw, *, w:
                                         ((n, w(oh, kh, 0), w(ow, kw, 1), ic), (kh, kw, ic, cm),
                                          (n, oh, ow, ic, cm)), 2),
    "depthwise_conv_2d_nhwc_hwcm_q": _conv(lambda n, oh, ow, ic, cm, kh, kw, *, w:
                                           ((n, w(oh, kh, 0), w(ow, kw, 1), ic), (kh, kw, ic, cm),
                                            (), (), (n, oh, ow, ic, cm)), 2, "mac_q"),
    "depthwise_conv_3d_ndhwc_dhwc": _conv(lambda n, od, oh, ow, kd, kh, kw, ic, *, w:
                                          ((n, w(od, kd, 0), w(oh, kh, 1), w(ow, kw, 2), ic),
                                           (kd, kh, kw, ic), (n, od, oh, ow, ic)), 3),
    "depthwise_conv_3d_ncdhw_cdhw": _conv(lambda n, od, oh, ow, kd, kh, kw, ic, *, w:
                                          ((n, ic, w(od, kd, 0), w(oh, kh, 1), w(ow, kw, 2)),
                                           (ic, kd, kh, kw), (n, ic, od, oh, ow)), 3),
    "depthwise_conv_3d_ndhwc_dhwcm": _conv(lambda n, od, oh, ow, cm, kd, kh, kw, ic, *, w:
                                           ((n, w(od, kd, 0), w(oh, kh, 1), w(ow, kw, 2), ic),
                                            (kd, kh, kw, ic, cm), (n, od, oh, ow, ic, cm)), 3),
}


# -- pooling -------------------------------------------------------------------------------------

def _pool_nhwc(n, oh, ow, c, kh, kw, *, w):
    return (n, w(oh, kh, 0), w(ow, kw, 1), c), (kh, kw), (n, oh, ow, c)


def _pool_nchw(n, c, oh, ow, kh, kw, *, w):
    return (n, c, w(oh, kh, 0), w(ow, kw, 1)), (kh, kw), (n, c, oh, ow)


def _pool_nwc(n, ow, c, kw, *, w):
    return (n, w(ow, kw, 0), c), (kw,), (n, ow, c)


def _pool_ncw(n, c, ow, kw, *, w):
    return (n, c, w(ow, kw, 0)), (kw,), (n, c, ow)


def _pool_ndhwc(n, od, oh, ow, c, kd, kh, kw, *, w):
    return (n, w(od, kd, 0), w(oh, kh, 1), w(ow, kw, 2), c), (kd, kh, kw), (n, od, oh, ow, c)


_POOL_FOLDS = {"sum": "add", "max": "max_signed", "min": "min_signed",
               "max_unsigned": "max_unsigned", "min_unsigned": "min_unsigned"}

_POOL_LAYOUTS: dict[str, tuple[Callable[..., tuple], int, tuple[str, ...]]] = {
    # layout: (loops, spatial dims, kinds upstream defines)
    "nhwc": (_pool_nhwc, 2, ("sum", "max", "max_unsigned", "min", "min_unsigned")),
    "nchw": (_pool_nchw, 2, ("sum", "max")),
    "nwc": (_pool_nwc, 1, ("sum", "max", "max_unsigned", "min", "min_unsigned")),
    "ncw": (_pool_ncw, 1, ("sum", "max")),
    "ndhwc": (_pool_ndhwc, 3, ("sum", "max", "min")),
}

POOLING: dict[str, Named] = {
    f"pooling_{layout}_{kind}": Named(loops, "pool", fold=_POOL_FOLDS[kind], spatial=spatial,
                                      unsigned=kind.endswith("unsigned"))
    for layout, (loops, spatial, kinds) in _POOL_LAYOUTS.items() for kind in kinds
}

NAMED: dict[str, Named] = {**CONTRACTIONS, **CONVOLUTIONS, **DEPTHWISE, **POOLING}
"""Every contraction, convolution and pooling op, by name without the ``linalg.`` prefix."""


# -- bodies --------------------------------------------------------------------------------------

def _term(op: Named, out_dtype: np.dtype, is_unsigned: bool) -> Term:
    """The value ``term(ins)`` each point folds into the output."""
    def u(x: np.ndarray) -> np.ndarray:
        return cast(x, out_dtype, is_unsigned)

    if op.body == "mac":
        return lambda a: binary("mul", u(a[0]), u(a[1]))
    if op.body == "mac_q":  # zero points are i32 scalars, always cast_signed
        return lambda a: binary("mul", binary("sub", u(a[0]), cast(a[2], out_dtype)),
                                binary("sub", u(a[1]), cast(a[3], out_dtype)))
    return lambda a: u(a[0])


def run_structured(name: str, ins: Sequence[np.ndarray], outs: Sequence[np.ndarray],
                   attrs: Mapping[str, object]) -> list[np.ndarray]:
    """New value of the single output of named op ``name`` (a key of :data:`NAMED`)."""
    op = NAMED[name]
    if name == "contract" and attrs.get("indexing_maps") is None:
        raise ValueError("linalg.contract needs its indexing_maps")
    if len(outs) != 1:
        raise ValueError(f"linalg.{name} has one output, got {len(outs)}")
    out = np.asarray(outs[0])
    ins = [_zero_point(x) if i >= 2 and op.body == "mac_q" else np.asarray(x)
           for i, x in enumerate(ins)]
    maps = op.maps(attrs)
    if len(maps) != len(ins) + 1:
        raise ValueError(f"linalg.{name} takes {len(maps) - 1} inputs, got {len(ins)}")
    term = _term(op, out.dtype, op.is_unsigned(attrs))
    return [run_folding(maps, ins, out, term, op.fold)]


def _zero_point(x) -> np.ndarray:
    """A zero point: an i32 scalar (a Python int is taken as its i32 value)."""
    x = np.asarray(x)
    return x.astype(np.int32) if x.dtype.kind not in "iub" else x


__all__ = ["CONTRACTIONS", "CONVOLUTIONS", "DEPTHWISE", "NAMED", "POOLING", "Named", "Window",
           "run_structured"]
