"""``memopt-report``: see a plan — layout picture, live-bytes curve, DMA timeline, summary.

    memopt-report PLANNED.mlir                  text summary on stdout (Vela-style tables)
    memopt-report PLANNED.mlir -o plan.html     one self-contained page (pictures, tables, hover)
    memopt-report PLANNED.mlir -o plan.svg      the pictures of one function (.svg or .png)
    memopt-report PLAN.csv -o plan.svg          a plan CSV (memopt-pack output, plan-memory export)
    memopt-report TILED.mlir --before ORIG.mlir the live bytes beside the untransformed program's (both planned)

The report is read from the plan in the input alone (offsets and arena size from the plan
attributes, lifetimes from the IR, DMA schedule from its ``dma_start``/``dma_wait`` ops): nothing
is re-planned, so it shows exactly what was planned. Upstream (``func``/``memref``) plans are read
by the one reader of upstream plans (arena views and their offsets; one picture per memory
space's arena; the DMA timeline from their ``memref.dma_start``/``dma_wait`` ops). A plan that is not
sound (overlap, a tensor past the arena, an arena below its lower bound, recorded sizes or
bounds the tensors contradict) is a located error, exit 1, never a picture. The format follows ``-o``'s extension
(``.txt``, ``.html``, ``.svg``, ``.png``; stdout is text). A picture shows one function: ``--func``,
else ``@main``, else the first planned function. A plan of more tensors than a picture can show
(``memopt.report.figures.MAX_DRAWN_BOXES``) draws and lists its largest ones one by one and the
rest as one aggregated layer, and says so in the picture and the page. Pictures need matplotlib (``pip install
'memopt[report]'``; the test extra includes it).

The program half (parsing, the plan readers of the passes) is imported when the input is a
program, in :func:`_load`: a plan CSV is read without xDSL's parser and the passes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from memopt.cli import ArgParser, ToolError, process_entry, read_input, run_tool, write_output
from memopt.planning import PlanningError
from memopt.planning.latency import LatencyError, load_target
from memopt.planning.pool import ALLOCATORS
from memopt.report.compare import before_series
from memopt.report.figures import render
from memopt.report.from_csv import plan_view_of_csv
from memopt.report.html import html_page
from memopt.report.model import pool_series
from memopt.report.summary import summary_text

PROG = "memopt-report"
FORMATS = ("txt", "html", "svg", "png")


def _parser() -> ArgParser:
    p = ArgParser(prog=PROG, description="see a memory plan: layout, live bytes, DMA timeline, summary")
    p.add_argument("input_file", help="planned .mlir file (memopt dialect or upstream func/memref), or plan .csv "
                                      "('-' for stdin: MLIR)")
    p.add_argument("-o", "--output", default="-",
                   help="output file; its extension picks the format: .txt .html .svg .png (default: text on stdout)")
    p.add_argument("--func", default=None, help="function to show, by name without '@' (default: every function; "
                                                "pictures: @main, else the first; of an upstream function with arenas "
                                                "in several memory spaces, the picture shows the default space's, "
                                                "the text and .html every arena)")
    p.add_argument("--capacity", type=int, default=None, help="on-chip capacity in bytes to draw and check (default: the target's)")
    p.add_argument("--target", default=None, help="target description file for the DMA timeline (as insert-dma's target=)")
    p.add_argument("--pool", default=None, choices=ALLOCATORS,
                   help="pictures: also plot what an eager pool (mindspore, mindspore-shared, pytorch, bfc) allocates "
                        "for the same tensors over the live-bytes curve")
    p.add_argument("--before", metavar="ORIGINAL.mlir", default=None,
                   help="compare with the program the input was transformed from (e.g. before tile): a planned .mlir "
                        "(plan it as the input was, e.g. memopt-opt ORIGINAL.mlir -p plan-memory) with a planned "
                        "function of the same name for every function shown. Text: both peaks (bytes, step, the "
                        "tensors live there), the change, both live-bytes curves side by side; pictures and .html: "
                        "its curve drawn over the input's, steps stretched to the input's")
    p.add_argument("--no-tensors", action="store_true", help="text: leave out the per-tensor table")
    return p


def _format(path: str) -> str:
    if path == "-":
        return "txt"
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if not ext:
        raise ToolError(f"-o '{path}': no extension to choose the format by (give one of: "
                        f"{', '.join('.' + f for f in FORMATS)}; '-' writes text to stdout)")
    if ext not in FORMATS:
        raise ToolError(f"-o '{path}': unknown extension '.{ext}' (expected one of: {', '.join('.' + f for f in FORMATS)})")
    return ext


def _load(args, text: str, source: str, state: dict):
    if args.capacity is not None and args.capacity < 0:
        raise ToolError(f"--capacity must be >= 0, got {args.capacity}")
    if source.lower().endswith(".csv"):
        try:
            return plan_view_of_csv(text, source, args.capacity)
        except PlanningError as e:  # already ``FILE[:LINE]: message``
            state["file"] = None
            raise ToolError(str(e)) from None
    try:
        target = load_target(args.target)
    except LatencyError as e:
        raise ToolError(str(e)) from None
    from memopt.diagnostics import MemoptError  # the program half (see module docstring)
    from memopt.report.from_ir import plan_view
    from memopt.tools.source import located, parse_source

    module = parse_source(text, source)[1]
    try:
        return plan_view(module, source, target, func_name=args.func, capacity=args.capacity)
    except MemoptError as e:
        raise located(e) from None


def _picked(view, func_name: str | None):
    if func_name is not None or len(view.functions) == 1:
        return view.functions[0]
    for fv in view.functions:
        if fv.name == "main":
            return fv
    return view.functions[0]


def _load_before(args, view, state: dict):
    """``--before``: the original program's view, every function of ``view`` in it (errors are
    located in the original's file)."""
    path = args.before
    if path.lower().endswith(".csv") or state["file"].lower().endswith(".csv"):
        raise ToolError("--before compares two planned .mlir programs, not plan CSVs")
    main_file, state["file"] = state["file"], "<stdin>" if path == "-" else path
    before = _load(args, read_input(path), state["file"], state)
    for fv in view.functions:
        if not any(b.name == fv.name for b in before.functions):
            raise ToolError(f"no planned function '@{fv.name}' to compare with (--before takes the program "
                            f"{main_file} was transformed from, planned)")
    state["file"] = main_file
    return replace(view, before=before.functions, before_source=before.source)


def _series(fv, pool: str | None, view=None) -> tuple:
    out: tuple = ()
    original = view.before_of(fv) if view is not None else None
    if original is not None:
        out += (before_series(original, fv, view.before_source),)
    if pool is None:
        return out
    try:
        return out + (pool_series(fv, pool),)
    except PlanningError as e:
        raise ToolError(f"--pool: {e}") from None


def _run(argv: Sequence[str], state: dict) -> int:
    args = _parser().parse_args(list(argv))
    fmt = _format(args.output)
    path = args.input_file
    state["file"] = "<stdin>" if path == "-" else path
    text = read_input(path)
    view = _load(args, text, state["file"], state)
    if not view.functions:
        raise ToolError("no planned function in the input")
    if args.before is not None:
        view = _load_before(args, view, state)
    if fmt == "txt":
        write_output(args.output, summary_text(view, tensors=not args.no_tensors).encode("utf-8"))
    elif fmt == "html":
        write_output(args.output, html_page(view, lambda fv: _series(fv, args.pool, view)).encode("utf-8"))
    else:
        try:
            fv = _picked(view, args.func)
            data = render(view, fv, fmt, _series(fv, args.pool, view))
        except RuntimeError as e:
            raise ToolError(str(e)) from None
        write_output(args.output, data)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool(PROG, _run, argv)


entry = process_entry(main)
"""The ``memopt-report`` console script: :func:`main` as a whole process (see :func:`process_entry`)."""


if __name__ == "__main__":
    entry()
