"""Proof by execution, memopt dialect: a planned function computes exactly what the unplanned one does.

The unplanned run (every value its own array) is the reference; it records a digest of every
value when it is produced. The planned run (one arena laid out by the plan attributes) must then
produce the same values in the same order, and every operand it reads must still hold the bytes
it had when it was produced. Checking at those two moments -- not only at the end -- is what
makes the comparison both sound and sharp (and the planned run also checks that every byte it
reads is still its own tensor's, :mod:`.value_owners`, so that a clobber is caught even when
the clobbering bytes happen to be equal):

* a tensor's planned storage may legitimately be reused after its last read, so comparing all
  values at the end would report false differences;
* a plan that lets a write clobber a live tensor is caught at the tensor's next read and the
  *clobbered* tensor is named (not some consumer downstream of it).

The first difference is a located :class:`MemoptError`:
``tensor '%x' differs between planned and unplanned execution``. The checker and the driver
over paths and landing models are :mod:`.checker`'s, shared with the upstream executor
(:mod:`.memref_exec`); this module says how the interpreter runs a function for them
(:class:`Dialect`) and how the interpreter's values reach the checker (:class:`Watch`).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from memopt.diagnostics import MemoptError, locate
from memopt.dialects.errors import value_location_op
from memopt.dialects.memopt import DmaStartOp, DmaWaitOp, IfOp
from memopt.dialects.planned import check_calls
from memopt.dialects.walk import walk

from .checker import OTHER_PATH, Checker, CheckReport, Flavour, differs, prove, report
from .core import Program
from .interpreter import Execution, Interpreter, Observer, find_function
from .memopt_ops import MEMOPT
from .memory import DMA_LANDINGS, Planned, Unplanned, ValueNames, is_planned
from .owned_memory import OwnedPlanned
from .paths import Forced
from .proof import Mismatch, digest
from .resources import Limits, check_resources
from .value_owners import ValueOwners

NOUN = "tensor"
"""What messages call a memopt-dialect value's buffer."""


class Watch(Observer):
    """A run's values seen by its checker: every production matched against the reference's,
    and in a planned run every read against its production and (with ``owners``) the bytes it
    owns (:mod:`.value_owners`): a plan that lets a write reach a live tensor is wrong whatever
    the bytes written, so the verdict does not depend on the inputs."""

    def __init__(self, checker: Checker, names: ValueNames, owners: ValueOwners | None = None) -> None:
        self.checker, self.names, self.owners = checker, names, owners
        self.planned = checker.reference is not None

    def differs(self, value: SSAValue, detail: str = "") -> MemoptError:
        return self.checker.differs(self.names.of(value), value_location_op(value), detail)

    def on_produce(self, value: SSAValue, data: np.ndarray) -> None:
        d = digest(data)
        found = self.checker.produced(value, d)
        if not self.planned:
            return
        if found is Mismatch.PATH:
            raise self.differs(value, OTHER_PATH)
        if found is Mismatch.VALUE:
            raise self.differs(value)
        self.checker.holds(value, d)
        if self.owners is not None:
            self.owners.produced(value, data)

    def on_read(self, value: SSAValue, data: np.ndarray, user: Operation) -> None:
        if not self.planned:
            return
        if self.owners is not None:
            self.owners.read(value, data, user)
        if not self.checker.read(value, digest(data)):
            loc = locate(user)
            where = f" at {loc[0]}:{loc[1]}" if loc else ""
            raise self.differs(value, f" (overwritten before its use by '{user.name}'{where})")


class Dialect(Flavour[Interpreter]):
    """How the proof runs a memopt-dialect function (:mod:`.checker`): the interpreter in
    :class:`.memory.Unplanned` memory, then once per DMA landing model in the arena the plan
    describes (:class:`.owned_memory.OwnedPlanned`)."""

    noun = NOUN
    trail = True

    def __init__(self, module: ModuleOp, f: func.FuncOp, seed: int, limits: Limits, landings) -> None:
        self.module, self.f, self.seed, self.limits, self.landings = module, f, seed, limits, tuple(landings)
        self.names = ValueNames(f)
        self.program = Program(module, MEMOPT)

    def _run(self, memory, watch: Watch, forced: Forced) -> tuple[Interpreter, list]:
        run = Interpreter(self.module, memory, watch, self.seed, forced, limits=self.limits, program=self.program)
        return run, run.run(self.f).outputs

    def reference(self, forced: Forced, checker: Checker) -> tuple[Interpreter, list]:
        return self._run(Unplanned(), Watch(checker, self.names), forced)

    def planned(self, forced: Forced, checker: Checker, landing: str | None) -> tuple[Interpreter, list]:
        # Same forcing as the reference; unforced ifs follow their conditions, which see
        # the same data when the plan is right (an if in a loop may go both ways).
        memory = OwnedPlanned(self.f, self.module, landing or DMA_LANDINGS[0], self.names, checker.owners)
        return self._run(memory, Watch(checker, self.names, self.value_owners(memory)), forced)

    def value_owners(self, memory: OwnedPlanned) -> ValueOwners | None:
        """What a planned run's values own in ``memory`` (None: values alone are compared)."""
        return ValueOwners(memory, self.names)

    def stopped(self, checker: Checker) -> MemoptError:
        missing = checker.missing()
        assert isinstance(missing, SSAValue)  # the reference keeps its trail of values
        return checker.differs(self.names.of(missing), value_location_op(missing), OTHER_PATH)

    def result_differs(self, k: int) -> MemoptError:
        ret = self.f.body.blocks[0].last_op
        assert ret is not None
        value = ret.operands[k]
        return differs(NOUN, self.names.of(value), value_location_op(value), f" (function result #{k})")


def count_paths(block) -> int:
    """Distinct execution paths through ``block`` when every ``if`` op takes one branch per run
    (what forcing explores): sequential ``if``s multiply, branches add, loop bodies count once
    (a forced ``if`` takes the same branch in every iteration)."""
    total = 1
    for op in block.ops:
        if isinstance(op, IfOp):
            total *= sum(count_paths(r.blocks[0]) if r.blocks else 1 for r in op.regions)
        else:
            for r in op.regions:
                for b in r.blocks:
                    total *= count_paths(b)
    return total


def run_function(
    module: ModuleOp, f: func.FuncOp | str | None = None, *, planned: bool = False, seed: int = 0,
    dma_landing: str = "start", observer: Observer | None = None, limits: Limits = Limits(),
) -> Execution:
    """Execute ``f`` (an op, a name, or None for ``@main``/the first function) unplanned, or in
    the arena its plan attributes describe (refused, located, beyond ``limits``)."""
    if not isinstance(f, func.FuncOp):
        f = find_function(module, f)
    check_resources(module, f, limits)
    memory = Planned(f, module, dma_landing) if planned else Unplanned()
    return Interpreter(module, memory, observer, seed, limits=limits).run(f)


def check_function(
    module: ModuleOp, f: func.FuncOp, *, seed: int = 0, dma_landings=DMA_LANDINGS, max_paths: int = 64,
    limits: Limits = Limits(),
) -> CheckReport:
    """Run ``f`` unplanned and planned (once per DMA landing model, once in all when ``f`` moves
    no weight by DMA: the models differ only in when a transfer lands) and compare; raise a
    located :class:`MemoptError` naming the first tensor that differs.

    Every execution path is proven, not only the one the generated inputs select: each ``if``
    reached is forced both ways (:mod:`.paths`, the enumeration the upstream checker uses) until
    every path is covered or ``max_paths`` were proven. Forcing is sound for a memory proof: the
    plan must hold whichever branch runs, and the data a branch computes does not matter to where
    it lives."""
    check_resources(module, f, limits)
    if not any(isinstance(op, (DmaStartOp, DmaWaitOp)) for op in walk(f.body)):
        dma_landings = tuple(dma_landings)[:1]
    proven = prove(Dialect(module, f, seed, limits, dma_landings), max(max_paths, 1))
    total = count_paths(f.body.blocks[0]) + proven[0].mixed
    return report(f.sym_name.data, proven, arena_size=proven[-1].planned.memory.arena_size, total_paths=total)


def check_module(
    module: ModuleOp, func_name: str | None = None, *, seed: int = 0, dma_landings=DMA_LANDINGS, max_paths: int = 64,
    limits: Limits = Limits(),
) -> list[CheckReport]:
    """:func:`check_function` on ``func_name``, or on every function with a body (each must be
    planned)."""
    check_calls([op for op in walk(module) if isinstance(op, func.FuncOp) and op.body.blocks])
    if func_name is not None:
        funcs = [find_function(module, func_name)]
    else:
        funcs = [op for op in walk(module) if isinstance(op, func.FuncOp) and op.body.blocks]
        if not funcs:
            raise MemoptError("the module has no function with a body to run")
    for f in funcs:
        if not is_planned(f):
            Planned(f, module)  # raises the located "not planned" error
    return [check_function(module, f, seed=seed, dma_landings=dma_landings, max_paths=max_paths, limits=limits)
            for f in funcs]


__all__ = ["CheckReport", "check_function", "check_module", "count_paths", "run_function"]
