"""memopt-report: the pictures and tables show exactly the plan in the IR.

Every assertion compares the report with an independent source: the CSV that ``plan-memory``
exports while planning (ids, intervals, sizes, offsets), the plan attributes in the printed IR,
the planning core's lower bound, the latency model's own total, and the rendered SVG itself.
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from memopt.executor.graphgen import GenConfig, generate
from memopt.dialects.plan_attr_names import ONCHIP_SIZE_ATTR
from memopt.passes.insert_dma import InsertDmaPass
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.planning import Buffer, Problem, nested_lower_bound
from memopt.planning.latency import Run, Start, Target, Wait, simulate
from memopt.report.figures import has_dma, layout_rects, render, timeline_bars
from memopt.report.from_csv import plan_view_of_csv
from memopt.report.from_ir import plan_view
from memopt.report.html import html_page
from memopt.report.model import FunctionView, TensorBox, live_curve, peak
from memopt.report.summary import summary_text
from memopt.dialects.context import make_context
from memopt.tools.report import main as report_main
from xdsl.parser import Parser
from xdsl.printer import Printer

CHAIN = """
builtin.module {
  memopt.global @w1 : tensor<8x3x3x3xf32>
  memopt.global @w2 : tensor<8x8x3x3xf32>
  func.func @main(%x: tensor<1x3x16x16xf32>) -> tensor<1x8x16x16xf32> {
    %c1w = memopt.get_global @w1 : tensor<8x3x3x3xf32>
    %c1 = memopt.compute "conv2d"(%x, %c1w) {cost = 55296 : i64} : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x16x16xf32>
    %r1 = memopt.compute "relu"(%c1) {inplace = array<i64: 0>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %c2w = memopt.get_global @w2 : tensor<8x8x3x3xf32>
    %c2 = memopt.compute "conv2d"(%r1, %c2w) {cost = 147456 : i64} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
    %sum = memopt.compute "add"(%c2, %r1) : (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %out = memopt.compute "relu"(%sum) {inplace = array<i64: 0>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    func.return %out : tensor<1x8x16x16xf32>
  }
}
"""


def parse(text: str):
    return Parser(make_context(), text).parse_module()


def planned(text: str, tmp_path, *, dma: bool = False, **options):
    """Plan ``text`` (exporting the plan's CSV) and return (module, exported rows)."""
    module = parse(text)
    export = tmp_path / "plan.csv"
    ctx = make_context()
    PlanMemoryPass(export=str(export), **options).apply(ctx, module)
    if dma:
        InsertDmaPass().apply(ctx, module)
    rows = list(csv.DictReader(io.StringIO(export.read_text())))
    return module, rows


def printed(module) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def assert_boxes_are_the_exported_plan(fv: FunctionView, rows) -> None:
    boxes = {t.name: t for t in fv.arena_tensors}
    assert len(boxes) == len(fv.arena_tensors) == len(rows)
    for r in rows:
        t = boxes[r["id"]]
        assert (t.start, t.end, t.size, t.offset) == (int(r["lower"]), int(r["upper"]), int(r["size"]), int(r["offset"]))


# --------------------------------------------------------------------------- the model is the plan


def test_chain_report_is_the_plan(tmp_path):
    module, rows = planned(CHAIN, tmp_path, dma=True)
    view = plan_view(module, "chain.mlir", Target())
    fv, = view.functions
    assert_boxes_are_the_exported_plan(fv, rows)
    kinds = {t.name: t.kind for t in fv.tensors}
    assert kinds["x"] == "input" and kinds["out"] == "output"
    # Summary numbers are the attributes printed in the IR.
    text = printed(module)
    arena, lb = map(int, re.search(r"arena_size = (\d+), lower_bound = (\d+)", text).groups())
    summary = summary_text(view)
    assert re.search(rf"arena size +{arena} B", summary)
    assert re.search(rf"lower bound +{lb} B", summary)
    assert view.onchip_size == module.attributes[ONCHIP_SIZE_ATTR].value.data
    assert re.search(rf"on-chip total +{view.onchip_size} B", summary)
    assert len(view.staging) == 2 and all(s.offset >= arena for s in view.staging)
    # The live curve peaks at the lower bound, and the peak's tensors add up to it.
    _, live = live_curve(fv)
    p = peak(fv)
    assert live.max() == lb == p.live_bytes == sum(t.size for t in p.tensors)
    assert [t.size for t in p.tensors] == sorted((t.size for t in p.tensors), reverse=True)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), mode=st.sampled_from(["joint", "serial", "merge", "flat"]))
def test_random_programs_report_their_exported_plan(tmp_path_factory, seed, mode):
    text = generate(random.Random(seed), GenConfig(max_ops=8, max_depth=2))
    module, rows = planned(text, tmp_path_factory.mktemp("r"), **{"control_flow": mode})
    view = plan_view(module, "g.mlir", Target())
    fv, = view.functions
    assert_boxes_are_the_exported_plan(fv, rows)
    assert all(t.top <= fv.arena_size for t in fv.tensors)
    # The curve is what the plan must occupy (in-place pairs share bytes): never above the arena,
    # and without in-place pairs it peaks at the path-aware bound of the boxes.
    _, live = live_curve(fv)
    assert int(live.max(initial=0)) <= fv.arena_size
    if not any(t.inplace_of for t in fv.tensors):
        problem = Problem(tuple(Buffer(str(k), t.size, t.start, t.end, 1, t.path) for k, t in enumerate(fv.arena_tensors)))
        assert int(live.max(initial=0)) == (nested_lower_bound(problem) if len(problem) else 0)
    assert peak(fv).live_bytes == sum(t.size for t in peak(fv).tensors)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 8), st.integers(0, 100),
                          st.sampled_from([(), ((0, 0),), ((0, 1),), ((0, 0), (1, 1)), ((0, 0), (1, 0))])),
                min_size=1, max_size=25))
def test_live_curve_is_lb_nest(items):
    boxes = tuple(TensorBox(f"b{k}", 0, z, s, s + n, "buffer", p) for k, (s, n, z, p) in enumerate(items))
    fv = FunctionView("f", 0, 0, "given", boxes)
    steps, live = live_curve(fv)
    problem = Problem(tuple(Buffer(b.name, b.size, b.start, b.end, 1, b.path) for b in boxes))
    assert int(live.max()) == nested_lower_bound(problem)
    assert len(steps) == max(b.end for b in boxes)
    # Without branches the curve is the plain sum of live sizes at every step.
    if not any(b.path for b in boxes):
        for s in steps:
            assert live[s] == sum(b.size for b in boxes if b.start <= s < b.end)
    p = peak(fv)
    assert p.live_bytes == live.max() == sum(t.size for t in p.tensors)


def test_peak_picks_the_branch_with_the_heaviest_path_not_the_most_bytes():
    """Branch 0 of the outer ``if`` holds 1 + 58 bytes but split over an inner ``if``, so its
    heaviest path is 58; branch 1 holds 6 + 53 = 59 on one path and makes the peak (a case
    hypothesis found: summing every descendant picked branch 0 and listed 58 bytes)."""
    items = [(1, ((0, 0), (1, 1))), (6, ((0, 1),)), (53, ((0, 1),)), (58, ((0, 0), (1, 0)))]
    boxes = tuple(TensorBox(f"b{k}", 0, z, 0, 1, "buffer", path) for k, (z, path) in enumerate(items))
    p = peak(FunctionView("f", 0, 0, "given", boxes))
    assert p.live_bytes == 59
    assert [t.name for t in p.tensors] == ["b2", "b1"]


# --------------------------------------------------------------------------- pictures


def _svg_rects(svg: bytes) -> dict[str, tuple[float, float, float, float]]:
    """Bounding box of the path inside every ``<g id="t…">`` of a matplotlib SVG."""
    root = ET.fromstring(svg)
    out = {}
    for g in root.iter("{http://www.w3.org/2000/svg}g"):
        gid = g.get("id", "")
        if re.fullmatch(r"t\d+", gid):
            path, = [p for p in g.iter("{http://www.w3.org/2000/svg}path")][:1]
            nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", path.get("d"))]
            xs, ys = nums[0::2], nums[1::2]
            out[gid] = (min(xs), max(xs), min(ys), max(ys))
    return out


def test_svg_has_one_rectangle_per_tensor_at_its_plan_coordinates(tmp_path):
    text = generate(random.Random(7), GenConfig(max_ops=10, max_depth=1))
    module, rows = planned(text, tmp_path)
    view = plan_view(module, "g.mlir", Target())
    fv, = view.functions
    svg = render(view, fv, "svg")
    boxes = _svg_rects(svg)
    assert sorted(boxes) == sorted(f"t{k}" for k in range(len(fv.tensors)))
    # One affine map (step -> x, byte -> y, y downwards) places every rectangle.
    ts = list(fv.tensors)
    a = max(range(len(ts)), key=lambda k: ts[k].end - ts[k].start)
    b = max(range(len(ts)), key=lambda k: ts[k].size)
    x0a, x1a, _, _ = boxes[f"t{a}"]
    sx = (x1a - x0a) / (ts[a].end - ts[a].start)
    ox = x0a - sx * ts[a].start
    _, _, y0b, y1b = boxes[f"t{b}"]
    sy = (y1b - y0b) / ts[b].size
    oy = y1b + sy * ts[b].offset
    for k, t in enumerate(ts):
        x0, x1, y0, y1 = boxes[f"t{k}"]
        assert x0 == pytest.approx(ox + sx * t.start, abs=0.05)
        assert x1 == pytest.approx(ox + sx * t.end, abs=0.05)
        assert y1 == pytest.approx(oy - sy * t.offset, abs=0.05)
        assert y0 == pytest.approx(oy - sy * t.top, abs=0.05)


def test_layout_rects_and_timeline_come_from_the_model(tmp_path):
    module, _ = planned(CHAIN, tmp_path, dma=True)
    view = plan_view(module, "chain.mlir", Target())
    fv, = view.functions
    rects = layout_rects(fv, view)
    assert [(r.x, r.y, r.w, r.h) for r in rects[: len(fv.tensors)]] == [
        (t.start, t.offset, t.end - t.start, t.size) for t in fv.tensors
    ]
    assert [(r.y, r.h, r.kind) for r in rects[len(fv.tensors):]] == [(s.offset, s.size, "staging") for s in view.staging]
    assert has_dma(fv)
    bars, titles = timeline_bars(fv)
    region, = fv.timelines
    assert len(titles) == 2 and max(b.end for b in bars) == region.pingpong
    assert {b.label for b in bars if b.lane == "dma"} == {"load w1", "load w2"}


def test_output_is_deterministic_and_html_needs_no_network(tmp_path):
    module, _ = planned(CHAIN, tmp_path, dma=True)
    view = plan_view(module, "chain.mlir", Target())
    fv, = view.functions
    assert render(view, fv, "svg") == render(view, fv, "svg")
    page = html_page(view)
    assert page == html_page(view)
    assert not re.search(r"<(script|img|link)[^>]+(src|href)=", page)
    assert not re.search(r"url\(\s*['\"]?https?:", page)
    assert "http" not in re.sub(r'xmlns(:\w+)?="http[^"]*"|"http://www\.w3\.org[^"]*"', "", page)
    info = json.loads(re.search(r"id='memopt-tensors'>(.*?)</script>", page, re.S).group(1))
    for k, t in enumerate(fv.tensors):
        assert f'id="f0t{k}"' in page and info[f"f0t{k}"].startswith(t.name)


# --------------------------------------------------------------------------- the latency trace


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2000), st.lists(st.integers(1, 5000), max_size=2), st.booleans()),
                min_size=1, max_size=8))
def test_trace_is_the_schedule(ops):
    items = []
    for k, (macs, weights, pipelined) in enumerate(ops):
        if pipelined and weights:
            items += [Start(k * 10 + j, w) for j, w in enumerate(weights)]
            items += [Wait(k * 10 + j) for j in range(len(weights))]
            items.append(Run(macs))
        else:
            items.append(Run(macs, tuple(weights)))
    target = Target()
    trace: list = []
    total = simulate(items, target, trace)
    assert total == simulate(items, target)
    for lane in ("compute", "dma"):
        spans = sorted((e.start, e.end) for e in trace if e.lane == lane)
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))  # one core, one channel
    core = sorted((e.start, e.end) for e in trace if e.lane in ("compute", "wait"))
    assert all(a[1] <= b[0] for a, b in zip(core, core[1:]))
    assert max(e.end for e in trace) <= total
    assert sum(e.end - e.start for e in trace if e.lane == "compute") == sum(
        target.compute_cycles(it.macs) for it in items if isinstance(it, Run))


# --------------------------------------------------------------------------- CSV and the tool


def test_csv_plan_report(tmp_path):
    text = "id,lower,upper,size,offset\na,0,3,16,0\nb,1,4,8,16\nc,3,5,16,0\n"
    view = plan_view_of_csv(text, "p.csv")
    fv, = view.functions
    assert (fv.arena_size, fv.lower_bound) == (24, 24)
    assert [(t.name, t.offset) for t in fv.tensors] == [("a", 0), ("b", 16), ("c", 0)]
    p = tmp_path / "p.csv"
    p.write_text(text)
    assert report_main([str(p), "-o", str(tmp_path / "p.svg")]) == 0
    assert len(_svg_rects((tmp_path / "p.svg").read_bytes())) == 3


def test_tool_errors_are_one_line(tmp_path, capsys):
    unplanned = tmp_path / "u.mlir"
    unplanned.write_text(CHAIN)
    assert report_main([str(unplanned)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not planned: no 'memopt.plan' attribute (run memopt-opt --plan-memory first)" in err and f"{unplanned}:" in err
    assert report_main([str(unplanned), "-o", "x.pdf"]) == 1
    assert "unknown extension '.pdf'" in capsys.readouterr().err
    nooff = tmp_path / "n.csv"
    nooff.write_text("id,lower,upper,size\na,0,1,4\n")
    assert report_main([str(nooff)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no offset column" in err
    planned_file = tmp_path / "p.mlir"
    module, _ = planned(CHAIN, tmp_path)
    planned_file.write_text(printed(module))
    assert report_main([str(planned_file), "-o", str(tmp_path / "missing-dir" / "x.svg")]) == 1
    assert "cannot write" in capsys.readouterr().err
    assert report_main([str(planned_file), "--func", "nope"]) == 1
    assert "no function '@nope'" in capsys.readouterr().err


def test_live_curve_of_a_large_plan_is_the_difference_array():
    rng = np.random.default_rng(3)
    n = 20000
    starts = rng.integers(0, 5000, n)
    boxes = tuple(TensorBox(f"b{k}", 0, int(z), int(s), int(s) + int(d), "buffer")
                  for k, (s, d, z) in enumerate(zip(starts, rng.integers(1, 50, n), rng.integers(1, 1000, n))))
    fv = FunctionView("f", 0, 0, "given", boxes)
    steps, live = live_curve(fv)
    ref = np.zeros(len(steps), np.int64)
    np.add.at(ref, [b.start for b in boxes], [b.size for b in boxes])
    np.add.at(ref, [b.end for b in boxes if b.end < len(steps)], [-b.size for b in boxes if b.end < len(steps)])
    assert (live == np.cumsum(ref)).all()
