"""The latency model's event simulator: one compute core and one in-order DMA channel play a
schedule's items out (see :mod:`memopt.planning.latency` for the machine)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .schedule import Item, Start, Wait
from .target import LatencyError, Target


@dataclass(frozen=True)
class Event:
    """One busy interval of a schedule, for timelines: ``lane`` is ``"compute"``, ``"dma"`` or
    ``"wait"`` (the core stalled on a transfer); ``item`` indexes the schedule's items."""

    lane: str
    start: int
    end: int
    item: int


def simulate(items: Iterable[Item], target: Target, trace: list[Event] | None = None) -> int:
    """Cycles the schedule takes: one core, one in-order DMA channel.

    Direct off-chip reads use the same memory port as the DMA channel, so they queue behind
    transfers in flight. A ``Wait`` on a transfer that was never started is a ``LatencyError``.
    With ``trace``, every busy interval is appended to it as an :class:`Event` (what a timeline
    draws; the schedule is the same with or without it).
    """
    t = 0  # core clock
    channel = 0  # time the DMA channel / off-chip port becomes free
    done: dict[int, int] = {}
    for k, it in enumerate(items):
        if isinstance(it, Start):
            t += target.dma_issue
            begin = max(t, channel)
            channel = done[it.transfer] = begin + target.transfer_cycles(it.nbytes)
            if trace is not None:
                trace.append(Event("dma", begin, channel, k))
        elif isinstance(it, Wait):
            if it.transfer not in done:
                raise LatencyError(f"wait on transfer {it.transfer} that was never started")
            if trace is not None and done[it.transfer] > t:
                trace.append(Event("wait", t, done[it.transfer], k))
            t = max(t, done[it.transfer])
        else:
            for b in it.direct:
                begin = max(t, channel)
                t = channel = begin + target.transfer_cycles(b)
                if trace is not None:
                    trace.append(Event("dma", begin, t, k))
            begin = t
            t += target.compute_cycles(it.macs)
            if trace is not None:
                trace.append(Event("compute", begin, t, k))
    return t
