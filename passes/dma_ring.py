"""``insert-dma{ring=BYTES|auto}``: the decision for one ring staging buffer ``@ring``, both IR flavours.

Op ``j``'s weight set takes the next aligned free bytes of the ring (:mod:`memopt.planning.ring`);
a weight set larger than the ring (or than what ``capacity`` leaves after the arena) is an error
with ``mode=always`` and read directly with ``auto``. ``ring=auto`` sizes the ring by bisection
and keeps only the bytes its schedule uses. The capacity arithmetic is the staging placement's
(:func:`memopt.passes.dma_layout.onchip_total`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.ir import Operation

from memopt.diagnostics import MemoptError
from memopt.passes.dma_layout import onchip_total
from memopt.passes.dma_schedule import Load, Work, remark_skipped
from memopt.planning import align_up
from memopt.planning.latency import Target
from memopt.planning.ring import (
    RingError, RingRegion, auto_ring_size, decide, ring_extent, ring_items, ring_slots, unlimited_ring,
)

RING = "ring"
"""The one staging buffer of ``ring=BYTES|auto``."""


@dataclass(frozen=True)
class RingChoice:
    """The options the ring decision reads."""

    ring: int | str
    """``BYTES`` or ``"auto"``."""
    mode: str
    alignment: int
    tolerance: float
    """``ring=auto``'s accepted eta loss against unlimited look-ahead."""


def _limit(c: RingChoice, target: Target, arena: int, others: list[int], where: Operation) -> int | None:
    """The bytes a weight set may take (the ring, or what ``capacity`` leaves); capacity errors."""
    a = c.alignment
    base = onchip_total(arena, others, a)  # on-chip bytes before the ring
    cap = None if target.capacity is None else target.capacity - align_up(base, a)
    if target.capacity is not None and base > target.capacity:
        what = f"arena ({arena} bytes) and other DMA buffers need {base} bytes," if others else (
            f"arena alone ({arena} bytes) is")
        raise MemoptError(f"insert-dma: {what} over capacity {target.capacity}", where)
    if isinstance(c.ring, int) and cap is not None and c.ring > cap:
        raise MemoptError(
            f"insert-dma: arena ({arena} bytes) and ring ({c.ring} bytes) need "
            f"{onchip_total(base, [c.ring], a)} bytes, over capacity {target.capacity} (try ring=auto)", where,
        )
    return cap


def _refuse_large(c: RingChoice, target: Target, work: list[Work], limit: int | None, cap: int | None) -> None:
    """Weight sets over ``limit``: an error with ``mode=always``, else read directly."""
    for w in work:
        for i, s in enumerate(w.sets):
            span = s.span
            if not w.profiles[i].weights or limit is None or span <= limit:
                continue
            if c.mode == "always":
                where = f"the ring ({c.ring} bytes)" if isinstance(c.ring, int) else (
                    f"the {limit} on-chip bytes left after the arena (capacity {target.capacity})")
                raise MemoptError(
                    f"insert-dma: the weight set of this op ({span} bytes) does not fit in {where} (try mode=auto)",
                    w.ops[i],
                )
            w.allowed[i] = False


def ring_schedule(c: RingChoice, target: Target, work: list[Work], arena: int, others: list[int],
                  where: Operation) -> tuple[int, list[list[Load]]]:
    """The ring's bytes and every Region's loads (``others``: the sizes of staging buffers an
    earlier run left before the ring). Decides each Region's mask and remarks what it skips."""
    a = c.alignment
    cap = _limit(c, target, arena, others, where)
    _refuse_large(c, target, work, c.ring if isinstance(c.ring, int) else cap, cap)
    regions_ = [RingRegion(w.profiles, w.allowed, w.region.runs) for w in work]
    if isinstance(c.ring, int):
        size = c.ring
    else:
        try:
            size = auto_ring_size(regions_, target, c.mode, a, cap, c.tolerance)
        except RingError as e:  # weight sets over cap were reported or disallowed above
            raise MemoptError(f"insert-dma: {e}", where) from None
    loads: list[list[Load]] = []
    used = 0
    for w, r in zip(work, regions_):
        w.mask, _ = decide(r, size, target, c.mode, a) if size else (tuple(False for _ in w.ops), 0)
        slots = ring_slots(w.profiles, w.mask, size, a)
        used = max(used, ring_extent(slots))
        loads.append([Load(s.op, RING, s.offset, "start" if s.after < 0 else "after", s.after) for s in slots])
    for w in work:
        remark_skipped(w, target, c.mode, lambda ops, mask: ring_items(ops, mask, size, a))
    if c.ring == "auto" and used:
        full = max(unlimited_ring(w.profiles, w.allowed, a) for w in work)
        sys.stderr.write(
            f"insert-dma: remark: ring=auto: {used} bytes (no wrap-around: {full}; goal: eta within {c.tolerance:g} "
            f"of no wrap-around's{'' if cap is None else f', at most {cap} on-chip bytes'})\n"
        )
    # ring=auto keeps only the bytes its schedule uses (the same schedule: see ring_extent);
    # an explicit size is honoured as given.
    return (size if isinstance(c.ring, int) else used), loads


__all__ = ["RING", "RingChoice", "ring_schedule"]
