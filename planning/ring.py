"""IR-free ring-buffer weight streaming: slot placement, issue points, and the ring size.

Why a ring: with ``N`` round-robin staging buffers every buffer is as large as the largest
weight set it ever holds, so deep look-ahead costs ``N x`` the largest layer. One staging buffer
used as a FIFO ring gives each load exactly its own bytes, freed as soon as its op has run, so
a ring holds as many small loads in flight as fit and only the few large ones limit the
look-ahead. ``insert-dma{ring=BYTES|auto}`` emits exactly the schedule computed here, and the
latency model (:func:`memopt.planning.latency.simulate`) judges it from :func:`ring_items`, so
the pass, ``mode=auto`` and the report agree.

The schedule of one Region (the ring is empty at each Region's start):

* **slots** — the pipelined ops with weights, in op order, take contiguous slots: op ``j``'s
  weight set (its distinct globals at ``alignment``-aligned offsets, :func:`stage_layout`) goes at
  the next ``alignment``-aligned free position; when it does not fit before the ring's end it
  wraps to offset 0 (the tail is wasted for this lap).
* **issue** — op ``j``'s ``dma_start``s are issued as early as possible: at the Region's start,
  but not before op ``j-1``'s (one DMA channel serving transfers in issue order) and not before
  the last earlier op that reads any byte of the slot has run (its weights are overwritten).
  They go right after that op (``Slot.after``; ``-1`` = at the Region's start).
* **waits** — right before op ``j`` (after the previous op), as in the ping-pong schedule.

With a ring of :func:`unlimited_ring` bytes nothing wraps and every load is issued at the
Region's start: unlimited look-ahead. :func:`auto_ring_size` picks the smallest ring within
:data:`TOLERANCE` of that time (see its docstring).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .latency import (
    Item, LatencyError, OpProfile, Run, Start, Target, Wait, choose_pipelined, lower_bound_time, serial_time,
    simulate,
)
from .problem import align_up

TOLERANCE = 0.01
"""``ring=auto`` accepts a ring that loses at most 1 % of the possible overlap against unlimited
look-ahead: ``T(ring) <= T_unlimited + TOLERANCE * (T_serial - T_lb)``, i.e. eta within 0.01."""


class RingError(LatencyError):
    """A weight set larger than the ring (one-line message; ``op`` is its index in the Region)."""

    def __init__(self, message: str, op: int = -1) -> None:
        super().__init__(message)
        self.op = op


def stage_layout(sizes: Sequence[int], alignment: int) -> tuple[list[int], int]:
    """Offsets of an op's weights packed into one buffer or slot, and the bytes they span."""
    offsets, end = [], 0
    for s in sizes:
        off = align_up(end, alignment)
        offsets.append(off)
        end = off + s
    return offsets, end


def weight_span(op: OpProfile, alignment: int) -> int:
    return stage_layout(op.weights, alignment)[1]


@dataclass(frozen=True)
class Slot:
    """Where one pipelined op's weight set lives in the ring and when its loads are issued."""

    op: int
    """Index of the op in the Region's op list."""
    offset: int
    span: int
    after: int
    """Issue the loads right after op ``after`` has run; ``-1``: at the Region's start."""


def _pipelined(ops: Sequence[OpProfile], pipelined: Sequence[bool]) -> list[int]:
    return [i for i, op in enumerate(ops) if pipelined[i] and op.weights]


def ring_slots(
    ops: Sequence[OpProfile], pipelined: Sequence[bool], ring: int, alignment: int = 16
) -> list[Slot]:
    """The Region's ring schedule (module docstring), one :class:`Slot` per pipelined op.

    Raises :class:`RingError` when a pipelined op's weight set does not fit in the ring.
    Which bytes were last written by which op is kept as sorted disjoint intervals, so finding
    the last reader of the bytes a slot overwrites costs the number of slots it overwrites.
    """
    if ring < 0:
        raise RingError(f"ring must be >= 0 bytes, got {ring}")
    owners: list[tuple[int, int, int]] = []  # (lo, hi, op): the op whose weights hold [lo, hi)
    slots: list[Slot] = []
    pos, after = 0, -1
    for i in _pipelined(ops, pipelined):
        span = weight_span(ops[i], alignment)
        if span > ring:
            raise RingError(
                f"the weight set of op #{i} '{ops[i].name}' ({span} bytes) does not fit in the ring ({ring} bytes)", i
            )
        off = align_up(pos, alignment)
        if off + span > ring:
            off = 0  # wrap: the tail of the ring is wasted for this lap
        pos = off + span
        if span:
            lo, hi = off, off + span
            k = bisect.bisect_right(owners, (lo, -1, -1))
            if k and owners[k - 1][1] > lo:
                k -= 1
            end = k
            kept: list[tuple[int, int, int]] = []
            while end < len(owners) and owners[end][0] < hi:
                a, b, j = owners[end]
                after = max(after, j)  # op j reads these bytes: it must have run
                if a < lo:
                    kept.append((a, lo, j))
                if b > hi:
                    kept.append((hi, b, j))
                end += 1
            owners[k:end] = sorted(kept + [(lo, hi, i)])
        slots.append(Slot(i, off, span, after))
    return slots


def _starts(i: int, op: OpProfile) -> list[Item]:
    return [Start(i * 1024 + j, b) for j, b in enumerate(op.weights)]


def ring_items(
    ops: Sequence[OpProfile], pipelined: Sequence[bool], ring: int, alignment: int = 16
) -> list[Item]:
    """The Start/Wait/Run items of the ring schedule, in the order ``insert-dma`` emits them
    (transfer ids as in :func:`memopt.planning.latency.pingpong_items`)."""
    slots = ring_slots(ops, pipelined, ring, alignment)
    issued_after: dict[int, list[int]] = {}
    for s in slots:
        issued_after.setdefault(s.after, []).append(s.op)
    loaded = {s.op for s in slots}
    items: list[Item] = []
    for i in issued_after.get(-1, []):
        items += _starts(i, ops[i])
    for i, op in enumerate(ops):
        if i in loaded:
            items += [Wait(i * 1024 + j) for j in range(len(op.weights))]
            items.append(Run(op.macs))
        else:
            items.append(Run(op.macs, op.weights))
        for k in issued_after.get(i, []):
            items += _starts(k, ops[k])
    return items


def ring_schedule(ring: int, alignment: int = 16) -> Callable[[Sequence[OpProfile], Sequence[bool]], list[Item]]:
    """The ring schedule as the ``schedule`` argument of :func:`~memopt.planning.latency.choose_pipelined`."""
    return lambda ops, mask: ring_items(ops, mask, ring, alignment)


def unlimited_ring(ops: Sequence[OpProfile], pipelined: Sequence[bool], alignment: int = 16) -> int:
    """The smallest ring in which nothing wraps: every load of the Region in flight at once."""
    pos = 0
    for i in _pipelined(ops, pipelined):
        pos = align_up(pos, alignment) + weight_span(ops[i], alignment)
    return pos


def ring_extent(slots: Sequence[Slot]) -> int:
    """Bytes of the ring a schedule actually uses. A ring cut to this size gives the same
    schedule: no slot that fitted ends past it, and a slot that wrapped still does not fit."""
    return max((s.offset + s.span for s in slots), default=0)


@dataclass(frozen=True)
class RingRegion:
    """One Region as :func:`auto_ring_size` sees it."""

    ops: Sequence[OpProfile]
    allowed: Sequence[bool]
    runs: int = 1


def decide(
    region: RingRegion, ring: int, target: Target, mode: str, alignment: int = 16
) -> tuple[tuple[bool, ...], int]:
    """``mode``'s choice of loads for a Region under a ring of ``ring`` bytes (ops whose weight
    set does not fit are not allowed), and its model time."""
    ok = [a and weight_span(op, alignment) <= ring for a, op in zip(region.allowed, region.ops)]
    schedule = ring_schedule(ring, alignment)
    mask = choose_pipelined(region.ops, target, mode, ok, schedule=schedule)
    return mask, simulate(schedule(region.ops, mask), target)


def ring_time(regions: Sequence[RingRegion], ring: int, target: Target, mode: str, alignment: int = 16) -> int:
    """Model time of all Regions under one ring, each weighted by how often it runs."""
    return sum(r.runs * decide(r, ring, target, mode, alignment)[1] for r in regions)


def auto_ring_size(
    regions: Sequence[RingRegion], target: Target, mode: str = "always", alignment: int = 16,
    cap: int | None = None, tolerance: float = TOLERANCE,
) -> int:
    """``ring=auto``: the ring size for a module's Regions (0 when nothing is loaded).

    The reference is unlimited look-ahead: a ring of the largest :func:`unlimited_ring` of any
    Region, time ``T_U``. The time of a ring is :func:`ring_time` (``mode``'s decision, Regions
    weighted by their runs), and so are ``T_serial`` and ``T_lb``. The goal is
    ``T <= T_U + tolerance * (T_serial - T_lb)``: eta within ``tolerance`` (default
    :data:`TOLERANCE`, 0.01) of unlimited look-ahead's; a larger ``tolerance`` trades eta for a
    smaller ring (``insert-dma{ring-loss=...}``).
    (Not "within 1 % of T_U": on DMA-bound models the whole possible overlap is under 1 % of
    the time, so that goal would accept rings that hide nothing.) The answer is the smallest
    ring, to within ``alignment`` bytes by bisection between the largest weight set and the
    reference, that meets the goal. With ``cap`` (on-chip bytes left for the ring) the search
    stops at ``cap``, and when even ``cap`` misses the goal the answer is ``cap``: the largest
    ring that fits. Weight sets larger than ``cap`` must already be disallowed (or reported) by
    the caller.

    The model time is not monotone in the ring size (moving the wrap points can put a large
    load behind a short op), so bisection finds *a* ring meeting the goal whose next smaller
    candidate does not, not necessarily the smallest such ring; it is deterministic, and it
    always meets the goal (unless capped), because the reference does.
    """
    spans = [weight_span(op, alignment) for r in regions for op, a in zip(r.ops, r.allowed) if a and op.weights]
    if not spans:
        return 0
    lo = max(spans)
    full = max(unlimited_ring(r.ops, r.allowed, alignment) for r in regions)
    if cap is not None and lo > cap:
        raise RingError(f"a weight set of {lo} bytes does not fit in the {cap} on-chip bytes left for the ring")
    cache: dict[int, int] = {}

    def time(size: int) -> int:
        if size not in cache:
            cache[size] = ring_time(regions, size, target, mode, alignment)
        return cache[size]

    serial = sum(r.runs * serial_time(r.ops, target) for r in regions)
    lb = sum(r.runs * lower_bound_time(r.ops, target) for r in regions)
    if not 0 <= tolerance <= 1:
        raise RingError(f"ring-loss must be in [0, 1], got {tolerance:g}")
    goal = time(full) + tolerance * max(0, serial - lb)
    top = full if cap is None else min(full, cap)
    if time(top) > goal:
        return top
    if time(lo) <= goal:
        return lo
    a, b = lo, top  # time(a) > goal >= time(b)
    while b - a > alignment:
        mid = (a + b) // 2
        if time(mid) <= goal:
            b = mid
        else:
            a = mid
    return b


__all__ = [
    "RingError", "RingRegion", "Slot", "TOLERANCE", "auto_ring_size", "decide", "ring_extent", "ring_items",
    "ring_schedule", "ring_slots", "ring_time", "stage_layout", "unlimited_ring", "weight_span",
]
