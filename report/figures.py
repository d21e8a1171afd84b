"""Pictures of a plan, drawn with matplotlib: the layout (steps × addresses, the LUNA paper's
Figure 6), the live-bytes curve and the DMA timeline.

Each picture is built in two steps so tests can check what is drawn without parsing pixels:
a pure function computes the shapes (:func:`layout_rects`, :func:`timeline_bars`) from the
report model, and a ``draw_*`` function hands them to matplotlib. Every arena tensor is one
``Rectangle`` patch whose SVG group id is ``t<k>`` (``k`` its index in the plan), so the HTML
page can attach the tensor's details to it for hover, and a test can find it in the SVG — up to
:data:`MAX_DRAWN_BOXES` tensors; past that, the largest boxes are drawn so and the others are
aggregated into one raster layer, announced in the picture.

Output is deterministic (fixed SVG hash salt, no dates in metadata): same plan, same bytes.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, replace

from .model import KINDS, FunctionView, PlanView, has_dma, live_curve, peak

COLOURS = {
    "input": "#4e79a7",
    "intermediate": "#a0cbe8",
    "output": "#f28e2b",
    "inplace": "#59a14f",
    "loop-carried": "#b07aa1",
    "view": "none",
    "buffer": "#a0cbe8",
    "scratch": "#edc948",
    "staging": "#bab0ac",
}
BRANCH_HATCH = ("//", "\\\\", "xx", "..", "oo")
MAX_TIMELINE_REGIONS = 12

MAX_DRAWN_BOXES = 2000
"""Most tensors a layout picture draws one by one (a ``Rectangle`` with its own SVG id, hover
and label); a plan with more draws its :data:`MAX_DRAWN_BOXES` largest boxes (bytes × steps)
so, and all the others as one rasterised layer (:func:`_add_aggregate`), and says so in a line
above the picture (the HTML page lists the drawn ones and says how many more were aggregated).

Why: the layout panel is about 660 × 450 pixels (11-inch figure, 90 dpi PNG; the SVG is the
same size in points), so past a few thousand boxes the average box is a few pixels and most
are thinner than one: nothing can be hovered or read in them. Each ``Rectangle`` costs about a
millisecond and an SVG element, so a 200,000-row CSV took minutes and gigabytes to draw what
one raster layer (one image in an SVG, its size bounded by the pixel count) shows as well.
Plans at or below the limit draw exactly as they always did (same bytes)."""


@dataclass(frozen=True)
class Rect:
    """A box of the layout picture in data coordinates (x: step, y: byte address)."""

    x: float
    y: float
    w: float
    h: float
    kind: str
    label: str
    gid: str
    hatch: str = ""


def layout_rects(fv: FunctionView, view: PlanView | None = None, prefix: str = "") -> list[Rect]:
    """One :class:`Rect` per tensor of ``fv`` (ids ``<prefix>t<k>``, views included, drawn
    unfilled), then one per staging buffer over the whole run (ids ``<prefix>s<k>``)."""
    out = [_tensor_rect(fv, k, prefix) for k in range(len(fv.tensors))]
    if view is not None:
        steps = max(fv.steps, 1)
        for k, s in enumerate(view.staging):
            out.append(Rect(0, s.offset, steps, s.size, "staging", s.name, f"{prefix}s{k}", ""))
    return out


def _tensor_rect(fv: FunctionView, k: int, prefix: str) -> Rect:
    t = fv.tensors[k]
    hatch = BRANCH_HATCH[t.path[-1][1] % len(BRANCH_HATCH)] if t.path else ""
    return Rect(t.start, t.offset, t.end - t.start, t.size, t.kind, t.name, f"{prefix}t{k}", hatch)


@dataclass(frozen=True)
class Bar:
    """A busy interval of the DMA timeline: ``row`` counts from the top (two per Region)."""

    row: int
    lane: str
    start: int
    end: int
    label: str


def timeline_bars(fv: FunctionView) -> tuple[list[Bar], list[str]]:
    """Bars of the (at most :data:`MAX_TIMELINE_REGIONS` longest) Regions, and the row titles."""
    regions = sorted(fv.timelines, key=lambda r: (-r.pingpong * r.runs, r.name))[:MAX_TIMELINE_REGIONS]
    regions.sort(key=lambda r: fv.timelines.index(r))
    bars, titles = [], []
    for k, r in enumerate(regions):
        eta = "-" if r.eta is None else f"{r.eta:.2f}"
        runs = f" ×{r.runs}" if r.runs != 1 else ""
        titles += [f"{r.name}{runs}\nT {r.pingpong} (serial {r.serial}) η {eta}", "DMA"]
        for e in r.events:
            row = 2 * k + (0 if e.lane in ("compute", "wait") else 1)
            bars.append(Bar(row, e.lane, e.start, e.end, e.label))
    return bars, titles


def _mpl():
    try:
        import matplotlib
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise RuntimeError("pictures need matplotlib: pip install 'memopt[report]'") from None
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "memopt"
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt

    return plt


def _fits(ax, fig, r: Rect, label: str) -> bool:
    x0, y0 = ax.transData.transform((r.x, r.y))
    x1, y1 = ax.transData.transform((r.x + r.w, r.y + r.h))
    return abs(x1 - x0) >= 5.5 * len(label) + 4 and abs(y1 - y0) >= 10


def _add_rects(ax, rects: list[Rect]) -> None:
    from matplotlib.patches import Rectangle

    for r in rects:
        filled = COLOURS[r.kind] != "none"
        p = Rectangle(
            (r.x, r.y), r.w, r.h, facecolor=COLOURS[r.kind] if filled else "none",
            edgecolor="#333333" if filled else "#d62728", linewidth=0.4 if filled else 0.8,
            linestyle="-" if filled else "--", hatch=r.hatch or None,
        )
        p.set_gid(r.gid)
        p.set_in_layout(False)  # inside the axes anyway; the layout engine need not measure each
        ax.add_artist(p)  # not add_patch: the limits are set, so skip its per-patch autoscaling


MAX_LABELS = 60


def drawn_tensors(fv: FunctionView) -> list[int]:
    """Indices of the tensors of ``fv`` drawn one by one (own SVG id ``t<k>``, hover, table row),
    in plan order: all of them, or past :data:`MAX_DRAWN_BOXES` the largest boxes (bytes ×
    steps; ties by index); the others are aggregated (:func:`_add_aggregate`)."""
    n = len(fv.tensors)
    if n <= MAX_DRAWN_BOXES:
        return list(range(n))
    import numpy as np

    area = np.fromiter(((t.end - t.start) * t.size for t in fv.tensors), dtype=np.float64, count=n)
    order = np.lexsort((np.arange(n), -area))[:MAX_DRAWN_BOXES]
    return sorted(int(k) for k in order)


def _add_aggregate(ax, fv: FunctionView, drawn: list[int]) -> int:
    """The tensors of ``fv`` not in ``drawn``, aggregated: one rasterised compound path per kind
    (built from arrays: no per-box objects, one image in an SVG however many boxes), filled by
    kind with edges in the fill colour (a sub-pixel box stays its colour, not a dark outline),
    views as red outlines; no hatches, ids or labels (nothing to hover at that size). Returns
    how many tensors it drew."""
    import numpy as np
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path

    n = len(fv.tensors)
    mask = np.ones(n, dtype=bool)
    mask[drawn] = False
    idx = np.flatnonzero(mask)
    ts = fv.tensors
    by_kind: dict[str, list[int]] = {}
    for k in idx.tolist():
        by_kind.setdefault(ts[k].kind, []).append(k)
    quad = np.array([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY], dtype=Path.code_type)
    for kind in (k for k in KINDS + tuple(COLOURS) if k in by_kind):
        ks = by_kind.pop(kind)
        x0, y0, x1, y1 = np.array([(ts[k].start, ts[k].offset, ts[k].end, ts[k].top) for k in ks], dtype=np.float64).T
        verts = np.stack([np.stack(c, 1) for c in ((x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0))], 1)
        filled = COLOURS[kind] != "none"
        p = PathPatch(Path(verts.reshape(-1, 2), np.tile(quad, len(ks))), facecolor=COLOURS[kind] if filled else "none",
                      edgecolor=COLOURS[kind] if filled else "#d62728", linewidth=0.3)
        p.set_rasterized(True)
        p.set_gid(f"aggregated-{kind}")
        p.set_in_layout(False)
        ax.add_artist(p)
    return len(idx)


def _label_rects(ax, fig, rects: list[Rect]) -> None:
    """Names inside the largest boxes that can hold them, never over a box already labelled (a
    box written in place or a view overlaps its source)."""
    done: list[Rect] = []
    for r in sorted(rects, key=lambda r: (-(r.w * r.h), r.gid)):
        if len(done) >= MAX_LABELS:
            break
        if r.kind == "view" or not _fits(ax, fig, r, r.label):
            continue
        cx, cy = r.x + r.w / 2, r.y + r.h / 2
        if any(d.x <= cx <= d.x + d.w and d.y <= cy <= d.y + d.h for d in done):
            continue
        done.append(r)
        ax.text(cx, cy, r.label, fontsize=6, ha="center", va="center", clip_on=True).set_in_layout(False)


def _hlines(ax, x: float, lines: list[tuple[str, int, str]]) -> None:
    """Horizontal reference lines, labelled at the right; lines at the same height share a label."""
    merged: dict[int, list[tuple[str, str]]] = {}
    for label, y, colour in lines:
        merged.setdefault(y, []).append((label, colour))
    for y, named in merged.items():
        colour = named[0][1]
        ax.axhline(y, color=colour, linewidth=0.9, linestyle="--")
        text = " = ".join(n for n, _ in named)
        ax.text(x, y, f" {text} {y}", color=colour, fontsize=7, va="center", ha="left", clip_on=False)


def draw_layout(ax, fig, fv: FunctionView, view: PlanView | None = None, prefix: str = "") -> None:
    """The arena: one rectangle per tensor; the branches of every ``if`` as shaded step spans
    (tensors inside a branch are hatched by branch, so bytes shared between branches show as
    overlapping hatches); lines for the arena size, the bounds and the capacity."""
    from matplotlib.patches import Patch

    many = len(fv.tensors) > MAX_DRAWN_BOXES
    top: float
    if many:  # only the drawn boxes become Rects; the rest go to the aggregate as arrays
        drawn = drawn_tensors(fv)
        rects = [_tensor_rect(fv, k, prefix) for k in drawn]
        top = max(fv.arena_size, fv.lower_bound, max(t.top for t in fv.tensors), 1)
        kinds = {t.kind for t in fv.tensors}
    else:
        rects = [r for r in layout_rects(fv, view, prefix) if r.kind != "staging"]
        top = max([fv.arena_size, fv.lower_bound, *(r.y + r.h for r in rects), 1])
        kinds = {r.kind for r in rects}
    capacity = view.capacity if view is not None else None
    if capacity is not None and capacity <= 2 * top:
        top = max(top, capacity)
    steps = max(fv.steps, 1)
    ax.set_xlim(0, steps)
    ax.set_ylim(0, top * 1.04)
    for b in fv.branches:
        ax.axvspan(b.start, b.end, color="#000000", alpha=0.04 + 0.03 * (b.branch % 2), lw=0)
        name = ("then", "else")[b.branch] if b.branch < 2 else str(b.branch)
        ax.text(b.start, 0.005 + 0.03 * (b.branch % 2) + 0.06 * (len(b.path) % 3), f"if{b.if_id}.{name}",
                fontsize=6, va="bottom", clip_on=True, transform=ax.get_xaxis_transform())
    if many:  # the aggregate first, so the boxes drawn one by one lie on top of it
        rest = _add_aggregate(ax, fv, drawn)
        note = (f"{len(fv.tensors)} tensors: the {len(rects)} largest (bytes × steps) drawn one by one; {rest} more "
                "tensors aggregated into one raster layer (no hover or labels; the text report lists every tensor)")
        fig.text(0.5, 1 - 0.03 / fig.get_figheight(), note, fontsize=7, color="#d62728", ha="center", va="top")
    _add_rects(ax, rects)
    _label_rects(ax, fig, rects)
    lines = [("arena", fv.arena_size, "#d62728"), ("LB", fv.lower_bound, "#2ca02c")]
    if fv.lower_bound_inplace is not None and fv.lower_bound_inplace != fv.lower_bound:
        lines.append(("LB in-place", fv.lower_bound_inplace, "#17becf"))
    if capacity is not None and capacity <= top * 1.04:
        lines.append(("capacity", capacity, "#9467bd"))
    _hlines(ax, steps, lines)
    used = [k for k in KINDS if k in kinds]
    handles = [Patch(facecolor=COLOURS[k] if COLOURS[k] != "none" else "white",
                     edgecolor="#d62728" if k == "view" else "#333333", label=k) for k in used]
    if handles:
        ax.legend(handles=handles, fontsize=6, loc="lower left", bbox_to_anchor=(0, 1.0), ncols=min(len(handles), 8),
                  frameon=False)
    ax.set_xlabel("op step")
    ax.set_ylabel("arena offset (bytes)")
    ax.xaxis.get_major_locator().set_params(integer=True)


def draw_staging(ax, fig, fv: FunctionView, view: PlanView, prefix: str = "") -> None:
    """The on-chip bytes above the arena: the DMA staging buffers (ping-pong ``alloc0``/``alloc1``
    or the ring), live for the whole run. Own panel and scale: they can dwarf the arena."""
    rects = [r for r in layout_rects(fv, view, prefix) if r.kind == "staging"]
    steps = max(fv.steps, 1)
    low = min(r.y for r in rects)
    high = max([r.y + r.h for r in rects] + [view.onchip_size or 0])
    ax.set_xlim(0, steps)
    ax.set_ylim(low, high + (high - low) * 0.04 + 1)
    _add_rects(ax, rects)
    _label_rects(ax, fig, rects)
    lines = []
    if view.onchip_size is not None:
        lines.append(("on-chip total", view.onchip_size, "#7f7f7f"))
    if view.capacity is not None and low <= view.capacity <= high * 1.5:
        lines.append(("capacity", view.capacity, "#9467bd"))
        ax.set_ylim(low, max(high, view.capacity) * 1.04)
    _hlines(ax, steps, lines)
    ax.set_ylabel("staging", fontsize=7)
    ax.tick_params(labelbottom=False, labelsize=6)


_SERIES_COLOURS = ("#f28e2b", "#8c564b", "#e377c2")


def draw_live(ax, fv: FunctionView, series: tuple = ()) -> None:
    steps, live = live_curve(fv)
    curve_x, curve_y = list(steps), list(live)
    if len(live):  # hold the last value to the end of the last step
        curve_x.append(int(steps[-1]) + 1)
        curve_y.append(int(live[-1]))
    ax.step(curve_x, curve_y, where="post", color="#4e79a7", linewidth=1.0, label="live bytes (heaviest path, in-place pairs once)")
    for k, (label, xs, ys) in enumerate(series):  # colours apart from the live curve's and the lines'
        ax.step(xs, ys, where="post", linewidth=1.0, label=label, color=_SERIES_COLOURS[k % len(_SERIES_COLOURS)])
    ax.axhline(fv.lower_bound, color="#2ca02c", linestyle="--", linewidth=0.9, label=f"lower bound {fv.lower_bound}")
    if fv.lower_bound_inplace is not None and fv.lower_bound_inplace != fv.lower_bound:
        ax.axhline(fv.lower_bound_inplace, color="#17becf", linestyle="--", linewidth=0.9,
                   label=f"lower bound in-place {fv.lower_bound_inplace}")
    ax.axhline(fv.arena_size, color="#d62728", linestyle="--", linewidth=0.9, label=f"arena {fv.arena_size}")
    p = peak(fv)
    if len(live):
        ax.plot([p.step], [p.live_bytes], marker="v", color="#d62728")
        top = ", ".join(f"{t.name} {t.size}" for t in p.tensors[:5])
        ax.annotate(f"peak at step {p.step}: {top}", (p.step, p.live_bytes), fontsize=6,
                    xytext=(4, -12), textcoords="offset points")
    ax.set_xlim(0, max(fv.steps, 1))
    highest = max((max(ys, default=0) for _, _, ys in series), default=0)  # e.g. the curve before tiling
    ax.set_ylim(0, max(fv.arena_size, fv.lower_bound, highest, 1) * 1.1)
    ax.set_xlabel("op step")
    ax.set_ylabel("bytes")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.legend(fontsize=6, loc="lower right")


def draw_timeline(ax, fv: FunctionView) -> None:
    bars, titles = timeline_bars(fv)
    colours = {"compute": "#4e79a7", "dma": "#f28e2b", "wait": "#d62728"}
    for lane in ("compute", "wait", "dma"):
        rows: dict[int, list] = {}
        for b in bars:
            if b.lane == lane:
                rows.setdefault(b.row, []).append((b.start, b.end - b.start))
        for row, spans in rows.items():
            ax.broken_barh(spans, (row - 0.4, 0.8), facecolors=colours[lane], edgecolor="#333333", linewidth=0.2)
    ax.set_yticks(range(len(titles)), titles, fontsize=6)
    ax.set_ylim(len(titles) - 0.5, -0.5)
    ax.set_xlabel("cycles from the Region's start (compute lane: blue = compute, red = stalled on a DMA wait)")


def render(view: PlanView, fv: FunctionView, fmt: str, series: tuple = (), prefix: str = "") -> bytes:
    """One figure as ``svg`` or ``png`` bytes: the staging buffers (when ``insert-dma`` placed
    some), the arena layout, the live-bytes curve and (when weights move) the DMA timeline."""
    plt = _mpl()
    if fv.staging or fv.onchip_size is not None:  # the function's own staging panel (upstream IR)
        view = replace(view, staging=fv.staging, onchip_size=fv.onchip_size)
    dma = has_dma(fv)
    staging = bool(view.staging)
    n_rows = len(timeline_bars(fv)[1]) if dma else 0
    heights = ([1.0] if staging else []) + [5, 2.5] + ([max(1.5, 0.35 * n_rows)] if dma else [])
    # A fixed layout, not matplotlib's constrained one: that one iterates on text extents and
    # can move the axes by a fraction of a pixel between renders, which changes the SVG's ids.
    total = sum(heights) + 0.6 * len(heights) + 0.8
    fig, axes = plt.subplots(
        len(heights), 1, figsize=(11, total), height_ratios=heights,
        gridspec_kw=dict(left=0.16, right=0.83, top=1 - 0.55 / total, bottom=0.45 / total, hspace=0.6 * len(heights) / sum(heights)),
    )
    try:
        k = 0
        title_ax = axes[0]
        if staging:
            draw_staging(axes[0], fig, fv, view, prefix)
            k = 1
        draw_layout(axes[k], fig, fv, view, prefix)
        title_ax.set_title(f"@{fv.name}: arena {fv.arena_size} B, lower bound {fv.lower_bound} B, {fv.strategy}"
                           + (f"; on-chip total {view.onchip_size} B" if view.onchip_size is not None else ""),
                           fontsize=9, pad=16 if not staging else 6)
        draw_live(axes[k + 1], fv, series)
        if dma:
            draw_timeline(axes[k + 2], fv)
        buf = io.BytesIO()
        if fmt == "svg":
            fig.savefig(buf, format="svg", metadata={"Date": None})
        else:
            fig.savefig(buf, format="png", dpi=90, metadata={"Software": None})
        return buf.getvalue()
    finally:
        plt.close(fig)


__all__ = ["MAX_DRAWN_BOXES", "Bar", "Rect", "draw_layout", "drawn_tensors", "draw_live", "draw_staging", "draw_timeline", "has_dma", "layout_rects", "render", "timeline_bars"]
