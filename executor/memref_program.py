"""An upstream program compiled once into Python closures, for every run of it.

Executing IR op by op through xDSL's objects costs tens of microseconds an op; a loop nest after
``--convert-linalg-to-loops`` runs millions. So each function's SSA values are numbered (a
frame is a list, a value its slot), and each op becomes a *step*: a closure that reads its
operands' slots, does its work and writes its results' slots, with everything that can be
worked out from the IR (slots, maps, types, callees) worked out once. A block is its steps and
its terminator's yielded slots (:class:`Code`).

An op that cannot execute compiles to a step that raises its located error when it runs: a
construct on a path the run never takes does not stop the run.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import func
from xdsl.ir import Block, Operation, SSAValue

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError, locate

from .memref_scalar import scalar_step
from .memref_values import Unsupported

Step = Callable[..., None]
"""``step(machine, frame)``: execute one op."""
Compile = Callable[["Compiler", Operation], Step]
COMPILERS: dict[str, Compile] = {}
"""Op name -> how to compile it: filled by the ``memref_*`` op modules' :func:`compiles`, which
:mod:`.memref_exec`, the one module that builds a :class:`Program`, imports."""

TERMINATORS = frozenset({"scf.yield", "affine.yield", "func.return", "scf.condition", "cf.br", "cf.cond_br",
                         "linalg.yield", "memref.alloca_scope.return", "scf.reduce"})


def compiles(*names: str) -> Callable[[Compile], Compile]:
    """Register how to compile ops ``names``."""
    def register(fn: Compile) -> Compile:
        for n in names:
            COMPILERS[n] = fn
        return fn
    return register


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
        for a in f.body.blocks[0].args if f.body.blocks else []:
            self.slots[a] = len(self.slots)
        for b in f.body.blocks:
            for a in b.args:
                self.slots.setdefault(a, len(self.slots))
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
        term = last if last is not None and last.name in TERMINATORS else None
        steps = [self.step(op) for op in block.ops if op is not term]
        yields = self.slots_of(term.operands) if term is not None else ()
        return Code(self.slots_of(block.args), steps, term, yields, block.parent_op())

    def step(self, op: Operation) -> Step:
        """``op`` compiled; an op that cannot run becomes a step raising why, located."""
        try:
            compile_op = COMPILERS.get(op.name)
            if compile_op is None and op.name.startswith("linalg."):
                compile_op = COMPILERS["linalg.*"]
            if compile_op is not None:
                return compile_op(self, op)
            step = scalar_step(self, op)
            if step is not None:
                return step
            raise MemoptError(f"cannot execute operation '{op.name}' (no semantics for it in memopt-run)", op)
        except Unsupported as e:
            return failing(MemoptError(f"cannot execute '{op.name}': {e}", op))
        except MemoptError as e:
            return failing(e)


def _hint_counts(f: func.FuncOp) -> dict[str, int]:
    counts: dict[str, int] = {}
    values = [a for b in f.body.blocks for a in b.args]
    values += [r for op in walk(f.body) for r in (*op.results, *(a for reg in op.regions for b in reg.blocks
                                                                   for a in b.args))]
    for v in values:
        if v.name_hint:
            counts[v.name_hint] = counts.get(v.name_hint, 0) + 1
    return counts


def failing(error: MemoptError) -> Step:
    def step(m, frame):
        raise error
    return step


class Program:
    """A module's functions compiled, shared by every run of a check."""

    def __init__(self, module):
        self.module = module
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


__all__ = ["COMPILERS", "Code", "Compiler", "Program", "Step", "TERMINATORS", "compiles", "failing"]
