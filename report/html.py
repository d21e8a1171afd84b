"""A self-contained HTML page: the summary, every function's pictures (inline SVG) and the
tensor table, with the tensor's details on hover. No network: no CDN, no external script or
font; the few lines of script only map the SVG ids of :mod:`memopt.report.figures` to the
tensor rows embedded as JSON."""

from __future__ import annotations

import html
import json

from .figures import drawn_tensors, render
from .model import PlanView
from .summary import summary_text

_SCRIPT = """
const info = JSON.parse(document.getElementById('memopt-tensors').textContent);
const tip = document.getElementById('tip');
for (const [id, text] of Object.entries(info)) {
  const el = document.getElementById(id);
  if (!el) continue;
  el.addEventListener('mousemove', e => {
    tip.textContent = text; tip.style.display = 'block';
    tip.style.left = (e.pageX + 12) + 'px'; tip.style.top = (e.pageY + 12) + 'px';
  });
  el.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
}
"""

_STYLE = """
body { font-family: sans-serif; margin: 1.5em; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; }
table { border-collapse: collapse; font-size: 12px; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
td:first-child, th:first-child { text-align: left; }
#tip { position: absolute; display: none; background: #ffffe0; border: 1px solid #999;
       padding: 3px 6px; font-size: 12px; pointer-events: none; white-space: pre; }
"""


def _svg_body(data: bytes) -> str:
    """The ``<svg>`` element without its XML prologue and RDF metadata block (which names
    vocabularies by URL: harmless, but a page that needs no network should not even look so)."""
    text = data.decode("utf-8")
    text = text[text.index("<svg"):]
    a, b = text.find("<metadata>"), text.find("</metadata>")
    if a >= 0 and b > a:
        text = text[:a] + text[b + len("</metadata>"):]
    return text


def html_page(view: PlanView, series_of=lambda fv: ()) -> str:
    """The page for ``view`` (deterministic)."""
    parts = [
        "<!DOCTYPE html>", "<html><head><meta charset='utf-8'>",
        f"<title>memopt plan: {html.escape(view.source)}</title>", f"<style>{_STYLE}</style></head><body>",
        f"<h1>memopt plan: {html.escape(view.source)}</h1>", "<div id='tip'></div>",
        f"<pre>{html.escape(summary_text(view, tensors=False))}</pre>",
    ]
    info: dict[str, str] = {}
    for i, fv in enumerate(view.functions):
        prefix = f"f{i}"
        parts.append(f"<h2>@{html.escape(fv.name)}</h2>")
        parts.append(_svg_body(render(view, fv, "svg", series_of(fv), prefix)))
        parts.append("<table><tr><th>tensor</th><th>size</th><th>lifetime</th><th>offset</th><th>kind</th><th>detail</th></tr>")
        drawn = drawn_tensors(fv)
        for k in drawn:
            t = fv.tensors[k]
            info[f"{prefix}t{k}"] = f"{t.name}\n{t.size} B at offset {t.offset}\nsteps [{t.start}, {t.end})\n{t.kind}" + (
                f"\n{t.detail}" if t.detail else "")
            parts.append(
                f"<tr><td>{html.escape(t.name)}</td><td>{t.size}</td><td>[{t.start}, {t.end})</td>"
                f"<td>{t.offset}</td><td>{t.kind}</td><td>{html.escape(t.detail)}</td></tr>"
            )
        if len(drawn) < len(fv.tensors):  # a large plan: its largest boxes, the rest aggregated
            more = len(fv.tensors) - len(drawn)
            parts.append(f"<tr><td colspan='6'>… {more} more tensors aggregated (only the {len(drawn)} largest, by "
                         "bytes × steps, are listed and drawn one by one; the text report lists every tensor)</td></tr>")
        parts.append("</table>")
        for k, s in enumerate(fv.staging or view.staging):
            info[f"{prefix}s{k}"] = f"{s.name}\nDMA staging buffer, {s.size} B at on-chip offset {s.offset}"
    data = json.dumps(info, sort_keys=True).replace("</", "<\\/")
    parts.append(f"<script type='application/json' id='memopt-tensors'>{data}</script>")
    parts.append(f"<script>{_SCRIPT}</script></body></html>")
    return "\n".join(parts) + "\n"


__all__ = ["html_page"]
