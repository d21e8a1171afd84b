"""The tiling options of a function — every run ``tile`` could cut, in every grid, with the
memory and recomputation it would cost — for :mod:`memopt.planning.tile_choice` to choose from.

A run consumes at most one activation alive before it (its input, held whole: MCUNetV2's setting);
every other activation alive across it (a skip connection to a far decoder or head, another
branch's output — made before it or by another branch's op among its ops, which stays before the
tiled run) crosses it whole and counts in its memory. In
between its ops are those :mod:`memopt.passes.tile` accepts. A run is the members ``tile`` would take, found by walking back
from its last op, so every prefix of one walk is a run with the same patch intervals.

An op whose steps are the next op's (a ``get_global`` or a view takes none of its own) costs nothing
of its own: the next op's bound, untiled or tiled, covers its steps. The estimates are upper
bounds of the tiled lower bound: at the run's steps the program holds
what is live across the run untiled (its inputs whole, everything crossing it; in-place sharing
not counted), the run's output whole, and the largest patch's working set — each member's
patch-sized result from its op to its last reader, the copies ``extract_slice`` makes where a
patch is not one contiguous block, less the bytes an element-wise op shares in place with its
only operand. The extra MACs are each member's cost scaled by the cells its patches compute.

With streaming, each run is priced twice more: reading its inputs stripe by stripe from off chip
(:mod:`memopt.passes.tile_stream`; they leave its memory, their stripes join the patch's), and
also with every value that crosses it unread waiting off chip (``homed``: then a run may also be
element-wise ops alone or read several inputs); ``live_homed`` is each op's memory on the same
terms. The choice takes those last, when nothing held on chip fits.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import ComputeOp
from memopt.executor import window as win
from memopt.executor.kernels import normalize_kind
from memopt.passes.lifetime import analyze_function
from memopt.passes.tile_channels import channel_split_of
from memopt.passes.tile_stream import homeable
from memopt.passes.tile_rewrite import Spec as _Spec, activations, hw_axes as _hw, spec_of as _spec, stream_inputs, value_hw
from memopt.planning.bounds import inplace_live_profile
from memopt.planning.latency import Target
from memopt.planning.tile_choice import Option
from memopt.planning.tiling import Window, hull, receptive, split

PARTS = (1, 2, 3, 4, 6, 8)
"""Patches along one axis the options try (grids are every pair but 1x1)."""
CHANNEL_PARTS = (2, 4, 8, 16)
"""Groups of output channels a split convolution tries."""
MAX_OPS = 160
"""Longest run, in ops of the block (bounds the search on long programs)."""


@dataclass
class Program:
    """A function's ops, their untiled memory, and its tiling options."""

    ops: list[Operation]
    live: list[int]
    options: list[Option] = field(default_factory=list)
    live_homed: list[int] | None = None
    """With streaming: each op's live bytes when every value alive across it but not read by it
    lives off chip (:func:`memopt.passes.tile_stream.home_crossing`)."""
    total_macs: int = 0
    layout: str = "NCHW"


def _shape(v: SSAValue) -> list[int]:
    t = v.type
    return list(t.get_shape()) if isinstance(t, TensorType) else []


def _layout(f: func.FuncOp) -> str | None:
    layouts = {win.text(dict(op.attributes), "layout", "NCHW") for op in f.body.blocks[0].ops
               if isinstance(op, ComputeOp) and normalize_kind(op.kind.data) in win.CONV_KINDS | set(win.POOL_KINDS)}
    return layouts.pop() if len(layouts) == 1 else None


def _windowed(op: Operation) -> bool:
    return isinstance(op, ComputeOp) and normalize_kind(op.kind.data) in win.CONV_KINDS | set(win.POOL_KINDS)


def program_options(f: func.FuncOp, stream: bool = False, target: Target | None = None) -> Program:
    """The ops of ``f``'s body, each one's untiled live bytes, and every tiling option (with
    ``stream``, also each run reading its streamable inputs from off chip, its transfers priced
    by ``target``'s latency model, the default target when None)."""
    lf = analyze_function(f, mode="joint")
    times, curve = inplace_live_profile(lf.problem)
    ops = list(f.body.blocks[0].ops)

    def live_at(lo: int, hi: int) -> int:
        if not len(times):
            return 0
        i = max(0, int(np.searchsorted(times, lo, side="right")) - 1)
        j = max(0, int(np.searchsorted(times, hi, side="right")) - 1)
        return int(curve[i: j + 1].max())

    num = lf.numbering
    live = [live_at(num.begin[op], num.end[op]) for op in ops]
    for i in range(len(ops) - 1):
        if num.begin[ops[i + 1]] <= num.begin[ops[i]] and num.end[ops[i]] <= num.end[ops[i + 1]]:
            live[i] = 0  # its steps are the next op's (a get_global, a view): that op's bound covers them
    prog = Program(ops, live, total_macs=sum(op.cost.value.data for op in f.body.walk()
                                             if isinstance(op, ComputeOp) and op.cost is not None))
    layout = _layout(f)
    if layout is None:
        return prog
    prog.layout = layout
    search = _Search(f, lf, ops, layout, prog, stream, target)
    if stream:
        prog.live_homed = search.homes.live_homed(live)
    search.run()
    return prog


class _Search:
    """Enumerates the runs of one function and prices them."""

    def __init__(self, f, lf, ops, layout, prog: Program, stream: bool = False, target: Target | None = None):
        self.lf, self.ops, self.layout, self.prog, self.stream = lf, ops, layout, prog, stream
        self.target = target or Target()
        self.block = f.body.blocks[0]
        self.arg_bytes = sum(_bytes(v) for v in self.block.args if isinstance(v.type, TensorType))
        self.h, self.w = _hw(layout)
        self.index = {op: i for i, op in enumerate(ops)}
        self.specs: dict[Operation, _Spec | None] = {}
        self.active = active = activations(f.body.blocks[0])
        last_use: dict[SSAValue, int] = {}
        for i, op in enumerate(ops):
            for v in op.operands:
                last_use[v] = i
            for r in op.regions:
                for inner in r.walk():
                    for v in inner.operands:
                        last_use[v] = i
        # alive[i]: the activations alive after op i (block arguments aside); before[i]: those
        # alive before op i's position as a run's start (after the previous activation op)
        alive: set[SSAValue] = set()
        self.alive: list[frozenset[SSAValue]] = []
        self.before: list[frozenset[SSAValue] | None] = []
        prev: frozenset[SSAValue] = frozenset()
        for i, op in enumerate(ops):
            is_active = any(r in active for r in op.results)
            self.before.append(prev if is_active else None)
            alive.update(r for r in op.results if r in active and last_use.get(r, -1) > i)
            alive = {v for v in alive if last_use.get(v, -1) > i}
            self.alive.append(frozenset(alive))
            if is_active:
                prev = self.alive[-1]
        bufs = lf.problem.buffers
        self.b_start = np.array([b.start for b in bufs], np.int64)
        self.b_end = np.array([b.end for b in bufs], np.int64)
        self.b_size = np.array([b.size for b in bufs], np.int64)
        self.homes = _Homes(self)

    def spec(self, op: Operation) -> _Spec | None:
        if op not in self.specs:
            try:
                self.specs[op] = _spec(op, self.layout)
            except MemoptError:
                self.specs[op] = None
        return self.specs[op]

    def run(self) -> None:
        self.channel_options()
        for b, op in enumerate(self.ops):
            if len(op.results) == 1 and op.results[0] in self.active and self.spec(op) is not None:
                self.walk(b)

    def start_ok(self, a: int, b: int) -> bool:
        """Whether a run over ops ``a..b`` is one :func:`program_options` prices: it starts where
        an activation is made and consumes at most one activation alive before it (its input; the
        rest crosses it whole: skip connections, other branches, and what another branch's ops
        among its ops make, which the background counts from where it is made)."""
        before = self.before[a]
        if before is None:
            return False
        after = self.alive[b] - {self.ops[b].results[0]}
        return len(before - after) <= 1

    def walk(self, b: int) -> None:
        """Every run ending at op ``b``: walk back from it; each prefix of the walk where
        :meth:`start_ok` holds is a run (they share the patch intervals: one model prices them all)."""
        last = self.ops[b]
        wanted: set[SSAValue] = {last.results[0]}
        members: list[Operation] = []
        inside: set[Operation] = set()
        starts: list[tuple[int, int, bool]] = []  # (op position, members in the prefix, a run held whole too)
        windowed = False
        for i in range(b, max(-1, b - MAX_OPS), -1):
            op = self.ops[i]
            if not any(r in wanted for r in op.results):
                continue
            spec = self.spec(op)
            if spec is None:
                break
            if op is not last and any(self._top(u.operation) not in inside for r in op.results for u in r.uses):
                break
            members.append(op)
            inside.add(op)
            wanted.update(op.operands[k] for k in spec.spatial if op.operands[k] in self.active)
            windowed = windowed or _windowed(op)
            if windowed and len(members) > 1 and self.start_ok(i, b):
                starts.append((i, len(members), True))
            elif self.stream and self.before[i] is not None:
                starts.append((i, len(members), False))  # only with homes: it may read several inputs
        if starts:
            model = _RunModel(self, list(reversed(members)))
            for a, count, whole in starts:
                self.price(a, b, model, len(members) - count, whole)

    def _top(self, op: Operation) -> Operation:
        home = self.ops[0].parent_block()
        while (parent := op.parent_op()) is not None and op.parent_block() is not home:
            op = parent
        return op

    def background(self, a: int, b: int, replaced: Sequence[Operation], off_chip: Sequence[SSAValue] = ()) -> int:
        """Bytes live at some step of ops ``a..b`` untiled, less the results of ``replaced`` and
        the values ``off_chip`` (streamed: not on chip across the run)."""
        num = self.lf.numbering
        sa, sb = num.begin[self.ops[a]], num.end[self.ops[b]]
        crossing = (self.b_start <= sb) & (self.b_end > sa)
        total = int(self.b_size[crossing].sum())
        for v in [op.results[0] for op in replaced] + list(off_chip):
            loc = self.lf.storage_of.get(v)
            if loc is not None and crossing[loc[0]]:
                total -= int(self.b_size[loc[0]])
        return total

    def channel_options(self) -> None:
        """A convolution split by output channels (:mod:`memopt.passes.tile_channels`) in each
        of :data:`CHANNEL_PARTS` groups: the untiled background, its output whole, and one
        group's dequantized filter, bias and output."""
        for b, op in enumerate(self.ops):
            s = channel_split_of(op, self.active)
            if s is None:
                continue
            a = min(self.index[d] for d in s.ops)
            background = self.background(a, b, s.ops) + _bytes(s.conv.results[0])
            whole = [_bytes(d.results[0]) for d in s.ops]
            channels = _shape(s.weight.results[0])[0]
            for parts in CHANNEL_PARTS:
                if parts <= channels:
                    self.prog.options.append(Option(a, b, (parts, 1), background + -(-sum(whole) // parts),
                                                    0, channels=True))

    def streamed(self, a: int, b: int, order: list[Operation]) -> list[SSAValue]:
        """The inputs of the run ``order`` (starting at op ``a``) it would stream from off chip:
        those :func:`memopt.passes.tile_rewrite.stream_inputs` names that no other op reads
        among its ops (readers after it read a whole reload: they are not on chip across it)."""
        if not self.stream:
            return []
        specs = {op: self.specs[op] for op in order}
        out = []
        for v in stream_inputs(order, specs, self.block, self.h, self.w, self.active):
            others = [self._top(u.operation) for u in v.uses if u.operation not in specs]
            if all(not a <= self.index.get(t, a) <= b for t in others):
                out.append(v)
        return out

    def price(self, a: int, b: int, model: "_RunModel", off: int, whole: bool = True) -> None:
        """Options for the run ``model.order[off:]`` over ops ``a..b``: held whole and streaming
        its inputs (when ``whole``), and with homes for what crosses it (with streaming)."""
        order = model.order[off:]
        out = order[-1].results[0]
        out_shape = _shape(out)
        background = self.background(a, b, order) + _bytes(out)
        streamed = self.streamed(a, b, order)
        crossing = self.homes.crossing(a, b) if self.stream else []
        homed = self.background(a, b, order, streamed + crossing) + _bytes(out) if self.stream else None
        waits = 2 * sum(self.transfer(_bytes(v)) for v in crossing)  # a home and a reload each
        background_streamed = self.background(a, b, order, streamed) + _bytes(out)
        # a streamed argument is whole on chip where its home is copied, beside the other arguments
        floor = self.arg_bytes if any(isinstance(v, BlockArgument) for v in streamed) else 0
        total_base = sum(op.cost.value.data for op in order if isinstance(op, ComputeOp) and op.cost is not None)
        for rows in PARTS:
            for cols in PARTS:
                if rows * cols == 1 or rows > out_shape[self.h] or cols > out_shape[self.w]:
                    continue
                peak, cost = model.price(rows, cols, off)
                extra = max(0, cost - total_base)
                if whole:
                    self.prog.options.append(Option(a, b, (rows, cols), background + peak, extra))
                moved = 0
                if streamed:
                    peak, _ = model.price(rows, cols, off, frozenset(streamed))
                    moved = self.stripes(model, rows, cols, streamed)
                    if whole:
                        self.prog.options.append(Option(a, b, (rows, cols), max(floor, background_streamed + peak),
                                                        extra, stream=True, transfer=moved))
                if homed is not None:
                    self.prog.options.append(Option(a, b, (rows, cols), max(floor, homed + peak), extra,
                                                    stream=True, homed=True, transfer=moved + waits))

    def transfer(self, nbytes: int) -> int:
        """One DMA transfer of ``nbytes``, in MACs: the cycles the latency model gives it (start-up,
        bytes, issue) at the target's MAC rate — so the choice weighs moving data against
        recomputing halos in one unit."""
        t = self.target
        return (t.transfer_cycles(nbytes) + t.dma_issue) * t.macs_per_cycle

    def stripes(self, model: "_RunModel", rows: int, cols: int, streamed: list[SSAValue]) -> int:
        """The transfers of streaming ``streamed`` in a rows x cols grid, in MACs: each input's
        home, then per patch the whole rows its stripe holds."""
        total = 0
        r_len = model.lengths(0, rows)
        for v in streamed:
            row_bytes = _bytes(v) // max(1, _shape(v)[value_hw(v, self.h, self.w)[0]])
            total += self.transfer(_bytes(v)) + cols * sum(self.transfer(int(n) * row_bytes)
                                                           for n in r_len[:, model.stripe_col[v]])
        return total


class _Homes:
    """The values that may live off chip between their readers
    (:func:`memopt.passes.tile_stream.homeable`), by op position: where each is made and read."""

    def __init__(self, search: "_Search"):
        self.s = search
        self.values: list[SSAValue] = []
        self.made: list[int] = []
        self.reads: list[list[int]] = []
        if not search.stream:
            return
        top = {op: i for i, op in enumerate(search.ops)}
        for v in sorted(search.active, key=lambda v: _made_at(v, top)):
            if not homeable(v, search.block) or not v.uses:
                continue
            reads = sorted({top[search._top(u.operation)] for u in v.uses})
            self.values.append(v)
            self.made.append(_made_at(v, top))
            self.reads.append(reads)

    def crossing(self, a: int, b: int) -> list[SSAValue]:
        """The values made before op ``a``, read after op ``b`` and by no op from ``a`` to ``b``."""
        out = []
        for v, made, reads in zip(self.values, self.made, self.reads):
            if made < a and reads[-1] > b:
                k = bisect.bisect_left(reads, a)
                if k == len(reads) or reads[k] > b:
                    out.append(v)
        return out

    def live_homed(self, live: list[int]) -> list[int]:
        """``live`` less, at each op, the values alive across it that it does not read."""
        out = list(live)
        for v, made, reads in zip(self.values, self.made, self.reads):
            size = _bytes(v)
            read = set(reads)
            for p in range(made + 1, reads[-1]):
                if p not in read and out[p]:
                    out[p] -= size
        return out


def _made_at(v: SSAValue, top: dict[Operation, int]) -> int:
    """The position of the op making ``v`` (-1: an argument)."""
    return top.get(v.op, -1) if isinstance(v, OpResult) else -1


def _bytes(v: SSAValue) -> int:
    t = v.type
    assert isinstance(t, TensorType)
    from memopt.dialects.memopt import element_byte_size

    return int(np.prod(t.get_shape())) * element_byte_size(t.element_type)


class _RunModel:
    """The patch intervals and working set of one run (program order ``order``)."""

    def __init__(self, search: _Search, order: list[Operation]):
        self.s, self.order = search, order
        self.pos: dict[SSAValue, int] = {op.results[0]: q for q, op in enumerate(order)}
        self.readers: dict[SSAValue, list[int]] = {}
        for q, op in enumerate(order):
            for k in self.spec(op).spatial:
                v = op.operands[k]
                if q not in self.readers.setdefault(v, []):
                    self.readers[v].append(q)
        self.cache: dict[tuple[int, int], np.ndarray] = {}
        self.terms: dict[tuple[int, bool, frozenset], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self.read_col: dict[tuple[int, int], int] = {}
        for q, op in enumerate(order):
            for k in self.spec(op).spatial:
                self.read_col[(q, k)] = len(order) + len(self.read_col)
        self.stripe_col: dict[SSAValue, int] = {}
        for v in self.readers:
            self.stripe_col[v] = len(order) + len(self.read_col) + len(self.stripe_col)
        self.bytes_per_cell: dict[SSAValue, int] = {}
        self.per_cell, cost = [], []
        for op in order:
            shape = _shape(op.results[0])
            cells = max(1, shape[search.h] * shape[search.w])
            self.per_cell.append(_bytes(op.results[0]) // cells)
            cost.append((op.cost.value.data if isinstance(op, ComputeOp) and op.cost is not None else 0) / cells)
        self.cost_per_cell = np.array(cost, np.float64)


    def spec(self, op: Operation) -> _Spec:
        """How ``op``, a member of the run, reads its inputs (every member has one: the run
        was found over ops with a spec)."""
        spec = self.s.specs[op]
        assert spec is not None
        return spec
    def lengths(self, axis: int, parts: int) -> np.ndarray:
        """Per patch along ``axis`` (of ``parts``), the cells of each term column: each member's
        result (column ``q``), then each (member, operand) read (column ``self.read_col``)."""
        key = (axis, parts)
        if key not in self.cache:
            s = self.s
            ax = s.h if axis == 0 else s.w
            order = self.order
            out = order[-1].results[0]
            n = len(order)
            lens = np.zeros((parts, n + len(self.read_col) + len(self.stripe_col)), np.int64)
            for p, iv in enumerate(split(_shape(out)[ax], parts)):
                need: dict[SSAValue, tuple[int, int]] = {out: iv}
                for q in range(n - 1, -1, -1):
                    op = order[q]
                    got = need[op.results[0]]
                    lens[p, q] = got[1] - got[0]
                    spec = self.spec(op)
                    for k in spec.spatial:
                        v = op.operands[k]
                        v_ax = value_hw(v, s.h, s.w)[axis]
                        cells = receptive(spec.windows[axis], got, _shape(v)[v_ax]).cells
                        lens[p, self.read_col[(q, k)]] = cells[1] - cells[0]
                        need[v] = hull(need.get(v), cells)
                for v, col in self.stripe_col.items():  # a streamed stripe: the rows needed, whole rows
                    got = need.get(v, (0, 0))
                    lens[p, col] = got[1] - got[0] if axis == 0 else _shape(v)[value_hw(v, s.h, s.w)[1]]
            self.cache[key] = lens
        return self.cache[key]

    def cell_bytes(self, v: SSAValue) -> int:
        if v not in self.bytes_per_cell:
            shape = _shape(v)
            vh, vw = value_hw(v, self.s.h, self.s.w)
            self.bytes_per_cell[v] = _bytes(v) // max(1, shape[vh] * shape[vw])
        return self.bytes_per_cell[v]

    def structure(self, off: int, copies: bool, streamed: frozenset = frozenset()):
        """The working-set terms of the run ``order[off:]``: (cells of result or read, bytes per
        cell, first step, last step) — results from their op to their last reader, copies and
        in-place shares at their op, a ``streamed`` input's stripe from its first reader to its last."""
        key = (off, copies, streamed)
        if key in self.terms:
            return self.terms[key]
        order = self.order
        n = len(order)
        terms: list[tuple[int, int, int, int]] = []
        for q in range(off, n):
            op = order[q]
            v = op.results[0]
            per_cell = self.per_cell[q]
            readers = self.readers.get(v, [])
            end = n if q == n - 1 or not readers else max(readers)
            terms.append((q, per_cell, q, end))
            spec = self.spec(op)
            hints = op.inplace_indices() if isinstance(op, ComputeOp) else ()
            first = spec.windows[0]
            for k in spec.spatial:
                u = op.operands[k]
                u_cell = self.cell_bytes(u)
                member = self.pos.get(u, -1) >= off
                single = len(self.readers.get(u, [])) == 1
                if copies and not (member and single):
                    terms.append((self.read_col[(q, k)], u_cell, q, q))
                if (hints and hints[0] == k and member and single and isinstance(first, Window) and first.span == 1
                        and first.begin == 0 and u_cell == per_cell):
                    terms.append((q, -per_cell, q, q))
        for v in streamed:
            readers = [q for q in self.readers[v] if q >= off]
            terms.append((self.stripe_col[v], self.cell_bytes(v), min(readers), max(readers)))
        mask = np.zeros((len(terms), n + 1), np.int64)
        for t, (_, _, lo, hi) in enumerate(terms):
            mask[t, lo: hi + 1] = 1
        built = (np.array([t[0] for t in terms], np.int64), np.array([t[1] for t in terms], np.int64), mask)
        self.terms[key] = built
        return built

    def price(self, rows: int, cols: int, off: int, streamed: frozenset = frozenset()) -> tuple[int, int]:
        """(largest patch working set, MACs of all patches) of ``order[off:]`` in a rows x cols
        grid (reading the ``streamed`` inputs by stripes)."""
        r_len, c_len = self.lengths(0, rows), self.lengths(1, cols)
        cols_of, chb, mask = self.structure(off, self.s.layout != "NHWC" or cols > 1, streamed)
        R, C = r_len[:, cols_of], c_len[:, cols_of]
        sizes = R[:, None, :] * C[None, :, :] * chb
        peak = int((sizes.reshape(rows * cols, -1) @ mask).max())
        n = len(self.order)
        macs = float((self.cost_per_cell[off:] * r_len[:, off:n].sum(0) * c_len[:, off:n].sum(0)).sum())
        return peak, int(np.ceil(macs))


__all__ = ["CHANNEL_PARTS", "MAX_OPS", "PARTS", "Program", "program_options"]
