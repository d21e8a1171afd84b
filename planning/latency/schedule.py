"""A Region's schedule as the latency model sees it: ops (:class:`OpProfile`) and the items a
schedule is made of (:class:`Start`, :class:`Wait`, :class:`Run`), and the ping-pong schedule
``insert-dma`` emits (:func:`pingpong_items`), item for item, so that the model times exactly
what the pass writes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .target import LatencyError


@dataclass(frozen=True)
class OpProfile:
    """What the model needs to know about one op of a Region: its work and its weights."""

    name: str
    macs: int
    weights: tuple[int, ...] = ()
    """Byte size of every off-chip weight transfer the op needs (one per distinct global)."""


@dataclass(frozen=True)
class Start:
    """Issue an asynchronous transfer (``memopt.dma_start``)."""

    transfer: int
    nbytes: int


@dataclass(frozen=True)
class Wait:
    """Block the core until a transfer has landed (``memopt.dma_wait``)."""

    transfer: int


@dataclass(frozen=True)
class Run:
    """Compute an op; ``direct`` weights are read from off-chip memory first (unpipelined)."""

    macs: int
    direct: tuple[int, ...] = ()


Item = Start | Wait | Run


def check_buffers(buffers: int) -> None:
    if not isinstance(buffers, int) or buffers < 2:
        raise LatencyError(f"buffers must be an integer >= 2, got {buffers}")


def pingpong_items(ops: Sequence[OpProfile], pipelined: Sequence[bool], buffers: int = 2) -> list[Item]:
    """The schedule ``insert-dma`` emits for one Region (see :mod:`memopt.planning.latency`).

    ``pipelined[i]`` says whether op ``i`` gets its weights by DMA; ops with no weights are
    never pipelined. Transfer ids are ``(op index) * 1024 + weight index``.

    ``buffers = 2`` is the LUNA paper's ping-pong: before pipelined op ``k`` computes, wait for its
    loads, then issue op ``k+1``'s. With ``buffers = N > 2`` pipelined op ``k`` uses buffer
    ``k % N``; ops ``0 .. N-1`` load at the Region's beginning and op ``k+N``'s loads are
    issued right after op ``k`` has run (the last user of that buffer), i.e. as soon as the
    buffer is free and before op ``k+1``'s wait: while op ``k+1`` computes, the loads of ops
    ``k+2 .. k+N`` can be in flight.
    """
    check_buffers(buffers)
    order = [i for i, op in enumerate(ops) if pipelined[i] and op.weights]

    def starts(i: int) -> list[Item]:
        return [Start(i * 1024 + j, b) for j, b in enumerate(ops[i].weights)]

    ahead = 1 if buffers == 2 else buffers
    items: list[Item] = []
    for k in range(min(ahead, len(order))):
        items += starts(order[k])
    seq = {i: k for k, i in enumerate(order)}
    for i, op in enumerate(ops):
        at = seq.get(i)
        if at is None:
            items.append(Run(op.macs, op.weights))
            continue
        items += [Wait(i * 1024 + j) for j in range(len(op.weights))]
        if buffers == 2:
            if at + 1 < len(order):
                items += starts(order[at + 1])
            items.append(Run(op.macs))
        else:
            items.append(Run(op.macs))
            if at + ahead < len(order):
                items += starts(order[at + ahead])
    return items
