"""memopt-report on a plan of many tensors: what cannot be seen is aggregated, and says so.

A picture has far fewer pixels than a large plan has tensors, so past
:data:`~memopt.report.figures.MAX_DRAWN_BOXES` only the largest boxes are drawn (and listed) one
by one and the rest are one raster layer, announced in the picture and the page. Bounded by
the output's size, not by time: the SVG holds a bounded number of elements whatever the plan's
size, and the page lists a bounded number of rows. Small plans are the existing tests'.
"""

from __future__ import annotations

import json
import re

import pytest

from memopt.planning import PlanningError, make_strategy
from memopt.planning.csvio import write_solution
from memopt.planning.synthetic import nn_like
from memopt.report.figures import MAX_DRAWN_BOXES, drawn_tensors, render
from memopt.report.from_csv import plan_view_of_csv
from memopt.report.html import html_page
from memopt.report.model import FunctionView, TensorBox

N = 6_000  # three times the limit: aggregation is exercised; a few seconds in all


@pytest.fixture(scope="module")
def big_csv() -> str:
    problem = nn_like(N, seed=1)
    return write_solution(problem, make_strategy("large-first").plan(problem))


@pytest.fixture(scope="module")
def big_view(big_csv):
    return plan_view_of_csv(big_csv, "big.csv")


def test_large_plan_page_and_svg_are_bounded_and_announce_aggregation(big_view):
    fv = big_view.functions[0]
    assert len(fv.tensors) == N
    page = html_page(big_view)
    svg = page[page.index("<svg"):page.index("</svg>")]
    more = N - MAX_DRAWN_BOXES
    # the picture: the drawn boxes have their ids, the others none; the element count is bounded
    ids = re.findall(r'<g id="f0t(\d+)"', svg)
    assert len(ids) == MAX_DRAWN_BOXES
    assert sorted(int(k) for k in ids) == drawn_tensors(fv)
    assert len(re.findall(r"<(?:path|rect|use)\b", svg)) <= 3 * MAX_DRAWN_BOXES
    assert "<image" in svg  # the aggregated boxes, rasterised
    assert f"{more} more tensors aggregated into one raster layer" in svg
    # the page: one row and one hover entry per drawn tensor, and the rest announced
    assert page.count("<tr>") == 1 + MAX_DRAWN_BOXES + 1
    assert f"… {more} more tensors aggregated" in page
    data = page[page.index("id='memopt-tensors'>") + len("id='memopt-tensors'>"):]
    info = json.loads(data[:data.index("</script>")].replace("<\\/", "</"))
    assert len(info) == MAX_DRAWN_BOXES
    assert len(page) < 4_000_000


def test_large_plan_drawn_tensors_are_the_largest_boxes(big_view):
    fv = big_view.functions[0]
    drawn = set(drawn_tensors(fv))
    area = [(t.end - t.start) * t.size for t in fv.tensors]
    smallest_drawn = min(area[k] for k in drawn)
    assert all(area[k] <= smallest_drawn for k in range(N) if k not in drawn)


def test_large_plan_png_renders(big_view):
    data = render(big_view, big_view.functions[0], "png")
    assert data.startswith(b"\x89PNG")


def test_large_invalid_plan_is_still_refused(big_csv):
    lines = big_csv.splitlines()
    # row of a long-lived buffer moved onto another one live with it
    head = lines[0].split(",")
    rows = [line.split(",") for line in lines[1:]]
    lo, up, off, size = (head.index(c) for c in ("lower", "upper", "offset", "size"))
    a = max(range(len(rows)), key=lambda k: int(rows[k][size]))
    b = next(k for k in range(len(rows)) if k != a and int(rows[k][lo]) < int(rows[a][up])
             and int(rows[a][lo]) < int(rows[k][up]) and int(rows[k][size]) > 0)
    rows[b][off] = rows[a][off]
    text = "\n".join([lines[0]] + [",".join(r) for r in rows]) + "\n"
    with pytest.raises(PlanningError, match=r"big\.csv:\d+: invalid plan"):
        plan_view_of_csv(text, "big.csv")


def test_at_the_limit_every_tensor_is_drawn():
    boxes = tuple(TensorBox(f"t{k}", 0, 1, k, k + 1, "buffer") for k in range(MAX_DRAWN_BOXES))
    fv = FunctionView("f", 1, 1, "given", boxes)
    assert drawn_tensors(fv) == list(range(MAX_DRAWN_BOXES))
