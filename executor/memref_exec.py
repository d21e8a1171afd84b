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
on other paths, each branch reached forced each other way (:mod:`.paths`; a switch to each of its
cases and its default), so every side of every branch runs against the plan. A forced path the
program cannot take (its unplanned run fails: an assertion, an index out of bounds, a loop that
never ends) proves nothing and is skipped.

The driver and the checker are the memopt dialect's too (:mod:`.checker`): this module says only
how an upstream function runs and words its messages.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError

# The op modules register how their ops compile (memref_program.COMPILERS) when imported: every
# Program is built here, so importing them here, once, is what makes the table complete.
from . import memref_affine, memref_control, memref_dma, memref_linalg, memref_ops  # noqa: F401
from .checker import Checker, CheckReport, Flavour, prove, report
from .core import Program
from .memref_arena import is_arena_arg, is_arena_view
from .memref_entry import run_function
from .memref_machine import NOUN, Machine
from .memref_program import MEMREF
from .paths import Forced
from .resources import Limits


class Upstream(Flavour[Machine]):
    """How the proof runs an upstream function (:mod:`.checker`): a :class:`.memref_machine.Machine`
    unplanned, then planned; a forced path whose unplanned run fails is skipped."""

    noun = NOUN
    infeasible = True

    def __init__(self, program: Program, f: func.FuncOp, seed: int, limits: Limits, shapes: dict | None):
        self.program, self.f, self.seed, self.limits, self.shapes = program, f, seed, limits, shapes

    def _run(self, planned: bool, forced: Forced, checker: Checker) -> tuple[Machine, list]:
        m = Machine(self.program, planned=planned, seed=self.seed, limits=self.limits, shapes=self.shapes,
                    branches=forced, checker=checker)
        return m, run_function(m, self.f)

    def reference(self, forced: Forced, checker: Checker) -> tuple[Machine, list]:
        return self._run(False, forced, checker)

    def planned(self, forced: Forced, checker: Checker, landing: str | None) -> tuple[Machine, list]:
        return self._run(True, forced, checker)

    def stopped(self, checker: Checker) -> MemoptError:
        assert checker.reference is not None  # a planned run's
        return MemoptError(f"planned execution of @{self.f.sym_name.data} stopped after {len(checker.productions)} "
                           f"of the {len(checker.reference.productions)} writes of unplanned execution", self.f)

    def result_differs(self, k: int) -> MemoptError:
        return MemoptError(f"result #{k} of @{self.f.sym_name.data} differs between planned and unplanned "
                           "execution", self.f.body.blocks[-1].last_op)


def check_memref_function(module: ModuleOp, f: func.FuncOp, seed: int = 0, *, limits: Limits = Limits(),
                          shapes: dict | None = None, max_paths: int = 64) -> CheckReport:
    """Run ``f`` with its arena views unplanned and planned, on up to ``max_paths`` paths (each
    branch reached forced every way, :mod:`.paths`); raise a located MemoptError at the first
    buffer whose bytes differ (see the module docstring). The report counts buffer writes as its
    productions and the function's arena views."""
    proven = prove(Upstream(Program(module, MEMREF), f, seed, limits, shapes), max_paths)
    views = sum(1 for op in walk(f.body) if is_arena_view(op))
    return report(f.sym_name.data, proven, arena_views=views)


def run_memref_function(module: ModuleOp, f: func.FuncOp, seed: int = 0, *, planned: bool = False,
                        limits: Limits = Limits(), shapes: dict | None = None) -> tuple[list, list]:
    """One run of ``f``: its results and its non-arena arguments' final values (out-parameters)."""
    m = Machine(Program(module, MEMREF), planned=planned, seed=seed, limits=limits, shapes=shapes)
    results = run_function(m, f)
    params = [v for a, v in zip(f.body.blocks[0].args, m.arguments) if not is_arena_arg(a)]
    return results, params


__all__ = ["Upstream", "check_memref_function", "run_memref_function"]
