"""Proof by execution: a planned function computes exactly what the unplanned one does.

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
``tensor '%x' differs between planned and unplanned execution``. What is compared — the
sequence of productions, the digests, the results — is :mod:`.proof`'s, shared with the upstream
executor (:mod:`.memref_exec`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from memopt.diagnostics import MemoptError, locate
from memopt.dialects.errors import value_location_op
from memopt.dialects.memopt import DmaStartOp, DmaWaitOp, IfOp
from memopt.dialects.planned import check_calls
from memopt.dialects.walk import walk

from .core import Program
from .interpreter import Execution, Interpreter, Observer, find_function
from .memopt_ops import MEMOPT
from .memory import DMA_LANDINGS, Planned, Unplanned, ValueNames, is_planned
from .proof import Mismatch, Productions, digest, first_difference, result_bytes
from .owned_memory import OwnedPlanned
from .paths import Forced, Reference, explore
from .resources import Limits, check_resources
from .value_owners import ValueOwners


def differs(value: SSAValue, names: ValueNames, detail: str = "") -> MemoptError:
    return MemoptError(
        f"tensor '{names.of(value)}' differs between planned and unplanned execution{detail}", value_location_op(value)
    )


class Recorder(Observer):
    """Reference run: the productions (each value and the digest of its bytes), in order."""

    def __init__(self) -> None:
        self.productions = Productions()
        self.values: list[SSAValue] = []

    def on_produce(self, value: SSAValue, data: np.ndarray) -> None:
        self.values.append(value)
        self.productions.add(value, digest(data))


class Checker(Observer):
    """Planned run: every production must match the reference, every read the production, and
    (given the planned ``memory``) every byte read must still be its own buffer's
    (:mod:`.value_owners`): a plan that lets a write reach a live tensor is wrong whatever the
    bytes written, so the verdict does not depend on the inputs."""

    def __init__(self, reference: Recorder, names: ValueNames, memory: OwnedPlanned | None = None) -> None:
        self.reference = reference
        self.productions = Productions(reference.productions)
        self.names = names
        self.current: dict[SSAValue, bytes] = {}
        self.reads = 0
        self.owners = ValueOwners(memory, names) if memory is not None else None

    def on_produce(self, value: SSAValue, data: np.ndarray) -> None:
        d = digest(data)
        found = self.productions.add(value, d)
        if found is Mismatch.PATH:
            raise differs(value, self.names, " (execution took a different path)")
        if found is Mismatch.VALUE:
            raise differs(value, self.names)
        self.current[value] = d
        if self.owners is not None:
            self.owners.produced(value, data)

    def missing(self) -> SSAValue | None:
        """The first value the reference produced and this run did not (None: it produced all)."""
        n = len(self.productions)
        return None if self.productions.complete() else self.reference.values[n]

    def on_read(self, value: SSAValue, data: np.ndarray, user: Operation) -> None:
        self.reads += 1
        if self.owners is not None:
            self.owners.read(value, data, user)
        if digest(data) != self.current.get(value):
            loc = locate(user)
            where = f" at {loc[0]}:{loc[1]}" if loc else ""
            raise differs(value, self.names, f" (overwritten before its use by '{user.name}'{where})")


@dataclass(frozen=True)
class CheckReport:
    """What one ``check_function`` compared."""

    function: str
    values: int
    reads: int
    outputs: int
    arena_size: int
    paths: int = 1
    """Execution paths proven (each ``if`` forced both ways, see :func:`check_function`)."""
    total_paths: int = 1
    """Execution paths of the function (product over sequential ``if``s of their branches'),
    and the natural one when it took an ``if`` both ways (in a loop)."""
    results: tuple[bytes, ...] = ()
    """The function's results in the unplanned run that follows the conditions (no ``if``
    forced): what :func:`run_function` returns, kept so that a caller comparing them need not run
    the function again."""


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
    names = ValueNames(f)
    program = Program(module, MEMOPT)

    def reference(forced: Forced) -> Reference[tuple[Recorder, Execution]]:
        rec = Recorder()
        interp = Interpreter(module, Unplanned(), rec, seed, forced, limits=limits, program=program)
        ref = interp.run(f)
        mixed = frozenset(op for op, way in interp.decisions if way != interp.taken[op])
        return Reference(interp.reached, interp.taken, (rec, ref), mixed)

    def prove(forced: Forced, reference: Reference[tuple[Recorder, Execution]]) -> _Proof:
        rec, ref = reference.run
        arena = reads = 0
        for landing in dma_landings:
            arena, reads = _prove_planned(module, f, program, names, rec, ref, forced, landing, seed, limits)
        return _Proof(len(rec.values), reads, len(ref.outputs), arena, tuple(result_bytes(ref.outputs)),
                      bool(reference.mixed))

    proven = explore(reference, prove, max(max_paths, 1))
    first, last = proven[0], proven[-1]
    total = count_paths(f.body.blocks[0]) + first.mixed
    return CheckReport(f.sym_name.data, sum(p.values for p in proven), sum(p.reads for p in proven), last.outputs,
                       last.arena, len(proven), total, first.results)


@dataclass(frozen=True)
class _Proof:
    """What the proof of one path compared."""

    values: int
    reads: int
    outputs: int
    arena: int
    results: tuple[bytes, ...]
    mixed: bool
    """Whether some ``if`` went both ways (a path besides those forcing enumerates)."""


def _prove_planned(module: ModuleOp, f: func.FuncOp, program: Program, names: ValueNames, rec: Recorder,
                   ref: Execution, forced: Forced, landing: str, seed: int, limits: Limits) -> tuple[int, int]:
    """Run ``f`` planned (DMA landing model ``landing``) on the reference's path and compare;
    (arena size, reads checked)."""
    memory = OwnedPlanned(f, module, landing, names)
    checker = Checker(rec, names, memory)
    # Same forcing as the reference; unforced ifs follow their conditions, which see
    # the same data when the plan is right (an if in a loop may go both ways).
    got = Interpreter(module, memory, checker, seed, forced, limits=limits, program=program).run(f)
    missing = checker.missing()
    if missing is not None:
        raise differs(missing, names, " (execution took a different path)")
    k = first_difference(result_bytes(ref.outputs), result_bytes(got.outputs))
    if k is not None:
        ret = f.body.blocks[0].last_op
        assert ret is not None
        raise differs(ret.operands[k], names, f" (function result #{k})")
    return memory.arena_size, checker.reads


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
