"""``memopt-pool``: what an eager runtime's memory pool would reserve for a program, next to
memopt's static plan of the same program.

    memopt-pool PROGRAM.mlir|TRACE.csv [--allocator mindspore|mindspore-shared|pytorch|bfc|all]
                [--block-size BYTES] [--capacity BYTES] [--max-split-size BYTES] [--timeline OUT.csv] [--json] [--func F]
                [--space N]

The program's tensors are replayed in execution order (:mod:`memopt.planning.pool`): each
allocated when its op runs, freed after its last use (through views), an in-place result reusing
its operand's allocation; the function's arguments and results are MindSpore's *persistent*
buffers. A memopt-dialect function's tensors are traced by the lifetime analysis even when it is
planned (the replay needs serial lifetimes and the in-place pairs, which a plan does not carry);
a planned one's static row is its plan in the IR, read by the plan reader
(:func:`memopt.passes.plan_io.read_function_plan`) and checked as an upstream plan is. An upstream ``func``/``memref`` program's buffers are its static allocs as the planner
traces them (:mod:`memopt.passes.upstream_replay`; one memory space, ``--space``), or, when it is
planned, the buffers read back from its plan, whose arena (checked as ``memopt-report`` checks it)
is then the static row. A program with nothing to replay is an error, never a table of zeros.
A minimalloc-style CSV trace (``id,lower,upper,size``) works too. Per allocator: peak
live, peak allocated (after rounding), peak reserved, reserved/live, fragmentation
``1 - allocated/reserved`` and BFC's at peak allocated, segments, splits, merges; then the static
plan (``best``) and the lower bound. ``--capacity`` replays with that much device memory and
reports an out-of-memory as PyTorch words it; ``--timeline`` writes ``allocator,step,live,
allocated,reserved`` rows (the memory-over-time series ``memopt-report`` can plot).

The program half (parsing, tracers, plan readers) is imported when the input is a program, in
the functions that read one: a CSV trace is replayed without xDSL's parser and the passes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from memopt.cli import ArgParser, ToolError, process_entry, read_input, run_tool, write_output
from memopt.planning import PlanningError, Problem, lower_bound, make_strategy
from memopt.planning.csvio import read_problem
from memopt.planning.inplace import fold_overwrites
from memopt.planning.numbers import INT64_MAX
from memopt.planning.pool import ALLOCATORS, PoolOutOfMemory, replay, smallest_capacity
from memopt.report.validate import layout_violation

PROG = "memopt-pool"


def _parser() -> ArgParser:
    p = ArgParser(prog=PROG, description="replay a program through eager memory pools, next to its static plan")
    p.add_argument("input_file", help="program .mlir (memopt dialect, or upstream func/memref, planned or not) or "
                                      "trace .csv ('-': MLIR on stdin)")
    p.add_argument("--allocator", default="all", choices=(*ALLOCATORS, "all"),
                   help="pool to simulate (default: all)")
    p.add_argument("--block-size", type=int, default=1 << 30,
                   help="mindspore: bytes per block taken from the device (default 1 GiB)")
    p.add_argument("--capacity", type=int, default=None, help="device memory in bytes (default: unlimited)")
    p.add_argument("--max-split-size", type=int, default=None, metavar="BYTES",
                   help="pytorch: its max_split_size_mb, in bytes: blocks this large are never split "
                        "(default: unlimited, PyTorch's default)")
    p.add_argument("--timeline", default=None, metavar="OUT.csv", help="write memory over time per allocator")
    p.add_argument("--json", action="store_true", help="one JSON object per allocator instead of the table")
    p.add_argument("--min-capacity", action="store_true",
                   help="also find, per allocator, the smallest capacity at which the replay does not run out of memory")
    p.add_argument("--func", default=None, help="function to replay, by name without '@' (default: @main, else the first)")
    p.add_argument("--space", type=int, default=0, metavar="N",
                   help="upstream func/memref IR: the memory space whose buffers to replay, an integer >= 0 (default 0, "
                        "the default space; each memory space is a memory with its own pool)")
    return p


@dataclass(frozen=True)
class Trace:
    """What the pools replay, and the static plan to put beside them."""

    problem: Problem
    persistent: frozenset[int]
    static: int | None = None
    """The static plan's arena when the tracer's numbering is not the replay's (upstream IR:
    the plan in the IR, or ``best`` on the planner's problem); None: ``best`` on ``problem``."""
    lower_bound: int | None = None
    """The bound of the static row, when ``static`` is given."""
    static_label: str = "static (memopt best)"


def _trace(args, text: str, source: str, state: dict) -> Trace:
    """The input's allocations: a CSV trace, a memopt-dialect function's tensors, or an
    upstream function's buffers (traced, or read back from its plan)."""
    if source.lower().endswith(".csv"):
        try:
            return Trace(read_problem(text, source)[0], frozenset())
        except PlanningError as e:
            state["file"] = None
            raise ToolError(str(e)) from None
    from memopt.diagnostics import MemoptError  # the program half (see module docstring)
    from memopt.executor.interpreter import find_function
    from memopt.dialects.ir_flavour import is_upstream
    from memopt.tools.source import located, parse_source

    module = parse_source(text, source)[1]
    try:
        f = find_function(module, args.func)
        if is_upstream(f):
            return _upstream_trace(f, args.space)
        if args.space != 0:
            raise MemoptError(f"--space {args.space}: '@{f.sym_name.data}' is a memopt-dialect function, "
                              "whose tensors are all in one memory (space 0)", f)
        return _memopt_trace(f)
    except MemoptError as e:
        raise located(e) from None


def _memopt_trace(f) -> Trace:
    """A memopt-dialect function's tensors as the lifetime analysis traces them (serial
    numbering, in-place pairs folded), planned or not: a plan carries neither; its arguments
    and results are MindSpore's persistent buffers. The static row: the plan in the IR when
    there is one (:func:`_memopt_static`), else ``best`` on the trace."""
    from xdsl.dialects import func  # the program half (see module docstring)
    from xdsl.ir import BlockArgument

    from memopt.diagnostics import MemoptError
    from memopt.dialects.written_plan import carries_plan
    from memopt.passes.lifetime import analyze_function

    lt = analyze_function(f, mode="serial", inplace=True, alignment=1)
    if not len(lt.problem):
        raise MemoptError(f"'@{f.sym_name.data}' has no tensor in on-chip memory: nothing to replay", f)
    problem, root_of, _ = fold_overwrites(lt.problem)
    persistent = {root_of[i] for i, v in enumerate(lt.owner) if isinstance(v, BlockArgument) and v.block.parent_op() is f}
    ret = f.body.blocks[0].last_op
    if isinstance(ret, func.ReturnOp):
        for v in ret.operands:
            loc = lt.storage_of.get(v)
            if loc is not None:
                persistent.add(root_of[loc[0]])
    if carries_plan(f):
        return Trace(problem, frozenset(persistent), *_memopt_static(f), "static (plan in the IR)")
    return Trace(problem, frozenset(persistent))


def _memopt_static(f) -> tuple[int, int]:
    """The on-chip arena of a planned memopt-dialect function and its buffers' lower bound, as
    the plan reader reads them; an unsound layout is a located error, as an upstream plan's."""
    from memopt.diagnostics import MemoptError  # the program half (see module docstring)
    from memopt.dialects.errors import value_location_op
    from memopt.passes.plan_io import read_function_plan

    arena = read_function_plan(f, memories=False).plan.arenas[0]
    v = layout_violation(arena.problem, arena.offsets, arena.size)
    if v is not None:
        raise MemoptError(v.message, value_location_op(arena.sites[v.buffer]) if v.buffer is not None else f)
    return arena.size, lower_bound(arena.problem)


def _upstream_trace(f, space: int) -> Trace:
    """An upstream function's buffers in memory space ``space``, replayed in serial steps; the
    static row is its plan in the IR (checked as memopt-report checks it, staging buffers
    included), or ``best`` on the planner's problem (branches exclusive) when unplanned."""
    from memopt.diagnostics import MemoptError  # the program half (see module docstring)
    from memopt.passes.upstream_replay import upstream_allocations

    got = upstream_allocations(f, space)
    lb = lower_bound(got.planned)
    if got.plan is None:
        return Trace(got.replayed, frozenset(), make_strategy("best").plan(got.planned).height, lb)
    v = layout_violation(got.plan.problem, got.plan.offsets, got.plan.size)
    if v is not None:
        raise MemoptError(v.message, got.plan.sites[v.buffer] if v.buffer is not None else f)
    return Trace(got.replayed, frozenset(), got.plan.size, lb, "static (plan in the IR)")


def _check_options(args) -> None:
    for name in ("block_size", "capacity", "max_split_size"):
        v = getattr(args, name)
        if v is not None and not 1 <= v <= INT64_MAX:
            raise ToolError(f"--{name.replace('_', '-')} must be in [1, {INT64_MAX}], got {v}")
    if args.space < 0:
        raise ToolError(f"--space must be an integer memory space >= 0, got {args.space}")


def _replays(args, trace: Trace) -> list:
    names = ALLOCATORS if args.allocator == "all" else (args.allocator,)
    if args.max_split_size is not None and "pytorch" not in names:
        raise ToolError(f"--max-split-size applies to the pytorch allocator, not {args.allocator}")
    reports = []
    for name in names:
        try:
            mss = args.max_split_size if name == "pytorch" else None
            reports.append(replay(trace.problem, name, persistent=trace.persistent, block_size=args.block_size,
                                  capacity=args.capacity, max_split_size=mss))
        except (PoolOutOfMemory, PlanningError) as e:
            raise ToolError(str(e)) from None
    return reports


def _run(argv: Sequence[str], state: dict) -> int:
    args = _parser().parse_args(list(argv))
    _check_options(args)
    state["file"] = "<stdin>" if args.input_file == "-" else args.input_file
    text = read_input(args.input_file)
    trace = _trace(args, text, state["file"], state)
    problem = trace.problem
    if not len(problem):
        raise ToolError("the trace has no rows: nothing to replay")
    state["file"] = None
    reports = _replays(args, trace)
    static = trace.static if trace.static is not None else make_strategy("best").plan(problem).height
    mins = {}
    if args.min_capacity:
        for r in reports:
            mins[r.allocator] = smallest_capacity(problem, r.allocator, persistent=trace.persistent,
                                                  block_size=args.block_size)
    lb = trace.lower_bound if trace.lower_bound is not None else lower_bound(problem)
    if args.timeline:
        rows = ["allocator,step,live,allocated,reserved"]
        rows += [f"{r.allocator},{s},{lv},{al},{rs}" for r in reports for s, lv, al, rs in r.timeline]
        write_output(args.timeline, "\n".join(rows) + "\n")
    out = _json(reports, mins, static, lb) if args.json else _table(reports, mins, static, lb, trace.static_label)
    write_output(None, out)
    return 0


def _json(reports: list, mins: dict, static: int, lb: int) -> str:
    out = [json.dumps({
        "allocator": r.allocator, "peak_live": r.peak_live, "peak_allocated": r.peak_allocated,
        "peak_reserved": r.peak_reserved, "fragmentation": round(r.fragmentation, 6),
        "bfc_fragmentation": round(r.bfc_fragmentation, 6), "segments": r.segments, "splits": r.splits,
        "merges": r.merges, **({"min_capacity": mins[r.allocator]} if mins else {}),
    }, sort_keys=True) for r in reports]
    out.append(json.dumps({"allocator": "static", "peak_reserved": static, "lower_bound": lb}, sort_keys=True))
    return "\n".join(out) + "\n"


def _table(reports: list, mins: dict, static: int, lb: int, label: str) -> str:
    head = ("allocator", "peak live", "peak allocated", "peak reserved", "reserved/live", "fragmentation",
            "bfc frag", "segments", "splits", "merges") + (("min capacity",) if mins else ())
    rows = [head] + [
        (r.allocator, r.peak_live, r.peak_allocated, r.peak_reserved, f"{r.peak_reserved / max(r.peak_live, 1):.3f}",
         f"{r.fragmentation:.3f}", f"{r.bfc_fragmentation:.3f}", r.segments, r.splits, r.merges)
        + ((mins[r.allocator],) if mins else ()) for r in reports
    ]
    rows.append((label, lb, static, static, f"{static / max(lb, 1):.3f}", "-", "-", 1, "-", "-")
                + ((static,) if mins else ()))
    widths = [max(len(str(row[k])) for row in rows) for k in range(len(head))]
    lines = ["  ".join(str(c).ljust(w) if k == 0 else str(c).rjust(w) for k, (c, w) in enumerate(zip(row, widths))).rstrip()
             for row in rows]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool(PROG, _run, argv)


entry = process_entry(main)
"""The ``memopt-pool`` console script: :func:`main` as a whole process (see :func:`process_entry`)."""


if __name__ == "__main__":
    entry()
