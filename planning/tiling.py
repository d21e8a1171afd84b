"""Receptive fields of a run of spatial ops, cut into patches (MCUNetV2's patch-based inference,
Arm Vela's cascading) — the arithmetic of the ``tile`` pass, with no IR in it.

Along one spatial axis an op is a :class:`Window` (kernel ``k``, stride ``s``, dilation ``d``,
padding ``begin`` before the input): output cells ``[a, b)`` read input cells
``[a*s - begin, (b-1)*s - begin + (k-1)*d + 1)``; the part of that range outside the input is
padding. An element-wise op is ``Window(1, 1, 1, 0)``; a pad by ``p`` cells is ``Window(1, 1, 1, p)``.

A patch of the run's last output is an interval per axis; walking the run backwards, each value
needs the hull of what its readers need (:func:`receptive`), clipped to its extent; the op that
writes it computes that interval of its output, with the padding of the image only where its
window really crosses the image's border (a patch's cut is never padded: the halo is read).
"""

from __future__ import annotations

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


@dataclass(frozen=True)
class Read:
    """What an op computing an output interval reads along one axis."""

    cells: Interval
    """The input cells it reads (inside the input)."""
    pad_begin: int
    """Padding cells before them (the image's own border only)."""
    pad_end: int


def receptive(w: Window, out: Interval, extent: int) -> Read:
    """The input cells (of ``extent`` cells) that output cells ``out`` read, and the padding
    around them: ``(b - a - 1) * s + span == pad_begin + cells + pad_end`` exactly."""
    a, b = out
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


__all__ = ["Interval", "Read", "Window", "hull", "receptive", "split"]
