"""The planned memory model with byte ownership: what a check's planned run executes in.

:class:`OwnedPlanned` is :class:`.memory.Planned` (the arena the plan describes) that also keeps
the shadows of the run's ownership record (:mod:`.ownership`, held by its checker,
:class:`.checker.Checker`): one per array of storage it holds (the on-chip arena, each off-chip
memory's arena, each staging buffer of its own), and an owner per DMA transfer, whose landing
stamps the staging bytes it writes — when the ``dma_start`` runs or at its ``dma_wait``, as the
landing model says. The values written are stamped as :mod:`.value_owners` decides what each
value owns. Unplanned runs need none of this: there no two values share an array.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.ir import Operation

from memopt.dialects.memopt import DmaStartOp, DmaWaitOp

from .memory import Planned, Transfer, ValueNames, address
from .ownership import Ownership, blank_shadow


@dataclass
class OwnedPlanned(Planned):
    """A planned arena whose every byte knows which buffer wrote it last (module docstring)."""

    shadows: list[tuple[int, int, np.ndarray]] = field(init=False)
    """Per array of storage: its address, its size and its shadow."""
    transfers: dict[int, tuple[Transfer, int]] = field(init=False)
    """Per transfer in flight or landed (by identity): it, and its owner."""
    waited: dict[Operation, int] = field(init=False)
    """Per ``dma_wait`` op, the owner of the transfer it waited for last."""
    landing: tuple[Operation | None, int] = field(init=False)
    """The DMA op running now and the owner of the transfer it lands."""
    landing_names: dict[Operation, str] = field(init=False)
    names: ValueNames | None = None
    """How messages name values (made from ``f`` when not given)."""
    owners: Ownership = field(default_factory=lambda: Ownership("tensor"))
    """The ownership record: the run's checker's (:class:`.checker.Checker`)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.transfers, self.waited, self.landing, self.landing_names = {}, {}, (None, 0), {}
        storage = [self.arena, *(a for a in (*self.memories.values(), *self.dma_buffers.values())
                                 if not _inside(a, self.arena))]
        self.shadows = [(address(a), a.nbytes, blank_shadow(a.nbytes)) for a in storage]

    def shadow_of(self, data: np.ndarray) -> np.ndarray | None:
        """The shadow of ``data``'s bytes (a slice of this memory's storage); None for bytes it
        does not hold (the weights' off-chip store)."""
        return self.shadow_at(address(data), data.nbytes)

    def shadow_at(self, addr: int, nbytes: int) -> np.ndarray | None:
        """The shadow of the ``nbytes`` bytes at address ``addr`` (None: not this memory's)."""
        for start, n, shadow in self.shadows:
            if start <= addr and addr + nbytes <= start + n:
                return shadow[addr - start : addr - start + nbytes]
        return None

    def dma_start(self, op: DmaStartOp, data: np.ndarray) -> Transfer:
        name = self.landing_names.get(op)
        if name is None:
            name = self.landing_names[op] = self._landing_name(op)
        owner = self.owners.new_owner(name, op)
        self.landing = (op, owner)
        t = super().dma_start(op, data)
        self.transfers[id(t)] = (t, owner)
        return t

    def dma_wait(self, op: DmaWaitOp, t: Transfer) -> np.ndarray:
        owner = self.transfers[id(t)][1]
        self.landing = (op, owner)
        dst = super().dma_wait(op, t)
        self.waited[op] = owner
        return dst

    def _landing_name(self, op: DmaStartOp) -> str:
        """How messages name what a ``dma_start`` lands: the value of the ``dma_wait`` that
        waits for it, else the weight's symbol."""
        for use in op.token.uses:
            if isinstance(use.operation, DmaWaitOp):
                if self.names is None:
                    self.names = ValueNames(self.f)
                return self.names.of(use.operation.result)
        return op.src.root_reference.data

    def _land(self, t: Transfer) -> None:  # type: ignore[override]
        """The transfer's bytes arrive, stamped as its own (at the DMA op running now)."""
        Planned._land(t)
        op, owner = self.landing
        assert t.dst is not None and op is not None
        self.owners.stamp(self.shadow_of(t.dst), owner, op)


def _inside(a: np.ndarray, arena: np.ndarray) -> bool:
    """Whether ``a`` is a part of ``arena`` other than itself (a staging buffer placed in it)."""
    return address(arena) <= address(a) < address(arena) + max(arena.nbytes, 1)


__all__ = ["OwnedPlanned"]
