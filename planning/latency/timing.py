"""A Region's figures under the latency model: serial time, scheduled time, the bound and the
overlap efficiency (formulas in :mod:`memopt.planning.latency`), and how they compose over
loops and branches."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .schedule import OpProfile, pingpong_items
from .simulator import simulate
from .target import Target


def serial_time(ops: Sequence[OpProfile], target: Target) -> int:
    return sum(target.compute_cycles(op.macs) + target.dma_cycles(op.weights) for op in ops)


def lower_bound_time(ops: Sequence[OpProfile], target: Target) -> int:
    if not ops:
        return 0
    c = [target.compute_cycles(op.macs) for op in ops]
    d = [target.dma_cycles(op.weights) for op in ops]
    return max(sum(c) + d[0], sum(d) + c[-1])


def efficiency(serial: int, t: int, lb: int) -> float | None:
    """``(T_serial - T) / (T_serial - T_lb)``, or None when nothing can be overlapped."""
    if serial <= lb:
        return None
    return (serial - t) / (serial - lb)


@dataclass(frozen=True)
class Timing:
    """Serial time, scheduled time and bound of a Region (or of a composition of Regions)."""

    serial: int = 0
    pingpong: int = 0
    lb: int = 0

    @property
    def eta(self) -> float | None:
        return efficiency(self.serial, self.pingpong, self.lb)

    def __add__(self, other: Timing) -> Timing:
        return Timing(self.serial + other.serial, self.pingpong + other.pingpong, self.lb + other.lb)

    def times(self, k: int) -> Timing:
        """``k`` executions in a row (a loop body; the ping-pong restarts every iteration)."""
        return Timing(self.serial * k, self.pingpong * k, self.lb * k)

    @staticmethod
    def worst(timings: Iterable[Timing]) -> Timing:
        """Exclusive alternatives (branches of an ``if``): the worst case of each figure."""
        ts = list(timings)
        if not ts:
            return Timing()
        return Timing(max(t.serial for t in ts), max(t.pingpong for t in ts), max(t.lb for t in ts))


def region_timing(
    ops: Sequence[OpProfile], pipelined: Sequence[bool], target: Target, buffers: int = 2
) -> Timing:
    return Timing(
        serial_time(ops, target),
        simulate(pingpong_items(ops, pipelined, buffers), target),
        lower_bound_time(ops, target),
    )
