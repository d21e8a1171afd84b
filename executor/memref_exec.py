"""Proof by execution for upstream MLIR plans (``func``/``memref``/``scf``/``affine``/``arith``/
``math``/``linalg``/``bufferization``).

A planned upstream function holds its buffers as ``memref.view``s of one ``i8`` arena — whether
memopt's ``plan-memory`` or upstream MLIR's ``static-memory-planner-analysis`` made the plan. The
*unplanned* reading of the same IR gives every such view its own fresh storage; the *planned*
reading places it in the arena as written. Both run with the ops' real semantics (linalg named
ops and bodies, scalar arithmetic, loops, calls: see the ``memref_*`` modules, and
:mod:`.memref_machine` for what is checked at every read and write):

* a read that finds a byte last written by another buffer names the clobbered buffer and the
  one that overwrote it; a read of a byte nothing wrote is refused (its value is undefined);
* the planned run must write exactly what the unplanned run wrote, in the same order, and
  return the same results.

With ``scf.if``/``affine.if``/``scf.index_switch`` in the function, the pair of runs is repeated
on other paths, each branch reached forced the other way (:mod:`.paths`, the enumeration the
memopt-dialect checker uses; a switch goes one of two ways there: a case, the first when forced,
or its default), so both sides of every branch run against the plan. A forced path the program
cannot take (its unplanned run fails: an assertion, an index out of bounds, a loop that never
ends) proves nothing and is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError

# The op modules register how their ops compile (memref_program.COMPILERS) when imported: every
# Program is built here, so importing them here, once, is what makes the table complete.
from . import memref_affine, memref_control, memref_dma, memref_linalg, memref_ops  # noqa: F401
from .core import Program
from .memref_arena import is_arena_arg, is_arena_view
from .memref_entry import run_function
from .memref_machine import Machine
from .memref_program import MEMREF
from .paths import Forced, Reference, explore
from .proof import first_difference, result_bytes
from .resources import Limits


@dataclass(frozen=True)
class MemrefCheck:
    function: str
    writes: int
    reads: int
    arena_views: int
    paths: int = 1
    """Distinct paths compared: the natural one, and each forced one the program can take."""


def _reference(program: Program, f: func.FuncOp, seed: int, limits: Limits, shapes: dict | None,
               forced: Forced) -> Reference[tuple[Machine, list]] | None:
    """``f`` run unplanned on the path ``forced`` selects, or None when that path fails (a path the
    program cannot take: an assertion, an index out of bounds); the natural run's failure is raised."""
    ref = Machine(program, planned=False, seed=seed, limits=limits, shapes=shapes, branches=forced)
    try:
        expected = run_function(ref, f)
    except MemoptError:
        if not forced:
            raise
        return None
    return Reference(ref.reached, ref.taken, (ref, expected), frozenset(ref.mixed))


def _prove(program: Program, f: func.FuncOp, seed: int, limits: Limits, shapes: dict | None, forced: Forced,
           reference: Reference[tuple[Machine, list]]) -> tuple[int, int]:
    """``f`` run planned on the reference's path and compared with it; (writes, reads)."""
    ref, expected = reference.run
    planned = Machine(program, planned=True, seed=seed, limits=limits, shapes=shapes, branches=forced,
                      expected=ref.log, choices=ref.choices)
    got = run_function(planned, f)
    if not planned.log.complete():
        raise MemoptError(f"planned execution of @{f.sym_name.data} stopped after {len(planned.log)} of the "
                          f"{len(ref.log)} writes of unplanned execution", f)
    k = first_difference(result_bytes(expected), result_bytes(got))
    if k is not None:
        raise MemoptError(f"result #{k} of @{f.sym_name.data} differs between planned and unplanned "
                          "execution", f.body.blocks[-1].last_op)
    return len(ref.log), planned.reads


def check_memref_function(module: ModuleOp, f: func.FuncOp, seed: int = 0, *, limits: Limits = Limits(),
                          shapes: dict | None = None, max_paths: int = 64) -> MemrefCheck:
    """Run ``f`` with its arena views unplanned and planned, on up to ``max_paths`` paths (each
    branch reached forced both ways, :mod:`.paths`); raise a located MemoptError at the first
    buffer whose bytes differ (see the module docstring)."""
    program = Program(module, MEMREF)
    proven = explore(lambda forced: _reference(program, f, seed, limits, shapes, forced),
                     lambda forced, ref: _prove(program, f, seed, limits, shapes, forced, ref), max_paths)
    views = sum(1 for op in walk(f.body) if is_arena_view(op))
    return MemrefCheck(f.sym_name.data, sum(w for w, _ in proven), sum(r for _, r in proven), views, len(proven))


def run_memref_function(module: ModuleOp, f: func.FuncOp, seed: int = 0, *, planned: bool = False,
                        limits: Limits = Limits(), shapes: dict | None = None) -> tuple[list, list]:
    """One run of ``f``: its results and its non-arena arguments' final values (out-parameters)."""
    m = Machine(Program(module, MEMREF), planned=planned, seed=seed, limits=limits, shapes=shapes)
    results = run_function(m, f)
    params = [v for a, v in zip(f.body.blocks[0].args, m.arguments) if not is_arena_arg(a)]
    return results, params


__all__ = ["MemrefCheck", "check_memref_function", "run_memref_function"]
