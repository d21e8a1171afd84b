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
with every branch forced to its first and to its other region, so both sides of every branch
run against the plan. A forced path the program cannot take (its unplanned run fails: an
assertion, an index out of bounds, a loop that never ends) proves nothing and is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import affine, func, scf
from xdsl.dialects.builtin import ModuleOp

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError
from memopt.dialects.upstream_attrs import is_memref_function  # noqa: F401 - re-exported

# The op modules register how their ops compile (memref_program.COMPILERS) when imported: every
# Program is built here, so importing them here, once, is what makes the table complete.
from . import memref_affine, memref_control, memref_dma, memref_linalg, memref_ops  # noqa: F401
from .core import Program
from .memref_arena import is_arena_arg, is_arena_view
from .memref_entry import run_function
from .memref_machine import Machine
from .memref_program import MEMREF
from .proof import first_difference, result_bytes
from .resources import Limits


@dataclass(frozen=True)
class MemrefCheck:
    function: str
    writes: int
    reads: int
    arena_views: int
    paths: int = 1
    """Runs compared: the natural one, and each forced branch direction the program can take."""


def _branches(f: func.FuncOp, module: ModuleOp) -> bool:
    kinds = (scf.IfOp, affine.IfOp, scf.IndexSwitchOp)
    return any(isinstance(op, kinds) for op in walk(module)) and any(
        isinstance(op, (*kinds, func.CallOp)) for op in walk(f.body))


def run_pair(program: Program, f: func.FuncOp, seed: int, limits: Limits, shapes: dict | None,
             branches: bool | None) -> tuple[int, int] | None:
    """Run ``f`` unplanned then planned (the same branches forced); (writes, reads) compared,
    or None when a forced path fails unplanned (a path the program cannot take)."""
    ref = Machine(program, planned=False, seed=seed, limits=limits, shapes=shapes, branches=branches)
    try:
        expected = run_function(ref, f)
    except MemoptError:
        if branches is None:
            raise
        return None
    planned = Machine(program, planned=True, seed=seed, limits=limits, shapes=shapes, branches=branches,
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
                          shapes: dict | None = None) -> MemrefCheck:
    """Run ``f`` with its arena views unplanned and planned; raise a located MemoptError at the
    first buffer whose bytes differ (see the module docstring)."""
    policies: list[bool | None] = [None]
    if _branches(f, module):
        policies += [True, False]
    writes = reads = paths = 0
    program = Program(module, MEMREF)
    for policy in policies:
        counts = run_pair(program, f, seed, limits, shapes, policy)
        if counts is None:
            continue
        writes += counts[0]
        reads += counts[1]
        paths += 1
    views = sum(1 for op in walk(f.body) if is_arena_view(op))
    return MemrefCheck(f.sym_name.data, writes, reads, views, paths)


def run_memref_function(module: ModuleOp, f: func.FuncOp, seed: int = 0, *, planned: bool = False,
                        limits: Limits = Limits(), shapes: dict | None = None) -> tuple[list, list]:
    """One run of ``f``: its results and its non-arena arguments' final values (out-parameters)."""
    m = Machine(Program(module, MEMREF), planned=planned, seed=seed, limits=limits, shapes=shapes)
    results = run_function(m, f)
    params = [v for a, v in zip(f.body.blocks[0].args, m.arguments) if not is_arena_arg(a)]
    return results, params


__all__ = ["MemrefCheck", "check_memref_function", "is_memref_function", "run_memref_function"]
