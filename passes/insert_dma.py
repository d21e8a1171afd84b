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
from memopt.passes.dma_layout import dma_buffers, onchip_total, place_dma_buffers, planned_arenas, record_capacity
from memopt.passes.dma_profile import offchip_profile, weight_uses
from memopt.passes.dma_regions import Region, cut_function, regions
from memopt.passes.options import option
from memopt.passes.dma_target import TargetOptions, target_from_options
from memopt.passes.lifetime import planned_functions
from memopt.dialects.upstream_attrs import is_upstream_module
from memopt.passes.upstream_dma import arena_bytes, is_kernel, kernel_profile, upstream_regions, write_schedule
from memopt.planning import align_up
from memopt.planning.latency import MODES, OpProfile, Target, choose_pipelined, pingpong_items, simulate
from memopt.planning.ring import (
    TOLERANCE, RingError, RingRegion, auto_ring_size, decide, ring_extent, ring_items, ring_slots,
    stage_layout, unlimited_ring, weight_span,
)

BUFFERS = ("alloc0", "alloc1")
"""The LUNA paper's two staging buffers (``buffers=2``); with ``buffers=N`` they are ``@alloc0 .. @alloc{N-1}``."""
RING = "ring"
"""The one staging buffer of ``ring=BYTES|auto``."""


def buffer_names(n: int) -> list[str]:
    return [f"alloc{k}" for k in range(n)]


SKIPPED_ATTR = "memopt.dma_skipped"


@dataclass
class _Work:
    """One Region with off-chip weights: its compute ops, their profiles, the decision."""

    region: Region
    ops: list[ComputeOp]
    profiles: list[OpProfile]
    allowed: list[bool]
    mask: tuple[bool, ...] = ()
    func: Operation | None = None
    """The function of the Region (upstream IR: staging buffers are per function)."""


@dataclass(frozen=True)
class _Load:
    """Where one pipelined op's loads go and where their ``dma_start``s are issued."""

    op: int
    """Index of the op in its Region's compute ops."""
    buffer: str
    base: int
    """Offset of the op's weight set inside the buffer."""
    where: str
    """``start`` (the Region's beginning), ``before`` op ``at`` (after its waits: the LUNA paper's
    place) or ``after`` op ``at`` (as soon as op ``at``, the last reader of the bytes, has run)."""
    at: int = -1


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


def _round_robin_loads(mask: tuple[bool, ...], n: int) -> list[_Load]:
    """The ``buffers=N`` schedule (module docstring): buffer ``k % N``; ``N = 2`` issues op
    ``k+1``'s loads before op ``k`` (the LUNA paper's schedule), ``N > 2`` issues op ``k+N``'s after op ``k``."""
    order = [i for i, on in enumerate(mask) if on]
    bufs = buffer_names(n)
    out = []
    for k, i in enumerate(order):
        if n == 2:
            out.append(_Load(i, bufs[k % 2], 0, "start") if k == 0 else _Load(i, bufs[k % 2], 0, "before", order[k - 1]))
        else:
            out.append(_Load(i, bufs[k % n], 0, "start") if k < n else _Load(i, bufs[k % n], 0, "after", order[k - n]))
    return out


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
        self.check_options()

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
        target = self.check_options()
        record_capacity(op, target.capacity)  # plan-memory, run afterwards, must respect it too
        ring = _parse_ring(self.ring)
        upstream = is_upstream_module(op)
        arenas: list[int] = []
        if upstream:
            work = _collect_upstream(op)
            arena = arena_bytes(op)
        else:
            work = self._collect(op)
            arenas = [a for _, a in planned_arenas(op)]
            arena = max(arenas, default=0)
        if ring is not None:
            self._apply_ring(op, target, work, arena, arenas, ring)
            return
        n = self.n_buffers
        while True:
            for w in work:
                w.mask = choose_pipelined(w.profiles, target, self.mode, w.allowed, n)
            sizes, largest = _buffer_sizes(work, self.alignment, n)
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
            raise MemoptError(f"insert-dma: arena alone ({arena} bytes) is over capacity {target.capacity}", op)
        for w in work:
            self._remark(w, target, lambda ops, mask: pingpong_items(ops, mask, n))
        if not any(any(w.mask) for w in work):
            return
        self._emit(op, buffer_names(n), sizes, [_round_robin_loads(w.mask, n) for w in work], work, target, arenas)

    def _onchip(self, arena: int, sizes: list[int], work: list[_Work], upstream: bool) -> int:
        """On-chip bytes the schedule needs: the arena and the staging buffers after it — on
        upstream IR also the ``i32`` tag buffer (one tag per transfer of a function), and
        nothing but the arena when ``staging-space`` puts the staging buffers elsewhere."""
        if not upstream:
            return onchip_total(arena, sizes, self.alignment)
        if self.staging_space is not None:
            return arena
        per_func: dict[int, int] = {}
        for w in work:
            n = sum(len(p.weights) for p, on in zip(w.profiles, w.mask) if on)
            per_func[id(w.func)] = per_func.get(id(w.func), 0) + n
        tags = max(per_func.values(), default=0)
        return onchip_total(arena, sizes + ([4 * tags] if tags else []), self.alignment)

    def _emit(self, module: builtin.ModuleOp, names: list[str], sizes: list[int], loads: list[list[_Load]],
              work: list[_Work], target: Target, arenas: list[int]) -> None:
        """Write the chosen schedule in the module's own IR flavour."""
        if is_upstream_module(module):
            plan = [(w.func, w.region, w.ops, ls) for w, ls in zip(work, loads)]
            write_schedule(module, plan, names, sizes, self.alignment, self.staging_space)
            return
        self._buffers(module, names, sizes)
        for w, ls in zip(work, loads):
            _rewrite(w, ls, self.alignment)
        place_dma_buffers(module, self.alignment, target.capacity, arenas)

    def _apply_ring(
        self, module: builtin.ModuleOp, target: Target, work: list[_Work], arena: int, arenas: list[int],
        ring: int | str,
    ) -> None:
        """``ring=BYTES|auto``: one staging buffer ``@ring`` (see module docstring)."""
        a = self.alignment
        others = [b.size.value.data for b in dma_buffers(module) if b.sym_name.data != RING]  # none upstream
        base = onchip_total(arena, others, a)  # on-chip bytes before the ring
        cap = None if target.capacity is None else target.capacity - align_up(base, a)
        if target.capacity is not None and base > target.capacity:
            what = f"arena ({arena} bytes) and other DMA buffers need {base} bytes," if others else (
                f"arena alone ({arena} bytes) is")
            raise MemoptError(f"insert-dma: {what} over capacity {target.capacity}", module)
        limit = ring if isinstance(ring, int) else cap
        if isinstance(ring, int) and cap is not None and ring > cap:
            raise MemoptError(
                f"insert-dma: arena ({arena} bytes) and ring ({ring} bytes) need "
                f"{onchip_total(base, [ring], a)} bytes, over capacity {target.capacity} (try ring=auto)", module,
            )
        for w in work:
            for i, p in enumerate(w.profiles):
                span = weight_span(p, a)
                if not p.weights or limit is None or span <= limit:
                    continue
                if self.mode == "always":
                    where = f"the ring ({ring} bytes)" if isinstance(ring, int) else (
                        f"the {limit} on-chip bytes left after the arena (capacity {target.capacity})")
                    raise MemoptError(
                        f"insert-dma: the weight set of this op ({span} bytes) does not fit in {where} (try mode=auto)",
                        w.ops[i],
                    )
                w.allowed[i] = False
        regions_ = [RingRegion(w.profiles, w.allowed, w.region.runs) for w in work]
        if isinstance(ring, int):
            size = ring
        else:
            try:
                size = auto_ring_size(regions_, target, self.mode, a, cap, self.tolerance)
            except RingError as e:  # weight sets over cap were reported or disallowed above
                raise MemoptError(f"insert-dma: {e}", module) from None
        loads: list[list[_Load]] = []
        used = 0
        for w, r in zip(work, regions_):
            w.mask, _ = decide(r, size, target, self.mode, a) if size else (tuple(False for _ in w.ops), 0)
            slots = ring_slots(w.profiles, w.mask, size, a)
            used = max(used, ring_extent(slots))
            loads.append([_Load(s.op, RING, s.offset, "start" if s.after < 0 else "after", s.after) for s in slots])
        for w in work:
            self._remark(w, target, lambda ops, mask: ring_items(ops, mask, size, a))
        if ring == "auto" and used:
            full = max(unlimited_ring(w.profiles, w.allowed, a) for w in work)
            sys.stderr.write(
                f"insert-dma: remark: ring=auto: {used} bytes (no wrap-around: {full}; goal: eta within {self.tolerance:g} "
                f"of no wrap-around's{'' if cap is None else f', at most {cap} on-chip bytes'})\n"
            )
        if not any(any(w.mask) for w in work):
            return
        # ring=auto keeps only the bytes its schedule uses (the same schedule: see ring_extent);
        # an explicit size is honoured as given.
        self._emit(module, [RING], [size if isinstance(ring, int) else used], loads, work, target, arenas)

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

    def _remark(self, w: _Work, target: Target, schedule) -> None:
        skipped = [o for o, p, on in zip(w.ops, w.profiles, w.mask) if p.weights and not on]
        for o in skipped:
            o.attributes[SKIPPED_ATTR] = UnitAttr()
        if not skipped or self.mode != "auto":
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

    def _buffers(self, module: builtin.ModuleOp, names: list[str], sizes: list[int]) -> None:
        anchor = next(
            (o for o in module.body.block.ops if not isinstance(o, (GlobalOp, DmaBufferOp))), None
        )
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


def _collect_upstream(module: builtin.ModuleOp) -> list[_Work]:
    """The Regions of an upstream module with kernels reading ``memref.global`` weights."""
    work: list[_Work] = []
    for f, r in upstream_regions(module):
        ops = [o for o in r.ops if is_kernel(o)]
        profiles = [kernel_profile(o) for o in ops]
        if any(p.weights for p in profiles):
            work.append(_Work(r, ops, profiles, [True] * len(ops), func=f))
    return work


def _named(value: SSAValue, hint: str) -> None:
    if SSAValue.is_valid_name(hint):
        value.name_hint = hint


def _rewrite(w: _Work, loads: list[_Load], alignment: int) -> None:
    """Emit the Region's DMA schedule: every pipelined op's ``dma_start``s where its
    :class:`_Load` says, its ``dma_wait``s (and re-applied views) right before it."""
    if not loads:
        return
    anchor = w.region.ops[0]
    tokens: dict[int, dict[str, SSAValue]] = {}
    types: dict[str, TensorType] = {}
    load_of = {ld.op: ld for ld in loads}
    issued_before: dict[int, list[_Load]] = {}
    issued_after: dict[int, list[_Load]] = {}
    for ld in loads:
        if ld.where == "before":
            issued_before.setdefault(ld.at, []).append(ld)
        elif ld.where == "after":
            issued_after.setdefault(ld.at, []).append(ld)

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

    def starts(ld: _Load, before: Operation | None = None, after: Operation | None = None) -> Operation | None:
        """Insert op ``ld.op``'s starts before ``before`` or after ``after``; return the last one."""
        i = ld.op
        tokens[i] = {}
        for sym, off in layout(i):
            s = DmaStartOp(sym, ld.buffer, ld.base + off)
            if before is not None:
                before.parent_block().insert_op_before(s, before)
            else:
                assert after is not None
                after.parent_block().insert_op_after(s, after)
                after = s
            copy_location(w.ops[i], s)
            _named(s.token, f"{sym}_t")
            tokens[i][sym] = s.token
        return after

    for ld in loads:
        if ld.where == "start":
            starts(ld, before=anchor)
    for i, op in enumerate(w.ops):
        block = op.parent_block()
        if i in load_of:
            arrived: dict[str, SSAValue] = {}
            for sym, _ in layout(i):
                wt = DmaWaitOp(tokens[i][sym], types[sym])
                block.insert_op_before(wt, op)
                copy_location(op, wt)
                _named(wt.result, sym)
                arrived[sym] = wt.result
            dead: list[Operation] = []
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
                dead += list(u.chain)
            for d in dead:  # the off-chip reads nothing uses any more (views first, then get_globals)
                if d.parent is not None and all(not r.uses for r in d.results):
                    d.detach()
                    d.erase()
        for ld in issued_before.get(i, []):
            starts(ld, before=op)  # the LUNA paper's place: after op i's waits, before op i
        last: Operation = op
        for ld in issued_after.get(i, []):
            last = starts(ld, after=last) or last  # the bytes are free once op i has run


__all__ = [
    "BUFFERS", "InsertDmaPass", "RING", "buffer_names", "SKIPPED_ATTR", "stage_layout", "target_from_options",
]
