"""The lifetime rules both IR flavours share: one step numbering, one use-step rule.

The memopt dialect's tracer (:mod:`memopt.passes.lifetime`) and the upstream ``memref`` one
(:mod:`memopt.passes.upstream_lifetime`) decide what a buffer is, what aliases it and what makes
it escape, each for its own ops. When a buffer is needed is decided here, once, over a
:class:`Flavour`: an adapter that answers only what the walk must know of an op — is it a
branch, does it run its regions once or iterate them, is it a kernel, does it take a step.

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

Why every numbering is sound: on any execution path, the ops that run appear in the numbering
in program order, so a buffer whose interval covers every step at which the path touches its
storage is needed only inside that interval; two buffers with disjoint intervals are never
needed at once on any path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir import Block, Operation

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


__all__ = ["Flavour", "Numbering", "UseSteps", "if_spans", "number_ops"]
