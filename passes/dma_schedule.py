"""The DMA schedule both IR flavours share: which ops' weights are streamed, into which staging
buffer, issued where — and the one walk that writes a Region's schedule into the IR.

``insert-dma`` reads a Region's ops in its flavour (:mod:`memopt.passes.dma_memopt`,
:mod:`memopt.passes.upstream_dma`) into a :class:`Work`: the ops, their latency profiles and
their :class:`~memopt.passes.dma_weights.WeightSet`\\ s, each computed once. The decision
(:func:`round_robin_loads`, or the ring's, :mod:`memopt.passes.dma_ring`) is a list of
:class:`Load`\\ s per Region; :func:`write_region` walks a Region's ops once and asks the
flavour's :class:`RegionWriter` to emit each load's starts and each op's waits where the
schedule puts them (the ``insert-dma`` module docstring draws it).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Operation

from memopt.passes.dma_regions import Region
from memopt.passes.dma_weights import WeightSet
from memopt.planning.latency import Item, OpProfile, Target, simulate
from memopt.planning.ring import RingError

SKIPPED_ATTR = "memopt.dma_skipped"
"""On an op whose weights ``insert-dma{mode=auto}`` left unpipelined."""


def buffer_names(n: int) -> list[str]:
    """The ``buffers=N`` staging buffers: ``alloc0 .. alloc{N-1}``."""
    return [f"alloc{k}" for k in range(n)]


@dataclass
class Work:
    """One Region with weights to stream: its ops, their profiles and weight sets, the decision."""

    region: Region
    ops: list[Operation]
    profiles: list[OpProfile]
    sets: list[WeightSet[Any]]
    """Each op's weight set (empty for an op without weights), laid out at the pass's alignment."""
    allowed: list[bool] = field(default_factory=list)
    mask: tuple[bool, ...] = ()
    func: Operation | None = None
    """The function of the Region (upstream IR: staging buffers are per function)."""

    def __post_init__(self) -> None:
        if not self.allowed:
            self.allowed = [True] * len(self.ops)


@dataclass(frozen=True)
class Load:
    """Where one pipelined op's loads go and where their starts are issued."""

    op: int
    """Index of the op in its Region's ops."""
    buffer: str
    base: int
    """Offset of the op's weight set inside the buffer."""
    where: str
    """``start`` (the Region's beginning), ``before`` op ``at`` (after its waits: the LUNA paper's
    place) or ``after`` op ``at`` (as soon as op ``at``, the last reader of the bytes, has run)."""
    at: int = -1


def buffer_sizes(work: list[Work], n: int = 2) -> tuple[list[int], tuple[Work, int] | None]:
    """Bytes per buffer of the round-robin schedule (-1: buffer unused), and the pipelined op
    with the largest weight set."""
    sizes = [-1] * n
    largest: tuple[Work, int] | None = None
    largest_size = -1
    for w in work:
        k = 0
        for i, on in enumerate(w.mask):
            if not on:
                continue
            span = w.sets[i].span
            sizes[k % n] = max(sizes[k % n], span)
            if span > largest_size:
                largest, largest_size = (w, i), span
            k += 1
    return sizes, largest


def round_robin_loads(mask: tuple[bool, ...], n: int) -> list[Load]:
    """The ``buffers=N`` schedule: buffer ``k % N``; ``N = 2`` issues op ``k+1``'s loads before
    op ``k`` (the LUNA paper's schedule), ``N > 2`` issues op ``k+N``'s after op ``k``."""
    order = [i for i, on in enumerate(mask) if on]
    bufs = buffer_names(n)
    out = []
    for k, i in enumerate(order):
        if n == 2:
            out.append(Load(i, bufs[k % 2], 0, "start") if k == 0 else Load(i, bufs[k % 2], 0, "before", order[k - 1]))
        else:
            out.append(Load(i, bufs[k % n], 0, "start") if k < n else Load(i, bufs[k % n], 0, "after", order[k - n]))
    return out


def transfer_tags(work: list[Work]) -> int:
    """The most transfers any one function's pipelined ops issue (upstream IR: one ``i32`` tag each)."""
    per_func: dict[int, int] = {}
    for w in work:
        n = sum(len(s.transfers) for s, on in zip(w.sets, w.mask) if on)
        per_func[id(w.func)] = per_func.get(id(w.func), 0) + n
    return max(per_func.values(), default=0)


def remark_skipped(w: Work, target: Target, mode: str,
                   schedule: Callable[[list[OpProfile], Sequence[bool]], list[Item]]) -> None:
    """Mark the ops whose weights stay unpipelined; with ``mode=auto``, say so and what the
    latency model gives for the chosen and the all-pipelined ``schedule``."""
    skipped = [o for o, p, on in zip(w.ops, w.profiles, w.mask) if p.weights and not on]
    for o in skipped:
        o.attributes[SKIPPED_ATTR] = UnitAttr()
    if not skipped or mode != "auto":
        return
    n = sum(1 for p in w.profiles if p.weights)
    try:
        everything = simulate(schedule(w.profiles, [True] * len(w.ops)), target)
        all_text = f"{everything} if all pipelined"
    except RingError:
        all_text = "not all fit in the ring"
    chosen = simulate(schedule(w.profiles, w.mask), target)
    sys.stderr.write(
        f"insert-dma: remark: {w.region.name}: left {len(skipped)} of {n} weight loads unpipelined "
        f"(model: {chosen} cycles, {all_text})\n"
    )


class RegionWriter(Protocol):
    """A flavour's IR emitter for one Region's schedule."""

    def start(self, i: int, load: Load, before: Operation) -> None:
        """Insert op ``i``'s transfers (one start per global of its weight set) before ``before``."""

    def arrive(self, i: int, load: Load) -> None:
        """Right before op ``i``: wait for its transfers and point its weight operands at the copies."""


def write_region(ops: list[Operation], loads: list[Load], writer: RegionWriter, first: Operation) -> None:
    """Write a Region's schedule: every load's starts where it says (``first``: where the
    Region's first loads go), every pipelined op's waits right before it."""
    load_of = {ld.op: ld for ld in loads}
    before: dict[int, list[Load]] = {}
    after: dict[int, list[Load]] = {}
    for ld in loads:
        if ld.where in ("before", "after"):
            (before if ld.where == "before" else after).setdefault(ld.at, []).append(ld)
    for ld in loads:
        if ld.where == "start":
            writer.start(ld.op, ld, first)
    for i, op in enumerate(ops):
        if i in load_of:
            writer.arrive(i, load_of[i])
        for ld in before.get(i, []):
            writer.start(ld.op, ld, op)  # the LUNA paper's place: after op i's waits, before op i
        nxt = op.next_op
        for ld in after.get(i, []):
            assert nxt is not None  # a compute op or kernel is never its block's terminator
            writer.start(ld.op, ld, nxt)  # the bytes are free once op i has run


__all__ = [
    "Load", "RegionWriter", "SKIPPED_ATTR", "Work", "buffer_names", "buffer_sizes", "remark_skipped",
    "round_robin_loads", "transfer_tags", "write_region",
]
