"""The tile pass's arithmetic (memopt.planning.tiling) and its rewrite proven on a real vision model."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memopt.planning.tiling import Window, receptive, split


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 5), st.integers(1, 3), st.integers(1, 3), st.integers(0, 3), st.integers(1, 12), st.data())
def test_receptive_reads_exactly_the_window(k, s, d, begin, out_extent, data):
    """The cells read plus the padding around them are exactly what the patch's windows span,
    and the padding is only where the window crosses the input's border."""
    w = Window(k, s, d, begin)
    extent = max(1, (out_extent - 1) * s + w.span - begin - data.draw(st.integers(0, begin + 2 * s)))
    a = data.draw(st.integers(0, out_extent - 1))
    b = data.draw(st.integers(a + 1, out_extent))
    r = receptive(w, (a, b), extent)
    assert 0 <= r.cells[0] <= r.cells[1] <= extent
    assert r.pad_begin + (r.cells[1] - r.cells[0]) + r.pad_end == (b - a - 1) * s + w.span
    assert r.pad_begin == 0 or r.cells[0] == 0
    assert r.pad_end == 0 or r.cells[1] == extent


def test_split_covers_in_order():
    assert split(10, 3) == [(0, 4), (4, 7), (7, 10)]
    assert split(2, 5) == [(0, 1), (1, 2)]


MODEL = pathlib.Path.home() / ".cache/memopt-models/models/mediapipe/modules/face_detection/face_detection_short_range.tflite"


def _tool(name: str) -> str:
    return str(pathlib.Path(sys.executable).parent / name)


def _arena(path: pathlib.Path) -> int:
    return int(re.search(r"arena_size = (\d+)", path.read_text()).group(1))  # type: ignore[union-attr]


@pytest.mark.skipif(not MODEL.exists(), reason="bench/models.py has not fetched mediapipe's models")
def test_face_detection_tiled_is_bit_exact_and_smaller(tmp_path):
    """MediaPipe's BlazeFace: its 64x64 and 32x32 stages (17 ops) in 4 stripes, planned, proven
    bit-exact against the untiled model, in a smaller arena."""
    orig, tiled, plain = tmp_path / "fd.mlir", tmp_path / "tiled.mlir", tmp_path / "plain.mlir"
    subprocess.run([_tool("memopt-import"), str(MODEL), "-o", str(orig)], check=True)
    subprocess.run([_tool("memopt-opt"), str(orig), "-p", "plan-memory", "-o", str(plain)], check=True)
    subprocess.run([_tool("memopt-opt"), str(orig), "-p", "tile{first=conv2d last=activation_3 grid=4},plan-memory",
                    "-o", str(tiled)], check=True, capture_output=True)
    assert _arena(tiled) < 0.6 * _arena(plain)
    proof = subprocess.run([_tool("memopt-run"), str(tiled), "--check", "--against", str(orig)],
                           check=True, capture_output=True, text=True).stdout
    assert "planned execution matches unplanned" in proof and "2 results bit-exact" in proof


def test_choice_covers_hot_ops_with_the_cheapest_runs():
    from memopt.planning.tile_choice import Option, fit, smallest

    live = [10, 50, 60, 20, 40, 10]
    options = [Option(1, 2, (2, 1), 30, 5), Option(1, 2, (4, 1), 25, 9), Option(0, 3, (2, 2), 28, 3),
               Option(4, 4, (2, 1), 15, 1)]
    assert fit(live, options, 30) == [options[2], options[3]]  # cheaper than (1, 2) + (4, 4)
    assert fit(live, options, 20) is None
    assert smallest(live, options) == (25, [options[1], options[3]])
    assert smallest(live, options, max_extra=5) == (28, [options[2], options[3]])


def test_choice_streams_only_when_nothing_whole_fits():
    from memopt.planning.tile_choice import Option, fit_preferring, smallest

    live = [10, 50, 10]
    whole = Option(1, 1, (2, 1), 30, 8)
    streamed = Option(1, 1, (2, 1), 20, 2, stream=True)
    assert fit_preferring(live, [whole, streamed], 30) == [whole]  # more MACs, but nothing moves off chip
    assert fit_preferring(live, [whole, streamed], 30, prefer_whole=False) == [streamed]
    assert fit_preferring(live, [whole, streamed], 30, max_extra=5) == [streamed]  # the whole one is over budget
    assert fit_preferring(live, [whole, streamed], 25) == [streamed]
    assert fit_preferring(live, [whole], 25) is None
    assert smallest(live, [whole, streamed]) == (20, [streamed])


def test_stream_reads_rows_of_a_home_only_when_they_are_contiguous():
    from xdsl.dialects.builtin import IntegerType, TensorType, f32

    from memopt.passes.tile_stream import stripe_contiguous

    assert stripe_contiguous(TensorType(f32, [1, 8, 8, 3]), 1)  # NHWC: rows of whole W x C
    assert not stripe_contiguous(TensorType(f32, [1, 3, 8, 8]), 2)  # NCHW: channels before the rows
    assert stripe_contiguous(TensorType(f32, [1, 1, 8, 8]), 2)
    assert not stripe_contiguous(TensorType(IntegerType(4), [1, 8, 8, 3]), 1)  # half-byte elements


def test_choice_counts_homes_only_when_nothing_held_on_chip_fits():
    from memopt.planning.tile_choice import Option, fit_preferring, smallest

    live, homed_live = [10, 50, 40, 10], [10, 50, 20, 10]  # op 2 fits only with what crosses it off chip
    held = Option(1, 1, (2, 1), 30, 4)
    homed = Option(1, 1, (2, 1), 20, 1, stream=True, homed=True)
    assert fit_preferring(live, [held, homed], 40, live_homed=homed_live) == [held]
    assert fit_preferring(live, [held, homed], 30, live_homed=homed_live) == [homed]
    assert fit_preferring(live, [held, homed], 30) is None  # no homes without their live bytes
    assert fit_preferring(live, [held, homed], 20, live_homed=homed_live) == [homed]
    assert smallest(live, [held, homed], live_homed=homed_live) == (20, [homed])


def test_report_reads_the_runs_tile_records():
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp, StringAttr

    from memopt.diagnostics import MemoptError
    from memopt.passes.tile_record import TILED_ATTR, in_program_order, record_run
    from memopt.report.from_ir import tiled_runs

    f = func.FuncOp("main", ((), ()))
    assert tiled_runs(f) == ()
    record_run(f, "c3..r", 2, (8, 4), 4608, 0, ["d2", "c1"])
    record_run(f, "c1..c1", 1, (4, 1), 200, 50)
    in_program_order(f, 2)
    runs = tiled_runs(f)
    assert [r.run for r in runs] == ["c1..c1", "c3..r"]
    assert runs[0].halo_pct == 25.0 and runs[0].streamed == () and runs[1].streamed == ("d2", "c1")
    f.attributes[TILED_ATTR] = StringAttr("c1..c1")
    ModuleOp([f])
    with pytest.raises(MemoptError, match="is not what tile records"):
        tiled_runs(f)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_channel_shuffle_is_the_reshape_transpose_and_pointwise(layout):
    import numpy as np

    from memopt.executor import window

    x = np.arange(2 * 6 * 4 * 5, dtype=np.float32).reshape((2, 6, 4, 5) if layout == "NCHW" else (2, 4, 5, 6))
    attrs = {"groups": 3, "layout": layout}
    y = window.channel_shuffle([x], x.shape, x.dtype, attrs)
    c = 1 if layout == "NCHW" else 3
    split = x.shape[:c] + (3, 2) + x.shape[c + 1:]
    perm = list(range(5))
    perm[c], perm[c + 1] = c + 1, c
    assert np.array_equal(y, window.transpose([x.reshape(split)], tuple(np.array(split)[perm]), x.dtype,
                                              {"perm": perm}).reshape(x.shape))
    patch = (slice(None), slice(None), slice(1, 3), slice(2, 4)) if layout == "NCHW" else \
        (slice(None), slice(1, 3), slice(2, 4), slice(None))
    assert np.array_equal(window.channel_shuffle([x[patch]], x[patch].shape, x.dtype, attrs), y[patch])
    assert window.channel_shuffle([x], x.shape, x.dtype, {"groups": 4, "layout": layout}) is None  # 6 % 4


def test_homes_skip_a_runs_own_values_not_the_branch_beside_it():
    from xdsl.parser import Parser

    from memopt.dialects.context import make_context
    from memopt.dialects.memopt import IDENT_ATTR, ComputeOp
    from memopt.passes.tile import TilePass
    from memopt.passes.tile_stream import _inside_run

    ctx = make_context()
    text = (pathlib.Path(__file__).parents[1] / "filecheck" / "tile" / "Inputs" / "branch.mlir").read_text()
    module = Parser(ctx, text).parse_module()
    TilePass(first="c1", last="c2", grid="2").apply(ctx, module)
    ops = {op.results[0].name_hint: op for op in module.walk() if isinstance(op, ComputeOp) and op.results}
    assert IDENT_ATTR in ops["b"].attributes  # the other branch's op among the run's keeps its identity
    assert not _inside_run(ops["b"].results[0])  # ... and may wait off chip like any other value
    assert _inside_run(ops["c2.p0"].results[0])  # a patch inserted into the run's output
    assert _inside_run(ops["c2.tiled"].results[0])  # the output while patches go in
    assert not _inside_run(ops["c2"].results[0])  # the output the run leaves behind
