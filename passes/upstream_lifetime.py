"""Lifetime analysis of upstream MLIR (``func``/``memref``/``scf``/``arith``/``linalg``): the tracer
that turns the ``memref.alloc`` buffers of a bufferized function into an IR-free planning problem.

What compiler flows hold after bufferization is this dialect mix, not memopt's; the rules are
the ones :mod:`memopt.passes.lifetime` applies to the memopt dialect, restated for it:

* **one global numbering**: every op one step in program order, the ops of nested regions
  numbered inside their parent's span; the branches of an ``scf.if`` (and the cases of an
  ``scf.index_switch``) overlaid on the same steps and exclusive (buffers of different branches
  may share bytes: only one branch runs);
* **a buffer** is a ``memref.alloc``/``memref.alloca`` with a static shape, the identity layout,
  the default memory space and a whole-byte element type — what ``memref.view`` of an ``i8``
  arena can express. Anything else is left as it is, with a one-line remark naming it;
* **it lives** from its alloc to one past the last use of it *or any alias of it* — an op with a
  memref result computed from a memref operand (``view``, ``subview``, ``cast``,
  ``reinterpret_cast``, ``collapse_shape``, ``expand_shape``, any unknown op of that shape) aliases
  the whole source, conservatively. ``memref.dealloc`` is not a use: the plan ends the buffer at its
  last real use, which is how memopt beats a planner that runs alloc → dealloc;
* **a use inside a loop** (``scf.for``/``scf.while``/``scf.parallel``, any region op that is not an
  ``scf.if``) of a buffer allocated outside it counts at the loop's end, so the bytes stay intact
  across iterations;
* **escapes** — a buffer (or alias) returned by the function, yielded out of a region (by any
  terminator: ``scf.yield``, ``affine.yield``, ``scf.condition`` ...), or stored into memory —
  are not planned (remark): their bytes must outlive what the function can see.
  A buffer carried into a loop's ``iter_args`` is left unplanned too (its body arguments alias
  it). A ``func.call`` to a declaration is an ordinary use at its step (external kernels write
  their ``outs`` and keep nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, MemRefType, NoneAttr, UnregisteredOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import IsTerminator

from memopt.planning import Buffer, Problem

from .upstream_attrs import is_upstream  # noqa: F401 - re-exported

ALLOCS = (memref.AllocOp, memref.AllocaOp)
BRANCHING = (scf.IfOp, scf.IndexSwitchOp)
"""Ops whose regions are alternatives (exactly one runs): ``scf.if``, ``scf.index_switch``."""


@dataclass
class UpstreamLifetimes:
    """The planning problem of one upstream function and the way back to its allocs."""

    func: func.FuncOp
    problem: Problem
    allocs: list[Operation]
    """The planned alloc of each buffer, in problem order."""
    remarks: list[tuple[Operation, str]] = field(default_factory=list)
    """Allocs left unplanned, and why (reported by the pass, one line each)."""


def element_bytes(t: MemRefType) -> int | None:
    e = t.element_type
    width = getattr(e, "bitwidth", None)
    if isinstance(e, IntegerType):
        width = e.width.data
    if width is None or width % 8:
        return None
    return width // 8


def plannable(op: Operation) -> str | None:
    """None when ``op``'s buffer can live in the arena, else why not (for the remark)."""
    t = op.results[0].type
    assert isinstance(t, MemRefType)
    if any(d < 0 for d in t.get_shape()) or op.operands:
        return "it has a dynamic shape"
    if not isinstance(t.layout, NoneAttr) and "affine_map<(d0" not in str(t.layout):
        return f"its layout {t.layout} is not the identity (memref.view cannot express it)"
    if not isinstance(t.memory_space, NoneAttr) and not isinstance(t.memory_space, IntegerAttr):
        return f"its memory space {t.memory_space} is not an integer (arenas are per integer memory space)"
    if element_bytes(t) is None:
        return f"its element type {t.element_type} is not a whole number of bytes"
    return None


def _number(body: Block):
    """Begin/end step of every op and the branch path of every block. The branches of an
    ``scf.if`` are overlaid on the same steps (after its begin) and marked exclusive through
    their path, as memopt's joint numbering does for ``memopt.if``: sound because on any path the
    ops that run appear in program order, and the two branches never run together."""
    begin: dict[Operation, int] = {}
    end: dict[Operation, int] = {}
    path_of: dict[Block, tuple] = {}
    ifs = 0

    def walk(block: Block, step: int, path: tuple) -> int:
        nonlocal ifs
        path_of[block] = path
        for op in block.ops:
            begin[op] = step
            step += 1
            if isinstance(op, BRANCHING):
                if_id = ifs
                ifs += 1
                last = step
                for k, region in enumerate(op.regions):
                    s = step
                    for b in region.blocks:
                        s = walk(b, s, path + ((if_id, k),))
                    last = max(last, s)
                step = last
            else:
                for region in op.regions:
                    for b in region.blocks:
                        step = walk(b, step, path)
            end[op] = step
            if op.regions:
                step += 1
        return step

    walk(body, 0, ())
    return begin, end, path_of


def _loop_like(op: Operation) -> bool:
    return bool(op.regions) and not isinstance(op, BRANCHING) and not isinstance(op, func.FuncOp)


def _use_step(user: Operation, home: Block, begin, end) -> int:
    """Step at which ``user`` reads a value defined in ``home``: its own, or the end of the
    outermost loop-like op between them."""
    step = begin[user]
    op = user
    while op.parent_block() is not home:
        parent = op.parent_op()
        if parent is None:
            break
        if _loop_like(parent):
            step = end[parent]
        op = parent
    return step


def _carries_memrefs(op: Operation) -> bool:
    """Whether ``op``'s regions take memrefs as block arguments (``scf.for`` iter_args,
    ``scf.while``): then an operand may live on inside under another name. A linalg op's
    region takes scalars (the elements), so its operands are plain uses."""
    return any(isinstance(a.type, MemRefType) for r in op.regions for b in r.blocks for a in b.args)


def memory_space(op: Operation) -> int:
    """The integer memory space of an alloc's memref (0: the default one)."""
    space = op.results[0].type.memory_space
    return space.value.data if isinstance(space, IntegerAttr) else 0


def memory_spaces(f: func.FuncOp) -> list[int]:
    """The memory spaces of ``f``'s allocs, the default (0) first: one arena each."""
    spaces = {memory_space(op) for op in f.body.walk() if isinstance(op, ALLOCS)}
    return sorted(spaces | {0})


def _hands_on(op: Operation) -> bool:
    """Whether ``op`` passes its operands out of its block: a terminator (``affine.yield``,
    ``scf.condition``, ...: to the parent's results or the next iteration's arguments, which
    alias them), or an unregistered op that ends a nested block (it may be one; nothing says
    it is not). Why: a buffer handed on lives past its last use in the block, which the
    tracer cannot see — planned as if it died there, its bytes could be reused while the next
    iteration or the parent still reads them."""
    block = op.parent_block()
    if isinstance(op, UnregisteredOp):  # its has_trait answers True to everything
        return block is not None and block.last_op is op and not isinstance(block.parent_op(), func.FuncOp)
    return op.has_trait(IsTerminator)


def analyze_upstream(f: func.FuncOp, space: int = 0) -> UpstreamLifetimes:
    """Trace every alloc of ``f`` (see module docstring)."""
    body = f.body.blocks[0]
    begin, end, path_of = _number(body)
    buffers: list[Buffer] = []
    allocs: list[Operation] = []
    remarks: list[tuple[Operation, str]] = []
    used_names: set[str] = set()
    for op in f.body.walk():
        if not isinstance(op, ALLOCS):
            continue
        why = plannable(op)
        if why is not None:
            if space == 0:  # said once, with the default space's problem
                remarks.append((op, f"not planned: {why}"))
            continue
        if memory_space(op) != space:
            continue  # planned in its own memory space's arena
        home = op.parent_block()
        last = begin[op]
        escapes = None
        work: list[SSAValue] = [op.results[0]]
        seen: set[SSAValue] = set()
        while work:
            v = work.pop()
            if v in seen:
                continue
            seen.add(v)
            for use in v.uses:
                user = use.operation
                if isinstance(user, memref.DeallocOp):
                    continue
                if isinstance(user, func.ReturnOp):
                    escapes = "it is returned by the function"
                elif isinstance(user, scf.YieldOp):
                    escapes = "it is yielded out of a region"
                elif _hands_on(user):
                    name = user.op_name.data if isinstance(user, UnregisteredOp) else user.name
                    escapes = f"it is passed out of a region by '{name}'"
                elif user.regions and not isinstance(user, BRANCHING) and _carries_memrefs(user):
                    escapes = f"it is carried into '{user.name}' (its region arguments alias it)"
                elif isinstance(user, memref.StoreOp) and use.index == 0:
                    escapes = "it is stored into memory"
                assert home is not None
                last = max(last, _use_step(user, home, begin, end))
                for r in user.results:
                    if isinstance(r.type, MemRefType):
                        work.append(r)  # an alias (view, subview, cast ...): same storage
        if escapes is not None:
            remarks.append((op, f"not planned: {escapes}"))
            continue
        t = op.results[0].type
        size = element_bytes(t)
        for d in t.get_shape():
            size *= d
        align = op.alignment.value.data if op.alignment is not None else 1
        name = op.results[0].name_hint or f"alloc{len(allocs)}"
        base, k = name, 1
        while name in used_names:
            name = f"{base}_{k}"
            k += 1
        used_names.add(name)
        buffers.append(Buffer(name, size, begin[op], last + 1, max(1, align), path_of.get(home, ())))
        allocs.append(op)
    return UpstreamLifetimes(f, Problem.of(buffers), allocs, remarks)


__all__ = ["ALLOCS", "UpstreamLifetimes", "analyze_upstream", "element_bytes", "is_upstream", "memory_space",
           "memory_spaces", "plannable"]
