"""What both DMA emitters mean by an op's weights: one transfer per global.

A kernel may read one global through several operands (or several views of it); the global is
transferred once, whole. ``insert-dma`` on the memopt dialect
(:func:`memopt.passes.dma_profile.weight_uses`) and on upstream MLIR
(:func:`memopt.passes.upstream_dma_weights.kernel_weights`) trace an op's operands to their
globals in their own IR; which of those reads become transfers, and in which order, is decided
here for both.
"""

from __future__ import annotations

from typing import Iterable, Protocol, TypeVar


class WeightRead(Protocol):
    """A traced read of a global: the global's symbol is all this rule needs."""

    @property
    def symbol(self) -> str: ...


W = TypeVar("W", bound=WeightRead)


def distinct(uses: Iterable[W]) -> dict[str, W]:
    """The first read of each global, in operand order: one transfer per global."""
    out: dict[str, W] = {}
    for w in uses:
        out.setdefault(w.symbol, w)
    return out


__all__ = ["WeightRead", "distinct"]
