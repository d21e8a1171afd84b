"""The text summary of a plan: what Arm Vela's ``--verbose-allocation`` prints, for memopt plans.

Per function: arena, lower bound (and the in-place bound), strategy, the peak step with the
tensors live there (largest first: what to shrink to lower the peak), the DMA Regions' figures,
the tiled runs, the comparison with the program it was transformed from (``--before``: both
peaks and both live-bytes curves), and the per-tensor table (name, size, lifetime, offset,
kind). Then the on-chip total (largest arena plus the staging buffers ``insert-dma`` placed) and
the capacity when one is known.
Every number is read from the plan (:mod:`memopt.report.model`), none re-planned.
"""

from __future__ import annotations

from .compare import comparison_lines
from .model import FunctionView, PlanView, has_dma, peak


def _table(head: tuple[str, ...], rows: list[tuple], right: set[int]) -> list[str]:
    cells = [tuple(str(c) for c in r) for r in [head, *rows]]
    widths = [max(len(r[k]) for r in cells) for k in range(len(head))]
    out = []
    for r in cells:
        out.append("  ".join(c.rjust(w) if k in right else c.ljust(w) for k, (c, w) in enumerate(zip(r, widths))).rstrip())
    return out


def _ratio(a: int, b: int) -> str:
    return "-" if b == 0 else f"{a / b:.3f}"


def _tiled(fv: FunctionView) -> list[str]:
    """The runs computed patch by patch: grid, the halos' recomputed MACs, what streams in."""
    if not fv.tiled:
        return []
    extra = sum(t.extra for t in fv.tiled)
    lines = [f"  tiled runs           {len(fv.tiled)}, {extra:+d} MACs recomputed by their halos"]
    rows = [(t.run, t.ops, t.grid, t.macs, f"{t.extra:+d}", f"{t.halo_pct:+.1f} %", ", ".join(t.streamed) or "-")
            for t in fv.tiled]
    return lines + ["    " + s for s in _table(("run", "ops", "grid", "MACs", "halo MACs", "halo", "streamed"), rows,
                                              {1, 3, 4, 5})]


def function_summary(fv: FunctionView, tensors: bool = True, before: FunctionView | None = None,
                     before_source: str = "") -> list[str]:
    lines = [f"function @{fv.name}"]
    lines.append(f"  arena size           {fv.arena_size} B")
    if fv.lower_bound_inplace is not None and fv.lower_bound_inplace != fv.lower_bound:
        lines.append(f"  lower bound          {fv.lower_bound} B (in-place reuse not counted)")
        lines.append(f"  lower bound in-place {fv.lower_bound_inplace} B (arena / bound = {_ratio(fv.arena_size, fv.lower_bound_inplace)})")
    else:
        lines.append(f"  lower bound          {fv.lower_bound} B (arena / bound = {_ratio(fv.arena_size, fv.lower_bound)})")
    lines.append(f"  strategy             {fv.strategy}")
    arena = fv.arena_tensors
    lines.append(f"  tensors              {len(arena)} in the arena" + (
        f", {len(fv.tensors) - len(arena)} views" if len(fv.tensors) > len(arena) else ""))
    p = peak(fv)
    if p.tensors:
        lines.append(f"  peak                 step {p.step}: {p.live_bytes} B live on the heaviest path")
        shown = p.tensors[:8]
        more = f", … {len(p.tensors) - len(shown)} more" if len(p.tensors) > len(shown) else ""
        lines.append("  live at the peak     " + ", ".join(f"{t.name} ({t.size} B)" for t in shown) + more)
    if has_dma(fv):
        lines.append("  DMA regions")
        rows = [
            (r.name, r.runs, r.serial, r.pingpong, r.lb, "-" if r.eta is None else f"{r.eta:.2f}")
            for r in fv.timelines
        ]
        lines += ["    " + s for s in _table(("region", "runs", "T_serial", "T_pingpong", "T_lb", "eta"), rows, {1, 2, 3, 4, 5})]
    lines += _own_onchip(fv)
    lines += _tiled(fv)
    if before is not None:
        lines += comparison_lines(before, fv, before_source)
    if tensors and fv.tensors:
        lines.append("  tensors")
        order = sorted(fv.tensors, key=lambda t: (t.start, t.offset, t.name))
        tensor_rows = [(t.name, t.size, f"[{t.start}, {t.end})", t.offset, t.kind) for t in order]
        lines += ["    " + s for s in _table(("name", "size", "lifetime", "offset", "kind"), tensor_rows, {1, 3})]
    return lines


def _own_onchip(fv: FunctionView) -> list[str]:
    """A function's own staging buffers and on-chip total (upstream IR), and its notes."""
    lines = []
    if fv.staging:
        lines.append("  staging buffers      " + ", ".join(f"{s.name} {s.size} B @ {s.offset}" for s in fv.staging))
    if fv.onchip_size is not None:
        lines.append(f"  on-chip total        {fv.onchip_size} B (arena + staging buffers)")
    lines += [f"  {note}" for note in fv.notes]
    return lines


def _onchip_used(view: PlanView) -> int:
    """Bytes on chip: the module's total, else the largest function's (its own staging
    included); arenas of other memory spaces are not on-chip bytes of the default one."""
    if view.onchip_size is not None:
        return view.onchip_size
    return max((f.onchip_size if f.onchip_size is not None else f.arena_size for f in view.functions if f.space == 0),
               default=0)


def summary_text(view: PlanView, tensors: bool = True) -> str:
    """The whole report as text (deterministic: same plan, same bytes)."""
    lines = [f"memopt-report: {view.source}"]
    if view.target:
        lines.append(f"target: {view.target}")
    for fv in view.functions:
        lines += function_summary(fv, tensors, view.before_of(fv), view.before_source)
    if view.staging:
        lines.append("on-chip")
        lines.append("  staging buffers      " + ", ".join(f"{s.name} {s.size} B @ {s.offset}" for s in view.staging))
    if view.onchip_size is not None:
        lines.append(f"  on-chip total        {view.onchip_size} B (largest arena + staging buffers)")
    if view.capacity is not None:
        used = _onchip_used(view)
        lines.append(f"capacity               {view.capacity} B ({'fits' if used <= view.capacity else 'EXCEEDED'}: {used} B used)")
    return "\n".join(lines) + "\n"


__all__ = ["function_summary", "summary_text"]
