"""The lifetime rules both IR flavours share: numbering, use steps, aliasing, escapes, spans.

The memopt dialect's tracer (:mod:`memopt.passes.lifetime`) and the upstream ``memref`` one
(:mod:`memopt.passes.upstream_lifetime`) are drivers: each collects its buffers' definitions
and builds its problem. Everything between — when a buffer is needed, what else is the same
storage, what makes it escape — is decided here, once, over a :class:`Flavour`: an adapter that
answers only what the walk must know of an op — is it a branch, does it run its regions once or
iterate them, is it a kernel, does it take a step, and what one use of a value does to its
storage (:class:`Use`).

* **Numbering** (:func:`number_ops`): every op of a function body gets a *begin* step in
  program order. A simple op (or a kernel: its regions are scalar code over elements) takes
  one step. An op with regions takes a begin step, where it reads its operands, then its
  regions' ops, then an *end* step, where its results are complete; nested ops are numbered
  inside their parent's span. The regions of a branch are either numbered one after the other
  (``overlay=False``, as if all ran) or overlaid on the same steps (``overlay=True``); with
  ``exclusive=True`` each region's blocks get a *path* entry ``(if_id, k)``, which tells the
  planner that tensors of two branches never exist on the same execution. An op that takes no
  step (:meth:`Flavour.takes_no_step`) gets the next op's step.
* **Use step** (:class:`UseSteps`): a use counts at the user's own step — unless an op that
  iterates its regions lies between the user and the block where the buffer is defined; then
  it counts at the end step of the outermost such op, so a buffer read in a loop body stays
  intact across iterations. A branch or an op that runs its regions once is no such op: a
  value read only early in one branch may end there.
* **Held over** (:meth:`Numbering.held_over`): a value a region op hands on (a loop-carried
  slot, an ``if`` result) is complete only at that op's end step.
* **Following a buffer** (:class:`Tracer`): from its definitions (the values that are its
  storage from the start), through every use: the flavour tells whether the use touches the
  storage at the user's step, whether it reads or writes the bytes or only hands the value on,
  which values are the same storage after it (a view, a yield into an ``if`` result, a loop's
  carried slot) and whether the storage escapes by it (returned, stored, passed out of a region
  the flavour cannot see through). The buffer lives from its definition step to one past its
  last use step over all of them (:meth:`Reach.interval`); a value a region op completes only
  at its end (:meth:`Flavour.completes_at_end`) keeps it to that end step. A use outside the
  value's block or before its definition is a located error (xDSL does not check dominance).
* **Origins** (:class:`Origins`): what a value may be, read backwards from the same answers —
  through the uses that hand a value on without reading it (:func:`handed_on`) — to the values
  no such use makes (which buffer a deallocation may free); :func:`aliases` reads the same
  uses forwards (what a buffer's deallocations may be of).
* **Carried to the next iteration**: a buffer defined in a loop's body and yielded to the loop's
  next iteration is *double buffered* — two buffers, both live over the whole loop
  (:meth:`Reach.interval`); carried by two loops, or by a loop that is not the innermost one
  around its definition, it escapes.

Why every numbering is sound: on any execution path, the ops that run appear in the numbering
in program order, so a buffer whose interval covers every step at which the path touches its
storage is needed only inside that interval; two buffers with disjoint intervals are never
needed at once on any path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from memopt.diagnostics import MemoptError
from memopt.dialects.walk import walk
from memopt.planning import Path
from memopt.planning.control_flow import IfSpan


class Flavour:
    """What the numbering and the use-step rule must know of one IR flavour's ops (the
    defaults: no branch, no kernel, every region op iterates, every op takes a step)."""

    def is_branch(self, op: Operation) -> bool:
        """Its regions are alternatives: exactly one runs (``memopt.if``, ``scf.if`` ...)."""
        return False

    def runs_once(self, op: Operation) -> bool:
        """Each run of the op runs its regions at most once (a branch, ``scf.execute_region``):
        a use inside counts at its own step."""
        return self.is_branch(op)

    def is_kernel(self, op: Operation) -> bool:
        """One step whose regions are not numbered (a linalg op's body: scalar code)."""
        return False

    def takes_no_step(self, op: Operation) -> bool:
        """The op neither makes nor reads the storage being planned: it gets the next op's step."""
        return False

    def iterates(self, op: Operation) -> bool:
        """The op may run its regions many times (a loop, or a region op of unknown meaning)."""
        return bool(op.regions) and not self.runs_once(op) and not self.is_kernel(op)

    def use(self, user: Operation, index: int) -> Use:
        """What operand ``index`` of ``user`` does to the storage of the value it reads (the
        default: a plain access at the user's step)."""
        return ACCESS

    def completes_at_end(self, op: Operation) -> bool:
        """A result of region op ``op`` is complete only at ``op``'s end step (its storage is
        written by yields copying into it, or carried across iterations): a buffer holding it
        lives at least to that step."""
        return False


@dataclass(frozen=True)
class Use:
    """What one use of a value does to the storage it is in (a flavour's answer)."""

    at_step: bool = True
    """The user touches the storage at its step; a view, a shape read or a deallocation does not."""
    accesses: bool = True
    """The user reads or writes the bytes; handing the value on (a yield, a loop init) does not."""
    lives_on: Sequence[SSAValue] = ()
    """The values that are the same storage after this use (a view's result, the ``if`` result a
    yield hands the value to, a loop's carried slot)."""
    escape: str | None = None
    """Why the storage outlives what the function can see by this use (returned, stored ...)."""
    next_iteration: Operation | None = None
    """The loop whose next iteration this use (a yield in the loop's body) hands the value to."""


ACCESS = Use()
"""A plain access at the user's step."""


@dataclass
class Numbering:
    """Begin/end step of every op, the branch path of every block, an id per branch op."""

    begin: dict[Operation, int] = field(default_factory=dict)
    end: dict[Operation, int] = field(default_factory=dict)
    path: dict[Block | None, Path] = field(default_factory=dict)
    """Keyed by block; ``None`` (a detached op's block) is never a key, so looking it up gives the default."""
    if_ids: dict[Operation, int] = field(default_factory=dict)
    last_step: int = 0

    def held_over(self, op: Operation, last: int) -> int:
        """The end (exclusive) of a value region op ``op`` hands on and last used at step
        ``last``: at least one past ``op``'s end step, where it is complete."""
        return max(last, self.end[op]) + 1


def number_ops(body: Block, flavour: Flavour, *, overlay: bool, exclusive: bool) -> Numbering:
    """Number the ops of a function body (see the module docstring)."""
    num = Numbering()

    def walk_block(block: Block, step: int, path: Path) -> int:
        num.path[block] = path
        for op in block.ops:
            step = walk_op(op, step, path)
        return step

    def walk_op(op: Operation, step: int, path: Path) -> int:
        num.begin[op] = step
        if flavour.takes_no_step(op):
            num.end[op] = step
            return step
        if not op.regions or flavour.is_kernel(op):
            num.end[op] = step
            return step + 1
        step += 1
        if flavour.is_branch(op):
            if_id = num.if_ids.setdefault(op, len(num.if_ids))
            after = step
            for k, region in enumerate(op.regions):
                branch_path = path + ((if_id, k),) if exclusive else path
                s = step if overlay else after
                for block in region.blocks:
                    s = walk_block(block, s, branch_path)
                after = max(after, s)
            step = after
        else:
            for region in op.regions:
                for block in region.blocks:
                    step = walk_block(block, step, path)
        num.end[op] = step
        return step + 1

    num.last_step = walk_block(body, 0, ()) - 1
    return num


class UseSteps:
    """The step at which an op uses a buffer defined in some block (see the module docstring).

    The outermost iterating op between a user's block and the definition's block is memoised
    per (block, home), so the uses of a buffer deep inside nested regions cost the climb once,
    not once per use.
    """

    def __init__(self, num: Numbering, flavour: Flavour):
        self.num = num
        self.flavour = flavour
        self._memo: dict[tuple[Block, Block], tuple[Operation | None, bool]] = {}
        self._above: dict[Block, set[Block]] = {}

    def at(self, user: Operation, home: Block) -> int:
        """The step at which ``user`` uses a buffer defined in ``home``: its own, or the end step
        of the outermost iterating op around it that does not also hold ``home``."""
        return self.span(user, home)[1]

    def span(self, user: Operation, home: Block) -> tuple[int, int]:
        """The steps over which ``user`` reads a buffer defined in ``home``: its own step, or the
        whole of the outermost iterating op around it that does not also hold ``home`` (each
        iteration reads it again)."""
        loop, _ = self._climb(user.parent_block(), home)
        if loop is None:
            return self.num.begin[user], self.num.begin[user]
        return self.num.begin[loop], self.num.end[loop]

    def inside(self, user: Operation, home: Block) -> bool:
        """Whether ``user`` is in ``home`` or nested in its ops' regions."""
        return self._climb(user.parent_block(), home)[1]

    def _enclosing(self, home: Block) -> set[Block]:
        """The blocks whose ops' regions hold ``home``."""
        if home not in self._above:
            above: set[Block] = set()
            op = home.parent_op()
            while op is not None and (block := op.parent_block()) is not None:
                above.add(block)
                op = block.parent_op()
            self._above[home] = above
        return self._above[home]

    def _climb(self, block: Block | None, home: Block) -> tuple[Operation | None, bool]:
        """(the outermost iterating op holding ``block`` but not ``home``, whether ``block`` is
        inside ``home``), climbing from ``block`` to ``home`` or to a block enclosing it."""
        above = self._enclosing(home)
        climbed: list[tuple[Block, Operation]] = []
        answer: tuple[Operation | None, bool] = (None, False)
        while block is not None:
            if block is home or block in above:
                answer = (None, block is home)
                break
            if (block, home) in self._memo:
                answer = self._memo[(block, home)]
                break
            op = block.parent_op()
            if op is None:
                break
            climbed.append((block, op))
            block = op.parent_block()
        loop, inside = answer
        for b, op in reversed(climbed):  # from nearest home down: the outermost iterating op wins
            if loop is None and self.flavour.iterates(op):
                loop = op
            self._memo[(b, home)] = (loop, inside)
        return loop, inside


def home_of(value: SSAValue) -> Block:
    """The block a value is defined in (a block argument's block, an op result's op's block)."""
    block = value.block if isinstance(value, BlockArgument) else value.owner.parent_block()
    assert block is not None  # every value of a function body is in one of its blocks
    return block


@dataclass
class Reach:
    """What following one buffer from its definitions through its aliases found."""

    home: Block
    """The block of the buffer's first definition: uses count at their step seen from there."""
    start: int
    """The step that defines the buffer."""
    last: int
    """The last step at which it is used (``start`` when it is not used at all)."""
    values: list[SSAValue] = field(default_factory=list)
    """Every value that is the buffer's storage, in the order the trace met them."""
    accessed: bool = False
    """Some use reads or writes its bytes (not only hands it on)."""
    escape: str | None = None
    """Why its bytes outlive what the function can see (then it is not planned)."""
    carried_by: Operation | None = None
    """The loop that carries it (defined in its body) to its next iteration: double buffered."""

    def interval(self, num: Numbering) -> tuple[int, int]:
        """The half-open steps the buffer lives: from its definition to one past its last use;
        a double-buffered one (both of its buffers) over its loop, at least to the loop's end."""
        loop = self.carried_by
        if loop is None:
            return self.start, self.last + 1
        return num.begin[loop], num.held_over(loop, self.last)

    def path(self, num: Numbering) -> Path:
        """The branch path of the buffer's definition (of its loop, when double buffered)."""
        block = self.home if self.carried_by is None else self.carried_by.parent_block()
        return num.path.get(block, ())


class Tracer:
    """Follows buffers through their uses in one numbering (see the module docstring)."""

    def __init__(self, num: Numbering, flavour: Flavour):
        self.num = num
        self.flavour = flavour
        self.steps = UseSteps(num, flavour)

    def trace(self, roots: Sequence[SSAValue], start: int) -> Reach:
        """Follow the buffer whose storage ``roots`` are from step ``start`` (its definitions:
        the first one's block is the buffer's home) to its last use, until it escapes."""
        reach = Reach(home_of(roots[0]), start, start)
        root = _defining_op(roots[0])
        work = list(reversed(roots))
        seen: set[SSAValue] = set()
        while work and reach.escape is None:
            value = work.pop()
            if value in seen:
                continue
            seen.add(value)
            reach.values.append(value)
            if isinstance(value, OpResult) and self.flavour.completes_at_end(value.op):
                reach.last = max(reach.last, self.num.end[value.op])
            for use in list(value.uses):
                self._follow(use.operation, use.index, value, root, reach, work)
        return reach

    def _follow(self, user: Operation, index: int, value: SSAValue, root: Operation | None,
                reach: Reach, work: list[SSAValue]) -> None:
        """One use of ``value``, the storage of the buffer ``root`` defines."""
        use = self.flavour.use(user, index)
        if use.at_step:
            self._check_scope(user, value)
            reach.last = max(reach.last, self.steps.at(user, reach.home))
        reach.accessed |= use.at_step and use.accesses
        if use.escape is not None:
            reach.escape = use.escape
        work.extend(use.lives_on)
        if use.next_iteration is not None and root is not None:
            self._carry(use.next_iteration, root, reach)

    def _check_scope(self, user: Operation, value: SSAValue) -> None:
        """A use outside the value's block, or before its definition, is a located error: xDSL
        does not check dominance, and a use the numbering drops would silently break the plan."""
        home = home_of(value)
        if not self.steps.inside(user, home):
            raise MemoptError(f"value '{value.name_hint or '?'}' used outside its scope", user)
        if isinstance(value, OpResult) and self.steps.at(user, home) <= self.num.begin[value.op]:
            raise MemoptError(f"value '%{value.name_hint or '?'}' is used before it is defined", user)

    def _carry(self, loop: Operation, root: Operation, reach: Reach) -> None:
        """The buffer is yielded to ``loop``'s next iteration: double buffered when ``loop`` is
        the innermost iterating op around its definition, else it escapes."""
        if not loop.is_ancestor(root):
            return
        if reach.carried_by not in (None, loop):
            reach.escape = "it is carried by two loops' iter_args"
        elif self.innermost_loop(root) is not loop:
            reach.escape = f"it is carried by '{loop.name}' from a nested loop"
        else:
            reach.carried_by = loop

    def innermost_loop(self, op: Operation) -> Operation | None:
        """The innermost op of the function body that iterates its regions around ``op``."""
        parent = op.parent_op()
        while parent is not None and parent in self.num.begin:
            if self.flavour.iterates(parent):
                return parent
            parent = parent.parent_op()
        return None


class Origins:
    """What a value may be, followed backwards through the uses that hand a value on without
    reading it (a view, a yield, a loop's init: :class:`Use` ``lives_on`` with ``accesses``
    false): the values no such use makes — a buffer's definition, a function argument, an
    unknown op's result. Built from the flavour's answers for every use in ``body``, so it is
    the forward rule read backwards, never a second statement of it."""

    def __init__(self, body: Block, flavour: Flavour):
        self._from: dict[SSAValue, list[SSAValue]] = {}
        for op in walk(body):
            for index, operand in enumerate(op.operands):
                for later in handed_on(flavour.use(op, index)):
                    self._from.setdefault(later, []).append(operand)
        self._memo: dict[SSAValue, frozenset[SSAValue]] = {}

    def of(self, value: SSAValue) -> frozenset[SSAValue]:
        """The origins ``value`` may be (itself when nothing hands it on)."""
        if value not in self._memo:
            self._memo[value] = frozenset()  # a cycle through a loop adds nothing new
            sources = self._from.get(value)
            if sources is None:
                self._memo[value] = frozenset((value,))
            else:
                self._memo[value] = frozenset().union(*(self.of(s) for s in sources))
        return self._memo[value]


def handed_on(use: Use) -> Sequence[SSAValue]:
    """The values a use hands the storage on to without reading it (a view's result, the ``if``
    result a yield makes, a loop's carried slot); none for a use that reads or writes it."""
    return () if use.accesses else use.lives_on


def aliases(value: SSAValue, flavour: Flavour, *, through_yields: bool = False) -> set[SSAValue]:
    """``value`` and every value a use hands it on to without reading it, transitively: the
    uses :class:`Origins` reads backwards, read forwards. Without ``through_yields`` only the
    uses that take no step are followed (views and casts: the same storage under another name
    at once); with it also those that hand it to an ``if`` result or a loop's carried slot."""
    seen: set[SSAValue] = set()
    work = [value]
    while work:
        x = work.pop()
        if x in seen:
            continue
        seen.add(x)
        for use in x.uses:
            answer = flavour.use(use.operation, use.index)
            if through_yields or not answer.at_step:
                work.extend(handed_on(answer))
    return seen


def _defining_op(value: SSAValue) -> Operation | None:
    """The op defining ``value`` (a block argument's: the op holding its block)."""
    if isinstance(value, OpResult):
        return value.op
    return value.block.parent_op() if isinstance(value, BlockArgument) else None


def if_spans(num: Numbering) -> list[IfSpan]:
    """Every branch op of an overlaid numbering as an :class:`IfSpan`.

    The span covers the steps of the branches' ops, from the step after the op's begin to its
    end step (excluded): every tensor of a branch lives there, since the branch's last op, its
    yield, comes right before the end step. (At least one step, for degenerate branches.)
    """
    spans = []
    for op, if_id in num.if_ids.items():
        block = op.parent_block()
        path = num.path.get(block, ()) if block is not None else ()
        start = num.begin[op] + 1
        spans.append(IfSpan(if_id, path, start, max(num.end[op], start + 1), 2))
    return sorted(spans, key=lambda s: s.if_id)


__all__ = [
    "ACCESS", "Flavour", "Numbering", "Origins", "Reach", "Tracer", "Use", "UseSteps", "aliases", "handed_on", "home_of",
    "if_spans", "number_ops",
]
