"""Lifetime analysis of upstream MLIR after bufferization: the tracer that turns the buffers of a
function (``memref.alloc``/``alloca``, ``bufferization.clone``) into an IR-free planning problem.

Steps, use steps, following a buffer through its aliases, escapes and double buffering are the
rules both flavours share (:mod:`memopt.passes.lifetime_core`), over :class:`MemrefFlavour`,
which says what each use does to a buffer; what a buffer is, and what each op means, are this
module's, for the ops compiler flows hold after bufferization:

* **one global numbering**: every op one step in program order, the ops of nested regions
  numbered inside their parent's span; the regions of an ``scf.if`` / ``scf.index_switch`` /
  ``affine.if`` overlaid on the same steps and exclusive (buffers of different branches may share
  bytes: only one branch runs);
* **a buffer** has a static shape, the identity layout, an integer memory space, whole-byte
  elements, and is not allocated once per parallel iteration (``scf.parallel``, ``scf.forall``,
  ``affine.parallel``) — what a ``memref.view`` of an ``i8`` arena can express. Anything else
  is left as it is, with a one-line remark saying why;
* **it lives** from its definition to one past the last *access* of it or of any alias of it.
  Views and casts (``view``, ``subview``, ``cast``, ``reinterpret_cast``, ``collapse_shape``,
  ``expand_shape``, ``extract_strided_metadata`` ...) only make aliases; ownership bookkeeping
  (``memref.dealloc``, ``bufferization.dealloc``, the pointer comparisons
  ``bufferization-lower-deallocations`` emits) is not an access either, so the plan is the same
  before and after deallocation passes, and ends each buffer at its last real use. Any other op
  (an unknown one included) accesses all of it; its memref results alias it;
* **a use inside a loop** of a buffer defined outside it counts at the loop's end, so the bytes
  stay intact across iterations;
* **control flow**: a buffer yielded out of an ``scf.if`` (``index_switch``,
  ``execute_region``, ``affine.if``) lives on as the op's result; one passed into a loop's
  ``iter_args`` lives on as the region argument and the loop's result. A buffer allocated in a
  loop body and yielded to the next iteration is *double buffered*: two buffers, both live
  over the loop, used by even and odd iterations — the carried one is read while the next is
  written (an RNN's state);
* **escapes** — returned by the function, stored into memory, its address taken for anything
  but deallocation, carried through ``scf.while`` or out of nested loops — are not planned
  (remark): their bytes must outlive what the function can see.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import affine, arith, func, memref, scf
from xdsl.dialects.bufferization import CloneOp, ToTensorOp
from xdsl.dialects.builtin import (
    AffineMapAttr, IntegerAttr, IntegerType, MemRefType, NoneAttr, UnregisteredOp,
)
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.traits import IsTerminator

from memopt.dialects.walk import walk
from memopt.dialects.opaque import OpaqueOp
from memopt.dialects.ownership import DeallocOp
from memopt.dialects.structured import StructuredOp
from memopt.planning import Buffer, Problem
from .lifetime_core import ACCESS, Flavour, Numbering, Origins, Reach, Tracer, Use, number_ops

ALLOCS = (memref.AllocOp, memref.AllocaOp, CloneOp)
BRANCHING = (scf.IfOp, scf.IndexSwitchOp, affine.IfOp)
"""Ops whose regions are alternatives (exactly one runs)."""
PASS_THROUGH = (*BRANCHING, scf.ExecuteRegionOp)
"""Ops whose region yields become their results (no iteration)."""
LOOPS_WITH_IV = (scf.ForOp, affine.ForOp)
PARALLEL = ("scf.parallel", "scf.forall", "affine.parallel")
VIEWS = (memref.ViewOp, memref.SubviewOp, memref.CastOp, memref.ReinterpretCastOp, memref.CollapseShapeOp,
         memref.ExpandShapeOp, memref.ExtractStridedMetaDataOp, memref.MemorySpaceCastOp, memref.AssumeAlignmentOp)
"""Ops that only make an alias of their memref operand: not an access."""
METADATA = (memref.DimOp, memref.RankOp)
"""Ops that read a buffer's shape, never its bytes."""
DEALLOCS = (memref.DeallocOp, DeallocOp)

CallScratch = Callable[[func.CallOp], tuple[int, int] | None]
"""``(bytes, alignment)`` of the arena the callee of a call takes as an argument, None when it
takes none: a planned callee's plan says it, so the plan's reader answers
(:func:`memopt.passes.upstream_plan_io.call_scratch`) and whoever traces hands that answer on."""


@dataclass
class UpstreamLifetimes:
    """The planning problem of one upstream function and the way back to its buffers."""

    func: func.FuncOp
    problem: Problem
    allocs: list[Operation]
    """The defining op of each buffer, in problem order (a double-buffered one twice in a row)."""
    flavour: MemrefFlavour
    """The use rules the buffers were traced with (the mutator follows aliases by the same)."""
    carried: dict[Operation, Operation] = field(default_factory=dict)
    """Double-buffered defining ops -> the loop whose iterations alternate their two buffers."""
    unused: list[Operation] = field(default_factory=list)
    """Allocs nothing reads or writes: they take no bytes (the mutator erases them)."""
    remarks: list[tuple[Operation, str]] = field(default_factory=list)
    """Buffers left unplanned, and why (reported by the pass, one line each)."""


def element_bytes(t: MemRefType) -> int | None:
    e = t.element_type
    width = getattr(e, "bitwidth", None)
    if isinstance(e, IntegerType):
        width = e.width.data
    if width is None or width % 8:
        return None
    return width // 8


def is_identity_layout(t: MemRefType) -> bool:
    layout = t.layout
    if isinstance(layout, NoneAttr):
        return True
    if isinstance(layout, AffineMapAttr):
        m = layout.data
        return m.num_symbols == 0 and m == type(m).identity(m.num_dims)
    return False


def plannable(op: Operation) -> str | None:
    """None when ``op``'s buffer can live in the arena, else why not (for the remark)."""
    t = op.results[0].type
    assert isinstance(t, MemRefType)
    if any(d < 0 for d in t.get_shape()) or (op.operands and not isinstance(op, CloneOp)):
        return "it has a dynamic shape"
    if not isinstance(op, CloneOp) and not is_identity_layout(t):
        return f"its layout {t.layout} is not the identity (memref.view cannot express it)"
    if not isinstance(t.memory_space, NoneAttr) and not isinstance(t.memory_space, IntegerAttr):
        return f"its memory space {t.memory_space} is not an integer (arenas are per integer memory space)"
    if element_bytes(t) is None:
        return f"its element type {t.element_type} is not a whole number of bytes"
    parallel = _enclosing(op, lambda p: p.name in PARALLEL)
    if parallel is not None:
        return f"it is allocated once per parallel iteration of '{parallel.name}'"
    return None


def _enclosing(op: Operation, pred) -> Operation | None:
    p = op.parent_op()
    while p is not None and not isinstance(p, func.FuncOp):
        if pred(p):
            return p
        p = p.parent_op()
    return None


def byte_size(t: MemRefType) -> int:
    size = element_bytes(t) or 1
    for d in t.get_shape():
        size *= d
    return size


# ---------------------------------------------------------------------- numbering


class MemrefFlavour(Flavour):
    """Upstream MLIR for the shared rules: ``scf.if`` / ``scf.index_switch`` / ``affine.if`` are
    branches; they and ``scf.execute_region`` run their regions once; a structured (linalg) op is
    a kernel, one step (its body is scalar code over elements); any other region op iterates.

    ``call_scratch`` tells which call operand is a planned callee's arena (an access for the
    call only); a numbering asks no use, so the numbering's flavour has none."""

    def __init__(self, call_scratch: CallScratch | None):
        self.call_scratch = call_scratch

    def is_branch(self, op: Operation) -> bool:
        return isinstance(op, BRANCHING)

    def runs_once(self, op: Operation) -> bool:
        return isinstance(op, PASS_THROUGH)

    def is_kernel(self, op: Operation) -> bool:
        return isinstance(op, StructuredOp)

    def use(self, user: Operation, index: int) -> Use:
        """Views and casts only alias; deallocations, shape reads and the pointer comparisons
        deallocation lowers to are bookkeeping; a yield hands the buffer on to the op's result
        or the loop's next iteration; returned, stored, converted to a tensor or passed out of a
        region it escapes; any other op accesses it and its memref results alias it."""
        if isinstance(user, DEALLOCS + METADATA):
            return BOOKKEEPING
        if isinstance(user, memref.ExtractAlignedPointerAsIndexOp):
            if _bookkeeping_pointer(user.results[0]):
                return BOOKKEEPING
            return Use(at_step=False, accesses=False, escape="its address is taken "
                       "(memref.extract_aligned_pointer_as_index) for more than deallocation")
        if isinstance(user, VIEWS):  # the source is operand 0; the others are offsets and sizes
            return Use(at_step=False, accesses=False, lives_on=_memref_results(user) if index == 0 else ())
        if isinstance(user, OpaqueOp):
            why = f"it is passed out of a region by '{user.name}'" if _ends_nested_block(user) else None
            return Use(lives_on=_memref_results(user), escape=why)
        if isinstance(user, CloneOp) or isinstance(user, func.CallOp) and self._is_scratch_operand(user, index):
            return ACCESS  # a clone is a buffer of its own; a callee's arena never outlives the call
        escape = _escape_by(user, index)
        if escape is not None:
            return _escape(escape)
        if user.has_trait(IsTerminator) and not isinstance(user, UnregisteredOp) and user.parent_op() is not None:
            return _yielded(user, index)
        if isinstance(user, LOOPS_WITH_IV) and (k := _iter_arg_index(user, index)) is not None:
            return Use(accesses=False, lives_on=carried_as(user, k))
        if user.regions and _carries_memrefs(user):
            return _escape(f"it is carried into '{_op_name(user)}' (its region arguments alias it)")
        return Use(lives_on=_memref_results(user))

    def _is_scratch_operand(self, call: func.CallOp, index: int) -> bool:
        """Whether operand ``index`` of ``call`` is the callee's arena (its last argument, named
        by the callee's ``memopt.arena_arg``)."""
        assert self.call_scratch is not None, "the numbering's flavour was asked about a use"
        return index == len(call.operands) - 1 and self.call_scratch(call) is not None


NUMBERING = MemrefFlavour(None)
"""The flavour a numbering needs: which ops branch, run once, are kernels (no use is asked)."""
BOOKKEEPING = Use(at_step=False, accesses=False)
"""Not a use of the bytes: a deallocation, a shape read, an address kept for deallocation."""


def _escape(why: str) -> Use:
    return Use(accesses=False, escape=why)


def _escape_by(user: Operation, index: int) -> str | None:
    """Why operand ``index`` of ``user`` makes a buffer escape: returned, converted back to a
    tensor, stored, or handed out of a region by an op whose meaning is unknown."""
    if isinstance(user, func.ReturnOp):
        return "it is returned by the function"
    if isinstance(user, ToTensorOp):
        return "it is converted back to a tensor (bufferization.to_tensor)"
    if isinstance(user, memref.StoreOp) and index == 0:
        return "it is stored into memory"
    registered_yield = user.has_trait(IsTerminator) and not isinstance(user, UnregisteredOp) and user.parent_op() is not None
    if not registered_yield and (isinstance(user, UnregisteredOp) or _ends_nested_block(user)):
        return f"it is passed out of a region by '{_op_name(user)}'"
    return None


def _yielded(user: Operation, index: int) -> Use:
    """A yield: the buffer lives on as the parent's result (branches) or as the next
    iteration's argument and the loop's result."""
    parent = user.parent_op()
    assert parent is not None
    if isinstance(parent, PASS_THROUGH) and index < len(parent.results):
        return Use(accesses=False, lives_on=[parent.results[index]])
    if isinstance(parent, LOOPS_WITH_IV) and index < len(parent.results):
        return Use(accesses=False, lives_on=carried_as(parent, index), next_iteration=parent)
    return _escape(f"it is passed out of a region by '{_op_name(user)}'")


def _memref_results(op: Operation) -> list[SSAValue]:
    return [r for r in op.results if isinstance(r.type, MemRefType)]


def number(body: Block) -> Numbering:
    """The planner's numbering: the regions of a branching op overlaid on the same steps and
    exclusive, as memopt's joint numbering does for ``memopt.if`` (sound because on any path the
    ops that run appear in program order, and two branches never run together)."""
    return number_ops(body, NUMBERING, overlay=True, exclusive=True)


def serial_numbering(body: Block) -> Numbering:
    """Every region numbered after the previous one, branches included (what an eager pool,
    which cannot know only one branch runs, sees)."""
    return number_ops(body, NUMBERING, overlay=False, exclusive=False)


# ---------------------------------------------------------------------- tracing


class BufferTracer:
    """Follows an alloc's buffer through its aliases (the shared :class:`Tracer`) in a
    numbering of ``f`` (the planner's, :func:`number`, unless given); ``call_scratch`` says
    which calls take a planned callee's arena (:data:`CallScratch`)."""

    def __init__(self, f: func.FuncOp, call_scratch: CallScratch, num: Numbering | None = None):
        self.f = f
        self.num = num if num is not None else number(f.body.blocks[0])
        self.flavour = MemrefFlavour(call_scratch)
        self.call_scratch = call_scratch
        self.core = Tracer(self.num, self.flavour)

    def trace(self, root: Operation) -> Reach:
        """The buffer ``root`` (an alloc, or an arena view) defines, from its step on."""
        return self.core.trace([root.results[0]], self.num.begin[root])


def _op_name(op: Operation) -> str:
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


def _ends_nested_block(op: Operation) -> bool:
    """An op of unknown semantics that ends a nested block may be its terminator, handing the
    buffer on to whatever the parent does with it."""
    block = op.parent_block()
    return block is not None and block.last_op is op and not isinstance(block.parent_op(), func.FuncOp)


def loop_inits(loop: scf.ForOp | affine.ForOp) -> Sequence[SSAValue]:
    """The ``iter_args`` initial values of an ``scf.for`` / ``affine.for``."""
    return loop.iter_args if isinstance(loop, scf.ForOp) else loop.inits


def carried_as(loop: scf.ForOp | affine.ForOp, k: int) -> list[SSAValue]:
    """What ``iter_args`` entry ``k`` of ``loop`` lives on as: the body's argument, the loop's result."""
    return [loop.body.blocks[0].args[k + 1], loop.results[k]]


def _iter_arg_index(loop: scf.ForOp | affine.ForOp, operand_index: int) -> int | None:
    """Which ``iter_args`` entry operand ``operand_index`` of ``loop`` initialises, if any (the
    inits are the loop's last operands)."""
    k = operand_index - (len(loop.operands) - len(loop_inits(loop)))
    return k if k >= 0 else None


def _carries_memrefs(op: Operation) -> bool:
    """Whether ``op``'s regions take memrefs as block arguments (``scf.while``, unknown region
    ops): then an operand may live on inside under another name. A linalg op's region takes
    scalars (the elements), so its operands are plain accesses."""
    return any(isinstance(a.type, MemRefType) for r in op.regions for b in r.blocks for a in b.args)


def _bookkeeping_pointer(ptr: SSAValue) -> bool:
    """Whether a buffer's address only decides deallocation: compared (``arith.cmpi``) into
    conditions, or stored into the index buffers of upstream's ``dealloc_helper``."""
    for use in ptr.uses:
        user = use.operation
        if isinstance(user, arith.CmpiOp):
            continue
        if isinstance(user, memref.StoreOp) and use.index == 0 and _helper_buffer(user.memref):
            continue
        return False
    return True


def _helper_buffer(v: SSAValue) -> bool:
    """An ``index`` buffer used only by stores, deallocs, and calls to ``dealloc_helper``."""
    for use in v.uses:
        user = use.operation
        if isinstance(user, (memref.StoreOp, *DEALLOCS)) or isinstance(user, VIEWS):
            continue
        if isinstance(user, func.CallOp) and "dealloc_helper" in user.callee.root_reference.data:
            continue
        return False
    return True


# ---------------------------------------------------------------------- the problem


def memory_space(op: Operation) -> int:
    """The integer memory space of an alloc's memref (0: the default one)."""
    t = op.results[0].type
    assert isinstance(t, MemRefType)  # an alloc's result
    space = t.memory_space
    return space.value.data if isinstance(space, IntegerAttr) else 0


def memory_spaces(f: func.FuncOp) -> list[int]:
    """The memory spaces of ``f``'s allocs, the default (0) first: one arena each."""
    spaces = {memory_space(op) for op in walk(f.body) if isinstance(op, ALLOCS)}
    return sorted(spaces | {0})


def analyze_upstream(f: func.FuncOp, call_scratch: CallScratch, space: int = 0, alignment: int = 1) -> UpstreamLifetimes:
    """Trace every buffer of ``f`` in memory space ``space`` (see module docstring); each
    offset aligned to ``alignment`` or to the alloc's own ``alignment``, whichever is larger.
    ``call_scratch`` says which calls take a planned callee's arena (:data:`CallScratch`)."""
    lt = UpstreamLifetimes(f, Problem.of([]), [], MemrefFlavour(call_scratch))
    if _unstructured(f):
        if space == 0:
            lt.remarks.append((f, "not planned: it has unstructured control flow (a region of several blocks: "
                                  "cf branches), so its buffers are left as they are"))
        return lt
    tracer = BufferTracer(f, call_scratch)
    candidates: dict[Operation, Reach] = {}
    for op in walk(f.body):
        if not isinstance(op, ALLOCS) or not isinstance(op.results[0].type, MemRefType):
            continue
        why = plannable(op)
        if why is not None:
            if space == 0:  # said once, with the default space's problem
                lt.remarks.append((op, f"not planned: {why}"))
            continue
        if memory_space(op) != space:
            continue  # planned in its own memory space's arena
        t = tracer.trace(op)
        if t.escape is not None:
            lt.remarks.append((op, f"not planned: {t.escape}"))
            continue
        if not t.accessed and not isinstance(op, CloneOp) and t.carried_by is None:
            lt.unused.append(op)
            continue
        candidates[op] = t
    for op, why in _freed_with_unplanned(f, candidates, lt.flavour):
        del candidates[op]
        lt.remarks.append((op, f"not planned: {why}"))
    buffers: list[Buffer] = []
    names = BufferNames()
    for op, t in candidates.items():
        buffers += _buffers(tracer, op, t, names.take(op), alignment)
        lt.allocs += [op] * (2 if t.carried_by is not None else 1)
        if t.carried_by is not None:
            lt.carried[op] = t.carried_by
    if space == 0:
        buffers += _call_scratch(tracer, lt, alignment, names)
    lt.problem = Problem.of(buffers)
    return lt


def _freed_with_unplanned(f: func.FuncOp, candidates: dict[Operation, Reach],
                          flavour: MemrefFlavour) -> list[tuple[Operation, str]]:
    """The candidates a deallocation frees through a value that may also be a buffer left
    unplanned (an ``scf.if`` result or loop-carried value merging the two): the deallocation can
    neither stay (it would free arena bytes) nor go (the other buffer would leak), so they are
    left unplanned too — repeated until no deallocation mixes the two."""
    freed = [v for op in walk(f.body) if isinstance(op, DEALLOCS)
             for v in (op.operands if isinstance(op, memref.DeallocOp) else op.memrefs)]
    if not freed:
        return []
    origins = Origins(f.body.blocks[0], flavour)
    planned = set(candidates)
    left: list[tuple[Operation, str]] = []
    changed = True
    while changed:
        changed = False
        for v in freed:
            roots = {_alloc_of(r) for r in origins.of(v)}
            mixed = [r for r in roots if isinstance(r, Operation) and r in planned]
            other = next((r for r in roots if r not in planned), None)
            if not mixed or other is None:
                continue
            for op in mixed:
                planned.discard(op)
                left.append((op, f"it is deallocated through a value that may also be {_describe(other)}, "
                                 "which is not planned"))
            changed = True
    return left


def _alloc_of(origin: SSAValue) -> Operation | SSAValue:
    """An alloc's result as the alloc (the planner's buffers are ops), any other origin as itself."""
    return origin.op if isinstance(origin, OpResult) and isinstance(origin.op, ALLOCS) else origin


def _describe(root: Operation | SSAValue) -> str:
    if isinstance(root, Operation):
        return f"'%{root.results[0].name_hint or '?'}' ({root.name})"
    return f"'%{root.name_hint or '?'}'"


def _unstructured(f: func.FuncOp) -> bool:
    """Whether some region of ``f`` has several blocks: program order is then not an order of
    execution, and a step numbering would not bound lifetimes."""
    return len(f.body.blocks) > 1 or any(len(r.blocks) > 1 for op in walk(f.body) for r in op.regions)


def _call_scratch(tracer: BufferTracer, lt: UpstreamLifetimes, alignment: int, names: BufferNames) -> list[Buffer]:
    """A buffer per call to a planned function that takes its arena as an argument: the
    callee's scratch, live for the call (:mod:`memopt.passes.upstream_calls`)."""
    buffers = []
    for op in walk(lt.func.body):
        if not isinstance(op, func.CallOp):
            continue
        scratch = tracer.call_scratch(op)
        if scratch is None:
            continue
        size, align = scratch
        step = tracer.num.begin[op]
        name = names.take_name(scratch_name(op))
        buffers.append(Buffer(name, size, step, step + 1, max(alignment, align), tracer.num.path.get(op.parent_block(), ())))
        lt.allocs.append(op)
    return buffers


def _buffers(tracer: BufferTracer, op: Operation, reach: Reach, name: str, alignment: int) -> list[Buffer]:
    """The buffer ``op`` allocates over the steps it lives (two, one per iteration parity, when
    its loop carries it to the next iteration)."""
    t = op.results[0].type
    assert isinstance(t, MemRefType)  # an alloc's result
    size = byte_size(t)
    own = getattr(op, "alignment", None)
    align = max(1, alignment, own.value.data if own is not None else 1)
    start, stop = reach.interval(tracer.num)
    path = reach.path(tracer.num)
    if reach.carried_by is None:
        return [Buffer(name, size, start, stop, align, path)]
    return [Buffer(f"{name}#{k}", size, start, stop, align, path) for k in (0, 1)]


def scratch_name(call: func.CallOp) -> str:
    """The name of the callee's arena passed at ``call`` (its view's SSA name)."""
    return f"{call.callee.root_reference.data}_arena"


class BufferNames:
    """Unique buffer names from the allocs' SSA names."""

    def __init__(self):
        self.used: set[str] = set()

    def take(self, op: Operation) -> str:
        return self.take_name(op.results[0].name_hint or f"alloc{len(self.used)}")

    def take_name(self, base: str) -> str:
        name, k = base, 1
        while name in self.used:
            name = f"{base}_{k}"
            k += 1
        self.used.add(name)
        return name


__all__ = ["BufferNames", "BufferTracer", "CallScratch", "MemrefFlavour", "NUMBERING", "Numbering", "number", "serial_numbering", "carried_as", "loop_inits", "scratch_name", "ALLOCS", "DEALLOCS", "VIEWS", "UpstreamLifetimes", "analyze_upstream", "byte_size", "element_bytes",
           "is_identity_layout", "memory_space", "memory_spaces", "plannable"]
