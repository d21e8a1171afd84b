"""``insert-dma`` on upstream MLIR: the same schedules, written with ``memref.dma_start`` /
``memref.dma_wait``.

The decision — which ops' weights to stream, into which staging buffer, issued where — is the
one :mod:`memopt.passes.insert_dma` makes for the memopt dialect (ping-pong ``alloc0``/``alloc1``,
``buffers=N``, ``ring=``, ``mode=auto``, Regions cut at control flow by
:mod:`memopt.passes.dma_regions`); this module supplies the two IR-specific ends of it:

* **reading**: a *kernel* is a ``func.call`` or a ``linalg`` op; its weights are the memref
  operands that reach a ``memref.get_global`` through ``memref.view``s at constant offsets
  (what ``lower-to-memref`` and bufferized flows emit for constant weights). Its work is its
  ``cost`` attribute, or one MAC per element written;
* **writing**: per function, the staging buffers are ``i8`` buffers named ``alloc0``,
  ``alloc1`` … (or ``ring``). When the function is already planned (``plan-memory`` ran
  first), they are views of its arena placed after the planned bytes — the arena ``alloc``
  grows, and ``memopt.onchip_size = N : i64`` records the total next to ``memopt.arena_size``;
  otherwise they are plain ``memref.alloc``s at the top of the function, freed before it
  returns, which a later ``plan-memory`` places like any buffer. One ``i32`` tag buffer holds a
  completion tag per transfer (``memref.dma_start %global[0], %stage[off], %n, %tags[k]``,
  ``memref.dma_wait %tags[k], %n``). Each pipelined operand is replaced by a typed
  ``memref.view`` of the staging bytes at the weight's offset, and the off-chip views left
  without uses are erased: the plan lives in the views' offsets, so no step numbering needs
  dead ops kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    FunctionType, IndexType, IntegerAttr, NoneAttr, MemRefType, ModuleOp, StringAttr, SymbolRefAttr, UnitAttr, i8, i32, i64,
)
from xdsl.ir import Operation, OpResult, Region as IRRegion, SSAValue
from xdsl.traits import SymbolTable

from memopt.diagnostics import copy_location
from memopt.passes.dma_layout import layout_after_arena
from memopt.passes.dma_regions import Region, cut_function, regions
from memopt.passes.upstream_lifetime import element_bytes
from memopt.passes.upstream_plan import ARENA_SIZE_ATTR, arena_value, resize_arena
from memopt.planning.latency import OpProfile
from memopt.planning.ring import stage_layout

ONCHIP_SIZE_ATTR = "memopt.onchip_size"
STAGING_ATTR = "memopt.staging"


def is_upstream_module(module: ModuleOp) -> bool:
    """True when the module's functions are upstream IR (memref ops, no memopt dialect ops)."""
    has_memref = False
    for op in module.walk():
        if op.name.startswith("memopt."):
            return False
        if op.name.startswith("memref."):
            has_memref = True
    return has_memref


def _bytes(t: MemRefType) -> int:
    n = element_bytes(t) or 1
    for d in t.get_shape():
        n *= d
    return n


def _const_index(v: SSAValue) -> int | None:
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp) and isinstance(v.op.value, IntegerAttr):
        return v.op.value.value.data
    return None


@dataclass(frozen=True)
class UpstreamWeight:
    """One weight operand of a kernel: the global it reads and where in it."""

    operand: int
    symbol: str
    nbytes: int
    """Bytes of the whole global (one transfer moves it whole)."""
    offset: int
    """Byte offset of the operand in the global."""


def trace_weight(value: SSAValue, operand: int) -> UpstreamWeight | None:
    """Follow ``memref.view``s at constant offsets to a ``memref.get_global``; None otherwise."""
    t = value.type
    if not isinstance(t, MemRefType) or any(d < 0 for d in t.get_shape()):
        return None
    offset = 0
    while isinstance(value, OpResult):
        op = value.op
        if isinstance(op, memref.ViewOp):
            off = _const_index(op.byte_shift)
            if off is None or op.sizes:
                return None
            offset += off
            value = op.source
            continue
        if isinstance(op, memref.GetGlobalOp):
            gt = op.results[0].type
            if not isinstance(gt, MemRefType) or any(d < 0 for d in gt.get_shape()):
                return None
            return UpstreamWeight(operand, op.name_.root_reference.data, _bytes(gt), offset)
        return None
    return None


def is_kernel(op: Operation) -> bool:
    return isinstance(op, func.CallOp) or op.name.startswith("linalg.")


def weight_uses(op: Operation) -> list[UpstreamWeight]:
    out = []
    for i, v in enumerate(op.operands):
        w = trace_weight(v, i)
        if w is not None:
            out.append(w)
    return out


def distinct(uses: list[UpstreamWeight]) -> dict[str, int]:
    out: dict[str, int] = {}
    for w in uses:
        out.setdefault(w.symbol, w.nbytes)
    return out


def kernel_macs(op: Operation) -> int:
    cost = op.attributes.get("cost")
    if isinstance(cost, IntegerAttr):
        return int(cost.value.data)
    n_out = op.attributes.get("memopt.outs")
    mems = [v for v in op.operands if isinstance(v.type, MemRefType)]
    outs = mems[len(mems) - n_out.value.data:] if isinstance(n_out, IntegerAttr) else mems[-1:]
    total = 0
    for v in outs:
        k = 1
        for d in v.type.get_shape():
            k *= max(d, 0)
        total += k
    return total


def kernel_profile(op: Operation) -> OpProfile:
    kind = op.attributes.get("memopt.kind")
    name = kind.data if isinstance(kind, StringAttr) else (
        op.callee.root_reference.data if isinstance(op, func.CallOp) else op.name)
    return OpProfile(name, kernel_macs(op), tuple(distinct(weight_uses(op)).values()))


def _trips(op: Operation) -> int:
    if isinstance(op, scf.ForOp):
        lb, ub, step = (_const_index(v) for v in (op.lb, op.ub, op.step))
        if lb is not None and ub is not None and step:
            return max(0, -(-(ub - lb) // step))
    return 1


def upstream_regions(module: ModuleOp) -> list[tuple[func.FuncOp, Region]]:
    """Every Region (of every function with a body) that holds kernels and no DMA yet."""
    out = []
    for f in [o for o in module.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks]:
        for r in regions(cut_function(f, f"@{f.sym_name.data}")):
            if any(isinstance(o, (memref.DmaStartOp, memref.DmaWaitOp)) for o in r.ops):
                continue
            r.runs = 1
            op = r.block.parent_op()
            while op is not None and op is not f:
                r.runs *= _trips(op)
                op = op.parent_op()
            out.append((f, r))
    return out


def planned_arena(f: func.FuncOp) -> tuple[SSAValue | None, int]:
    """The arena ``plan-memory`` made in ``f`` (alloc result or argument) and its planned bytes
    (None, 0 before planning)."""
    arena = arena_value(f)
    size = f.attributes.get(ARENA_SIZE_ATTR)
    if arena is None:
        return None, 0
    return arena, size.value.data if isinstance(size, IntegerAttr) else _bytes(arena.type)


def arena_bytes(module: ModuleOp) -> int:
    """The largest planned arena of the module's functions (0 when none is planned)."""
    return max((planned_arena(f)[1] for f in module.walk() if isinstance(f, func.FuncOp) and f.body.blocks),
               default=0)


def _index(v: int, before: Operation) -> SSAValue:
    c = arith.ConstantOp(IntegerAttr(v, IndexType()))
    before.parent_block().insert_op_before(c, before)
    return c.result


def write_schedule(module: ModuleOp, plan: list[tuple[func.FuncOp, Region, list[Operation], list]],
                   names: list[str], sizes: list[int], alignment: int, space: int | None = None) -> None:
    """Emit the staging buffers and every Region's loads (``plan``: function, Region, its
    kernels, the :class:`~memopt.passes.insert_dma._Load`\\ s chosen for them)."""
    variants: dict[tuple[str, tuple], str] = {}
    by_func: dict[func.FuncOp, list] = {}
    for f, r, ops, loads in plan:
        if loads:
            by_func.setdefault(f, []).append((r, ops, loads))
    for f, items in by_func.items():
        n_starts = sum(len(distinct([w for w in weight_uses(ops[ld.op])])) for _, ops, loads in items for ld in loads)
        used = [(n, s) for n, s in zip(names, sizes) if s >= 0]
        stage = _staging(f, used, n_starts, alignment, space)
        tags = stage.pop("tags")
        counter = [0]
        replaced: list[Operation] = []
        for r, ops, loads in items:
            replaced += _rewrite(r, ops, loads, stage, tags, counter, alignment)
            for i in {ld.op for ld in loads}:
                if isinstance(ops[i], func.CallOp):
                    _retarget(module, ops[i], variants)
        _erase_dead(replaced)
    _drop_unused_declarations(module, {callee for callee, _ in variants})


def _staging(f: func.FuncOp, used: list[tuple[str, int]], n_tags: int, alignment: int,
             space: int | None = None) -> dict[str, SSAValue]:
    """The staging buffers and the tag buffer of ``f`` (see module docstring). With ``space``,
    the staging buffers are allocs in that memory space (an on-chip memory of their own, which
    the arena planner leaves alone) instead of arena bytes."""
    block = f.body.blocks[0]
    first = block.first_op
    arena, planned = planned_arena(f)
    out: dict[str, SSAValue] = {}
    tag_t = MemRefType(i32, [max(n_tags, 1)])
    if arena is not None and space is None:
        offsets, end = layout_after_arena(planned, [s for _, s in used] + [4 * max(n_tags, 1)], alignment)
        grown = resize_arena(f, end)
        f.attributes[ONCHIP_SIZE_ATTR] = IntegerAttr(end, i64)
        anchor = grown.owner.next_op if isinstance(grown, OpResult) else block.first_op
        for (name, size), off in zip(used + [("tags", 0)], offsets):
            t = tag_t if name == "tags" else MemRefType(i8, [max(size, 1)])
            v = memref.ViewOp(grown, _index(off, anchor), [], t)
            v.results[0].name_hint = name
            v.attributes[STAGING_ATTR] = UnitAttr()
            block.insert_op_before(v, anchor)
            out[name] = v.results[0]
        return out
    allocs = []
    for name, size in used + [("tags", 0)]:
        if name == "tags":
            a = memref.AllocOp.get(i32, None, tag_t.get_shape())
        elif space is not None:
            a = memref.AllocOp.get(i8, None, [max(size, 1)], memory_space=IntegerAttr(space, 64))
        else:
            a = memref.AllocOp.get(i8, None, [max(size, 1)])
        a.results[0].name_hint = name
        a.attributes[STAGING_ATTR] = UnitAttr()
        if first is not None:
            block.insert_op_before(a, first)
        else:
            block.add_op(a)
        allocs.append(a)
        out[name] = a.results[0]
    for ret in [o for o in block.ops if isinstance(o, func.ReturnOp)]:
        for a in allocs:
            block.insert_op_before(memref.DeallocOp.get(a.results[0]), ret)
    return out


def _rewrite(r: Region, ops: list[Operation], loads: list, stage: dict[str, SSAValue], tags: SSAValue,
             counter: list[int], alignment: int) -> list[Operation]:
    """The Region's DMA schedule, as :func:`memopt.passes.insert_dma._rewrite` emits it;
    returns the ops that defined the replaced operands (maybe dead now)."""
    replaced: list[Operation] = []
    anchor = next(o for o in r.ops if o.parent is not None)  # the old arena alloc may have been replaced
    load_of = {ld.op: ld for ld in loads}
    before_op: dict[int, list] = {}
    after_op: dict[int, list] = {}
    for ld in loads:
        if ld.where == "before":
            before_op.setdefault(ld.at, []).append(ld)
        elif ld.where == "after":
            after_op.setdefault(ld.at, []).append(ld)
    issued: dict[int, list[tuple[str, int, SSAValue, int]]] = {}  # op -> (symbol, bytes, tag index value, offset)

    def layout(i: int) -> list[tuple[str, int, int]]:
        syms = distinct(weight_uses(ops[i]))
        offsets, _ = stage_layout(list(syms.values()), alignment)
        return [(s, n, off) for (s, n), off in zip(syms.items(), offsets)]

    def starts(ld, before: Operation) -> None:
        issued[ld.op] = []
        for sym, nbytes, off in layout(ld.op):
            k = counter[0]
            counter[0] += 1
            decl = SymbolTable.lookup_symbol(before, sym)
            g = memref.GetGlobalOp(sym, decl.type if isinstance(decl, memref.GlobalOp) else MemRefType(i8, [nbytes]))
            block = before.parent_block()
            block.insert_op_before(g, before)
            zero, dst, n, tag_i = (_index(x, before) for x in (0, ld.base + off, nbytes, k))
            s = memref.DmaStartOp.get(g.results[0], [zero], stage[ld.buffer], [dst], n, tags, [tag_i])
            copy_location(ops[ld.op], s)
            block.insert_op_before(s, before)
            issued[ld.op].append((sym, nbytes, tag_i, ld.base + off))

    for ld in loads:
        if ld.where == "start":
            starts(ld, anchor)
    for i, op in enumerate(ops):
        if i in load_of:
            ld = load_of[i]
            where: dict[str, int] = {}
            for sym, nbytes, tag_i, off in issued[i]:
                w = memref.DmaWaitOp.get(tags, [tag_i], _index(nbytes, op))
                copy_location(op, w)
                op.parent_block().insert_op_before(w, op)
                where[sym] = off
            for u in weight_uses(op):
                t = op.operands[u.operand].type
                on_chip = MemRefType(t.element_type, t.get_shape(), NoneAttr(), stage[ld.buffer].type.memory_space)
                v = memref.ViewOp(stage[ld.buffer], _index(where[u.symbol] + u.offset, op), [], on_chip)
                hint = op.operands[u.operand].name_hint
                v.results[0].name_hint = hint
                op.parent_block().insert_op_before(v, op)
                old = op.operands[u.operand]
                if isinstance(old, OpResult):
                    replaced.append(old.op)
                op.operands[u.operand] = v.results[0]
        for ld in before_op.get(i, []):
            starts(ld, op)
        nxt = op.next_op
        for ld in after_op.get(i, []):
            assert nxt is not None  # a kernel is never a block's terminator
            starts(ld, nxt)
    return replaced


def _retarget(module: ModuleOp, call: func.CallOp, variants: dict[tuple[str, tuple], str]) -> None:
    """Point ``call`` at a declaration whose signature matches its operands again.

    A streamed weight arrives in the staging buffer's memory space, not the global's, so the
    kernel is called on the on-chip variant of its declaration: ``@<callee>_onchip`` (numbered
    when taken), declared next to the original — a kernel library builds one per memory space.
    """
    callee = call.callee.root_reference.data
    decl = SymbolTable.lookup_symbol(module, callee)
    types = tuple(v.type for v in call.operands)
    if not isinstance(decl, func.FuncOp) or tuple(decl.function_type.inputs.data) == types:
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
    called = {op.callee.root_reference.data for op in module.walk() if isinstance(op, func.CallOp)}
    for op in list(module.body.block.ops):
        if isinstance(op, func.FuncOp) and not op.body.blocks and op.sym_name.data in names - called:
            op.detach()
            op.erase()


def _erase_dead(roots: list[Operation]) -> None:
    """Erase the off-chip views (with their offset constants) and ``get_global``s that fed a
    replaced operand and have no uses left; nothing else of the input is touched."""
    work = list(roots)
    while work:
        op = work.pop()
        if op.parent is None or any(r.uses for r in op.results):
            continue
        if not isinstance(op, (memref.ViewOp, memref.GetGlobalOp, arith.ConstantOp)):
            continue
        feeders = [v.op for v in op.operands if isinstance(v, OpResult)]
        op.detach()
        op.erase()
        work += feeders


__all__ = [
    "ONCHIP_SIZE_ATTR", "STAGING_ATTR", "UpstreamWeight", "arena_bytes", "is_kernel", "is_upstream_module",
    "kernel_profile", "trace_weight", "upstream_regions", "weight_uses", "write_schedule",
]
