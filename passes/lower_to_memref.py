"""``lower-to-memref``: the memopt dialect as upstream MLIR (``func`` + ``memref``), in
destination-passing style — what a bufferized compiler flow holds, so that every imported model
can be planned (and compared with upstream MLIR's planner) as upstream IR.

* every tensor lives in bytes: each computed tensor is a ``memref.alloc() : memref<Nxi8>`` read
  through a typed ``memref.view`` at offset 0, and a ``memopt.view`` is a ``memref.view`` of the
  same bytes at its byte offset (so reshapes alias, as in the memopt dialect);
* ``memopt.compute "kind"(ins) -> outs`` becomes ``func.call @<kind>_<k>(ins..., outs...)`` to an
  external ``func.func private`` declaration, one per (kind, signature), named by the kind
  (sanitized) and the signature's order of first appearance; the call keeps ``cost``,
  ``inplace`` and ``names`` as attributes and says ``memopt.outs = N`` (how many trailing operands
  it writes);
* ``memopt.global @w`` becomes ``memref.global "private" @w : memref<Nxi8> = uninitialized``
  (weights are bytes the runtime loads), read by ``memref.get_global`` and a typed view;
* function arguments are ``memref<Nxi8>`` byte buffers the caller provides; results are written
  into caller-provided output buffers appended to the arguments (``memref.copy`` of each result),
  because upstream MLIR's planner refuses functions returning memrefs;
* each alloc is deallocated right after its last use (through its views), as bufferization
  emits, so an alloc → dealloc planner sees the tightest lifetimes it can.

Not yet: ``memopt.if``/``memopt.loop`` (a located error says so) and DMA ops.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func, memref
from xdsl.dialects.builtin import (
    FunctionType, IndexType, IntegerAttr, MemRefType, StringAttr, TensorType, UnitAttr, i8, i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from memopt.diagnostics import MemoptError, copy_location
from memopt.dialects.memopt import ComputeOp, GetGlobalOp, GlobalOp, ViewOp, byte_size


def _bytes_type(n: int) -> MemRefType:
    return MemRefType(i8, [max(n, 1)])


def _typed(t: TensorType) -> MemRefType:
    return MemRefType(t.element_type, t.get_shape())


def _symbol(kind: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_]", "_", kind)
    return s if s and not s[0].isdigit() else f"k_{s}"


@dataclass(frozen=True)
class LowerToMemrefPass(ModulePass):
    """Lower the memopt dialect to upstream func/memref in destination-passing style."""

    name = "lower-to-memref"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        decls: dict[tuple, str] = {}
        per_kind: dict[str, int] = {}
        new_ops: list[Operation] = []
        for g in [o for o in op.body.block.ops if isinstance(o, GlobalOp)]:
            t = g.type if isinstance(g.type, TensorType) else None
            if t is None:
                raise MemoptError("lower-to-memref: a global must have a tensor type", g)
            mg = memref.GlobalOp.get(StringAttr(g.sym_name.data), _bytes_type(byte_size(t)), UnitAttr())
            copy_location(g, mg)
            g.detach()
            new_ops.append(mg)
        funcs = [o for o in op.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks]
        for f in funcs:
            self._lower_function(f, decls, per_kind, new_ops)
        first = op.body.block.first_op
        for o in new_ops:  # declarations and globals first, in order of appearance
            if first is not None:
                op.body.block.insert_op_before(o, first)
            else:
                op.body.block.add_op(o)

    def _lower_function(self, f: func.FuncOp, decls, per_kind, new_ops) -> None:
        old = f.body.blocks[0]
        for o in f.body.walk():
            if o is not f and o.regions:
                raise MemoptError(f"lower-to-memref: '{o.name}' is not supported yet (control flow)", o)
        ret = old.last_op
        assert isinstance(ret, func.ReturnOp)
        ins_t = [t for t in f.function_type.inputs.data]
        outs_t = [t for t in f.function_type.outputs.data]
        for t in ins_t + outs_t:
            if not isinstance(t, TensorType):
                raise MemoptError(f"lower-to-memref: function types must be tensors, got {t}", f)
        new = Block(arg_types=[_bytes_type(byte_size(t)) for t in ins_t + outs_t])
        env: dict[SSAValue, SSAValue] = {}  # tensor value -> typed memref
        base: dict[SSAValue, tuple[SSAValue, int]] = {}  # tensor value -> (i8 bytes, offset)
        body: list[Operation] = []
        allocs: list[SSAValue] = []

        def view(bytes_v: SSAValue, off: int, t: TensorType, hint: str | None) -> SSAValue:
            c = arith.ConstantOp(IntegerAttr(off, IndexType()))
            v = memref.ViewOp(bytes_v, c, [], _typed(t))
            v.results[0].name_hint = hint
            body.extend([c, v])
            return v.results[0]

        for k, (a, t) in enumerate(zip(old.args, ins_t)):
            new.args[k].name_hint = a.name_hint
            env[a] = view(new.args[k], 0, t, a.name_hint)
            base[a] = (new.args[k], 0)
        for o in list(old.ops):
            if isinstance(o, func.ReturnOp):
                for k, (v, t) in enumerate(zip(o.operands, outs_t)):
                    out = new.args[len(ins_t) + k]
                    out.name_hint = f"out{k}"
                    body.append(memref.CopyOp(env[v], view(out, 0, t, None)))
                body.append(func.ReturnOp())
            elif isinstance(o, GetGlobalOp):
                t = o.result.type
                g = memref.GetGlobalOp(o.name_.root_reference.data, _bytes_type(byte_size(t)))
                body.append(g)
                env[o.result] = view(g.results[0], 0, t, o.result.name_hint)
                base[o.result] = (g.results[0], 0)
            elif isinstance(o, ViewOp):
                src, off = base[o.source]
                off += o.offset.value.data
                env[o.result] = view(src, off, o.result.type, o.result.name_hint)
                base[o.result] = (src, off)
            elif isinstance(o, ComputeOp):
                outs = []
                for r in o.results:
                    a = memref.AllocOp.get(i8, None, [max(byte_size(r.type), 1)])
                    a.results[0].name_hint = f"{r.name_hint}.bytes" if r.name_hint else None
                    copy_location(o, a)
                    body.append(a)
                    allocs.append(a.results[0])
                    env[r] = view(a.results[0], 0, r.type, r.name_hint)
                    base[r] = (a.results[0], 0)
                    outs.append(env[r])
                args = [env[v] for v in o.inputs] + outs
                sig = tuple(str(v.type) for v in args)
                kind = o.kind.data
                if (kind, sig) not in decls:
                    per_kind[kind] = per_kind.get(kind, -1) + 1
                    name = f"{_symbol(kind)}_{per_kind[kind]}"
                    decls[(kind, sig)] = name
                    d = func.FuncOp(name, FunctionType.from_lists([v.type for v in args], []), Region(), "private")
                    new_ops.append(d)
                call = func.CallOp(decls[(kind, sig)], args, [])
                call.attributes["memopt.outs"] = IntegerAttr(len(outs), i64)
                call.attributes["memopt.kind"] = StringAttr(kind)
                for key in ("names",):
                    if key in o.attributes:
                        call.attributes[key] = o.attributes[key]
                if o.cost is not None:
                    call.attributes["cost"] = o.cost
                if o.inplace is not None:
                    call.attributes["inplace"] = o.inplace
                copy_location(o, call)
                body.append(call)
            else:
                raise MemoptError(f"lower-to-memref: cannot lower '{o.name}'", o)
        # Deallocate each byte buffer right after its last use through any of its views.
        last: dict[SSAValue, int] = {}
        for k, o in enumerate(body):
            for v in o.operands:
                root = v
                while isinstance(root.owner, memref.ViewOp):
                    root = root.owner.source
                if root in allocs:
                    last[root] = k
        after: dict[int, list[SSAValue]] = {}
        for a in allocs:
            after.setdefault(last.get(a, next(k for k, o in enumerate(body) if a in o.results)), []).append(a)
        for k, o in enumerate(body):
            if isinstance(o, func.ReturnOp):
                new.add_ops([memref.DeallocOp.get(a) for a in after.get(k, [])])
            new.add_op(o)
            if not isinstance(o, func.ReturnOp):
                new.add_ops([memref.DeallocOp.get(a) for a in after.get(k, [])])
        f.body.detach_block(old)
        f.body.add_block(new)
        f.function_type = FunctionType.from_lists([a.type for a in new.args], [])
        for key in ("arg_attrs", "res_attrs"):
            if getattr(f, key, None) is not None:
                setattr(f, key, None)


__all__ = ["LowerToMemrefPass"]
