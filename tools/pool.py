"""``memopt-pool``: what an eager runtime's memory pool would reserve for a program, next to
memopt's static plan of the same program.

    memopt-pool PROGRAM.mlir|TRACE.csv [--allocator mindspore|mindspore-shared|pytorch|bfc|all]
                [--block-size BYTES] [--capacity BYTES] [--max-split-size BYTES] [--timeline OUT.csv] [--json] [--func F]

The program's tensors are replayed in execution order (:mod:`memopt.planning.pool`): each
allocated when its op runs, freed after its last use (through views), an in-place result reusing
its operand's allocation; the function's arguments and results are MindSpore's *persistent*
buffers. A minimalloc-style CSV trace (``id,lower,upper,size``) works too. Per allocator: peak
live, peak allocated (after rounding), peak reserved, reserved/live, fragmentation
``1 - allocated/reserved`` and BFC's at peak allocated, segments, splits, merges; then the static
plan (``best``) and the lower bound. ``--capacity`` replays with that much device memory and
reports an out-of-memory as PyTorch words it; ``--timeline`` writes ``allocator,step,live,
allocated,reserved`` rows (the memory-over-time series ``memopt-report`` can plot).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from memopt.cli import ArgParser, ToolError, parse_source, process_entry, read_input, run_tool, write_output

PROG = "memopt-pool"


def _parser() -> ArgParser:
    from memopt.planning.pool import ALLOCATORS

    p = ArgParser(prog=PROG, description="replay a program through eager memory pools, next to its static plan")
    p.add_argument("input_file", help="program .mlir (memopt dialect) or trace .csv ('-': MLIR on stdin)")
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
    p.add_argument("--func", default=None, help="function to replay (default: @main, else the first)")
    return p


def _trace(args, text: str, source: str, state: dict):
    """(problem, persistent indices) of the input: a CSV trace or a function's tensors."""
    from memopt.planning import PlanningError
    from memopt.planning.inplace import fold_overwrites

    if source.lower().endswith(".csv"):
        from memopt.planning.csvio import read_problem

        try:
            return read_problem(text, source)[0], frozenset()
        except PlanningError as e:
            state["file"] = None
            raise ToolError(str(e)) from None
    from xdsl.dialects import func
    from xdsl.ir import BlockArgument

    from memopt.diagnostics import MemoptError
    from memopt.executor.interpreter import find_function
    from memopt.passes.lifetime import analyze_function

    module = parse_source(text, source)[1]
    try:
        f = find_function(module, args.func)
        lt = analyze_function(f, mode="serial", inplace=True, alignment=1)
    except MemoptError as e:
        raise ToolError.at_op(e) from None
    problem, root_of, _ = fold_overwrites(lt.problem)
    persistent = {root_of[i] for i, v in enumerate(lt.owner) if isinstance(v, BlockArgument) and v.block.parent_op() is f}
    ret = f.body.blocks[0].last_op
    if isinstance(ret, func.ReturnOp):
        for v in ret.operands:
            loc = lt.storage_of.get(v)
            if loc is not None:
                persistent.add(root_of[loc[0]])
    return problem, frozenset(persistent)


def _run(argv: Sequence[str], state: dict) -> int:
    from memopt.planning import PlanningError, lower_bound, make_strategy
    from memopt.planning.numbers import INT64_MAX
    from memopt.planning.pool import ALLOCATORS, PoolOutOfMemory, replay

    args = _parser().parse_args(list(argv))
    for name in ("block_size", "capacity", "max_split_size"):
        v = getattr(args, name)
        if v is not None and not 1 <= v <= INT64_MAX:
            raise ToolError(f"--{name.replace('_', '-')} must be in [1, {INT64_MAX}], got {v}")
    state["file"] = "<stdin>" if args.input_file == "-" else args.input_file
    text = read_input(args.input_file)
    problem, persistent = _trace(args, text, state["file"], state)
    state["file"] = None
    names = ALLOCATORS if args.allocator == "all" else (args.allocator,)
    if args.max_split_size is not None and "pytorch" not in names:
        raise ToolError(f"--max-split-size applies to the pytorch allocator, not {args.allocator}")
    reports = []
    for name in names:
        try:
            mss = args.max_split_size if name == "pytorch" else None
            reports.append(replay(problem, name, persistent=persistent, block_size=args.block_size, capacity=args.capacity,
                                  max_split_size=mss))
        except PoolOutOfMemory as e:
            raise ToolError(str(e)) from None
        except PlanningError as e:
            raise ToolError(str(e)) from None
    static = make_strategy("best").plan(problem).height if len(problem) else 0
    mins = {}
    if args.min_capacity:
        from memopt.planning.pool import smallest_capacity

        for r in reports:
            mins[r.allocator] = smallest_capacity(problem, r.allocator, persistent=persistent, block_size=args.block_size)
    lb = lower_bound(problem) if len(problem) else 0
    if args.timeline:
        rows = ["allocator,step,live,allocated,reserved"]
        rows += [f"{r.allocator},{s},{lv},{al},{rs}" for r in reports for s, lv, al, rs in r.timeline]
        write_output(args.timeline, "\n".join(rows) + "\n")
    if args.json:
        out = [json.dumps({
            "allocator": r.allocator, "peak_live": r.peak_live, "peak_allocated": r.peak_allocated,
            "peak_reserved": r.peak_reserved, "fragmentation": round(r.fragmentation, 6),
            "bfc_fragmentation": round(r.bfc_fragmentation, 6), "segments": r.segments, "splits": r.splits,
            "merges": r.merges, **({"min_capacity": mins[r.allocator]} if mins else {}),
        }, sort_keys=True) for r in reports]
        out.append(json.dumps({"allocator": "static", "peak_reserved": static, "lower_bound": lb}, sort_keys=True))
        write_output(None, "\n".join(out) + "\n")
        return 0
    head = ("allocator", "peak live", "peak allocated", "peak reserved", "reserved/live", "fragmentation",
            "bfc frag", "segments", "splits", "merges") + (("min capacity",) if mins else ())
    rows = [head] + [
        (r.allocator, r.peak_live, r.peak_allocated, r.peak_reserved, f"{r.peak_reserved / max(r.peak_live, 1):.3f}",
         f"{r.fragmentation:.3f}", f"{r.bfc_fragmentation:.3f}", r.segments, r.splits, r.merges)
        + ((mins[r.allocator],) if mins else ()) for r in reports
    ]
    rows.append(("static (memopt best)", lb, static, static, f"{static / max(lb, 1):.3f}", "-", "-", 1, "-", "-")
                + ((static,) if mins else ()))
    widths = [max(len(str(row[k])) for row in rows) for k in range(len(head))]
    lines = ["  ".join(str(c).ljust(w) if k == 0 else str(c).rjust(w) for k, (c, w) in enumerate(zip(row, widths))).rstrip()
             for row in rows]
    write_output(None, "\n".join(lines) + "\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool(PROG, _run, argv)


entry = process_entry(main)
"""The ``memopt-pool`` console script: :func:`main` as a whole process (see :func:`process_entry`)."""


if __name__ == "__main__":
    entry()
