"""IR-free latency model of ping-pong DMA of weights (the LUNA control-flow paper, Algorithm 3).

Why a model at all: whether double buffering pays off depends on how long each op computes
versus how long its weights take to arrive. The insertion pass uses this module to decide what
to pipeline (``mode=auto``), the report pass and ``bench/dma.py`` use it to say how well the
schedule overlaps, and all three must agree, so the arithmetic lives here, once, without xDSL.

The machine (:class:`Target`): one compute core doing ``macs_per_cycle`` MACs per cycle, one DMA
channel that moves ``dma_bytes_per_cycle`` after a start-up ``dma_latency``, transfers served in
issue order. An op's compute time is ``c = ceil(macs / macs_per_cycle)``; one transfer of ``b``
bytes takes ``latency + ceil(b / bandwidth)``; an op's DMA time ``d`` is the sum over its weights.

* **serial** — the op reads its weights from off-chip memory itself, then computes:
  ``T_serial = sum(c_i + d_i)``.
* **ping-pong** — what :func:`pingpong_items` emits (the exact op order ``insert-dma`` writes):
  the first pipelined op's loads start at the Region's beginning; before pipelined op ``k``
  computes, the core waits for its loads and then issues the loads of op ``k+1`` into the other
  buffer, so they overlap op ``k``'s compute. Every asynchronous transfer costs the core
  ``dma_issue`` cycles (programming the descriptor, the completion handshake); that overhead is
  why pipelining can lose on small ops. :func:`simulate` plays the schedule out.
* **bound** — ``T_lb = max(sum(c) + d_first, sum(d) + c_last)``: the first op cannot start
  before its weights arrive, the last cannot start before every transfer is done.
* **efficiency** — ``eta = (T_serial - T) / (T_serial - T_lb)``: the share of the possible
  overlap a schedule achieves (``None`` when there is nothing to overlap).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace


class LatencyError(ValueError):
    """A malformed target description (one-line message)."""


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class Target:
    """An edge NPU. Defaults (see docs/dma.md for the reasoning): a 256-MAC/cycle int8 array,
    a 64-bit DMA port (8 bytes/cycle), 200 cycles start-up per transfer, 32 core cycles to issue
    and retire an asynchronous transfer, unlimited on-chip capacity."""

    macs_per_cycle: int = 256
    dma_bytes_per_cycle: int = 8
    dma_latency: int = 200
    dma_issue: int = 32
    capacity: int | None = None
    onchip_name: str = "onchip"
    """The on-chip memory's name (plan export's ``memory`` column)."""
    offchip_name: str = "dram"
    """The off-chip memory spilled tensors go to (``memopt.copy ... to "<name>"``), reached over
    the DMA channel (``dma-bytes-per-cycle``, ``dma-latency``), unlimited."""

    def __post_init__(self) -> None:
        import re

        for name in ("onchip_name", "offchip_name"):
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", getattr(self, name)):
                raise LatencyError(f"target: {name.replace('_', '-')} must be an identifier, got '{getattr(self, name)}'")
        if self.onchip_name == self.offchip_name:
            raise LatencyError(f"target: onchip-name and offchip-name must differ, both are '{self.onchip_name}'")
        for name in ("macs_per_cycle", "dma_bytes_per_cycle"):
            if getattr(self, name) < 1:
                raise LatencyError(f"target: {name.replace('_', '-')} must be >= 1, got {getattr(self, name)}")
        for name in ("dma_latency", "dma_issue"):
            if getattr(self, name) < 0:
                raise LatencyError(f"target: {name.replace('_', '-')} must be >= 0, got {getattr(self, name)}")
        if self.capacity is not None and self.capacity < 0:
            raise LatencyError(f"target: capacity must be >= 0, got {self.capacity}")

    def compute_cycles(self, macs: int) -> int:
        return _ceil_div(max(0, macs), self.macs_per_cycle)

    def transfer_cycles(self, nbytes: int) -> int:
        """One DMA transfer (or one direct off-chip read) of ``nbytes``."""
        return self.dma_latency + _ceil_div(max(0, nbytes), self.dma_bytes_per_cycle)

    def dma_cycles(self, weights: Iterable[int]) -> int:
        return sum(self.transfer_cycles(b) for b in weights)

    def describe(self) -> str:
        cap = "unlimited" if self.capacity is None else f"{self.capacity} B"
        return (
            f"{self.macs_per_cycle} MACs/cycle, DMA {self.dma_bytes_per_cycle} B/cycle, "
            f"latency {self.dma_latency}, issue {self.dma_issue}, on-chip {cap}"
        )


TARGET_KEYS = tuple(f.name.replace("_", "-") for f in fields(Target))


def parse_target(text: str, base: Target | None = None) -> Target:
    """Read a target description: ``key = value`` lines (keys as in :data:`TARGET_KEYS`,
    ``#`` comments, ``capacity = none`` for unlimited), applied on top of ``base``."""
    values: dict[str, int | str | None] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, eq, val = line.partition("=")
        key, val = key.strip().replace("_", "-"), val.strip()
        if not eq or key not in TARGET_KEYS:
            raise LatencyError(
                f"target line {n}: expected 'key = value' with key one of: {', '.join(TARGET_KEYS)}"
            )
        if key == "capacity" and val.lower() == "none":
            values[key] = None
            continue
        if key.endswith("-name"):
            values[key] = val
            continue
        try:
            values[key] = int(val, 0)
        except ValueError:
            raise LatencyError(f"target line {n}: '{key}' needs an integer, got '{val}'") from None
    return replace(base or Target(), **{k.replace("-", "_"): v for k, v in values.items()})


def text_line_of(path: str, offset: int) -> int:
    """The 1-based line of byte ``offset`` in the file at ``path``."""
    with open(path, "rb") as f:
        return f.read(offset).count(b"\n") + 1


def load_target(path: str | None, overrides: dict[str, int | None] | None = None) -> Target:
    """Default target, then the file at ``path`` (if any), then non-None ``overrides``."""
    target = Target()
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise LatencyError(f"cannot read target file '{path}': {e.strerror or e}") from None
        except UnicodeDecodeError as e:
            line = text_line_of(path, e.start)
            raise LatencyError(f"target file '{path}' line {line}: not UTF-8 text (byte 0x{e.object[e.start]:02x}); "
                               "a target file is 'key = value' lines") from None
        target = parse_target(text, target)
    changes = {k: v for k, v in (overrides or {}).items() if v is not None}
    return replace(target, **changes) if changes else target


# --------------------------------------------------------------------------- ops and schedules


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


@dataclass(frozen=True)
class Event:
    """One busy interval of a schedule, for timelines: ``lane`` is ``"compute"``, ``"dma"`` or
    ``"wait"`` (the core stalled on a transfer); ``item`` indexes the schedule's items."""

    lane: str
    start: int
    end: int
    item: int


def simulate(items: Iterable[Item], target: Target, trace: list[Event] | None = None) -> int:
    """Cycles the schedule takes: one core, one in-order DMA channel (see module docstring).

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


def check_buffers(buffers: int) -> None:
    if not isinstance(buffers, int) or buffers < 2:
        raise LatencyError(f"buffers must be an integer >= 2, got {buffers}")


def pingpong_items(ops: Sequence[OpProfile], pipelined: Sequence[bool], buffers: int = 2) -> list[Item]:
    """The schedule ``insert-dma`` emits for one Region (see module docstring).

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
        k = seq.get(i)
        if k is None:
            items.append(Run(op.macs, op.weights))
            continue
        items += [Wait(i * 1024 + j) for j in range(len(op.weights))]
        if buffers == 2:
            if k + 1 < len(order):
                items += starts(order[k + 1])
            items.append(Run(op.macs))
        else:
            items.append(Run(op.macs))
            if k + ahead < len(order):
                items += starts(order[k + ahead])
    return items


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


MODES = ("always", "auto")


def choose_pipelined(
    ops: Sequence[OpProfile],
    target: Target,
    mode: str = "always",
    allowed: Sequence[bool] | None = None,
    buffers: int = 2,
    schedule: Callable[[Sequence[OpProfile], Sequence[bool]], list[Item]] | None = None,
) -> tuple[bool, ...]:
    """Which ops of a Region to pipeline.

    ``always``: every op with weights (that ``allowed`` permits). ``auto``: the cheapest of
    "everything", "nothing" and a one-sweep local search that drops ops whose pipelining costs
    more (issue overhead, a queue behind a long transfer) than it hides; by construction never
    slower than serial under this model. ``buffers``: the schedule's staging buffers
    (:func:`pingpong_items`); ``auto`` judges every candidate under that schedule.
    ``schedule``: another schedule to judge under instead (``mask -> items``, e.g. the ring
    schedule of :func:`memopt.planning.ring.ring_schedule`); "nothing" is serial in every
    schedule, which is what keeps ``auto`` from ever being slower than serial.
    """
    check_buffers(buffers)
    if mode not in MODES:
        raise LatencyError(f"unknown mode '{mode}' (expected one of: {', '.join(MODES)})")
    ok = [bool(op.weights) and (allowed is None or allowed[i]) for i, op in enumerate(ops)]
    if mode == "always":
        return tuple(ok)

    def cost(mask: Sequence[bool]) -> int:
        if schedule is not None:
            return simulate(schedule(ops, mask), target)
        return simulate(pingpong_items(ops, mask, buffers), target)

    best = list(ok)
    best_t = cost(best)
    for i in range(len(ops)):
        if not best[i]:
            continue
        trial = best.copy()
        trial[i] = False
        t = cost(trial)
        if t < best_t:
            best, best_t = trial, t
    none = [False] * len(ops)
    if cost(none) <= best_t:
        return tuple(none)
    return tuple(best)


__all__ = [
    "Event", "Item", "LatencyError", "check_buffers", "MODES", "OpProfile", "Run", "Start", "TARGET_KEYS", "Target", "Timing",
    "Wait", "choose_pipelined", "efficiency", "load_target", "lower_bound_time", "parse_target",
    "pingpong_items", "region_timing", "serial_time", "simulate",
]
