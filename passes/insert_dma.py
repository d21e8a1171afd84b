"""``insert-dma``: ping-pong DMA of off-chip weights into on-chip buffers (the LUNA control-flow paper's Algorithm 3), or a ring.

Why: weights live off-chip and an op cannot start before they are on-chip; loading op ``k+1``'s
weights while op ``k`` computes hides the transfer behind the compute. Two staging buffers,
``@alloc0`` and ``@alloc1``, alternate so that a load never overwrites weights still in use.

Inside every Region (:mod:`memopt.passes.dma_regions`; the ping-pong restarts in each one and no
transfer crosses a Region boundary) the compute ops that read off-chip weights (operands that
reach a ``memopt.get_global``, possibly through views) get sequence numbers ``0, 1, 2, ...``;
op ``k`` uses ``@alloc{k % 2}``. For op ``k`` the pass emits, in this order::

    memopt.dma_wait   (op k's loads)           -- op 0's loads start at the Region's beginning
    memopt.view       (re-applied operand views, if any)
    memopt.dma_start  (op k+1's loads, into the other buffer)
    op k              (now reading the dma_wait results)

so op ``k+1``'s ``dma_start`` sits between op ``k`` and op ``k``'s ``dma_wait``, and op ``k+1``'s
``dma_wait`` comes right after op ``k`` (right before op ``k+1`` when ops without weights lie
in between, which then overlap the transfer too). All weights of one op (weight, bias, ...)
share its buffer: one ``dma_start`` per distinct global, at increasing ``alignment``-aligned
offsets. Each buffer's size is the largest such set among the ops of its parity, over all
Regions and functions. The ``get_global``/``view`` ops left without uses are erased: off-chip
reads take no step of the arena plan's numbering (nor do DMA ops), so a plan made before this
pass holds after it.

Options:
  mode        ``auto`` (default): per Region, keep the cheapest of "all", "none" and a local
              search that drops loads the latency model (:mod:`memopt.planning.latency`) says
              lose — so the default never models slower than no DMA; skipped ops get a
              ``memopt.dma_skipped`` attribute and a remark on stderr. ``always``: every weight load
  buffers     number of staging buffers (default 2: the LUNA paper's ping-pong, exactly as above).
              With ``N > 2`` they are ``@alloc0 .. @alloc{N-1}``, op ``k`` uses ``@alloc{k % N}``,
              ops ``0 .. N-1`` load at the Region's beginning and op ``k+N``'s ``dma_start``s go
              right after op ``k`` (the last user of that buffer: it is free as soon as op ``k``
              has run), so loads run up to ``N`` ops ahead of the core. Costs ``N`` buffers'
              on-chip bytes (each as large as the largest weight set of its ops); ``auto``
              judges with the same schedule (:func:`memopt.planning.latency.pingpong_items`)
  ring        ``BYTES`` or ``auto`` (unset by default; excludes ``buffers``): one staging buffer
              ``@ring`` used as a FIFO of variable-size slots (:mod:`memopt.planning.ring`). Op
              ``j``'s weight set takes the next aligned free bytes, wrapping to offset 0 when it
              does not fit before the end; its ``dma_start``s go at the Region's start, after op
              ``j-1``'s, and right after the last op that reads bytes they overwrite; its
              ``dma_wait``s right before it. A weight set larger than the ring is an error with
              ``always``; ``auto`` reads it directly. ``ring=auto`` sizes the ring: the smallest
              (bisection) whose model eta is within 0.01 of unlimited look-ahead's, at most what
              ``capacity`` leaves after the arena, cut to the bytes its schedule uses
  ring-loss   ``ring=auto`` only: the eta it may lose against unlimited look-ahead (default
              0.01; e.g. 0.1 for a smaller ring at about 0.1 less eta)
  alignment   byte alignment of weights inside a buffer and of the buffers on-chip (default 16)
  target      path of a target description file (``key = value`` lines)
  macs-per-cycle, dma-bytes-per-cycle, dma-latency, dma-issue, capacity
              override the target's fields (declared once, :mod:`memopt.passes.dma_target`); with
              ``capacity`` (on-chip bytes), arena + DMA buffers must fit: ``always`` fails,
              ``auto`` leaves the largest loads unpipelined (with a ring: a ``ring=BYTES`` over
              capacity fails in both modes; ``ring=auto`` is capped, and weight sets larger than
              the cap fail with ``always`` and are read directly with ``auto``)

Regions that already contain DMA ops are left alone, so the pass is idempotent. When the module
is already planned (``plan-memory`` ran first) the buffers are placed on-chip right after the
arena (:mod:`memopt.passes.dma_layout`); otherwise ``plan-memory`` places them later.

This file is the driver: read the Regions in the module's IR flavour (:mod:`.dma_memopt`,
:mod:`.upstream_dma`), decide the schedule (:mod:`.dma_schedule`, :mod:`.dma_ring`), write it in
that flavour, and have the staging buffers placed (:mod:`.dma_layout`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.passes import ModulePass

from memopt.diagnostics import MemoptError
from memopt.dialects.ir_flavour import is_upstream_module
from memopt.passes import dma_memopt, upstream_dma
from memopt.passes.dma_layout import dma_buffers, place_dma_buffers, planned_arenas, record_capacity, staging_need
from memopt.passes.dma_ring import RING, RingChoice, ring_schedule
from memopt.passes.dma_schedule import (
    SKIPPED_ATTR, Work, buffer_names, buffer_sizes, remark_skipped, round_robin_loads, transfer_tags,
)
from memopt.passes.dma_target import TargetOptions, target_from_options
from memopt.passes.options import option
from memopt.passes.upstream_unsupported import remark_no_effect
from memopt.planning.latency import MODES, Target, choose_pipelined, pingpong_items
from memopt.planning.ring import TOLERANCE, stage_layout

BUFFERS = ("alloc0", "alloc1")
"""The LUNA paper's two staging buffers (``buffers=2``); with ``buffers=N`` they are ``@alloc0 .. @alloc{N-1}``."""


def _parse_ring(value: object) -> int | str | None:
    """``ring``: None (unset), a byte count >= 1, or ``auto``; anything else is a one-line error."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() == "auto":
        return "auto"
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        shown = str(value).lower() if isinstance(value, bool) else value
        raise MemoptError(f"insert-dma: ring must be a byte count >= 1 or 'auto', got '{shown}'")
    return value


@dataclass(frozen=True)
class InsertDmaPass(TargetOptions, ModulePass):
    """Stream off-chip weights in by async DMA: the LUNA paper's ping-pong @alloc0/@alloc1, N buffers, or a ring.

    See the module docstring for the schedules and options."""

    name = "insert-dma"

    mode: str = option("auto", "auto: per Region, keep the cheapest of every load, none and a search between (the "
                               "latency model's; never slower than no DMA); always: every weight load",
                       choices=MODES)
    buffers: int | None = option(None, "staging buffers rotated per Region (unset: 2, the LUNA paper's ping-pong)",
                                 values="integer >= 2")
    ring: int | str | None = option(None, "one ring staging buffer of variable-size slots instead of buffers",
                                    values="BYTES (integer > 0) | auto")
    ring_loss: float | int | None = option(None, "ring=auto only: the eta it may lose against unlimited look-ahead",
                                           values="number in [0, 1] (unset: 0.01)")
    alignment: int = option(16, "byte alignment of weights in a buffer and of the buffers on chip",
                            values="power of two >= 1")
    staging_space: int | None = option(None, "upstream IR only: the memory space of the staging buffers and "
                                       "transfer tags (an on-chip memory of their own; 0: the default space, as allocs); "
                                       "it must differ from every streamed weight's",
                                       values="integer >= 0 (unset: auto -- after the arena when every weight is in "
                                       "another memory space, else the lowest space >= 1 holding no weight, said in a remark)")

    def validate(self) -> None:
        _ = self.target_checked  # apply reuses it: the options are checked once per pass

    @cached_property
    def target_checked(self) -> Target:
        """The target, once the options are checked (once per pass: validation and apply share it)."""
        return self.check_options()

    def check_options(self) -> Target:
        if self.mode not in MODES:
            raise MemoptError(f"insert-dma: unknown mode '{self.mode}' (expected one of: {', '.join(MODES)})")
        if self.alignment < 1 or self.alignment & (self.alignment - 1):
            raise MemoptError(f"insert-dma: alignment must be a power of two >= 1, got {self.alignment}")
        if self.staging_space is not None and self.staging_space < 0:
            raise MemoptError(f"insert-dma: staging-space must be an integer >= 0, got {self.staging_space}")
        if self.buffers is not None and self.buffers < 2:
            raise MemoptError(f"insert-dma: buffers must be >= 2 (two staging buffers at least), got {self.buffers}")
        if _parse_ring(self.ring) is not None and self.buffers is not None:
            raise MemoptError("insert-dma: ring and buffers exclude each other (the ring is the one staging buffer)")
        if self.ring_loss is not None:
            if _parse_ring(self.ring) != "auto":
                raise MemoptError("insert-dma: ring-loss applies to ring=auto only")
            if not 0 <= self.ring_loss <= 1:
                raise MemoptError(f"insert-dma: ring-loss must be in [0, 1] (an eta difference), got {self.ring_loss:g}")
        return self.build_target("insert-dma")

    @property
    def tolerance(self) -> float:
        """``ring=auto``'s accepted eta loss against unlimited look-ahead."""
        return TOLERANCE if self.ring_loss is None else float(self.ring_loss)

    @property
    def n_buffers(self) -> int:
        return 2 if self.buffers is None else self.buffers

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        target = self.target_checked
        record_capacity(op, target.capacity)  # plan-memory, run afterwards, must respect it too
        ring = _parse_ring(self.ring)
        upstream = is_upstream_module(op)
        arenas: list[int] = []
        if upstream:
            work = upstream_dma.collect(op, self.alignment)
            arena = upstream_dma.arena_bytes(op)
        else:
            self._remark_staging_space(op)
            work = dma_memopt.collect(op, self.alignment)
            arenas = [a for _, a in planned_arenas(op)]
            arena = max(arenas, default=0)
        if ring is not None:
            choice = RingChoice(ring, self.mode, self.alignment, self.tolerance)
            others = [b.size.value.data for b in dma_buffers(op) if b.sym_name.data != RING]  # none upstream
            size, loads = ring_schedule(choice, target, work, arena, others, op)
            names, sizes = [RING], [size]
        else:
            names, sizes = buffer_names(self.n_buffers), self._round_robin(target, work, arena, upstream, op)
            loads = [round_robin_loads(w.mask, self.n_buffers) for w in work]
        if not any(any(w.mask) for w in work):
            return
        if upstream:
            upstream_dma.write_schedule(op, work, loads, names, sizes, self.alignment, self.staging_space)
            return
        dma_memopt.write_schedule(op, names, sizes, loads, work)
        place_dma_buffers(op, self.alignment, target.capacity, arenas)

    def _remark_staging_space(self, module: builtin.ModuleOp) -> None:
        """``staging-space`` places upstream IR's staging buffers in a memory space; the memopt
        dialect's are ``memopt.dma_buffer`` ops placed on chip after the arena
        (:mod:`memopt.passes.dma_layout`), so there it has no effect (said at the first
        function with a body)."""
        if self.staging_space is None:
            return
        funcs = [f for f in module.body.block.ops if isinstance(f, func.FuncOp) and f.body.blocks]
        remark_no_effect("insert-dma", funcs[0] if funcs else module, f"staging-space={self.staging_space}",
                         "memopt-dialect", "its staging buffers are memopt.dma_buffer ops placed on chip after "
                         "the arena")

    def _round_robin(self, target: Target, work: list[Work], arena: int, upstream: bool,
                     module: builtin.ModuleOp) -> list[int]:
        """Decide every Region's mask for ``buffers=N``: the latency model's choice, the largest
        loads left unpipelined (``mode=auto``) until arena and buffers fit ``capacity``; the
        buffers' sizes."""
        n = self.n_buffers
        while True:
            for w in work:
                w.mask = choose_pipelined(w.profiles, target, self.mode, w.allowed, n)
            sizes, largest = buffer_sizes(work, n)
            total = self._onchip(arena, sizes, work, upstream)
            if target.capacity is None or total <= target.capacity or largest is None:
                break
            w, i = largest
            if self.mode == "always":
                raise MemoptError(
                    f"insert-dma: arena ({arena} bytes) and DMA buffers ({' + '.join(str(max(s, 0)) for s in sizes)} bytes)"
                    f"{' with their transfer tags' if upstream and self.staging_space is None else ''} "
                    f"need {total} bytes, over capacity {target.capacity} (try mode=auto)", w.ops[i],
                )
            w.allowed[i] = False
        if target.capacity is not None and arena > target.capacity:
            raise MemoptError(f"insert-dma: arena alone ({arena} bytes) is over capacity {target.capacity}", module)
        for w in work:
            remark_skipped(w, target, self.mode, lambda ops, mask: pingpong_items(ops, mask, n))
        return sizes

    def _onchip(self, arena: int, sizes: list[int], work: list[Work], upstream: bool) -> int:
        """On-chip bytes the schedule needs: the arena and the staging buffers after it — on
        upstream IR also the ``i32`` tag buffer (one tag per transfer of a function), and
        nothing but the arena when ``staging-space`` puts the staging buffers elsewhere."""
        if not upstream:
            return staging_need(arena, sizes, self.alignment)
        if self.staging_space is not None:
            return arena
        return staging_need(arena, sizes, self.alignment, transfer_tags(work))


__all__ = [
    "BUFFERS", "InsertDmaPass", "RING", "buffer_names", "SKIPPED_ATTR", "stage_layout", "target_from_options",
]
