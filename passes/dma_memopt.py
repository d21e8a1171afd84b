"""``insert-dma`` on the memopt dialect: the Regions' weights read, and the schedule written with
``memopt.dma_start`` / ``memopt.dma_wait`` into ``memopt.dma_buffer``\\ s.

The decision is the shared one (:mod:`memopt.passes.dma_schedule`); this module supplies the
dialect's two ends of it. **Reading**: the compute ops of every Region
(:mod:`memopt.passes.dma_regions`) that holds no DMA op yet, each op's off-chip weight reads
traced once (:func:`memopt.passes.dma_profile.weight_uses`). **Writing**: the staging buffers as
module-level ``memopt.dma_buffer``\\ s (grown when an earlier run made them smaller), and per op
one ``dma_start`` per global of its weight set, ``dma_wait``\\ s and re-applied views right
before it; the ``get_global``/``view`` ops left without uses are erased.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import builtin
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import SymbolTable

from memopt.diagnostics import MemoptError, copy_location
from memopt.dialects.memopt import ComputeOp, DmaBufferOp, DmaStartOp, DmaWaitOp, GetGlobalOp, GlobalOp, ViewOp
from memopt.dialects.planned import planned_functions
from memopt.passes.dma_profile import WeightUse, op_macs, weight_uses
from memopt.passes.dma_regions import cut_function, regions
from memopt.passes.dma_schedule import Load, Work, write_region
from memopt.passes.dma_weights import WeightSet, weight_set
from memopt.planning.latency import OpProfile


def collect(module: builtin.ModuleOp, alignment: int) -> list[Work]:
    """The Regions of ``module`` with off-chip weights and no DMA ops yet."""
    work: list[Work] = []
    for f in planned_functions(module):
        for r in regions(cut_function(f, f"@{f.sym_name.data}")):
            if any(isinstance(o, (DmaStartOp, DmaWaitOp)) for o in r.ops):
                continue
            ops = [o for o in r.ops if isinstance(o, ComputeOp)]
            sets = [weight_set([u for u in weight_uses(o) if not u.on_chip], alignment) for o in ops]
            profiles = [OpProfile(o.kind.data, op_macs(o), tuple(t.nbytes for t in s.transfers))
                        for o, s in zip(ops, sets)]
            if any(p.weights for p in profiles):
                work.append(Work(r, list(ops), profiles, list(sets)))
    return work


def write_buffers(module: builtin.ModuleOp, names: list[str], sizes: list[int]) -> None:
    """The staging buffers as ``memopt.dma_buffer``\\ s before the module's first op that is
    neither a global nor a buffer (-1: no such buffer); an existing smaller one grows."""
    anchor = next((o for o in module.body.block.ops if not isinstance(o, (GlobalOp, DmaBufferOp))), None)
    for name, size in zip(names, sizes):
        existing = SymbolTable.lookup_symbol(module, name)
        if existing is not None and not isinstance(existing, DmaBufferOp):
            raise MemoptError(f"insert-dma: symbol @{name} is already taken by a '{existing.name}'", existing)
        if isinstance(existing, DmaBufferOp):
            if existing.size.value.data < size:  # grown: re-placed with the others
                existing.properties["size"] = builtin.IntegerAttr(size, builtin.i64)
            continue
        if size < 0:
            continue
        buf = DmaBufferOp(name, size)
        if anchor is None:
            module.body.block.add_op(buf)
        else:
            module.body.block.insert_op_before(buf, anchor)


def _block(op: Operation) -> Block:
    block = op.parent_block()
    assert block is not None  # the ops of a Region are in a block
    return block


def _named(value: SSAValue, hint: str) -> None:
    if SSAValue.is_valid_name(hint):
        value.name_hint = hint


@dataclass
class MemoptWriter:
    """Writes one Region's schedule in the memopt dialect (:class:`~memopt.passes.dma_schedule.RegionWriter`)."""

    w: Work
    tokens: dict[int, dict[str, SSAValue]] = field(default_factory=dict)

    def _set(self, i: int) -> WeightSet[WeightUse]:
        return self.w.sets[i]

    def start(self, i: int, load: Load, before: Operation) -> None:
        s_ = self._set(i)
        self.tokens[i] = {}
        for t, off in zip(s_.transfers, s_.offsets):
            s = DmaStartOp(t.symbol, load.buffer, load.base + off)
            _block(before).insert_op_before(s, before)
            copy_location(self.w.ops[i], s)
            _named(s.token, f"{t.symbol}_t")
            self.tokens[i][t.symbol] = s.token

    def arrive(self, i: int, load: Load) -> None:
        op = self.w.ops[i]
        block = _block(op)
        arrived: dict[str, SSAValue] = {}
        for t in self._set(i).transfers:
            g = t.chain[-1]
            assert isinstance(g, GetGlobalOp)
            wt = DmaWaitOp(self.tokens[i][t.symbol], g.result.type)  # type: ignore[arg-type]
            block.insert_op_before(wt, op)
            copy_location(op, wt)
            _named(wt.result, t.symbol)
            arrived[t.symbol] = wt.result
        dead: list[Operation] = []
        for u in self._set(i).reads:
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


def write_schedule(module: builtin.ModuleOp, names: list[str], sizes: list[int], loads: list[list[Load]],
                   work: list[Work]) -> None:
    """The staging buffers, then every Region's loads."""
    write_buffers(module, names, sizes)
    for w, ls in zip(work, loads):
        if ls:
            write_region(w.ops, ls, MemoptWriter(w), w.region.ops[0])


__all__ = ["MemoptWriter", "collect", "write_buffers", "write_schedule"]
