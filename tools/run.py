"""``memopt-run``: execute a function with numpy, or prove its memory plan.

    memopt-run IN.mlir [--func NAME] [--seed N]             run unplanned, print the results
    memopt-run IN.mlir --planned [--dma-landing start|wait] run in the planned arena
    memopt-run IN.mlir --check                              planned vs unplanned, value by value

Inputs are deterministic pseudo-random small values (``--seed`` picks another set); weights use
their ``dense`` value or bytes seeded by their name (see :mod:`memopt.executor.data`). Results
are printed one line each with a digest of their bytes, so runs can be compared textually.

``--check`` runs every planned function (or ``--func``) unplanned and in its arena (DMA landing
at start and at wait, for a function that moves weights by DMA), on every execution path — each
``if`` forced both ways, each ``scf.index_switch`` to each case and its default, up to
``--max-paths`` paths, reported as ``paths K/N`` — and fails, exit 1, on the first tensor that
differs::

    memopt-run: error: FILE:LINE:COL: tensor '%x' differs between planned and unplanned execution

Upstream MLIR (``func``/``memref``/``linalg``/``scf``/``affine``/``arith``/``math``/
``bufferization`` after bufferization, planned into an arena's views) runs with the ops' real
semantics (:mod:`memopt.executor.memref_exec`); ``--check`` names the first buffer a read finds
clobbered and the buffer that overwrote it, ``--input-shape NAME=AxB`` gives a dynamically shaped
argument its shape, and the plain run prints the results and the memref arguments' final values.

Every failure is one line on stderr (internal errors exit 2); never a traceback.

The tool parses, runs through :mod:`memopt.executor.flavour` — which picks the executor for the
program's IR flavour — and prints.
"""

from __future__ import annotations

from collections.abc import Sequence

from memopt.cli import ArgParser, ToolError, process_entry, read_input, run_tool, write_output
from memopt.diagnostics import MemoptError
from memopt.executor import flavour
from memopt.executor.resources import DEFAULT_MAX_BYTES, DEFAULT_MAX_OPS, Limits
from memopt.tools.source import located, parse_source

PROG = "memopt-run"


def _parser() -> ArgParser:
    p = ArgParser(prog=PROG, description="execute a memopt function with numpy / prove its memory plan")
    p.add_argument("input_file", help="input .mlir file ('-' for stdin)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="compare planned and unplanned execution")
    mode.add_argument("--planned", action="store_true", help="run in the planned arena")
    p.add_argument("--func", default=None, help="function to run (default: @main, else the first)")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated inputs (default 0)")
    p.add_argument("--max-paths", type=int, default=64,
                   help="--check: execution paths to prove at most (every if forced both ways, every switch "
                        "to each case; default 64)")
    p.add_argument("--max-bytes", type=int, default=None,
                   help="refuse runs needing more storage than this many bytes (default 1 GiB)")
    p.add_argument("--max-ops", type=int, default=None,
                   help="refuse runs executing more ops than this, loops unrolled (default 10,000,000)")
    p.add_argument("--against", metavar="ORIGINAL.mlir", default=None,
                   help="also run ORIGINAL.mlir (unplanned) on the same generated inputs and require the same "
                        "results (upstream IR: and out-parameters), bit for bit: proves that a rewrite (spill, "
                        "rematerialize, a plan lowered to memref ...) computes what the original does; both programs "
                        "of one IR flavour (a lowered program against the lowered original) with the same arguments")
    p.add_argument("--input-shape", action="append", metavar="NAME=AxB", default=None,
                   help="upstream IR: the shape of a dynamically shaped argument (NAME its SSA name, e.g. arg0, or "
                        "#K its position); repeatable")
    p.add_argument("--dma-landing", choices=("start", "wait"), default=None,
                   help="when a DMA copy lands in planned execution (default: start; --check: both)")
    return p


def parse_module(text: str, filename: str):
    """Parse and verify ``text``; errors become a located :class:`ToolError`."""
    return parse_source(text, filename)[1]


def format_shown(v: flavour.Shown) -> str:
    """``@main result #0 : tensor<4xf32> = [..] digest=..``: values in full up to 16 elements."""
    shown = ", ".join(str(x) for x in v.values[:16])
    more = ", ..." if v.values.size > 16 else ""
    return f"{v.head} : {v.kind} = [{shown}{more}] digest={v.digest.hex()[:16]}"


def _limits(args):
    if args.max_paths < 1:
        raise ToolError(f"--max-paths must be >= 1, got {args.max_paths}")
    for name in ("max_bytes", "max_ops"):
        v = getattr(args, name)
        if v is not None and not 1 <= v < (1 << 63):
            raise ToolError(f"--{name.replace('_', '-')} must be in [1, 2^63), got {v}")
    return Limits(args.max_bytes or DEFAULT_MAX_BYTES, args.max_ops or DEFAULT_MAX_OPS)


def _input_shapes(specs: Sequence[str] | None) -> dict[str, tuple[int, ...]]:
    """``--input-shape NAME=AxB`` flags: argument name (``arg0``, ``%arg0``) or position (``#0``) -> shape."""
    shapes: dict[str, tuple[int, ...]] = {}
    for spec in specs or []:
        name, eq, dims = spec.partition("=")
        try:
            shape = tuple(int(d) for d in dims.split("x")) if dims else ()
        except ValueError:
            shape = None
        if not eq or not name.lstrip("%") or shape is None or any(d < 0 for d in shape):
            raise ToolError(f"--input-shape expects NAME=AxB (e.g. arg0=4x64 or #0=4x64), got '{spec}'")
        shapes[name.lstrip("%")] = shape
    return shapes


def _run(argv: Sequence[str], state: dict) -> int:
    args = _parser().parse_args(list(argv))
    limits = _limits(args)
    shapes = _input_shapes(args.input_shape)
    path = args.input_file
    state["file"] = "<stdin>" if path == "-" else path
    text = read_input(path)
    module = parse_module(text, state["file"])
    known: dict[str, tuple[bytes, ...]] = {}  # unplanned results --check computed, which --against reuses
    try:
        if args.check:
            landings = (args.dma_landing,) if args.dma_landing else ("start", "wait")
            out = flavour.check(module, args.func, seed=args.seed, limits=limits, shapes=shapes,
                                dma_landings=landings, max_paths=args.max_paths, known=known)
        else:
            out = [format_shown(v) for v in flavour.run(module, args.func, planned=args.planned, seed=args.seed,
                                                        limits=limits, shapes=shapes,
                                                        dma_landing=args.dma_landing or "start")]
        if args.against is not None:
            out.append(_compare_against(module, args, limits, shapes, state, known))
    except MemoptError as e:
        raise located(e) from None
    write_output(None, "".join(line + "\n" for line in out))
    return 0


def _compare_against(module, args, limits, shapes, state: dict, known=None) -> str:
    """``--against``: the input and the original, each run unplanned on the same generated
    inputs, return the same bytes. Both must be of one IR flavour and take the same arguments:
    the flavours generate inputs and run stand-in kernels each their own way."""
    # Errors in reading or parsing the original name the original, not the main input.
    main_file, state["file"] = state.get("file"), args.against
    text = read_input(args.against)
    original = parse_source(text, args.against)[1]
    state["file"] = main_file
    mine = flavour.unplanned_results(module, args.func, args.seed, limits, shapes, known)
    theirs = flavour.unplanned_results(original, args.func, args.seed, limits, shapes)
    name, against = mine.name, args.against
    if mine.flavour != theirs.flavour:
        raise ToolError(
            f"--against compares programs of one IR flavour: @{name} is {mine.flavour}, {against}'s is "
            f"{theirs.flavour} (bring the original to the same flavour first, e.g. memopt-opt ORIGINAL --lower-to-memref)"
        )
    if mine.signature != theirs.signature:
        raise ToolError(
            f"@{name} takes ({', '.join(mine.signature)}), {against}'s takes ({', '.join(theirs.signature)}): "
            "the runs would not see the same inputs"
        )
    if len(mine.values) != len(theirs.values):
        raise ToolError(f"@{name} has {len(mine.values)} results, {against} has {len(theirs.values)}")
    for (label, a), (their_label, b) in zip(mine.values, theirs.values):
        if a != b:
            raise ToolError(f"@{name} {label} differs from {against}'s {their_label}")
    return f"@{name}: {len(mine.values)} results bit-exact with {against}"


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool(PROG, _run, argv)


entry = process_entry(main)
"""The ``memopt-run`` console script: :func:`main` as a whole process (see :func:`process_entry`)."""


if __name__ == "__main__":
    entry()
