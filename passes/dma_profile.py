"""What the latency model needs from the IR: each op's work, its weights, and the schedule.

Why a module of its own: ``insert-dma`` (to decide) and ``report-latency`` (to measure) must
read the IR the same way, or the report would disagree with the decision.

* An op's work is its ``cost`` property in MACs (the importer's estimate); without one, one MAC
  per output element (an element-wise op).
* A weight is an operand that reaches a ``memopt.get_global`` (off-chip, read directly) or a
  ``memopt.dma_wait`` (on-chip, loaded by DMA), possibly through ``memopt.view``s. An op loads
  each distinct global once, whole.
* The scheduled form of a Region is its ops in order: ``dma_start`` issues, ``dma_wait`` waits,
  ``compute`` runs (reading its remaining off-chip weights directly).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.traits import SymbolTable

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import (
    ComputeOp, DmaStartOp, DmaWaitOp, GetGlobalOp, GlobalOp, ViewOp, byte_size,
)
from memopt.passes.dma_weights import distinct
from memopt.planning.latency import Item, OpProfile, Run, Start, Wait
from memopt.planning.ring import weight_span


@dataclass(frozen=True)
class WeightUse:
    """One weight operand of a compute op, traced to where it comes from."""

    operand: int
    symbol: str
    nbytes: int
    """Byte size of the whole global (what one transfer moves)."""
    offset: int
    """Byte offset of the operand inside the global (sum of the views' offsets)."""
    on_chip: bool
    """True when the operand already comes from a ``dma_wait``."""
    chain: tuple[Operation, ...]
    """The views and the ``get_global``/``dma_wait`` the operand was reached through."""


def trace_weight(value: SSAValue, operand: int = 0) -> WeightUse | None:
    """Follow views from ``value`` to a ``get_global`` or ``dma_wait``; None for activations."""
    offset = 0
    chain: list[Operation] = []
    while isinstance(value, OpResult):
        op = value.op
        chain.append(op)
        if isinstance(op, ViewOp):
            offset += op.offset.value.data
            value = op.source
            continue
        if isinstance(op, GetGlobalOp):
            return WeightUse(operand, op.name_.root_reference.data, _size(op.result.type), offset, False, tuple(chain))
        if isinstance(op, DmaWaitOp):
            start = op.token.owner
            sym = start.src.root_reference.data if isinstance(start, DmaStartOp) else "?"
            return WeightUse(operand, sym, _size(op.result.type), offset, True, tuple(chain))
        return None
    return None


def _size(t) -> int:
    assert isinstance(t, TensorType)
    return byte_size(t)


def weight_uses(op: ComputeOp) -> list[WeightUse]:
    out = []
    for i, v in enumerate(op.inputs):
        w = trace_weight(v, i)
        if w is not None:
            out.append(w)
    return out


def weight_sizes(uses: list[WeightUse]) -> tuple[int, ...]:
    """The byte size of each global ``uses`` read, once per global (:func:`distinct`)."""
    return tuple(w.nbytes for w in distinct(uses).values())


def op_macs(op: ComputeOp) -> int:
    if op.cost is not None:
        return int(op.cost.value.data)
    n = 0
    for r in op.outputs:
        if isinstance(r.type, TensorType):
            k = 1
            for d in r.type.get_shape():
                k *= max(d, 0)
            n += k
    return n


def op_profile(op: ComputeOp) -> OpProfile:
    """Work and weights of an op as the model sees it, however its weights arrive."""
    return OpProfile(op.kind.data, op_macs(op), weight_sizes(weight_uses(op)))


def offchip_profile(op: ComputeOp) -> OpProfile:
    """Work and the weights it still reads from off-chip memory (what insert-dma may load)."""
    uses = [w for w in weight_uses(op) if not w.on_chip]
    return OpProfile(op.kind.data, op_macs(op), weight_sizes(uses))


def largest_weight_set(op: Operation, alignment: int = 16) -> int:
    """Bytes of the largest off-chip weight set of any compute op under ``op``, laid out as in a
    staging buffer (``alignment``-aligned offsets); 0 without weights. The smallest ring
    ``insert-dma{ring=...}`` accepts with ``mode=always``."""
    spans = [weight_span(offchip_profile(o), alignment) for o in walk(op) if isinstance(o, ComputeOp)]
    return max(spans, default=0)


def global_size(op: DmaStartOp) -> int:
    g = SymbolTable.lookup_symbol(op, op.src)
    if not isinstance(g, GlobalOp):
        raise MemoptError(f"dma source {op.src} does not refer to a memopt.global", op)
    return _size(g.type)


def scheduled_items(ops: list[Operation], region_name: str) -> list[Item]:
    """The Region's ops as the model's schedule (see module docstring)."""
    ids: dict[Operation, int] = {}
    items: list[Item] = []
    for op in ops:
        if isinstance(op, DmaStartOp):
            ids[op] = len(ids)
            items.append(Start(ids[op], global_size(op)))
        elif isinstance(op, DmaWaitOp):
            start = op.token.owner
            if not isinstance(start, Operation) or start not in ids:
                raise MemoptError(
                    f"dma_wait waits for a dma_start outside its Region {region_name}", op
                )
            items.append(Wait(ids[start]))
        elif isinstance(op, ComputeOp):
            direct = weight_sizes([w for w in weight_uses(op) if not w.on_chip])
            items.append(Run(op_macs(op), direct))
    return items


__all__ = [
    "WeightUse", "global_size", "largest_weight_set", "offchip_profile", "op_macs", "op_profile",
    "scheduled_items", "trace_weight", "weight_sizes", "weight_uses",
]
