"""``memopt-run``: execute a function with numpy, or prove its memory plan.

    memopt-run IN.mlir [--func NAME] [--seed N]             run unplanned, print the results
    memopt-run IN.mlir --planned [--dma-landing start|wait] run in the planned arena
    memopt-run IN.mlir --check                              planned vs unplanned, value by value

Inputs are deterministic pseudo-random small values (``--seed`` picks another set); weights use
their ``dense`` value or bytes seeded by their name (see :mod:`memopt.executor.data`). Results
are printed one line each with a digest of their bytes, so runs can be compared textually.

``--check`` runs every planned function (or ``--func``) unplanned and in its arena (DMA landing
at start and at wait, for a function that moves weights by DMA), on every execution path — each ``if`` forced both ways, up to
``--max-paths`` paths, reported as ``paths K/N`` — and fails, exit 1, on the first tensor that
differs::

    memopt-run: error: FILE:LINE:COL: tensor '%x' differs between planned and unplanned execution

Upstream MLIR (``func``/``memref``/``linalg``/``scf``/``affine``/``arith``/``math``/
``bufferization`` after bufferization, planned into an arena's views) runs with the ops' real
semantics (:mod:`memopt.executor.memref_exec`); ``--check`` names the first buffer a read finds
clobbered and the buffer that overwrote it, ``--input-shape NAME=AxB`` gives a dynamically shaped
argument its shape, and the plain run prints the results and the memref arguments' final values.

Every failure is one line on stderr (internal errors exit 2); never a traceback.

The upstream executor (``memref_exec`` and the op semantics it compiles with) is imported in the
functions that run upstream IR: a memopt-dialect program runs without it (start-up).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func

from memopt.cli import ArgParser, ToolError, process_entry, read_input, run_tool, write_output
from memopt.diagnostics import MemoptError
from memopt.dialects.upstream_attrs import is_memref_function
from memopt.dialects.walk import walk
from memopt.executor import check_module, digest, find_function, run_function
from memopt.executor.data import tensor_info, typed
from memopt.executor.memref_values import Ref
from memopt.executor.proof import result_bytes
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
                   help="--check: execution paths to prove at most (every if forced both ways; default 64)")
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


def format_result(name: str, k: int, t, data: np.ndarray) -> str:
    """``@main result #0 : tensor<4xf32> = [..] digest=..``: values in full up to 16 elements."""
    info = tensor_info(t)
    vals = typed(data, info)
    flat = (vals.reshape(-1) if vals is not None else data)
    shown = ", ".join(str(v) for v in flat[:16])
    more = ", ..." if flat.size > 16 else ""
    return f"@{name} result #{k} : {t} = [{shown}{more}] digest={digest(data).hex()[:16]}"


def _memref_functions(module, name: str | None) -> list:
    """Upstream (memref) functions to prove: every one with a body, or ``name``."""
    funcs = [op for op in walk(module) if isinstance(op, func.FuncOp) and op.body.blocks]
    if name is not None:
        funcs = [f for f in funcs if f.sym_name.data == name]
    return [f for f in funcs if is_memref_function(f)]


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


def _check_upstream(module, args, limits, shapes) -> list[str]:
    from memopt.executor.memref_exec import check_memref_function  # upstream only (module docstring)

    out = []
    for f in _memref_functions(module, args.func):
        r = check_memref_function(module, f, seed=args.seed, limits=limits, shapes=shapes)
        paths = f", {r.paths} paths" if r.paths > 1 else ""
        out.append(f"@{r.function}: planned execution matches unplanned ({r.writes} buffer writes, "
                   f"{r.reads} reads, {r.arena_views} arena views{paths})")
    return out


def _check_memopt(module, args, limits, known: dict[str, tuple[bytes, ...]]) -> list[str]:
    """``--check`` of memopt-dialect functions; ``known`` receives each one's unplanned results."""
    out = []
    landings = (args.dma_landing,) if args.dma_landing else ("start", "wait")
    for r in check_module(module, args.func, seed=args.seed, dma_landings=landings, max_paths=args.max_paths,
                          limits=limits):
        known[r.function] = r.results
        more = "" if r.paths == r.total_paths else f", the first {r.paths} by --max-paths"
        out.append(
            f"@{r.function}: planned execution matches unplanned ({r.values} values, "
            f"{r.reads} reads, {r.outputs} results, arena {r.arena_size} bytes, "
            f"paths {r.paths}/{r.total_paths}{more})"
        )
    return out


def _run_upstream(module, args, limits, shapes) -> list[str]:
    """One run of an upstream function: its results, then its memref arguments' final values."""
    from memopt.executor.memref_exec import run_memref_function  # upstream only (module docstring)

    funcs = _memref_functions(module, args.func)
    f = next((g for g in funcs if g.sym_name.data == "main"), funcs[0]) if args.func is None else funcs[0]
    results, params = run_memref_function(module, f, args.seed, planned=args.planned, limits=limits, shapes=shapes)
    name = f.sym_name.data
    lines = [_format_value(f"@{name} result #{k}", v) for k, v in enumerate(results)]
    return lines + [_format_value(f"@{name} argument #{k}", v) for k, v in enumerate(params)]


def _format_value(head: str, v) -> str:
    data = v.values() if isinstance(v, Ref) else np.asarray(v)
    flat = data.reshape(-1)
    shown = ", ".join(str(x) for x in flat[:16])
    more = ", ..." if flat.size > 16 else ""
    kind = f"memref<{'x'.join(map(str, v.sizes))}{'x' if v.sizes else ''}{v.elem.name}>" if isinstance(v, Ref) \
        else str(data.dtype)
    return f"{head} : {kind} = [{shown}{more}] digest={digest(data).hex()[:16]}"


def _run(argv: Sequence[str], state: dict) -> int:
    args = _parser().parse_args(list(argv))
    limits = _limits(args)
    shapes = _input_shapes(args.input_shape)
    path = args.input_file
    state["file"] = "<stdin>" if path == "-" else path
    text = read_input(path)
    module = parse_module(text, state["file"])
    upstream = bool(_memref_functions(module, args.func))
    known: dict[str, tuple[bytes, ...]] = {}  # unplanned results --check computed, which --against reuses
    try:
        if args.check:
            out = _check_upstream(module, args, limits, shapes) if upstream else _check_memopt(module, args, limits, known)
        elif upstream:
            out = _run_upstream(module, args, limits, shapes)
        else:
            ex = run_function(module, args.func, planned=args.planned, seed=args.seed,
                              dma_landing=args.dma_landing or "start", limits=limits)
            out = [format_result(ex.func.sym_name.data, k, t, data) for k, (t, data) in enumerate(zip(ex.types, ex.outputs))]
        if args.against is not None:
            out.append(_compare_against(module, args, limits, shapes, state, known))
    except MemoptError as e:
        raise located(e) from None
    write_output(None, "".join(line + "\n" for line in out))
    return 0


@dataclass
class _Outcome:
    """One unplanned run of a function, as ``--against`` compares it."""

    name: str
    flavour: str
    signature: list[str]  # the types of the arguments the run generates (an arena argument aside)
    values: list[tuple[str, bytes]]  # (label, bytes) of each compared value


def _results(module, name: str | None, seed: int, limits, shapes=None, known=None) -> _Outcome:
    """The results of one unplanned run: a memopt-dialect function's return values, or an
    upstream function's results and argument buffers after the run (its out-parameters; the
    arena argument of ``arena=arg`` is scratch and not compared). ``known``: memopt-dialect
    functions' results already computed by ``--check``'s unplanned run, by name."""
    funcs = _memref_functions(module, name)
    if funcs:
        from memopt.executor.memref_arena import is_arena_arg  # upstream only (module docstring)
        from memopt.executor.memref_exec import run_memref_function

        f = next((g for g in funcs if g.sym_name.data == "main"), funcs[0]) if name is None else funcs[0]
        results, params = run_memref_function(module, f, seed, limits=limits, shapes=shapes)
        args = [a for a in f.body.blocks.first.args if not is_arena_arg(a)]
        labels = [f"result #{k} ({t})" for k, t in enumerate(f.function_type.outputs.data)]
        labels += [f"argument #{a.index} ({a.type}) after the run" for a in args]
        values = list(zip(labels, result_bytes([*results, *params])))
        return _Outcome(f.sym_name.data, "upstream memref IR", [str(a.type) for a in args], values)
    f = find_function(module, name)
    done = (known or {}).get(f.sym_name.data)
    if done is None:
        done = tuple(result_bytes(run_function(module, f, planned=False, seed=seed, limits=limits).outputs))
    values = [(f"result #{k} ({t})", d) for k, (t, d) in enumerate(zip(f.function_type.outputs.data, done))]
    signature = [str(t) for t in f.function_type.inputs.data]
    return _Outcome(f.sym_name.data, "the memopt dialect", signature, values)


def _compare_against(module, args, limits, shapes, state: dict, known=None) -> str:
    """``--against``: the input and the original, each run unplanned on the same generated
    inputs, return the same bytes. Both must be of one IR flavour and take the same arguments:
    the flavours generate inputs and run stand-in kernels each their own way."""
    # Errors in reading or parsing the original name the original, not the main input.
    main_file, state["file"] = state.get("file"), args.against
    text = read_input(args.against)
    original = parse_source(text, args.against)[1]
    state["file"] = main_file
    mine = _results(module, args.func, args.seed, limits, shapes, known)
    theirs = _results(original, args.func, args.seed, limits, shapes)
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
