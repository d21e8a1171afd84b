"""Receptive fields of a run of spatial ops, cut into patches (MCUNetV2's patch-based inference,
Arm Vela's cascading) — the arithmetic of the ``tile`` pass, with no IR in it.

Along one spatial axis an op is a :class:`Window` (kernel ``k``, stride ``s``, dilation ``d``,
padding ``begin`` before the input): output cells ``[a, b)`` read input cells
``[a*s - begin, (b-1)*s - begin + (k-1)*d + 1)``; the part of that range outside the input is
padding. An element-wise op is ``Window(1, 1, 1, 0)``; a pad by ``p`` cells is ``Window(1, 1, 1, p)``.

A resize (nearest or linear, each coordinate transform of TFLite and ONNX) or depth-to-space is
a :class:`Resample`: output cell ``o`` reads the source cells its coordinate maps to, the same
function the executor's kernels compute with (:meth:`Resample.taps`), so a patch reads exactly
what its cells need; the patch's kernel is told where it sits in the whole (its ``origin``).

A patch of the run's last output is an interval per axis; walking the run backwards, each value
needs the hull of what its readers need (:func:`receptive`), clipped to its extent; the op that
writes it computes that interval of its output, with the padding of the image only where its
window really crosses the image's border (a patch's cut is never padded: the halo is read).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Interval = tuple[int, int]
"""Half-open ``[lo, hi)`` cells along one axis."""


@dataclass(frozen=True)
class Window:
    """One op along one axis (see module docstring)."""

    k: int = 1
    s: int = 1
    d: int = 1
    begin: int = 0

    @property
    def span(self) -> int:
        """Input cells one output cell reads (the dilated kernel)."""
        return (self.k - 1) * self.d + 1


TRANSFORMS = ("asymmetric", "half_pixel", "pytorch_half_pixel", "align_corners", "tf_half_pixel_for_nn")
"""Coordinate transforms of a resize (ONNX's names; TFLite's align_corners / half_pixel_centers map to them)."""
ROUNDINGS = ("floor", "ceil", "round_prefer_floor", "round_prefer_ceil")
"""How a nearest resize rounds a source coordinate."""


@dataclass(frozen=True)
class Resample:
    """A resize or depth-to-space along one axis: ``in_extent`` source cells to ``out_extent``.

    ``mode``: ``"nearest"`` (one source cell per output cell, rounded by ``rounding``),
    ``"linear"`` (two neighbours, weighted), ``"block"`` (depth-to-space by ``out/in``: cell
    ``o`` reads ``o // factor``)."""

    mode: str
    in_extent: int
    out_extent: int
    transform: str = "asymmetric"
    rounding: str = "floor"

    def coordinate(self, o: int) -> float:
        """The source coordinate of output cell ``o``."""
        n, m = self.in_extent, self.out_extent
        t = self.transform
        if t == "align_corners":
            return o * (n - 1) / (m - 1) if m > 1 else 0.0
        if t == "half_pixel" or (t == "pytorch_half_pixel" and m > 1):
            return (o + 0.5) * n / m - 0.5
        if t == "pytorch_half_pixel":
            return 0.0
        if t == "tf_half_pixel_for_nn":
            return (o + 0.5) * n / m
        return o * n / m

    def taps(self, o: int) -> tuple[int, int, float]:
        """(first source cell, second source cell, weight of the second) output cell ``o`` reads."""
        last = self.in_extent - 1
        if self.mode == "block":
            i = o * self.in_extent // self.out_extent
            return i, i, 0.0
        x = self.coordinate(o)
        if self.mode == "nearest":
            r = self.rounding
            if r == "ceil":
                i = math.ceil(x)
            elif r == "round_prefer_floor":
                i = math.ceil(x - 0.5)
            elif r == "round_prefer_ceil":
                i = math.floor(x + 0.5)
            else:
                i = math.floor(x)
            i = min(max(i, 0), last)
            return i, i, 0.0
        lo = math.floor(x)
        return min(max(lo, 0), last), min(max(lo + 1, 0), last), x - lo


@dataclass(frozen=True)
class Read:
    """What an op computing an output interval reads along one axis."""

    cells: Interval
    """The input cells it reads (inside the input)."""
    pad_begin: int
    """Padding cells before them (the image's own border only)."""
    pad_end: int


def receptive(w: Window | Resample, out: Interval, extent: int) -> Read:
    """The input cells (of ``extent`` cells) that output cells ``out`` read, and the padding
    around them: ``(b - a - 1) * s + span == pad_begin + cells + pad_end`` exactly (a
    :class:`Resample` reads no padding: its taps are monotone in ``o``)."""
    a, b = out
    if isinstance(w, Resample):
        if b <= a:
            return Read((0, 0), 0, 0)
        first_taps, last_taps = w.taps(a), w.taps(b - 1)
        return Read((min(first_taps[:2]), max(last_taps[:2]) + 1), 0, 0)
    lo = a * w.s - w.begin
    hi = (b - 1) * w.s - w.begin + w.span
    first = min(max(lo, 0), extent)  # an interval wholly in the padding reads no cell
    return Read((first, max(min(hi, extent), first)), max(0, min(hi, 0) - lo), max(0, hi - max(lo, extent)))


def hull(x: Interval | None, y: Interval) -> Interval:
    return y if x is None else (min(x[0], y[0]), max(x[1], y[1]))


def split(extent: int, parts: int) -> list[Interval]:
    """``extent`` cells in ``parts`` intervals as equal as can be (the first ones larger)."""
    parts = max(1, min(parts, extent))
    q, r = divmod(extent, parts)
    out, lo = [], 0
    for i in range(parts):
        hi = lo + q + (1 if i < r else 0)
        out.append((lo, hi))
        lo = hi
    return out


__all__ = ["ROUNDINGS", "TRANSFORMS", "Interval", "Read", "Resample", "Window", "hull", "receptive", "split"]
