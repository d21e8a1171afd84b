"""The live bytes of a function before and after a transformation (``memopt-report --before``).

Both programs are read by the same plan reader, so both curves mean the same thing (bytes live
on the heaviest path, in-place pairs once). Their step numberings differ (a tiled run has more
ops than the run it replaces), so the curves are compared by position in the program: the text
draws both over the same number of columns, and the picture stretches the original's steps over
the transformed program's. Where the peak moved is said by the tensors live at each peak.
"""

from __future__ import annotations

import numpy as np

from .model import FunctionView, live_curve, peak

COLUMNS = 64
"""Width of the text curves: each column the largest live bytes of its share of the steps."""

_LEVELS = " ▁▂▃▄▅▆▇█"


def _columns(live: np.ndarray, width: int) -> list[int]:
    """``live`` resampled to ``width`` columns, each the maximum over its share of the steps (a
    program of fewer steps than columns repeats each step over several)."""
    n = len(live)
    out = []
    for c in range(width):
        a = c * n // width
        b = max((c + 1) * n // width, a + 1)
        out.append(int(live[a:b].max()))
    return out


def sparkline(fv: FunctionView, scale: int, width: int = COLUMNS) -> str:
    """The live-bytes curve of ``fv`` as ``width`` block characters, ``scale`` bytes the full one."""
    live = live_curve(fv)[1]
    if len(live) == 0 or scale <= 0:
        return ""
    return "".join(_LEVELS[-(-8 * v // scale)] for v in _columns(live, width))


def _peak_line(fv: FunctionView) -> str:
    p = peak(fv)
    shown = ", ".join(t.name for t in p.tensors[:4]) + (", …" if len(p.tensors) > 4 else "")
    return f"peak {p.live_bytes} B at step {p.step} of {fv.steps}" + (f" ({shown})" if shown else "")


def comparison_lines(before: FunctionView, after: FunctionView, source: str) -> list[str]:
    """The summary's lines comparing ``after`` with ``before`` (read from ``source``)."""
    pb, pa = peak(before).live_bytes, peak(after).live_bytes
    scale = max(pb, pa)
    change = f"{pa - pb:+d} B, {pa / pb:.3f}× the original's" if pb else f"{pa - pb:+d} B"
    return [
        f"  before               {source}: {_peak_line(before)}, arena {before.arena_size} B",
        f"  after                {_peak_line(after)}, arena {after.arena_size} B ({change})",
        f"  live bytes before    |{sparkline(before, scale)}|",
        f"  live bytes after     |{sparkline(after, scale)}| (full block {scale} B, {COLUMNS} columns each)",
    ]


def before_series(before: FunctionView, after: FunctionView, source: str) -> tuple[str, list[float], list[int]]:
    """The original's live-bytes curve as a series of ``after``'s picture: its steps stretched
    over ``after``'s, labelled with its peak."""
    steps, live = live_curve(before)
    n = max(before.steps, 1)
    stretch = max(after.steps, 1) / n
    xs = [float(s) * stretch for s in steps] + [n * stretch]
    ys = [int(v) for v in live] + ([int(live[-1])] if len(live) else [0])
    return f"before: {source} (peak {peak(before).live_bytes} B; steps stretched)", xs, ys


__all__ = ["COLUMNS", "before_series", "comparison_lines", "sparkline"]
