"""``insert-dma``: ping-pong DMA of off-chip weights into two on-chip buffers (seed 002, Alg. 3).

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
Regions and functions. ``get_global``/``view`` ops left without uses stay where they are:
the arena plan's step numbering counts them (DMA ops take no step), so erasing them would shift
steps under a plan made before this pass; ``dce`` before ``plan-memory`` drops them.

Options:
  mode        ``always`` (every weight load) or ``auto``: per Region, keep the cheapest of
              "all", "none" and a local search that drops loads the latency model
              (:mod:`memopt.planning.latency`) says lose; skipped ops get a ``memopt.dma_skipped``
              attribute and a remark on stderr
  buffers     number of staging buffers (default 2: the seed's ping-pong, exactly as above).
              With ``N > 2`` they are ``@alloc0 .. @alloc{N-1}``, op ``k`` uses ``@alloc{k % N}``,
              ops ``0 .. N-1`` load at the Region's beginning and op ``k+N``'s ``dma_start``s go
              right after op ``k`` (the last user of that buffer: it is free as soon as op ``k``
              has run), so loads run up to ``N`` ops ahead of the core. Costs ``N`` buffers'
              on-chip bytes (each as large as the largest weight set of its ops); ``auto``
              judges with the same schedule (:func:`memopt.planning.latency.pingpong_items`)
  alignment   byte alignment of weights inside a buffer and of the buffers on-chip (default 16)
  target      path of a target description file (``key = value`` lines)
  macs-per-cycle, dma-bytes-per-cycle, dma-latency, dma-issue, capacity
              override the target's fields; with ``capacity`` (on-chip bytes), arena + DMA
              buffers must fit: ``always`` fails, ``auto`` leaves the largest loads unpipelined

Regions that already contain DMA ops are left alone, so the pass is idempotent. When the module
is already planned (``plan-memory`` ran first) the buffers are placed on-chip right after the
arena (:mod:`memopt.passes.dma_layout`); otherwise ``plan-memory`` places them later.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import TensorType, UnitAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import SymbolTable

from memopt.diagnostics import MemoptError, copy_location
from memopt.dialects.memopt import (
    ComputeOp, DmaBufferOp, DmaStartOp, DmaWaitOp, GetGlobalOp, GlobalOp, ViewOp,
)
from memopt.passes.dma_layout import onchip_total, place_dma_buffers, planned_arenas
from memopt.passes.dma_profile import offchip_profile, weight_uses
from memopt.passes.dma_regions import Region, cut_function, regions
from memopt.passes.lifetime import planned_functions
from memopt.planning import align_up
from memopt.planning.latency import MODES, LatencyError, OpProfile, Target, choose_pipelined, load_target, simulate, pingpong_items

BUFFERS = ("alloc0", "alloc1")
"""The seed's two staging buffers (``buffers=2``); with ``buffers=N`` they are ``@alloc0 .. @alloc{N-1}``."""


def buffer_names(n: int) -> list[str]:
    return [f"alloc{k}" for k in range(n)]
SKIPPED_ATTR = "memopt.dma_skipped"


def target_from_options(p, pass_name: str) -> Target:
    """The target a pass's options describe (shared by ``insert-dma`` and ``report-latency``)."""
    try:
        return load_target(p.target, {
            "macs_per_cycle": p.macs_per_cycle, "dma_bytes_per_cycle": p.dma_bytes_per_cycle,
            "dma_latency": p.dma_latency, "dma_issue": p.dma_issue, "capacity": p.capacity,
        })
    except LatencyError as e:
        raise MemoptError(f"{pass_name}: {e}") from None


def stage_layout(sizes: list[int], alignment: int) -> tuple[list[int], int]:
    """Offsets of an op's weights packed into one buffer, and the bytes they span."""
    offsets, end = [], 0
    for s in sizes:
        off = align_up(end, alignment)
        offsets.append(off)
        end = off + s
    return offsets, end


@dataclass
class _Work:
    """One Region with off-chip weights: its compute ops, their profiles, the decision."""

    region: Region
    ops: list[ComputeOp]
    profiles: list[OpProfile]
    allowed: list[bool]
    mask: tuple[bool, ...] = ()


def _buffer_sizes(
    work: list[_Work], alignment: int, n: int = 2
) -> tuple[list[int], tuple[_Work, int] | None]:
    """Bytes per buffer (-1: buffer unused), and the pipelined op with the largest weight set."""
    sizes = [-1] * n
    largest: tuple[_Work, int] | None = None
    largest_size = -1
    for w in work:
        k = 0
        for i, on in enumerate(w.mask):
            if not on:
                continue
            _, span = stage_layout(list(w.profiles[i].weights), alignment)
            sizes[k % n] = max(sizes[k % n], span)
            if span > largest_size:
                largest, largest_size = (w, i), span
            k += 1
    return sizes, largest


@dataclass(frozen=True)
class InsertDmaPass(ModulePass):
    """Ping-pong DMA of off-chip weights into on-chip buffers @alloc0/@alloc1 (seed 002, Algorithm 3)."""

    name = "insert-dma"

    mode: str = "always"
    buffers: int = 2
    alignment: int = 16
    target: str | None = None
    macs_per_cycle: int | None = None
    dma_bytes_per_cycle: int | None = None
    dma_latency: int | None = None
    dma_issue: int | None = None
    capacity: int | None = None

    def check_options(self) -> Target:
        if self.mode not in MODES:
            raise MemoptError(f"insert-dma: unknown mode '{self.mode}' (expected one of: {', '.join(MODES)})")
        if self.alignment < 1 or self.alignment & (self.alignment - 1):
            raise MemoptError(f"insert-dma: alignment must be a power of two >= 1, got {self.alignment}")
        if self.buffers < 2:
            raise MemoptError(f"insert-dma: buffers must be >= 2 (two staging buffers at least), got {self.buffers}")
        return target_from_options(self, "insert-dma")

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        target = self.check_options()
        work = self._collect(op)
        arena = max((a for _, a in planned_arenas(op)), default=0)
        while True:
            for w in work:
                w.mask = choose_pipelined(w.profiles, target, self.mode, w.allowed, self.buffers)
            sizes, largest = _buffer_sizes(work, self.alignment, self.buffers)
            total = onchip_total(arena, sizes, self.alignment)
            if target.capacity is None or total <= target.capacity or largest is None:
                break
            w, i = largest
            if self.mode == "always":
                raise MemoptError(
                    f"insert-dma: arena ({arena} bytes) and DMA buffers ({' + '.join(str(max(s, 0)) for s in sizes)} bytes) "
                    f"need {total} bytes, over capacity {target.capacity} (try mode=auto)", w.ops[i],
                )
            w.allowed[i] = False
        if target.capacity is not None and arena > target.capacity:
            raise MemoptError(f"insert-dma: arena alone ({arena} bytes) is over capacity {target.capacity}", op)
        for w in work:
            self._remark(w, target)
        if not any(any(w.mask) for w in work):
            return
        bufs = self._buffers(op, sizes)
        for w in work:
            _rewrite(w, bufs, self.alignment, self.buffers)
        place_dma_buffers(op, self.alignment)

    def _collect(self, module: builtin.ModuleOp) -> list[_Work]:
        work: list[_Work] = []
        for f in planned_functions(module):
            for r in regions(cut_function(f, f"@{f.sym_name.data}")):
                if any(isinstance(o, (DmaStartOp, DmaWaitOp)) for o in r.ops):
                    continue
                ops = [o for o in r.ops if isinstance(o, ComputeOp)]
                profiles = [offchip_profile(o) for o in ops]
                if any(p.weights for p in profiles):
                    work.append(_Work(r, ops, profiles, [True] * len(ops)))
        return work

    def _remark(self, w: _Work, target: Target) -> None:
        skipped = [o for o, p, on in zip(w.ops, w.profiles, w.mask) if p.weights and not on]
        for o in skipped:
            o.attributes[SKIPPED_ATTR] = UnitAttr()
        if not skipped or self.mode != "auto":
            return
        n = sum(1 for p in w.profiles if p.weights)
        everything = simulate(pingpong_items(w.profiles, [True] * len(w.ops), self.buffers), target)
        chosen = simulate(pingpong_items(w.profiles, w.mask, self.buffers), target)
        sys.stderr.write(
            f"insert-dma: remark: {w.region.name}: left {len(skipped)} of {n} weight loads unpipelined "
            f"(model: {chosen} cycles, {everything} if all pipelined)\n"
        )

    def _buffers(self, module: builtin.ModuleOp, sizes: list[int]) -> list[str]:
        anchor = next(
            (o for o in module.body.block.ops if not isinstance(o, (GlobalOp, DmaBufferOp))), None
        )
        names = buffer_names(len(sizes))
        for name, size in zip(names, sizes):
            existing = SymbolTable.lookup_symbol(module, name)
            if existing is not None and not isinstance(existing, DmaBufferOp):
                raise MemoptError(f"insert-dma: symbol @{name} is already taken by a '{existing.name}'", existing)
            if isinstance(existing, DmaBufferOp):
                if existing.size.value.data < size:  # grown: re-placed below
                    existing.properties["size"] = builtin.IntegerAttr(size, builtin.i64)
                continue
            if size < 0:
                continue
            buf = DmaBufferOp(name, size)
            if anchor is None:
                module.body.block.add_op(buf)
            else:
                module.body.block.insert_op_before(buf, anchor)
        return names


def _named(value: SSAValue, hint: str) -> None:
    if SSAValue.is_valid_name(hint):
        value.name_hint = hint


def _rewrite(w: _Work, bufs: list[str], alignment: int, n: int = 2) -> None:
    """Emit the Region's DMA schedule (see module docstring)."""
    order = [i for i, on in enumerate(w.mask) if on]
    if not order:
        return
    anchor = w.region.ops[0]
    tokens: dict[int, dict[str, SSAValue]] = {}
    types: dict[str, TensorType] = {}

    def layout(i: int) -> list[tuple[str, int]]:
        uses = [u for u in weight_uses(w.ops[i]) if not u.on_chip]
        syms: list[str] = []
        for u in uses:
            if u.symbol not in types:
                g = u.chain[-1]
                assert isinstance(g, GetGlobalOp)
                types[u.symbol] = g.result.type  # type: ignore[assignment]
            if u.symbol not in syms:
                syms.append(u.symbol)
        offsets, _ = stage_layout(list(w.profiles[i].weights), alignment)
        return list(zip(syms, offsets))

    def starts(k: int, before: Operation | None = None, after: Operation | None = None) -> None:
        i = order[k]
        tokens[i] = {}
        for sym, off in layout(i):
            s = DmaStartOp(sym, bufs[k % n], off)
            if before is not None:
                before.parent_block().insert_op_before(s, before)
            else:
                assert after is not None
                after.parent_block().insert_op_after(s, after)
                after = s
            copy_location(w.ops[i], s)
            _named(s.token, f"{sym}_t")
            tokens[i][sym] = s.token

    ahead = 1 if n == 2 else n  # loads issued before the Region's first op
    for k in range(min(ahead, len(order))):
        starts(k, anchor)
    for k, i in enumerate(order):
        op = w.ops[i]
        block = op.parent_block()
        arrived: dict[str, SSAValue] = {}
        for sym, _ in layout(i):
            wt = DmaWaitOp(tokens[i][sym], types[sym])
            block.insert_op_before(wt, op)
            copy_location(op, wt)
            _named(wt.result, sym)
            arrived[sym] = wt.result
        for u in weight_uses(op):
            if u.on_chip:
                continue
            operand = op.operands[u.operand]
            src = arrived[u.symbol]
            if u.offset != 0 or operand.type != src.type:
                v = ViewOp(src, operand.type, u.offset)  # type: ignore[arg-type]
                block.insert_op_before(v, op)
                copy_location(op, v)
                src = v.result
            op.operands[u.operand] = src
        if n == 2 and k + 1 < len(order):
            starts(k + 1, before=op)  # the seed's place: after op k's waits, before op k
        elif n > 2 and k + n < len(order):
            starts(k + n, after=op)  # op k+n's buffer is free as soon as op k has run


__all__ = ["BUFFERS", "InsertDmaPass", "buffer_names", "SKIPPED_ATTR", "stage_layout", "target_from_options"]
