"""Lifetime analysis: from a function in the memopt dialect to an IR-free planning problem.

Steps, use steps, spans and following a buffer through its views are the rules both IR
flavours share (:mod:`memopt.passes.lifetime_core`), over :class:`MemoptFlavour`: ``memopt.if``
is the branch, every other region op (``memopt.loop``, or one of unknown meaning) iterates, an
op off the arena (:func:`off_arena`) takes no step, a view is its source's storage, and an
``if`` result or a loop's carried slot is complete only at its op's end. What a buffer is (its
definitions, below) is this module's.

How the branches of an ``if`` are numbered is the control-flow mode:

* ``serial`` — then-branch, then else-branch, one after the other, as if both ran (TFLite
  Micro's scheme; exclusivity is not needed because the branches never overlap in time);
* ``flat``   — both branches overlaid on the same steps and *not* marked exclusive (what a
  branch-oblivious planner sees: the baseline);
* ``joint``  — overlaid on the same steps and marked exclusive through each buffer's branch
  ``path``, so the planner may give both branches the same addresses.

``analyze_function`` also accepts the *planning* modes of ``plan-memory``: ``merge`` uses the
joint numbering (the LUNA paper's Algorithm 2 runs on the jointly numbered problem, see
:mod:`memopt.planning.control_flow`). :func:`if_spans` describes every ``if`` of a joint
numbering for that algorithm. Storage decisions never depend on the mode, only step numbers
and paths do, so every mode's plan can be read back through the same storage. Each numbering is
sound on its own (below) but none contains another's conflicts: a serial plan may overlap two
buffers the joint analysis keeps apart, and vice versa. ``verify-plan`` therefore re-checks a
plan in the numbering the plan records (``memopt.numbering``, its own attribute).

Why every numbering is sound: see :mod:`memopt.passes.lifetime_core` (a taken branch's ops in
``serial`` are a run of consecutive steps; in the overlaid ``flat``/``joint`` numbering they
follow the ``if``'s begin step). ``joint`` adds exclusivity: tensors of different branches of
one ``if`` never exist on the same path.

Storage (the planning unit, a :class:`~memopt.planning.Buffer`):

* a fresh buffer for every tensor result of a compute op (or unknown op), every function
  argument and every ``if`` result; a loop's carried values get one buffer per carried slot,
  shared by the body's block argument and the loop's result;
* a value yielded out of an ``if`` branch is computed straight into the ``if`` result's storage
  (no copy) when it is a compute (or nested ``if``) result defined directly in that branch's
  block and not yielded twice by that yield: it has no buffer of its own. Otherwise (a yielded
  function argument, an outer value, a view, a loop result) the branch's yield is a copy into
  the result's storage, and the value keeps its own buffer;
* ``memopt.view`` results alias their source (a read dependency): no buffer of their own, the
  source's buffer lives as long as its last alias (views of off-chip weights stay off-chip);
* results of ops off the arena (``memopt.get_global``: off chip; ``memopt.dma_wait``: in the
  DMA staging buffers) take no arena space.

A buffer lives from the step that defines it to one past its last use (half-open). Function
arguments start at step 0 and the returned values are used by the return op, the last step;
loop-carried slots live from the loop's begin to at least its end. Two rules make ``if`` ops
precise rather than "the whole ``if``":

* **A use inside ``if`` branches counts at its own step** — unless a loop (or any region op
  that is not a ``memopt.if``, whose semantics are unknown) lies between the use and the
  value's block: then it counts at the end step of the outermost such op, so a value read in a
  loop body stays intact across iterations (the LUNA paper: "a tensor used inside a loop must live for
  the whole loop"). Sound by the argument above: the last read of the value on any path is at or
  before the maximum over its uses' steps. In the overlaid numbering this lets a value read only
  early in one branch (and never after the ``if``) end there, and the *other* branch's later
  tensors reuse its bytes — on that path the value is dead already; in ``serial`` numbering
  the else branch reuses the bytes of a value read only by the then branch.
* **An ``if`` result's storage starts at its earliest write**: the minimum over the branches of
  the step that writes it — the step of the op computing the yielded value straight into it
  (for a yielded nested ``if`` result, that ``if``'s own earliest write, recursively), or the
  yield step where a branch copies. Before that step no path has written the storage, so
  nothing needs it; from the taken branch's write on, the interval (which reaches at least the
  ``if``'s end step, then the result's last use) covers it on that path. In the overlaid
  numbering the earliest write is early *in both branches*, so tensors of either branch that
  die before it share the result's bytes; in ``serial`` numbering it lies in the then branch and
  the result spans the whole else branch.

With ``inplace``, a compute op's ``inplace`` hint that names an input whose buffer dies at that
op becomes an :class:`~memopt.planning.Overwrite` permission (MegEngine's write dependency) --
except when the result is computed into an ``if`` result's storage: that storage is shared
with the other branches' writes and its interval is not the op's own, so the permission is not
derived from it (conservative).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, OpResult, SSAValue

from memopt.diagnostics import MemoptError
from memopt.dialects.errors import value_location_op
from memopt.dialects.planned import check_calls, planned_functions
from memopt.dialects.walk import walk
from memopt.dialects.memopt import (
    ComputeOp, CopyOp, IfOp, LoopOp, OffArena, ViewOp, byte_size, memory_of,
)
from memopt.planning import Buffer, Overwrite, Path, Problem, PlanningError, align_up
from memopt.planning.control_flow import IfSpan
from memopt.passes.lifetime_core import ACCESS, Flavour, Numbering, Tracer, Use, if_spans
from memopt.passes.lifetime_core import number_ops as number_with
from memopt.passes.names import display_names

NUMBERINGS = ("serial", "flat", "joint")
CONTROL_FLOW_MODES = ("flat", "serial", "merge", "joint")
"""Modes of ``plan-memory``'s ``control-flow`` option (``merge`` is numbered as ``joint``)."""


class MemoptFlavour(Flavour):
    """The memopt dialect for the shared rules: ``memopt.if`` is the branch; every other region
    op (``memopt.loop``, an unknown one) iterates; an op off the arena takes no step."""

    def is_branch(self, op: Operation) -> bool:
        return isinstance(op, IfOp)

    def takes_no_step(self, op: Operation) -> bool:
        return off_arena(op)

    def use(self, user: Operation, index: int) -> Use:
        """A view is its source's storage (it reads no bytes, but keeps the source to its step);
        any other use reads it: a yield copies (unless the value is computed into the ``if``
        result: a definition of it)."""
        if isinstance(user, ViewOp):
            return Use(accesses=False, lives_on=[user.result])
        return ACCESS

    def completes_at_end(self, op: Operation) -> bool:
        """A loop's carried slot lives across the whole loop; an ``if`` result is complete at its end."""
        return isinstance(op, (LoopOp, IfOp))


MEMOPT = MemoptFlavour()


def number_ops(body: Block, mode: str = "serial") -> Numbering:
    """Number the ops of a function body in a control-flow mode (see module docstring)."""
    if mode == "merge":
        mode = "joint"
    if mode not in NUMBERINGS:
        raise ValueError(f"unknown control-flow mode '{mode}'")
    return number_with(body, MEMOPT, overlay=mode != "serial", exclusive=mode == "joint")


def off_arena(op: Operation) -> bool:
    """Whether ``op`` neither makes nor reads arena storage: it carries the dialect's
    :class:`~memopt.dialects.memopt.OffArena` trait (weight reads and their staging), or it is
    a view of such an op's result. Such ops take no step of their own (they get the next op's):
    the arena plan must not depend on where weights are staged or whether they are read
    directly — a plan made before weights are staged must hold after (in the overlaid
    numberings, ops added to or removed from one branch would shift it against the other)."""
    while True:
        if op.has_trait(OffArena, value_if_unregistered=False):
            return True
        if not isinstance(op, ViewOp) or not isinstance(op.source, OpResult):
            return False
        op = op.source.op


def _yield_aliases(body: Block) -> dict[SSAValue, SSAValue]:
    """Branch values to compute in place of the ``if`` result they are yielded as.

    See the module docstring for the rule; the result maps a branch value to its ``if`` result.
    """
    aliases: dict[SSAValue, SSAValue] = {}
    for op in walk(body):
        if not isinstance(op, IfOp):
            continue
        for region in (op.then_region, op.else_region):
            for block in region.blocks:
                y = block.last_op
                if y is None or len(y.operands) != len(op.results):
                    continue
                for v, res in zip(y.operands, op.results):
                    if (
                        isinstance(v, OpResult)
                        and isinstance(v.op, (ComputeOp, IfOp))
                        and v.op.parent_block() is block
                        and v not in aliases
                        and isinstance(res.type, TensorType)
                        and v.type == res.type
                    ):
                        aliases[v] = res
    return aliases


def _earliest_write(op: IfOp, k: int, num: Numbering, aliases: dict[SSAValue, SSAValue]) -> int:
    """First step at which any branch of ``op`` writes its result ``k`` (see module docstring).

    Falls back to the ``if``'s begin step for a branch without a matching yield (the verifier
    rejects those; this keeps the analysis safe regardless).
    """
    res = op.results[k]
    steps = []
    for region in (op.then_region, op.else_region):
        block = region.blocks[0] if region.blocks else None
        y = block.last_op if block is not None else None
        if y is None or len(y.operands) != len(op.results):
            return num.begin[op]
        v = y.operands[k]
        if aliases.get(v) is res and isinstance(v, OpResult):
            if isinstance(v.op, IfOp):
                steps.append(_earliest_write(v.op, v.index, num, aliases))
            else:
                steps.append(num.begin[v.op])
        else:
            steps.append(num.begin[y])  # the yield copies into the result's storage
    return min(steps)


@dataclass
class FunctionLifetimes:
    """The planning problem of one function and the way back to its IR values."""

    func: func.FuncOp
    problem: Problem
    numbering: Numbering
    storage_of: dict[SSAValue, tuple[int, int]]
    """Arena-resident value → (buffer index, byte offset inside that buffer)."""
    owner: list[SSAValue]
    """The value that defines each buffer (for names, attributes and diagnostics)."""
    memory: str | None = None
    """The memory whose arena this problem is: None on chip, else an off-chip memory's name."""

    def value_offset(self, value: SSAValue, buffer_offsets) -> int | None:
        """Arena offset of a value given the buffers' offsets, or None when off-arena."""
        loc = self.storage_of.get(value)
        if loc is None:
            return None
        return int(buffer_offsets[loc[0]]) + loc[1]


def value_names(values: list[SSAValue]) -> list[str]:
    """Stable, unique buffer names: the model's tensor names where the IR records them
    (:func:`memopt.passes.names.display_names`), else SSA name hints, else ``vN``."""
    return display_names(values)


def analyze_function(
    f: func.FuncOp, *, mode: str = "serial", inplace: bool = True, alignment: int = 1,
    memory: str | None = None,
) -> FunctionLifetimes:
    """Build the planning problem of ``f`` (see module docstring) for one memory: on chip
    (``memory=None``, every tensor but weights and spilled homes), or the off-chip memory named
    ``memory`` (the results of ``memopt.copy ... to "<memory>"`` and views of them).

    A driver over the shared rules: the buffers' definitions are this module's
    (:func:`_definitions`); each buffer's storage and steps are the shared tracer's."""
    if not f.body.blocks:
        raise MemoptError("cannot plan a function declaration without a body", f)
    body = f.body.blocks[0]
    num = number_ops(body, mode)
    tracer = Tracer(num, MEMOPT)
    storage_of: dict[SSAValue, tuple[int, int]] = {}
    owner: list[SSAValue] = []
    spans: list[tuple[int, int, Path]] = []
    sizes: list[int] = []
    for definition in _definitions(body, num, memory):
        reach = tracer.trace(definition.roots, definition.start)
        _place(reach.values, len(owner), storage_of)
        owner.append(definition.roots[0])
        sizes.append(definition.size)
        spans.append((*reach.interval(num), reach.path(num)))
    names = value_names(owner)
    try:
        buffers = [Buffer(names[i], sizes[i], s, e, alignment, p) for i, (s, e, p) in enumerate(spans)]
        overwrites = _overwrites(body, num, storage_of, owner, buffers, alignment) if inplace else []
        problem = Problem.of(buffers, overwrites)
    except PlanningError as e:
        raise MemoptError(str(e), f) from None
    return FunctionLifetimes(f, problem, num, storage_of, owner, memory)


@dataclass
class _Definition:
    """The values that are one buffer's storage from its start (the first one owns it), the
    step that defines it and its size in bytes."""

    roots: list[SSAValue]
    start: int
    size: int


def _definitions(body: Block, num: Numbering, memory: str | None) -> list[_Definition]:
    """The buffers of ``body`` in ``memory``'s arena (see the module docstring), in program
    order: a tensor result of a compute (or unknown) op, a function argument, an ``if`` result
    (from its earliest write), a loop's carried slot (its result and body argument). A branch
    value computed into an ``if`` result is one more definition of that result's buffer; views
    are the tracer's (:meth:`MemoptFlavour.use`)."""
    aliases = _yield_aliases(body)
    defs: list[_Definition] = []
    of_value: dict[SSAValue, _Definition] = {}

    def define(value: SSAValue, step: int, *also: SSAValue) -> None:
        into = aliases.get(value)
        target = of_value.get(into) if into is not None else None
        if target is not None:  # computed into the if result (maybe itself computed into another)
            target.roots.append(value)
            of_value[value] = target
            return
        of_value[value] = _Definition([value, *also], step, _byte_size(value))
        defs.append(of_value[value])

    if memory is None:
        for arg in body.args:
            if isinstance(arg.type, TensorType):
                define(arg, 0)
    for op in walk(body):
        for k, res in enumerate(op.results):
            if isinstance(res.type, TensorType) and _in_arena(op, memory):
                define(res, *_defined_at(op, k, num, aliases))
    return defs


def _in_arena(op: Operation, memory: str | None) -> bool:
    """Whether ``op``'s tensor results are buffers of ``memory``'s arena: a copy to that memory;
    on chip also every other op but views (their source's storage) and weight reads."""
    if isinstance(op, CopyOp):
        return memory_of(op.result) == memory
    if memory is not None or isinstance(op, ViewOp):
        return False
    return not op.has_trait(OffArena, value_if_unregistered=False)


def _defined_at(
    op: Operation, k: int, num: Numbering, aliases: dict[SSAValue, SSAValue],
) -> tuple[int] | tuple[int, SSAValue]:
    """The step that defines result ``k`` of ``op`` and the other values it is the storage of:
    an ``if`` result from its earliest write; a loop's carried slot from the loop's begin step,
    with the body's block argument."""
    if isinstance(op, IfOp):
        return (_earliest_write(op, k, num, aliases),)
    if isinstance(op, LoopOp):
        body_block = op.body.blocks[0] if op.body.blocks else None
        if body_block is not None and k < len(body_block.args):
            return num.begin[op], body_block.args[k]
    return (num.begin[op],)


def _byte_size(value: SSAValue) -> int:
    t = value.type
    assert isinstance(t, TensorType)
    try:
        return byte_size(t)
    except ValueError as e:
        raise MemoptError(str(e), value_location_op(value)) from None


def _place(values: list[SSAValue], b: int, storage_of: dict[SSAValue, tuple[int, int]]) -> None:
    """Each of a buffer's values at its byte offset in buffer ``b``: a view at its offset in its
    source, every other value at 0."""
    for v in values:
        if isinstance(v, OpResult) and isinstance(v.op, ViewOp) and v.op.source in storage_of:
            storage_of[v] = (b, storage_of[v.op.source][1] + v.op.offset.value.data)
        else:
            storage_of[v] = (b, 0)


def _overwrites(body: Block, num: Numbering, storage_of: dict[SSAValue, tuple[int, int]], owner: list[SSAValue],
                buffers: list[Buffer], alignment: int) -> list[Overwrite]:
    """The ``inplace`` hints that may become permissions (see the module docstring)."""
    overwrites: list[Overwrite] = []
    taken: set[int] = set()
    for op in walk(body):
        if not isinstance(op, ComputeOp) or op.inplace is None:
            continue
        for k, idx in enumerate(op.inplace.get_values()):
            if idx < 0:
                continue
            src = op.inputs[idx]
            res = op.results[k]
            if src not in storage_of or res not in storage_of:
                continue
            parent, rel = storage_of[src]
            child = storage_of[res][0]
            pb, cb = buffers[parent], buffers[child]
            if (
                parent in taken
                or owner[child] is not res  # computed into an if result: written on one path only
                or pb.end != num.begin[op] + 1  # the input must die at this op
                or cb.start != num.begin[op]
                or pb.path != cb.path
                or rel + cb.size > pb.size
                or rel % max(1, alignment)
            ):
                continue
            taken.add(parent)
            overwrites.append(Overwrite(child, parent, rel))
    return overwrites


def take_body(f: func.FuncOp, src: func.FuncOp) -> None:
    """Give ``f`` the body of ``src`` (a rewritten copy of it that won): the rewrite passes try
    candidates on clones and keep one."""
    f.body.detach_block(f.body.blocks[0])
    f.body.add_block(src.body.detach_block(src.body.blocks[0]))


__all__ = [
    "CONTROL_FLOW_MODES", "MEMOPT", "NUMBERINGS", "FunctionLifetimes", "IfSpan", "MemoptFlavour", "Numbering",
    "analyze_function", "off_arena", "align_up", "check_calls", "if_spans", "number_ops", "planned_functions",
    "value_location_op", "value_names",
]
