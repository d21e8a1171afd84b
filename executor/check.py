"""Proof by execution: a planned function computes exactly what the unplanned one does.

The unplanned run (every value its own array) is the reference; it records a digest of every
value when it is produced. The planned run (one arena laid out by the plan attributes) must then
produce the same values in the same order, and every operand it reads must still hold the bytes
it had when it was produced. Checking at those two moments -- not only at the end -- is what
makes the comparison both sound and sharp:

* a tensor's planned storage may legitimately be reused after its last read, so comparing all
  values at the end would report false differences;
* a plan that lets a write clobber a live tensor is caught at the tensor's next read and the
  *clobbered* tensor is named (not some consumer downstream of it).

The first difference is a located :class:`MemoptError`:
``tensor '%x' differs between planned and unplanned execution``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from memopt.diagnostics import MemoptError, locate
from memopt.dialects.errors import value_location_op
from memopt.dialects.memopt import DmaStartOp, DmaWaitOp, IfOp
from memopt.dialects.planned import check_calls
from memopt.dialects.walk import walk

from .interpreter import Execution, Interpreter, Observer, find_function
from .memory import DMA_LANDINGS, Planned, Unplanned, ValueNames, is_planned
from .resources import Limits, check_resources


def digest(data: np.ndarray) -> bytes:
    return hashlib.blake2b(memoryview(np.ascontiguousarray(data)), digest_size=16).digest()


def differs(value: SSAValue, names: ValueNames, detail: str = "") -> MemoptError:
    return MemoptError(
        f"tensor '{names.of(value)}' differs between planned and unplanned execution{detail}", value_location_op(value)
    )


class Recorder(Observer):
    """Reference run: the digest of every value, in production order."""

    def __init__(self) -> None:
        self.events: list[tuple[SSAValue, bytes]] = []

    def on_produce(self, value, data):
        self.events.append((value, digest(data)))


class Checker(Observer):
    """Planned run: every production must match the reference, every read the production."""

    def __init__(self, reference: list[tuple[SSAValue, bytes]], names: ValueNames) -> None:
        self.reference = reference
        self.names = names
        self.position = 0
        self.current: dict[SSAValue, bytes] = {}
        self.reads = 0

    def on_produce(self, value, data):
        if self.position >= len(self.reference) or self.reference[self.position][0] is not value:
            raise differs(value, self.names, " (execution took a different path)")
        d = digest(data)
        if d != self.reference[self.position][1]:
            raise differs(value, self.names)
        self.position += 1
        self.current[value] = d

    def on_read(self, value, data, user):
        self.reads += 1
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
    """Execution paths of the function (product over sequential ``if``s of their branches')."""
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
    return Interpreter(module, memory, observer, seed).run(f)


def check_function(
    module: ModuleOp, f: func.FuncOp, *, seed: int = 0, dma_landings=DMA_LANDINGS, max_paths: int = 64,
    limits: Limits = Limits(),
) -> CheckReport:
    """Run ``f`` unplanned and planned (once per DMA landing model, once in all when ``f`` moves
    no weight by DMA: the models differ only in when a transfer lands) and compare; raise a
    located :class:`MemoptError` naming the first tensor that differs.

    Every execution path is proven, not only the one the generated inputs select: the first run
    follows the conditions, then each ``if`` reached is forced the other way (both runs of a
    comparison force the same branches), breadth-first, until every path is covered or
    ``max_paths`` were run. Forcing is sound for a memory proof: the plan must hold whichever
    branch runs, and the data a branch computes does not matter to where it lives."""
    check_resources(module, f, limits)
    if not any(isinstance(op, (DmaStartOp, DmaWaitOp)) for op in walk(f.body)):
        dma_landings = tuple(dma_landings)[:1]
    names = ValueNames(f)
    total = count_paths(f.body.blocks[0])
    queue: list[dict] = [{}]
    tried: set[frozenset] = set()
    proven: set[tuple] = set()
    values = reads = outputs = arena = path_reads = 0
    results: tuple[bytes, ...] = ()
    while queue and len(proven) < max_paths:
        forced = queue.pop(0)
        key = frozenset((id(k), v) for k, v in forced.items())
        if key in tried:
            continue
        tried.add(key)
        rec = Recorder()
        ref_interp = Interpreter(module, Unplanned(), rec, seed, forced)
        ref = ref_interp.run(f)
        if not forced:
            results = tuple(o.tobytes() for o in ref.outputs)
        pinned = {op: ref_interp.taken[op] for op in ref_interp.reached}  # first choice of each
        path = tuple((id(op), pinned[op]) for op in ref_interp.reached)
        if path in proven:
            continue
        for landing in dma_landings:
            memory = Planned(f, module, landing)
            arena = memory.arena_size
            checker = Checker(rec.events, names)
            # Same forcing as the reference; unforced ifs follow their conditions, which see
            # the same data when the plan is right (an if in a loop may go both ways).
            got = Interpreter(module, memory, checker, seed, forced).run(f)
            if checker.position != len(rec.events):
                missing = rec.events[checker.position][0]
                raise differs(missing, names, " (execution took a different path)")
            ret = f.body.blocks[0].last_op
            for k, (a, b) in enumerate(zip(ref.outputs, got.outputs)):
                if a.tobytes() != b.tobytes():
                    assert ret is not None
                    raise differs(ret.operands[k], names, f" (function result #{k})")
            path_reads = checker.reads
        reads += path_reads
        proven.add(path)
        values += len(rec.events)
        outputs = len(ref.outputs)
        # Flip each if this run chose freely, keeping the choices made before it.
        for op in ref_interp.reached:
            if op not in forced:
                queue.append({**forced, op: not pinned[op]})
                forced = {**forced, op: pinned[op]}
    return CheckReport(f.sym_name.data, values, reads, outputs, arena, len(proven), total, results)


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


__all__ = ["CheckReport", "check_function", "check_module", "count_paths", "digest", "run_function"]
