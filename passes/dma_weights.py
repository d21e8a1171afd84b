"""What both DMA emitters mean by an op's weights: one transfer per global, laid out in a slot.

A kernel may read one global through several operands (or several views of it); the global is
transferred once, whole. ``insert-dma`` on the memopt dialect
(:func:`memopt.passes.dma_profile.weight_uses`) and on upstream MLIR
(:func:`memopt.passes.upstream_dma_weights.kernel_weights`) trace an op's operands to their
globals in their own IR; which of those reads become transfers, in which order, and where each
transfer lands in the op's staging slot (:class:`WeightSet`) is decided here for both, once per op.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Iterable, Protocol, TypeVar

from memopt.planning.ring import stage_layout


class WeightRead(Protocol):
    """A traced read of a global: its symbol, and the bytes one transfer of it moves."""

    @property
    def symbol(self) -> str: ...

    @property
    def nbytes(self) -> int: ...


W = TypeVar("W", bound=WeightRead)


def distinct(uses: Iterable[W]) -> dict[str, W]:
    """The first read of each global, in operand order: one transfer per global."""
    out: dict[str, W] = {}
    for w in uses:
        out.setdefault(w.symbol, w)
    return out


@dataclass(frozen=True)
class WeightSet(Generic[W]):
    """The weights one op streams: every read, one transfer per global, and each transfer's
    ``alignment``-aligned offset inside the op's staging slot."""

    reads: tuple[W, ...]
    """Every weight operand the op reads (a global read twice is here twice)."""
    transfers: tuple[W, ...]
    """The first read of each global (:func:`distinct`), in operand order."""
    offsets: tuple[int, ...]
    """Each transfer's byte offset in the slot."""
    span: int
    """The bytes the slot spans (0 without weights)."""

    def offset_of(self, symbol: str) -> int:
        """The slot offset of the global ``symbol``'s transfer."""
        return next(o for t, o in zip(self.transfers, self.offsets) if t.symbol == symbol)


def weight_set(reads: Iterable[W], alignment: int) -> WeightSet[W]:
    """The :class:`WeightSet` of an op that reads ``reads``, laid out at ``alignment``."""
    reads = tuple(reads)
    transfers = tuple(distinct(reads).values())
    offsets, span = stage_layout([t.nbytes for t in transfers], alignment)
    return WeightSet(reads, transfers, tuple(offsets), span)


__all__ = ["WeightRead", "WeightSet", "distinct", "weight_set"]
