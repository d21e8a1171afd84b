"""One way into both executors: which one runs a function, what a run shows, what a proof says.

A module holds memopt-dialect functions (run by :mod:`.interpreter`, proven by :mod:`.check`) or
upstream ``memref`` functions (run and proven by :mod:`.memref_exec`). Callers — ``memopt-run``
among them — come through here and do not branch on the flavour themselves: :func:`run` gives
the values a run shows, :func:`check` the proof of every planned function, :func:`unplanned_results`
the results two programs are compared by (``--against``). What both flavours compare is
:mod:`.proof`'s.

The upstream executor is imported only when a module holds upstream functions: a memopt-dialect
program runs without it (start-up).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from memopt.dialects.ir_flavour import is_memref_function
from memopt.dialects.walk import walk

from .check import CheckReport, check_module, run_function
from .data import tensor_info, typed
from .interpreter import find_function
from .memref_values import Ref
from .proof import digest, result_bytes
from .resources import Limits

MEMOPT = "the memopt dialect"
UPSTREAM = "upstream memref IR"


def memref_functions(module: ModuleOp, name: str | None = None) -> list[func.FuncOp]:
    """Upstream (memref) functions with a body: every one, or ``name``."""
    funcs = [op for op in walk(module) if isinstance(op, func.FuncOp) and op.body.blocks]
    if name is not None:
        funcs = [f for f in funcs if f.sym_name.data == name]
    return [f for f in funcs if is_memref_function(f)]


def _upstream_function(funcs: list[func.FuncOp], name: str | None) -> func.FuncOp:
    """The upstream function to run: ``name`` (the only one in ``funcs``), else ``@main``, else the first."""
    return next((g for g in funcs if g.sym_name.data == "main"), funcs[0]) if name is None else funcs[0]


@dataclass(frozen=True)
class Shown:
    """One value a run shows: ``head`` (``@main result #0``), its type, its values (flat) and
    the digest of its bytes."""

    head: str
    kind: str
    values: np.ndarray
    digest: bytes


def _shown_tensor(name: str, k: int, t, data: np.ndarray) -> Shown:
    """A memopt-dialect result: its elements typed as ``t`` says (else its bytes), the digest of its bytes."""
    vals = typed(data, tensor_info(t))
    return Shown(f"@{name} result #{k}", str(t), vals.reshape(-1) if vals is not None else data, digest(data))


def _shown_value(head: str, v) -> Shown:
    """An upstream result or argument: a buffer's elements or a scalar, the digest of the values."""
    data = v.values() if isinstance(v, Ref) else np.asarray(v)
    kind = f"memref<{'x'.join(map(str, v.sizes))}{'x' if v.sizes else ''}{v.elem.name}>" if isinstance(v, Ref) \
        else str(data.dtype)
    return Shown(head, kind, data.reshape(-1), digest(data))


def run(module: ModuleOp, name: str | None = None, *, planned: bool = False, seed: int = 0,
        limits: Limits = Limits(), shapes: dict | None = None, dma_landing: str = "start") -> list[Shown]:
    """One run of function ``name`` (default ``@main``, else the first): its results, and for an
    upstream function then its memref arguments' final values."""
    funcs = memref_functions(module, name)
    if funcs:
        from .memref_exec import run_memref_function  # upstream only (module docstring)

        f = _upstream_function(funcs, name)
        results, params = run_memref_function(module, f, seed, planned=planned, limits=limits, shapes=shapes)
        fname = f.sym_name.data
        return ([_shown_value(f"@{fname} result #{k}", v) for k, v in enumerate(results)]
                + [_shown_value(f"@{fname} argument #{k}", v) for k, v in enumerate(params)])
    ex = run_function(module, name, planned=planned, seed=seed, dma_landing=dma_landing, limits=limits)
    return [_shown_tensor(ex.func.sym_name.data, k, t, data) for k, (t, data) in enumerate(zip(ex.types, ex.outputs))]


def check(module: ModuleOp, name: str | None = None, *, seed: int = 0, limits: Limits = Limits(),
          shapes: dict | None = None, dma_landings: tuple[str, ...] = ("start", "wait"), max_paths: int = 64,
          known: dict[str, tuple[bytes, ...]] | None = None) -> list[str]:
    """Prove the plan of every planned function (or ``name``) by running it unplanned and
    planned; one line per function saying what was compared. ``known`` receives each
    memopt-dialect function's unplanned results (what :func:`unplanned_results` would compute)."""
    funcs = memref_functions(module, name)
    if funcs:
        from .memref_exec import check_memref_function  # upstream only (module docstring)

        out = []
        for f in funcs:
            r = check_memref_function(module, f, seed=seed, limits=limits, shapes=shapes, max_paths=max_paths)
            paths = f", {r.paths} paths" if r.paths > 1 else ""
            out.append(f"@{r.function}: planned execution matches unplanned ({r.productions} buffer writes, "
                       f"{r.reads} reads, {r.arena_views} arena views{paths})")
        return out
    return [_check_line(r, known) for r in check_module(module, name, seed=seed, dma_landings=dma_landings,
                                                          max_paths=max_paths, limits=limits)]


def _check_line(r: CheckReport, known: dict[str, tuple[bytes, ...]] | None) -> str:
    if known is not None:
        known[r.function] = r.results
    more = "" if r.paths == r.total_paths else f", the first {r.paths} by --max-paths"
    return (f"@{r.function}: planned execution matches unplanned ({r.productions} values, "
            f"{r.reads} reads, {r.outputs} results, arena {r.arena_size} bytes, "
            f"paths {r.paths}/{r.total_paths}{more})")


@dataclass
class Results:
    """One unplanned run of a function, as two programs' runs are compared."""

    name: str
    flavour: str
    signature: list[str]
    """The types of the arguments the run generates (an arena argument aside)."""
    values: list[tuple[str, bytes]]
    """(label, bytes) of each compared value."""


def unplanned_results(module: ModuleOp, name: str | None, seed: int, limits: Limits, shapes: dict | None = None,
                      known: dict[str, tuple[bytes, ...]] | None = None) -> Results:
    """The results of one unplanned run: a memopt-dialect function's return values, or an
    upstream function's results and argument buffers after the run (its out-parameters; the
    arena argument of ``arena=arg`` is scratch and not compared). ``known``: memopt-dialect
    functions' results already computed (by :func:`check`), by name."""
    funcs = memref_functions(module, name)
    if funcs:
        from .memref_arena import is_arena_arg  # upstream only (module docstring)
        from .memref_exec import run_memref_function

        f = _upstream_function(funcs, name)
        results, params = run_memref_function(module, f, seed, limits=limits, shapes=shapes)
        args = [a for a in f.body.blocks[0].args if not is_arena_arg(a)]
        labels = [f"result #{k} ({t})" for k, t in enumerate(f.function_type.outputs.data)]
        labels += [f"argument #{a.index} ({a.type}) after the run" for a in args]
        values = list(zip(labels, result_bytes([*results, *params])))
        return Results(f.sym_name.data, UPSTREAM, [str(a.type) for a in args], values)
    f = find_function(module, name)
    done = (known or {}).get(f.sym_name.data)
    if done is None:
        done = tuple(result_bytes(run_function(module, f, planned=False, seed=seed, limits=limits).outputs))
    values = [(f"result #{k} ({t})", d) for k, (t, d) in enumerate(zip(f.function_type.outputs.data, done))]
    return Results(f.sym_name.data, MEMOPT, [str(t) for t in f.function_type.inputs.data], values)


__all__ = ["MEMOPT", "UPSTREAM", "Results", "Shown", "check", "memref_functions", "run", "unplanned_results"]
