"""``insert-dma`` on upstream MLIR: the same schedules, written with ``memref.dma_start`` /
``memref.dma_wait``.

The decision — which kernels' weights to stream, into which staging buffer, issued where — is
the one :mod:`memopt.passes.insert_dma` makes for the memopt dialect (ping-pong
``alloc0``/``alloc1``, ``buffers=N``, ``ring=``, ``mode=auto``, Regions cut at control flow by
:mod:`memopt.passes.dma_regions`); this module supplies the two IR-specific ends of it:

* **reading**: kernels and their weights (:mod:`memopt.passes.upstream_dma_weights`: a
  ``linalg`` op or ``func.call`` reading a ``constant`` ``memref.global``). A kernel's work is its
  ``cost`` attribute, or one MAC per element written. A Region is streamed unless it already
  holds DMA ops (the pass is idempotent) or runs inside an op whose iterations may overlap
  (``scf.parallel``, ``scf.forall``, an unknown op): staging buffers and tags are shared. Every
  constant-global read left unstreamed gets a located remark saying why;
* **writing**: per function, ``i8`` staging buffers named ``alloc0``, ``alloc1`` … (or ``ring``)
  and an ``i32`` tag buffer, where :mod:`memopt.passes.upstream_dma_staging` puts them. Each
  transfer copies one global whole into a ``memref.view`` of the staging bytes of the global's
  own type (a byte global: straight into the buffer), so source and destination element types
  match and the count — ``memref.dma_start`` counts elements of the source — is the global's
  element count: ``memref.dma_start %global[0, ...], %copy[0, ...], %elements, %tags[k]``,
  ``memref.dma_wait %tags[k], %elements``. Each streamed operand is the operand's aliasing chain
  applied again to the copy (moved into the staging space). A call to a declared kernel moves to
  the declaration's on-chip variant; a call to a function defined here gets the copy cast back
  to its parameter's memory space (``memref.memory_space_cast``). The off-chip reads left
  without uses are erased: the plan lives in the views' offsets, so no step numbering needs dead
  ops kept.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from xdsl.dialects import affine, arith, func, memref, scf
from xdsl.dialects.builtin import (
    FunctionType, IndexType, IntegerAttr, IntegerType, MemRefType, ModuleOp, StringAttr, SymbolRefAttr, UnrankedMemRefType,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, Region as IRRegion, SSAValue
from xdsl.traits import SymbolTable

from memopt.dialects.walk import walk
from memopt.diagnostics import copy_location, where
from memopt.dialects.structured import StructuredOp
from memopt.passes.dma_regions import Region, cut_block, cut_function, regions
from memopt.passes.dma_schedule import Load, Work, write_region
from memopt.passes.dma_weights import WeightSet, distinct, weight_set
from memopt.passes.upstream_dma_staging import choose_space, make_staging, planned_base
from memopt.passes.upstream_dma_weights import (
    ALIASES, UpstreamWeight, in_space, is_kernel, kernel_weights, other_readers, space_of, trace_weight,
)
from memopt.planning.latency import OpProfile

SEQUENTIAL = (scf.IfOp, scf.ForOp, scf.WhileOp, scf.IndexSwitchOp, scf.ExecuteRegionOp, affine.ForOp, affine.IfOp,
              memref.AllocaScopeOp)
"""Control flow whose regions run one at a time: a Region inside them may own staging buffers."""


def remark(op: Operation | None, text: str) -> None:
    sys.stderr.write(f"insert-dma: remark: {where(op)}{text}\n")


# ---------------------------------------------------------------------- reading


def kernel_macs(op: Operation) -> int:
    """A kernel's ``cost`` attribute, else one MAC per element of what it writes."""
    cost = op.attributes.get("cost")
    if isinstance(cost, IntegerAttr):
        return int(cost.value.data)
    if isinstance(op, StructuredOp):
        outs = list(op.outputs)
    else:
        n_out = op.attributes.get("memopt.outs")
        mems = [v for v in op.operands if isinstance(v.type, MemRefType)]
        outs = mems[len(mems) - n_out.value.data:] if isinstance(n_out, IntegerAttr) else mems[-1:]
    total = 0
    for v in outs:
        k = 1
        for d in getattr(v.type, "get_shape", lambda: ())():
            k *= max(d, 0)
        total += k
    return total


def kernel_profile(op: Operation, weights: list[UpstreamWeight] | None = None) -> OpProfile:
    """The latency model's view of a kernel: its work and one transfer per distinct weight
    (``weights``: its streamable weights when already traced)."""
    kind = op.attributes.get("memopt.kind")
    name = kind.data if isinstance(kind, StringAttr) else (
        op.callee.root_reference.data if isinstance(op, func.CallOp) else op.name)
    transfers = distinct(kernel_weights(op)[0] if weights is None else weights)
    return OpProfile(name, kernel_macs(op), tuple(w.nbytes for w in transfers.values()))


def _overlapping_parent(r: Region, f: func.FuncOp) -> Operation | None:
    """The innermost op around ``r`` whose regions may run at once (None: all sequential)."""
    op = r.block.parent_op()
    while op is not None and op is not f:
        if not isinstance(op, SEQUENTIAL):
            return op
        op = op.parent_op()
    return None


def _streamable(f: func.FuncOp, r: Region) -> bool:
    """Does ``r`` have weights to stream, and may it? Says why not when it has some."""
    kernels = [o for o in r.ops if is_kernel(o)]
    for k in kernels:
        for u in kernel_weights(k)[1]:
            remark(k, f"operand {u.operand} of '{k.name}' reads constant global @{u.symbol}, not streamed: {u.why}")
    if not any(kernel_weights(k)[0] for k in kernels):
        return False
    if any(isinstance(o, (memref.DmaStartOp, memref.DmaWaitOp)) for o in r.ops):
        remark(kernels[0], f"Region {r.name} already holds DMA ops: its weights are left as they are")
        return False
    outer = _overlapping_parent(r, f)
    if outer is not None:
        remark(kernels[0], f"Region {r.name} runs inside '{outer.name}', whose iterations may overlap and "
                           "would share staging buffers: its weights are not streamed")
        return False
    return True


def _function_regions(f: func.FuncOp) -> list[Region]:
    """The Regions of every block of ``f``: the entry block's as ``@f/...``, those of a block
    reached by branches (unstructured control flow) as ``@f/^bb<k>/...`` — a block runs from its
    start to its terminator, so it is cut like any other."""
    name = f"@{f.sym_name.data}"
    out = list(regions(cut_function(f, name)))
    for k, block in enumerate(list(f.body.blocks)[1:], start=1):
        out += regions(cut_block(block, f"{name}/^bb{k}"))
    return out


def upstream_regions(module: ModuleOp) -> list[tuple[func.FuncOp, Region]]:
    """Every Region (of every function with a body) whose kernels' weights are to be streamed;
    the constant-global reads left out get a remark each."""
    out = []
    for f in [o for o in module.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks]:
        for r in _function_regions(f):
            if _streamable(f, r):
                out.append((f, r))
        for user, sym in other_readers(f):
            remark(user, f"constant global @{sym} is read by '{user.name}', which is not a kernel's input "
                         "(a linalg op's ins or a func.call operand): not streamed")
    return out


def collect(module: ModuleOp, alignment: int) -> list[Work]:
    """The Regions of an upstream module with kernels reading ``memref.global`` weights, each
    kernel's weights traced once."""
    work: list[Work] = []
    for f, r in upstream_regions(module):
        ops = [o for o in r.ops if is_kernel(o)]
        sets = [weight_set(kernel_weights(o)[0], alignment) for o in ops]
        profiles = [kernel_profile(o, list(s.reads)) for o, s in zip(ops, sets)]
        if any(p.weights for p in profiles):
            work.append(Work(r, ops, profiles, list(sets), func=f))
    return work


def arena_bytes(module: ModuleOp) -> int:
    """The largest planned arena of the module's functions (0 when none is planned)."""
    return max((planned_base(f)[1] for f in walk(module) if isinstance(f, func.FuncOp) and f.body.blocks),
               default=0)


# ---------------------------------------------------------------------- writing


def _block(op: Operation) -> Block:
    block = op.parent_block()
    assert block is not None  # every op written around is in a block
    return block


def _index(v: int, before: Operation) -> SSAValue:
    c = arith.ConstantOp(IntegerAttr(v, IndexType()))
    _block(before).insert_op_before(c, before)
    return c.result


def _insert(op: Operation, before: Operation, located: Operation) -> Operation:
    _block(before).insert_op_before(op, before)
    copy_location(located, op)
    return op


def _is_bytes(t: MemRefType) -> bool:
    """A 1-D ``i8`` global: copied straight into the staging buffer, counted in bytes."""
    e = t.element_type
    return len(t.get_shape()) == 1 and isinstance(e, IntegerType) and e.width.data == 8


def reapply(chain: tuple[Operation, ...], value: SSAValue, before: Operation) -> SSAValue:
    """Apply a weight's aliasing ops again, to its staged copy ``value`` (their results move
    from the global's memory space to the copy's; a cast into the copy's space is dropped)."""
    for op in chain:
        old_space, new_space = space_of(op.operands[0].type), space_of(value.type)
        t = op.results[0].type
        if space_of(t) == old_space:
            t = in_space(t, new_space)
        if isinstance(op, memref.MemorySpaceCastOp) and space_of(t) == new_space:
            continue
        new = type(op).create(operands=[value, *op.operands[1:]], result_types=[t],
                              properties=dict(op.properties), attributes=dict(op.attributes))
        value = _insert(new, before, before).results[0]
    return value


@dataclass(frozen=True)
class _Transfer:
    weight: UpstreamWeight
    offset: int
    """Byte offset of the copy in its staging buffer."""
    tag: SSAValue


@dataclass
class _Stager:
    """Writes one function's transfers into its staging buffers (one tag per transfer)."""

    stage: dict[str, SSAValue]
    tags: SSAValue
    alignment: int
    next_tag: int = 0
    replaced: list[Operation] = field(default_factory=list)
    """The ops that defined the replaced operands (maybe dead now)."""
    anchor: Operation | None = None
    """The first op of the Region being written: its index constants go right before it."""
    consts: dict[tuple[int, int], SSAValue] = field(default_factory=dict)

    def index(self, v: int) -> SSAValue:
        """An ``index`` constant ``v``, one per block (before the first Region that needs it)."""
        assert self.anchor is not None
        key = (id(self.anchor.parent_block()), v)
        if key not in self.consts:
            self.consts[key] = _index(v, self.anchor)
        return self.consts[key]

    def copy_of(self, buffer: str, offset: int, w: UpstreamWeight, before: Operation) -> SSAValue:
        """The staged copy of ``w`` at ``offset``: a view of the global's own type."""
        stage = self.stage[buffer]
        t = in_space(w.global_type, space_of(stage.type))
        assert isinstance(t, MemRefType)
        view = memref.ViewOp(stage, self.index(offset), [], t)
        return _insert(view, before, before).results[0]

    def start(self, kernel: Operation, weights: WeightSet[UpstreamWeight], buffer: str, base: int,
              before: Operation) -> list[_Transfer]:
        """One ``dma_start`` per distinct weight, at its weight-set offset from ``base``."""
        out = []
        for w, off in zip(weights.transfers, weights.offsets):
            tag = self.index(self.next_tag)
            self.next_tag += 1
            g = _insert(memref.GetGlobalOp(w.symbol, w.global_type), before, kernel)
            zero = self.index(0)
            if _is_bytes(w.global_type):
                dst, dst_at = self.stage[buffer], [self.index(base + off)]
            else:
                dst, dst_at = self.copy_of(buffer, base + off, w, before), [zero] * len(w.global_type.get_shape())
            n = self.index(w.elements)
            s = memref.DmaStartOp.get(g.results[0], [zero] * len(w.global_type.get_shape()), dst, dst_at, n,
                                      self.tags, [tag])
            _insert(s, before, kernel)
            out.append(_Transfer(w, base + off, tag))
        return out

    def wait(self, kernel: Operation, transfers: list[_Transfer]) -> None:
        for t in transfers:
            _insert(memref.DmaWaitOp.get(self.tags, [t.tag], self.index(t.weight.elements)), kernel, kernel)

    def staged_operand(self, buffer: str, offset: int, w: UpstreamWeight, kernel: Operation) -> SSAValue:
        """The kernel's operand, read from the staged copy (a byte global's first view folded
        into one view of the staging buffer)."""
        chain = w.chain
        first = chain[0] if chain else None
        shift = _constant(first.byte_shift) if isinstance(first, memref.ViewOp) else None
        value: SSAValue
        if _is_bytes(w.global_type) and shift is not None:
            assert isinstance(first, memref.ViewOp)
            stage = self.stage[buffer]
            t = in_space(first.results[0].type, space_of(stage.type))
            assert isinstance(t, MemRefType)
            view = memref.ViewOp(stage, self.index(offset + shift), list(first.sizes), t)
            value, chain = _insert(view, kernel, kernel).results[0], chain[1:]
        else:
            value = self.copy_of(buffer, offset, w, kernel)
        return reapply(chain, value, kernel)

    def read_staged(self, kernel: Operation, weights: list[UpstreamWeight], buffer: str,
                    transfers: list[_Transfer]) -> None:
        """Point every weight operand of ``kernel`` at its staged copy."""
        at = {t.weight.symbol: t.offset for t in transfers}
        for w in weights:
            old = kernel.operands[w.operand]
            value = self.staged_operand(buffer, at[w.symbol], w, kernel)
            value = _cast_for_callee(kernel, value, old.type)
            value.name_hint = old.name_hint
            if isinstance(old, OpResult):
                self.replaced.append(old.op)
            kernel.operands[w.operand] = value


def _constant(v: SSAValue) -> int | None:
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp) and isinstance(v.op.value, IntegerAttr):
        return v.op.value.value.data
    return None


def _cast_for_callee(kernel: Operation, value: SSAValue, old: Attribute) -> SSAValue:
    """A call into a function defined in this module keeps its signature: the staged copy is
    cast back to the parameter's memory space (a declared kernel gets an on-chip variant
    instead, :func:`_retarget`)."""
    if not isinstance(kernel, func.CallOp) or value.type == old:
        return value
    callee = SymbolTable.lookup_symbol(kernel, kernel.callee.root_reference.data)
    if not isinstance(callee, func.FuncOp) or not callee.body.blocks:
        return value
    assert isinstance(old, (MemRefType, UnrankedMemRefType))
    return _insert(memref.MemorySpaceCastOp(value, old), kernel, kernel).results[0]


def write_schedule(module: ModuleOp, work: list[Work], loads: list[list[Load]], names: list[str],
                   sizes: list[int], alignment: int, space: int | None = None) -> None:
    """Emit the staging buffers and every Region's ``loads`` (``space``: the ``staging-space``
    option)."""
    by_func: dict[Operation, list[tuple[Work, list[Load]]]] = {}
    loaded: dict[Operation, WeightSet[UpstreamWeight]] = {}
    for w, ls in zip(work, loads):
        if ls:
            assert w.func is not None
            by_func.setdefault(w.func, []).append((w, ls))
            loaded.update({w.ops[ld.op]: w.sets[ld.op] for ld in ls})
    chosen = choose_space([(r, k) for k, s in loaded.items() for r in s.reads], space)
    variants: dict[tuple[str, tuple], str] = {}
    for f, items in by_func.items():
        assert isinstance(f, func.FuncOp)
        n_starts = sum(len(w.sets[ld.op].transfers) for w, ls in items for ld in ls)
        used = [(n, s) for n, s in zip(names, sizes) if s >= 0]
        stage = make_staging(module, f, used, n_starts, alignment, chosen)
        stager = _Stager(stage, stage.pop("tags"), alignment)
        for w, ls in items:
            stager.anchor = first = _region_start(w.region, stager)
            write_region(w.ops, ls, _UpstreamWriter(stager, w), first)
            for i in {ld.op for ld in ls}:
                call = w.ops[i]
                if isinstance(call, func.CallOp):
                    _retarget(module, call, variants)
        _erase_dead(stager.replaced)
    _drop_unused_declarations(module, {callee for callee, _ in variants})


def _region_start(r: Region, stager: _Stager) -> Operation:
    """Where the Region's first loads go: its first op still in place (the old arena alloc may
    have been replaced), or right after the staging buffers when they are defined below it."""
    anchor = next(o for o in r.ops if o.parent is not None)
    block = anchor.parent_block()
    for v in [*stager.stage.values(), stager.tags]:
        op = v.owner
        if isinstance(op, Operation) and op.parent_block() is block and (op is anchor or anchor.is_before_in_block(op)):
            assert op.next_op is not None  # a staging buffer is never its block's terminator
            anchor = op.next_op
    return anchor


@dataclass
class _UpstreamWriter:
    """Writes one Region's schedule with ``memref.dma_start``/``dma_wait``
    (:class:`~memopt.passes.dma_schedule.RegionWriter`)."""

    stager: _Stager
    w: Work
    issued: dict[int, list[_Transfer]] = field(default_factory=dict)

    def start(self, i: int, load: Load, before: Operation) -> None:
        self.issued[i] = self.stager.start(self.w.ops[i], self.w.sets[i], load.buffer, load.base, before)

    def arrive(self, i: int, load: Load) -> None:
        op = self.w.ops[i]
        self.stager.wait(op, self.issued[i])
        self.stager.read_staged(op, list(self.w.sets[i].reads), load.buffer, self.issued[i])


def _retarget(module: ModuleOp, call: func.CallOp, variants: dict[tuple[str, tuple], str]) -> None:
    """Point ``call`` at a declaration whose signature matches its operands again.

    A streamed weight arrives in the staging buffer's memory space, not the global's, so a
    declared kernel is called on the on-chip variant of its declaration: ``@<callee>_onchip``
    (numbered when taken), declared next to the original — a kernel library builds one per
    memory space. A function defined here was given casts instead (:func:`_cast_for_callee`).
    """
    callee = call.callee.root_reference.data
    decl = SymbolTable.lookup_symbol(module, callee)
    types = tuple(v.type for v in call.operands)
    if not isinstance(decl, func.FuncOp) or decl.body.blocks or tuple(decl.function_type.inputs.data) == types:
        return
    key = (callee, types)
    if key not in variants:
        name, k = f"{callee}_onchip", 1
        while SymbolTable.lookup_symbol(module, name) is not None:
            name, k = f"{callee}_onchip{k}", k + 1
        new = func.FuncOp(name, FunctionType.from_lists(list(types), list(decl.function_type.outputs.data)),
                          IRRegion(), "private")
        module.body.block.insert_op_after(new, decl)
        variants[key] = name
    call.callee = SymbolRefAttr(variants[key])


def _drop_unused_declarations(module: ModuleOp, names: set[str]) -> None:
    """Erase the declarations in ``names`` that no call references any more (every call moved
    to its on-chip variant)."""
    called = {op.callee.root_reference.data for op in walk(module) if isinstance(op, func.CallOp)}
    for op in list(module.body.block.ops):
        if isinstance(op, func.FuncOp) and not op.body.blocks and op.sym_name.data in names - called:
            op.detach()
            op.erase()


def _erase_dead(roots: list[Operation]) -> None:
    """Erase the off-chip aliasing ops (with their index constants) and ``get_global``s that fed
    a replaced operand and have no uses left; nothing else of the input is touched."""
    work = list(roots)
    while work:
        op = work.pop()
        if op.parent is None or any(r.uses for r in op.results):
            continue
        if not isinstance(op, (*ALIASES, memref.GetGlobalOp, arith.ConstantOp)):
            continue
        feeders = [v.op for v in op.operands if isinstance(v, OpResult)]
        op.detach()
        op.erase()
        work += feeders


__all__ = [
    "UpstreamWeight", "arena_bytes", "is_kernel",
    "kernel_profile", "reapply", "trace_weight", "upstream_regions", "write_schedule",
]
