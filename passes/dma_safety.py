"""Safety of a DMA schedule: no op reads staging memory that a transfer is rewriting.

Why a checker separate from the inserter: ``verify-plan`` trusts nothing a pass (or a hand)
wrote. It recomputes, from the IR alone:

* **transfers** — every ``memopt.dma_start`` must be waited for exactly once, by a ``dma_wait``
  in the same Region (no transfer crosses a Region boundary: the LUNA paper's rule, which keeps a
  prefetch from targeting an op that might not run). A transfer writes
  ``[offset, offset + size(global))`` of its buffer and is in flight from its start to its wait.
* **reads** — a ``dma_wait`` result (and every view of it, with the view's byte range) is read
  by each non-view op using it. A read inside a nested region counts at its own step, except
  inside a loop (any iterating op) that does not contain the load, where it spans the whole
  loop (it recurs every iteration): the lifetime analysis' own use-step rule
  (:meth:`memopt.passes.lifetime_core.UseSteps.span`).

Then, for two transfers into overlapping bytes of one buffer that are not in exclusive branches:

1. nothing reads the old bytes while the new transfer is in flight (a read between a
   ``dma_start`` and its ``dma_wait``) — reported at the reading op;
2. no transfer overwrites bytes a later op still needs (a misplaced ``dma_start``) — reported at
   the ``dma_start``;
3. two transfers into the same bytes are never in flight together — reported at the later start.

Steps are a numbering of every op in program order (then-branch before else-branch; DMA ops
need steps of their own here, unlike in the arena's lifetime analysis), with branch paths that
tell exclusive branches apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import Block, Operation, SSAValue

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import DmaStartOp, DmaWaitOp, ViewOp, byte_size
from memopt.passes.dma_profile import global_size
from memopt.passes.dma_regions import cut_function, region_of
from memopt.planning import exclusive
from memopt.passes.lifetime import MemoptFlavour
from memopt.passes.lifetime_core import Numbering, UseSteps, number_ops


class _EveryOpAStep(MemoptFlavour):
    """The memopt dialect with DMA ops and weight reads stepped like any other op: here they
    are what is checked."""

    def takes_no_step(self, op: Operation) -> bool:
        return False


EVERY_OP_A_STEP = _EveryOpAStep()


def number_all(body: Block) -> Numbering:
    """Every op a step of its own, the branches of an ``if`` one after the other, each with its
    own path (the shared numbering, :mod:`memopt.passes.lifetime_core`)."""
    return number_ops(body, EVERY_OP_A_STEP, overlay=False, exclusive=True)


@dataclass
class Transfer:
    start: DmaStartOp
    wait: DmaWaitOp
    buffer: str
    lo: int
    hi: int


@dataclass
class Read:
    op: Operation
    lo: int
    hi: int
    first: int
    last: int


def _transfers(f: func.FuncOp) -> list[Transfer]:
    where = region_of(cut_function(f, f"@{f.sym_name.data}"))
    out: list[Transfer] = []
    for op in walk(f.body):
        if not isinstance(op, DmaStartOp):
            continue
        waits = [u.operation for u in op.token.uses]
        if not waits:
            raise MemoptError(f"dma_start of {op.src} into {op.dst} is never waited for", op)
        if len(waits) > 1 or not isinstance(waits[0], DmaWaitOp):
            bad = waits[1] if len(waits) > 1 else waits[0]
            raise MemoptError("a dma_start token must be used by exactly one memopt.dma_wait", bad)
        w = waits[0]
        if where.get(w) is not where.get(op):
            raise MemoptError(
                "dma_wait is not in the Region of its dma_start (no transfer may cross a Region boundary)", w
            )
        off = op.offset.value.data
        out.append(Transfer(op, w, op.dst.root_reference.data, off, off + global_size(op)))
    return out


def _reads(uses: UseSteps, t: Transfer) -> list[Read]:
    home = t.wait.parent_block()
    assert home is not None  # a wait of the function body
    out: list[Read] = []
    todo: list[tuple[SSAValue, int, int]] = [(t.wait.result, t.lo, t.hi)]
    while todo:
        value, lo, hi = todo.pop()
        for use in value.uses:
            user = use.operation
            if isinstance(user, ViewOp):
                off = lo + user.offset.value.data
                todo.append((user.result, off, off + byte_size(user.result.type)))
                continue
            first, last = uses.span(user, home)
            out.append(Read(user, lo, hi, first, last))
    out.sort(key=lambda r: (r.first, r.last))
    return out


def check_dma_safety(f: func.FuncOp) -> None:
    """Raise a located :class:`MemoptError` on the first unsafe transfer of ``f``."""
    transfers = _transfers(f)
    if not transfers:
        return
    num = number_all(f.body.blocks[0])

    def step(op: Operation) -> int:
        return num.begin[op]

    def path(op: Operation):
        return num.path.get(op.parent_block(), ())

    uses = UseSteps(num, EVERY_OP_A_STEP)
    reads = {id(t): _reads(uses, t) for t in transfers}
    transfers.sort(key=lambda t: step(t.start))
    for x in transfers:
        sx, wx = step(x.start), step(x.wait)
        for y in transfers:
            if y is x or y.buffer != x.buffer or y.hi <= x.lo or x.hi <= y.lo:
                continue
            if exclusive(path(y.wait), path(x.start)):
                continue
            sy, wy = step(y.start), step(y.wait)
            if sy < sx < wy:
                raise MemoptError(
                    f"dma_start of {x.start.src} into {x.start.dst}[{x.lo}, {x.hi}) while the transfer of "
                    f"{y.start.src} into the same bytes is still in flight", x.start,
                )
            if wy >= sx:
                continue  # y is loaded after x started: x cannot clobber it
            for r in reads[id(y)]:
                if r.hi <= x.lo or x.hi <= r.lo or r.last <= sx or exclusive(path(r.op), path(x.start)):
                    continue
                if r.first < wx:
                    raise MemoptError(
                        f"reads {x.start.dst}[{max(r.lo, x.lo)}, {min(r.hi, x.hi)}) while the dma_start of "
                        f"{x.start.src} into it is in flight (between dma_start and dma_wait)", r.op,
                    )
                raise MemoptError(
                    f"dma_start of {x.start.src} into {x.start.dst}[{x.lo}, {x.hi}) overwrites data of "
                    f"{y.start.src} that a later op still reads", x.start,
                )


__all__ = ["check_dma_safety"]
