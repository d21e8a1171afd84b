"""What the executor refuses to run here: too many bytes or too many op executions.

``memopt-run`` executes what the IR says; a hostile (or simply huge) program would otherwise try
to allocate a multi-TiB tensor (``MemoryError`` after the machine swaps) or run a loop of 9·10^18
trips until killed. Both are estimated *before* running, from the IR alone, and refused with a
located one-line error naming the limit and the option that raises it.

* bytes: every value the run writes gets storage (unplanned: its own array, dropped after its
  last read; planned: the arena and the staging buffers), plus the weights' bytes; the estimate
  is the unplanned run's peak (:func:`.liveness.unplanned_peak`) plus the weights, the staging
  buffers and the planned arena, an upper bound of what ``--check`` holds at once;
* ops: op executions, a loop counting ``trips × body``, an ``if`` its longer branch.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Operation

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import DmaBufferOp, GlobalOp, IfOp, LoopOp, byte_size
from memopt.dialects.written_plan import is_planned, read_written_plan

from .liveness import unplanned_peak

DEFAULT_MAX_BYTES = 1 << 30
DEFAULT_MAX_OPS = 10_000_000


@dataclass(frozen=True)
class Limits:
    """``max_bytes``: storage the run may allocate; ``max_ops``: op executions it may perform."""

    max_bytes: int = DEFAULT_MAX_BYTES
    max_ops: int = DEFAULT_MAX_OPS


def _size(t) -> int:
    try:
        return byte_size(t) if isinstance(t, TensorType) else 0
    except ValueError:
        return 0


def _block_ops(block: Block, limit: int) -> tuple[int, Operation | None]:
    """Op executions of ``block`` (saturating just above ``limit``) and the op that makes most."""
    total, worst, worst_n = 0, None, 0
    for op in block.ops:
        where: Operation | None
        if isinstance(op, LoopOp) and op.body.blocks:
            body, inner = _block_ops(op.body.blocks[0], limit)
            n = 1 + op.trip_count.value.data * body
            where = op
        elif isinstance(op, IfOp):
            branches = [_block_ops(r.blocks[0], limit) for r in op.regions if r.blocks]
            n = 1 + max((b for b, _ in branches), default=0)
            where = op
        else:
            n, where = 1, None
        if n > worst_n and where is not None:
            worst, worst_n = where, n
        total = min(total + n, limit + 1)
    return total, worst


def check_resources(module: ModuleOp, f: func.FuncOp, limits: Limits) -> None:
    """Refuse, located, a run of ``f`` that would exceed ``limits``."""
    largest, largest_op = 0, None
    for op in walk(f.body):
        for r in op.results:
            n = _size(r.type)
            if n > largest:
                largest, largest_op = n, op
    total = unplanned_peak(f)
    for op in walk(module):
        if isinstance(op, GlobalOp):
            total += _size(op.type)
        elif isinstance(op, DmaBufferOp):
            total += op.size.value.data
    if is_planned(f):
        total += read_written_plan(f, module).arena_size
    if total > limits.max_bytes:
        what = f" (the largest tensor alone: {largest} bytes)" if largest_op is not None else ""
        raise MemoptError(
            f"executing '@{f.sym_name.data}' needs about {total} bytes{what}, over the limit of "
            f"{limits.max_bytes} (--max-bytes)", largest_op or f,
        )
    ops, where = _block_ops(f.body.blocks[0], limits.max_ops)
    if ops > limits.max_ops:
        raise MemoptError(
            f"executing '@{f.sym_name.data}' would run more than {limits.max_ops} ops (--max-ops)"
            + (" because of this loop's trip count" if isinstance(where, LoopOp) else ""),
            where or f,
        )


__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_MAX_OPS", "Limits", "check_resources"]
