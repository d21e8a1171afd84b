"""``lower-to-memref``: the memopt dialect as upstream MLIR (``func`` + ``memref`` + ``scf``), in
destination-passing style — what a bufferized compiler flow holds, so that every imported model
can be planned (and compared with upstream MLIR's planner) as upstream IR.

* every tensor lives in bytes: each computed tensor is a ``memref.alloc() : memref<Nxi8>`` read
  through a typed ``memref.view`` at offset 0, and a ``memopt.view`` is a ``memref.view`` of the
  same bytes at its byte offset (so reshapes alias, as in the memopt dialect);
* ``memopt.compute "kind"(ins) -> outs`` becomes ``func.call @<kind>_<k>(ins..., outs...)`` to an
  external ``func.func private`` declaration, one per (kind, signature), named by the kind
  (sanitized) and the signature's order of first appearance; the call keeps ``cost``,
  ``inplace``, ``names`` and a recomputation's ``memopt.remat`` as attributes and says
  ``memopt.outs = N`` (how many trailing operands it writes);
* ``memopt.global @w`` becomes ``memref.global "private" constant @w : memref<Nxi8, S> =
  uninitialized`` (weights are bytes the runtime loads) in memory space ``S`` — option
  ``weight-space``, default 1: off-chip, apart from the default space that holds the activations
  and the arena, because ``memref.dma_start`` copies only between different memory spaces —
  read by ``memref.get_global`` and a typed view (kernels reading them directly are declared
  with that memory space);
* ``memopt.if`` becomes ``scf.if`` on the condition's first element (``memref.load``, compared
  with zero unless it is ``i1``); each result gets a buffer allocated before the ``scf.if``, and
  a branch writes it in place — the op that computes the yielded value takes it as its
  destination — or, when the value comes from elsewhere, copies into it (``memref.copy``). The
  branches' own buffers stay inside them, so a planner that shares across exclusive branches
  can;
* ``memopt.loop N`` becomes ``scf.for`` from 0 to N: every carried value gets a buffer allocated
  before the loop, initialised by a copy, read by the body in place of the block argument and
  overwritten by a copy of the yielded value at the end of each iteration (through a temporary
  when the yield permutes carried values, so no copy reads bytes an earlier one wrote);
* function arguments are ``memref<Nxi8>`` byte buffers the caller provides; results are written
  into caller-provided output buffers appended to the arguments (``memref.copy`` of each result),
  because upstream MLIR's planner refuses functions returning memrefs;
* each alloc is deallocated right after its last use (through its views, in its own block), as
  bufferization emits, so an alloc → dealloc planner sees the tightest lifetimes it can.

Not lowered: DMA ops (run ``insert-dma`` on the lowered program instead).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat, FunctionType, IndexType, IntegerAttr, IntegerType, MemRefType, StringAttr, TensorType,
    NoneAttr, UnitAttr, i8, i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError, copy_location
from memopt.passes.options import option
from memopt.dialects.memopt import (
    REMAT_ATTR, ComputeOp, GetGlobalOp, GlobalOp, IfOp, LoopOp, ViewOp, YieldOp, byte_size,
)


def _bytes_type(n: int, space: int = 0) -> MemRefType:
    if space:
        return MemRefType(i8, [max(n, 1)], NoneAttr(), IntegerAttr(space, 64))
    return MemRefType(i8, [max(n, 1)])


def _typed(t: TensorType, like: MemRefType | None = None) -> MemRefType:
    """The memref of tensor type ``t``, in the memory space of ``like`` (a view's source)."""
    if like is not None and not isinstance(like.memory_space, NoneAttr):
        return MemRefType(t.element_type, t.get_shape(), NoneAttr(), like.memory_space)
    return MemRefType(t.element_type, t.get_shape())


def _symbol(kind: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_]", "_", kind)
    return s if s and not s[0].isdigit() else f"k_{s}"


def _tensor(t: Attribute) -> TensorType:
    """A memopt value's type: a tensor (the dialect's verifier admits no other)."""
    assert isinstance(t, TensorType), t
    return t


def _index(into: Block, value: int) -> SSAValue:
    c = arith.ConstantOp(IntegerAttr(value, IndexType()))
    into.add_op(c)
    return c.result


class _Lowering:
    """Lowers one function's blocks; shares kernel declarations across the module."""

    def __init__(self, decls: dict, per_kind: dict, new_ops: list[Operation], weight_space: int = 0) -> None:
        self.weight_space = weight_space
        self.decls = decls
        self.per_kind = per_kind
        self.new_ops = new_ops
        self.env: dict[SSAValue, SSAValue] = {}  # tensor value -> typed memref
        self.base: dict[SSAValue, tuple[SSAValue, int]] = {}  # tensor value -> (i8 bytes, offset)

    def view(self, into: Block, bytes_v: SSAValue, off: int, t: TensorType, hint: str | None) -> SSAValue:
        like = bytes_v.type
        assert isinstance(like, MemRefType)  # a byte buffer
        v = memref.ViewOp(bytes_v, _index(into, off), [], _typed(t, like))
        v.results[0].name_hint = hint
        into.add_op(v)
        return v.results[0]

    def alloc(self, into: Block, t: TensorType, hint: str | None, loc: Operation) -> tuple[SSAValue, SSAValue]:
        """A fresh byte buffer for ``t`` and its typed view."""
        a = memref.AllocOp.get(i8, None, [max(byte_size(t), 1)])
        a.results[0].name_hint = f"{hint}.bytes" if hint else None
        copy_location(loc, a)
        into.add_op(a)
        return a.results[0], self.view(into, a.results[0], 0, t, hint)

    def bind(self, v: SSAValue, typed: SSAValue, bytes_v: SSAValue, off: int = 0) -> None:
        self.env[v] = typed
        self.base[v] = (bytes_v, off)

    def block(self, old: Block, into: Block, dest: dict[SSAValue, tuple[SSAValue, SSAValue]]) -> None:
        """Lower ``old``'s ops (not its terminator) into ``into``; a value in ``dest`` is computed
        straight into the (bytes, typed view) given there."""
        for o in old.ops:
            if isinstance(o, (YieldOp, func.ReturnOp)):
                return
            if isinstance(o, GetGlobalOp):
                t = o.result.type
                g = memref.GetGlobalOp(o.name_.root_reference.data, _bytes_type(byte_size(t), self.weight_space))
                into.add_op(g)
                self.bind(o.result, self.view(into, g.results[0], 0, t, o.result.name_hint), g.results[0])
            elif isinstance(o, ViewOp):
                src, off = self.base[o.source]
                off += o.offset.value.data
                self.bind(o.result, self.view(into, src, off, o.result.type, o.result.name_hint), src, off)
            elif isinstance(o, ComputeOp):
                self.compute(o, into, dest)
            elif isinstance(o, IfOp):
                self.if_(o, into)
            elif isinstance(o, LoopOp):
                self.loop(o, into)
            else:
                raise MemoptError(f"lower-to-memref: cannot lower '{o.name}'", o)

    def compute(self, o: ComputeOp, into: Block, dest) -> None:
        outs = []
        for r in o.results:
            if r in dest:
                bytes_v, typed = dest.pop(r)
            else:
                bytes_v, typed = self.alloc(into, _tensor(r.type), r.name_hint, o)
            self.bind(r, typed, bytes_v)
            outs.append(typed)
        args = [self.env[v] for v in o.inputs] + outs
        sig = tuple(str(v.type) for v in args)
        kind = o.kind.data
        if (kind, sig) not in self.decls:
            self.per_kind[kind] = self.per_kind.get(kind, -1) + 1
            name = f"{_symbol(kind)}_{self.per_kind[kind]}"
            self.decls[(kind, sig)] = name
            d = func.FuncOp(name, FunctionType.from_lists([v.type for v in args], []), Region(), "private")
            self.new_ops.append(d)
        call = func.CallOp(self.decls[(kind, sig)], args, [])
        call.attributes["memopt.outs"] = IntegerAttr(len(outs), i64)
        call.attributes["memopt.kind"] = StringAttr(kind)
        if "names" in o.attributes:
            call.attributes["names"] = o.attributes["names"]
        if o.cost is not None:
            call.attributes["cost"] = o.cost
        if o.inplace is not None:
            call.attributes["inplace"] = o.inplace
        if REMAT_ATTR in o.attributes:  # a recomputation computes what the op it copies computed
            call.attributes[REMAT_ATTR] = o.attributes[REMAT_ATTR]
        copy_location(o, call)
        into.add_op(call)

    def condition(self, o: IfOp, into: Block) -> SSAValue:
        """The truth of the condition's first element, as the memopt executor reads it."""
        t = o.cond.type
        assert isinstance(t, TensorType)
        if any(d == 0 for d in t.get_shape()):
            raise MemoptError("lower-to-memref: the condition has no elements", o)
        shape = t.get_shape()
        load = memref.LoadOp.get(self.env[o.cond], [_index(into, 0)] * len(shape) if shape else [])
        into.add_op(load)
        e = t.element_type
        if isinstance(e, IntegerType) and e.width.data == 1:
            return load.res
        if isinstance(e, IntegerType):
            z = arith.ConstantOp(IntegerAttr(0, e))
            cmp: Operation = arith.CmpiOp(load.res, z, "ne")
        elif isinstance(e, AnyFloat):
            z = arith.ConstantOp(builtin.FloatAttr(0.0, e))
            cmp = arith.CmpfOp(load.res, z, "une")
        else:
            raise MemoptError(f"lower-to-memref: cannot branch on a condition of type {t}", o)
        into.add_ops([z, cmp])
        return cmp.results[0]

    def if_(self, o: IfOp, into: Block) -> None:
        cond = self.condition(o, into)
        results = [self.alloc(into, _tensor(r.type), r.name_hint, o) for r in o.results]
        regions = []
        for region in (o.then_region, o.else_region):
            block = Block()
            if region.blocks:
                old = region.blocks[0]
                yielded = list(old.last_op.operands) if isinstance(old.last_op, YieldOp) else []
                dest: dict[SSAValue, tuple[SSAValue, SSAValue]] = {}
                for v, res in zip(yielded, results):
                    if isinstance(v.owner, ComputeOp) and v.owner.parent_block() is old and v not in dest:
                        dest[v] = res
                direct = set(dest)
                self.block(old, block, dest)
                for v, (_, typed) in zip(yielded, results):
                    if v in direct and self.env[v] is typed:
                        continue
                    block.add_op(memref.CopyOp(self.env[v], typed))
            block.add_op(scf.YieldOp())
            regions.append(Region(block))
        op = scf.IfOp(cond, [], regions[0], regions[1])
        copy_location(o, op)
        into.add_op(op)
        for r, (bytes_v, typed) in zip(o.results, results):
            self.bind(r, typed, bytes_v)

    def loop(self, o: LoopOp, into: Block) -> None:
        body_old = o.body.blocks[0]
        carried = [self.alloc(into, _tensor(a.type), a.name_hint, o) for a in body_old.args]
        for v, (_, typed) in zip(o.init, carried):
            into.add_op(memref.CopyOp(self.env[v], typed))
        body = Block(arg_types=[IndexType()])
        for a, (bytes_v, typed) in zip(body_old.args, carried):
            self.bind(a, typed, bytes_v)
        self.block(body_old, body, {})
        terminator = body_old.last_op
        assert terminator is not None  # a loop body ends in its yield
        yielded = list(terminator.operands)
        carry_bytes = {b for b, _ in carried}
        sources: list[SSAValue | None] = []
        for k, v in enumerate(yielded):
            if v is body_old.args[k]:
                sources.append(None)  # carried unchanged
            elif self.base[v][0] in carry_bytes:
                # It reads a carried buffer an earlier copy may overwrite: take a copy first.
                _, tmp = self.alloc(body, _tensor(v.type), f"{v.name_hint or 'carried'}.next", o)
                body.add_op(memref.CopyOp(self.env[v], tmp))
                sources.append(tmp)
            else:
                sources.append(self.env[v])
        for src, (_, typed) in zip(sources, carried):
            if src is not None:
                body.add_op(memref.CopyOp(src, typed))
        body.add_op(scf.YieldOp())
        lb, ub, step = _index(into, 0), _index(into, o.trip_count.value.data), _index(into, 1)
        op = scf.ForOp(lb, ub, step, [], body)
        copy_location(o, op)
        into.add_op(op)
        for r, (bytes_v, typed) in zip(o.results, carried):
            self.bind(r, typed, bytes_v)


def _root(v: SSAValue) -> SSAValue:
    while isinstance(v.owner, memref.ViewOp):
        v = v.owner.source
    return v


def _insert_deallocs(f: func.FuncOp) -> None:
    """Free every alloc right after the op of its own block that uses it last (through views,
    including uses nested in that op's regions)."""
    allocs = [op for op in walk(f.body) if isinstance(op, memref.AllocOp)]
    index: dict[Operation, int] = {}
    for block in {id(b): b for a in allocs if (b := a.parent_block()) is not None}.values():
        for k, op in enumerate(block.ops):
            index[op] = k
    users: dict[SSAValue, list[Operation]] = {}
    for op in walk(f.body):
        for v in op.operands:
            if isinstance(v.type, MemRefType) and not isinstance(op, memref.ViewOp):
                users.setdefault(_root(v), []).append(op)
    for a in allocs:
        home = a.parent_block()
        assert home is not None  # an alloc of the function body
        last: Operation = a
        for user in users.get(a.results[0], []):
            top = home.find_ancestor_op_in_block(user)
            assert top is not None  # an alloc dominates its users: every one is in its block
            if index[top] > index[last]:
                last = top
        home.insert_op_after(memref.DeallocOp.get(a.results[0]), last)


@dataclass(frozen=True)
class LowerToMemrefPass(ModulePass):
    """Lower the memopt dialect to upstream func/memref/scf in destination-passing style."""

    name = "lower-to-memref"

    weight_space: int = option(1, "memory space of the weight globals (off-chip; memref.dma_start copies "
                                  "between different spaces, the activations use the default one)",
                               values="integer >= 0 (0: the default space)")

    def validate(self) -> None:
        if self.weight_space < 0:
            raise MemoptError(f"lower-to-memref: weight-space must be an integer >= 0, got {self.weight_space}")

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        decls: dict[tuple, str] = {}
        per_kind: dict[str, int] = {}
        new_ops: list[Operation] = []
        for g in [o for o in op.body.block.ops if isinstance(o, GlobalOp)]:
            t = g.type if isinstance(g.type, TensorType) else None
            if t is None:
                raise MemoptError("lower-to-memref: a global must have a tensor type", g)
            mg = memref.GlobalOp.get(StringAttr(g.sym_name.data), _bytes_type(byte_size(t), self.weight_space),
                                     UnitAttr(), constant=UnitAttr())
            copy_location(g, mg)
            g.detach()
            new_ops.append(mg)
        funcs = [o for o in op.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks]
        for f in funcs:
            _lower_function(f, _Lowering(decls, per_kind, new_ops, self.weight_space))
        first = op.body.block.first_op
        for o in new_ops:  # declarations and globals first, in order of appearance
            if first is not None:
                op.body.block.insert_op_before(o, first)
            else:
                op.body.block.add_op(o)


def _lower_function(f: func.FuncOp, low: _Lowering) -> None:
    old = f.body.blocks[0]
    ret = old.last_op
    assert isinstance(ret, func.ReturnOp)
    types = [*f.function_type.inputs.data, *f.function_type.outputs.data]
    for t in types:
        if not isinstance(t, TensorType):
            raise MemoptError(f"lower-to-memref: function types must be tensors, got {t}", f)
    tensors = [t for t in types if isinstance(t, TensorType)]  # all of them
    n_in = len(f.function_type.inputs.data)
    ins_t, outs_t = tensors[:n_in], tensors[n_in:]
    new = Block(arg_types=[_bytes_type(byte_size(t)) for t in ins_t + outs_t])
    for k, (a, t) in enumerate(zip(old.args, ins_t)):
        new.args[k].name_hint = a.name_hint
        low.bind(a, low.view(new, new.args[k], 0, t, a.name_hint), new.args[k])
    low.block(old, new, {})
    for k, (v, t) in enumerate(zip(ret.operands, outs_t)):
        out = new.args[len(ins_t) + k]
        out.name_hint = f"out{k}"
        new.add_op(memref.CopyOp(low.env[v], low.view(new, out, 0, t, None)))
    new.add_op(func.ReturnOp())
    f.body.detach_block(old)
    f.body.add_block(new)
    f.function_type = FunctionType.from_lists([a.type for a in new.args], [])
    for key in ("arg_attrs", "res_attrs"):
        if getattr(f, key, None) is not None:
            setattr(f, key, None)
    _insert_deallocs(f)


__all__ = ["LowerToMemrefPass"]
