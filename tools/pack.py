"""``memopt-pack``: the planning core as a command over minimalloc CSV files.

Reads ``id,lower,upper,size[,alignment]`` rows, plans them with ``--strategy``, validates the
plan, and writes the same rows plus an ``offset`` column. With ``--capacity`` a plan that does not
fit is an error (exit 1), as in minimalloc. ``--check`` validates an existing ``offset`` column
instead of planning. Errors are one line: ``memopt-pack: error: FILE[:LINE]: message``.
"""

from __future__ import annotations

import argparse
import sys
import time

from memopt.cli import ArgParser, ToolError, process_entry, read_input, run_tool, write_output
from memopt.planning import PlanningError, Solution, lower_bound, make_strategy, strategy_names, validate
from memopt.planning.csvio import read_problem, write_solution
from memopt.planning.numbers import INT64_MAX, check_finite_positive
from memopt.planning.strategies import strategy_options
from memopt.report.figures import render
from memopt.report.from_csv import function_view_of_solution
from memopt.report.model import PlanView

PROG = "memopt-pack"


def build_parser() -> argparse.ArgumentParser:
    p = ArgParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("input", nargs="?", default="-", help="CSV file (default: stdin)")
    p.add_argument("-o", "--output", default="-", help="output CSV (default: stdout)")
    p.add_argument("--strategy", default="best", help=f"one of: {', '.join(strategy_names())} (default: best)")
    p.add_argument("--capacity", type=int, default=None, help="fail unless the arena fits in N bytes")
    p.add_argument("--budget", type=float, default=None,
                   help="seconds for anytime strategies (search); with 'best', admits them")
    p.add_argument("--match-range", default="auto", help="nnvm: match range (number >= 0 or 'auto')")
    p.add_argument("--num-groups", type=int, default=1, help="nnvm: parallel colour groups (default 1)")
    p.add_argument("--check", action="store_true", help="validate the input's offset column instead of planning")
    p.add_argument("--stats", action="store_true", help="print buffers, the proven lower bound (lb), height, how far above the bound it is "
                        "(over_lb, '(optimal)' at the bound), seconds to stderr; for best its members and "
                        "polish, for search its views, source and work")
    p.add_argument("--plot", default=None, metavar="OUT.svg",
                   help="also draw the plan (layout and live bytes; .svg or .png) as memopt-report does")
    return p


def run(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    source = "<stdin>" if args.input == "-" else args.input
    try:
        text = read_input(args.input)
    except ToolError as e:
        raise PlanningError(f"{source}: {e.message}") from None
    if args.capacity is not None and not 0 <= args.capacity <= INT64_MAX:
        raise PlanningError(f"--capacity must be in [0, {INT64_MAX}], got {args.capacity}")
    if args.budget is not None:
        try:
            check_finite_positive(args.budget, "--budget (seconds)")
        except ValueError as e:
            raise PlanningError(str(e)) from None
    problem, given = read_problem(text, source)
    t0 = time.perf_counter()
    if args.check:
        if given is None:
            raise PlanningError(f"{source}: --check needs an offset column")
        solution = Solution.of(problem, given, "given")
    else:
        # With a capacity, ``search`` stops as soon as a plan fits.
        options = strategy_options(
            args.strategy, budget=args.budget, capacity=args.capacity,
            match_range=args.match_range, num_groups=args.num_groups,
        )
        strategy = make_strategy(args.strategy, **options)
        solution = strategy.plan(problem)
    seconds = time.perf_counter() - t0
    try:
        validate(problem, solution)
    except PlanningError as e:
        what = "input plan" if args.check else f"strategy '{solution.strategy}' produced an invalid plan"
        raise PlanningError(f"{source}: {what}: {e}") from None
    if args.capacity is not None and solution.height > args.capacity:
        lb = lower_bound(problem)
        if args.capacity < lb:
            why = f"lower bound {lb}: no plan can fit below it"
        elif args.budget is None:
            why = (f"lower bound {lb}: a plan may fit, '{args.strategy}' found none within its default work; "
                   "--strategy search --budget SECONDS searches longer")
        else:
            why = f"lower bound {lb}: a plan may fit, none was found within --budget {args.budget} s"
        raise PlanningError(f"{source}: plan needs {solution.height} bytes, over capacity {args.capacity} ({why})")
    if args.stats:
        details = getattr(strategy, "stats", None) if not args.check else None
        proven = max(lower_bound(problem), (details or {}).get("proven_lb", 0))
        gap = 100 * (solution.height - proven) / proven if proven else 0.0
        reached = " (optimal)" if solution.height <= proven else ""
        sys.stderr.write(
            f"buffers={len(problem)} lb={proven} height={solution.height} over_lb={gap:.2f}%{reached} "
            f"strategy={solution.strategy} seconds={seconds:.3f}\n"
        )
        if details and "members" in details:
            skipped = ", ".join(details["skipped"]) or "none"
            sys.stderr.write(f"members={','.join(details['members'])} skipped={skipped} polish={details['polish']}\n")
        if details and "source" in details:  # the search strategy
            sys.stderr.write(f"source={details['source']} views={details.get('views', '-')} "
                             f"work={details['work']} proven_lb={details.get('proven_lb', '-')}\n")
    if args.plot is not None:
        _plot(args.plot, problem, solution, source, args.capacity)
    if args.check:
        return 0
    out = write_solution(problem, solution)
    write_output(args.output, out)
    return 0


def _plot(path: str, problem, solution, source: str, capacity: int | None) -> None:
    fmt = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if fmt not in ("svg", "png"):
        raise PlanningError(f"--plot '{path}': expected a .svg or .png file name")
    fv = function_view_of_solution(problem, solution, "plan")
    try:
        data = render(PlanView(source, (fv,), capacity=capacity), fv, fmt)
    except RuntimeError as e:  # matplotlib missing
        raise PlanningError(str(e)) from None
    write_output(path, data)


def _run(argv: list[str], state: dict) -> int:
    # Planning errors already name their source (``FILE[:LINE]: ...``), so no file prefix here.
    try:
        return run(argv)
    except PlanningError as e:
        raise ToolError(str(e)) from None


def main(argv: list[str] | None = None) -> int:
    return run_tool(PROG, _run, argv)


entry = process_entry(main)
"""The ``memopt-pack`` console script: :func:`main` as a whole process (see :func:`process_entry`)."""


if __name__ == "__main__":
    entry()
