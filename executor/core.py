"""The interpreter core both IR flavours run on: a program compiled once into steps, run block by block.

Executing IR op by op through xDSL's objects costs tens of microseconds an op; a loop nest after
``--convert-linalg-to-loops`` runs millions, and a check runs every function several times. So
each function's SSA values are numbered (a frame is a list, a value its slot), and each op
becomes a *step*: a closure that reads its operands' slots, does its work and writes its
results' slots, with everything that can be worked out from the IR (slots, maps, types, callees)
worked out once. A block is its steps and its terminator's yielded slots (:class:`Code`);
:class:`Core` runs blocks and counts the ops it executes against the limit.

What an op does is its flavour's (:class:`Semantics`): the memopt dialect's tensors
(:mod:`.memopt_ops`' table, run by :mod:`.interpreter`) or upstream ``memref`` buffers
(:mod:`.memref_program`'s table, run by :mod:`.memref_machine`). A flavour's compile function
turns an op that cannot execute into a step that raises its located error when it runs
(:func:`failing`): a construct on a path the run never takes does not stop the run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import Block, Operation, SSAValue

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError, locate

from .paths import Forced
from .resources import Limits

Step = Callable[..., None]
"""``step(machine, frame)``: execute one op."""
Compile = Callable[["Compiler", Operation], Step]


@dataclass(frozen=True)
class Semantics:
    """One IR flavour's ops: which end a block (their operands are what it passes on), and how
    every other op compiles into a step."""

    terminators: frozenset[str]
    compile: Compile


class Code:
    """A compiled block: argument slots, steps, the terminator and the slots it passes on."""

    __slots__ = ("args", "steps", "term", "yields", "n", "owner")

    def __init__(self, args, steps, term, yields, owner):
        self.args, self.steps, self.term, self.yields, self.owner = args, steps, term, yields, owner
        self.n = len(steps) + 1


class Compiler:
    """The slots and compiled blocks of one function."""

    def __init__(self, program: Program, f: func.FuncOp):
        self.program, self.func = program, f
        self.slots: dict[SSAValue, int] = {}
        self.blocks: dict[int, Code] = {}
        for op in walk(f.body):
            for region in op.regions:
                for b in region.blocks:
                    for a in b.args:
                        self.slots[a] = len(self.slots)
            for r in op.results:
                self.slots[r] = len(self.slots)
        for b in f.body.blocks:  # the entry block's arguments first
            for a in b.args:
                self.slots[a] = len(self.slots)
        self.size = len(self.slots)

    def name(self, v: SSAValue) -> str:
        """How messages name ``v``: ``%name``, with its line when other values share the name
        (the parser keeps ``%alloc`` of ``%alloc_2``), ``<line N>`` when it has none."""
        owner = v.owner if isinstance(v.owner, Operation) else v.owner.parent_op()
        assert owner is not None  # a value of the function's body
        loc = locate(owner)
        line = f"line {loc[0]}" if loc else f"'{owner.name}'"
        if not v.name_hint:
            return f"<{line}>"
        hints = self.program.fact(("hints", id(self.func)), lambda: _hint_counts(self.func))
        return f"%{v.name_hint}" if hints.get(v.name_hint, 0) < 2 else f"%{v.name_hint} ({line})"

    def slot(self, v: SSAValue) -> int:
        return self.slots[v]

    def slots_of(self, vs) -> tuple[int, ...]:
        return tuple(self.slots[v] for v in vs)

    def code(self, block: Block) -> Code:
        """``block`` compiled (once)."""
        code = self.blocks.get(id(block))
        if code is None:
            code = self.blocks[id(block)] = self._compile(block)
        return code

    def _compile(self, block: Block) -> Code:
        last = block.last_op
        term = last if last is not None and last.name in self.program.semantics.terminators else None
        steps = [self.step(op) for op in block.ops if op is not term]
        yields = self.slots_of(term.operands) if term is not None else ()
        return Code(self.slots_of(block.args), steps, term, yields, block.parent_op())

    def step(self, op: Operation) -> Step:
        """``op`` compiled by its flavour's semantics."""
        return self.program.semantics.compile(self, op)


def _hint_counts(f: func.FuncOp) -> dict[str, int]:
    counts: dict[str, int] = {}
    values = [a for b in f.body.blocks for a in b.args]
    values += [r for op in walk(f.body) for r in (*op.results, *(a for reg in op.regions for b in reg.blocks
                                                                   for a in b.args))]
    for v in values:
        if v.name_hint:
            counts[v.name_hint] = counts.get(v.name_hint, 0) + 1
    return counts


def failing(error: Exception) -> Step:
    """A step that raises ``error`` when it runs (an op that cannot execute)."""
    def step(m, frame):
        raise error
    return step


class Program:
    """A module's functions compiled with one flavour's semantics, shared by every run of a check."""

    def __init__(self, module, semantics: Semantics):
        self.module, self.semantics = module, semantics
        self.compilers: dict[int, Compiler] = {}
        self.functions = {f.sym_name.data: f for f in walk(module) if isinstance(f, func.FuncOp)}
        self.facts: dict[object, object] = {}  # per-op facts worked out once (arena tests, costs)

    def compiler(self, f: func.FuncOp) -> Compiler:
        c = self.compilers.get(id(f))
        if c is None:
            c = self.compilers[id(f)] = Compiler(self, f)
        return c

    def fact(self, key, compute: Callable[[], object]):
        value = self.facts.get(key, self)
        if value is self:
            value = self.facts[key] = compute()
        return value


class Core:
    """One run of a program: its limits, the blocks it runs, counted against ``max_ops``, and the
    way each branch op went (:meth:`choose`). Each flavour's machine adds its values' storage
    and what it checks."""

    def __init__(self, program: Program, *, seed: int = 0, limits: Limits = Limits(),
                 branches: Forced | None = None):
        """``branches``: branch ops forced, to the region they run (:data:`.paths.Forced`); the
        others' conditions decide."""
        self.program, self.seed, self.limits = program, seed, limits
        self.ops = 0
        self.branches: Forced = branches or {}
        self.reached: list[Operation] = []  # branch ops reached, in first-reach order (:mod:`.paths`)
        self.taken: dict[Operation, int] = {}  # the way (region) each went first
        self.ways: dict[Operation, int] = {}  # how many ways each can go
        self.mixed: set[Operation] = set()  # those that went several ways

    def choose(self, op: Operation, natural: int, ways: int) -> int:
        """The region branch ``op`` runs, of its ``ways``: forced, else ``natural``; the way it
        goes first, and whether it goes several ways, are recorded for the path enumeration."""
        way = self.branches.get(op, natural)
        first = self.taken.get(op)
        if first is None:
            self.taken[op] = way
            self.ways[op] = ways
            self.reached.append(op)
        elif first != way:
            self.mixed.add(op)
        return way

    def branch(self, op: Operation, natural: bool) -> bool:
        """Whether two-way branch ``op`` (an ``if``) runs its first region: :meth:`choose` of
        its ``natural`` way."""
        return self.choose(op, 0 if natural else 1, 2) == 0

    def count(self, n: int, op: Operation | None) -> None:
        self.ops += n
        if self.ops > self.limits.max_ops:
            raise MemoptError(f"executing runs more than {self.limits.max_ops} ops (--max-ops)", op)

    def run_block(self, code: Code, frame: list, args=()) -> Operation | None:
        """Bind ``args`` to the block's arguments, run its steps; its terminator (or None)."""
        for s, v in zip(code.args, args):
            frame[s] = v
        self.ops += code.n
        if self.ops > self.limits.max_ops:
            raise MemoptError(f"executing runs more than {self.limits.max_ops} ops (--max-ops)", code.owner)
        for step in code.steps:
            step(self, frame)
        return code.term


__all__ = ["Code", "Compile", "Compiler", "Core", "Program", "Semantics", "Step", "failing"]
