"""The mutator of the ``rematerialize`` pass (:mod:`memopt.passes.rematerialize`): a function's
top block re-emitted in the schedule the planner chose.

A recomputation is a clone of its op (results named ``<name>.remat<k>``, attribute
``memopt.remat``) placed right before its first reader, and every later reader — views
re-applied, uses inside regions included — reads the latest copy.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, TensorType, i64
from xdsl.ir import Operation, SSAValue

from memopt.diagnostics import copy_location
from memopt.dialects.memopt import REMAT_ATTR
from memopt.executor.memopt_ops import op_identities
from memopt.passes.remat_trace import Traced, captured_uses, view_root


def rewrite(f: func.FuncOp, traced: Traced, schedule: list[int], clone: list[bool]) -> None:
    """Re-emit the top block of ``f`` (traced as ``traced``) in ``schedule`` order, the steps
    ``clone`` marks as recomputations of their op (see module docstring)."""
    emitter = _Reemitter(f, traced)
    for k, is_clone in zip(schedule, clone):
        emitter.emit(traced.ops[k], is_clone)
    ret = emitter.ret
    for i, v in enumerate(ret.operands):
        if isinstance(v.type, TensorType):
            ret.operands[i] = emitter.latest(v)
    emitter.drop_leftovers()


class _Reemitter:
    """The top block of ``f`` emptied and filled again op by op before its return: each traced
    op placed (or a clone of it), its operands read from their latest copies; the free ops
    (views, get_globals ...) emitted just before their first reader."""

    def __init__(self, f: func.FuncOp, traced: Traced) -> None:
        block = self.block = f.body.blocks[0]
        ret = block.last_op
        assert ret is not None
        self.ret = ret
        self.emitted: set[Operation] = set()
        self.current: dict[SSAValue, SSAValue] = {}  # root value -> its latest computed copy
        self.copies: dict[SSAValue, int] = {}
        self.ident = op_identities(f)
        traced_ops = set(traced.ops)
        self.free_ops = [o for o in block.ops if o is not ret and o not in traced_ops]
        self.free_set = set(self.free_ops)
        for o in list(block.ops):
            if o is not ret:
                o.detach()
        self.view_cache: dict[tuple[SSAValue, SSAValue], SSAValue] = {}
        self.origin: dict[SSAValue, SSAValue] = {}  # a copy (clone result, re-applied view) -> the original value

    def place(self, op: Operation) -> None:
        self.block.insert_op_before(op, self.ret)
        self.emitted.add(op)

    def ensure(self, v: SSAValue) -> None:
        """Emit the free op (view, get_global ...) defining ``v`` and its own operands first."""
        owner = v.owner
        if isinstance(owner, Operation) and owner in self.free_set and owner not in self.emitted:
            for x in owner.operands:
                self.ensure(x)
            self.place(owner)

    def latest(self, v: SSAValue) -> SSAValue:
        """``v`` as it reads now: its root's latest copy, with its views re-applied on it
        (anything this needs is emitted now, so before the op about to be placed)."""
        v = self.origin.get(v, v)  # an operand already rewritten to a copy: back to the original value
        root = view_root(v)
        now = self.current.get(root, root)
        if now is root:
            self.ensure(v)
            return v
        if v is root:
            return now
        key = (v, now)
        if key not in self.view_cache:
            src = self.latest(v.owner.source)  # type: ignore[union-attr]  # v is a view's result (not its root)
            view = v.owner.clone()  # type: ignore[union-attr]
            view.operands[0] = src
            if v.name_hint:
                view.results[0].name_hint = f"{v.name_hint}.remat"
            self.place(view)
            self.view_cache[key] = view.results[0]
            self.origin[view.results[0]] = v
        return self.view_cache[key]

    def emit(self, orig: Operation, is_clone: bool) -> None:
        """Place ``orig`` (or a clone of it: a recomputation) with its operands, and the uses
        inside its regions of values defined outside, read from their latest copies."""
        if is_clone:
            op = orig.clone()
            op.attributes[REMAT_ATTR] = IntegerAttr(self.ident[orig], i64)  # the pseudo-kernel identity it copies
            copy_location(orig, op)
            for r_old, r_new in zip(orig.results, op.results):
                self.copies[r_old] = self.copies.get(r_old, 0) + 1
                if r_old.name_hint:
                    r_new.name_hint = f"{r_old.name_hint}.remat{self.copies[r_old]}"
        else:
            op = orig
        for i, v in enumerate(op.operands):
            if isinstance(v.type, TensorType):
                op.operands[i] = self.latest(v)
            else:
                self.ensure(v)
        for inner, i, v in captured_uses(op):
            if isinstance(v.type, TensorType):
                inner.operands[i] = self.latest(v)
            else:
                self.ensure(v)
        self.place(op)
        for r_old, r_new in zip(orig.results, op.results):
            self.current[r_old] = r_new
            if r_new is not r_old:
                self.origin[r_new] = r_old

    def drop_leftovers(self) -> None:
        """Free ops nothing reads any more (a view whose readers now read a recomputed copy's
        view) are dropped: left in place they would keep the dropped tensor alive."""
        leftover = [o for o in self.free_ops if o not in self.emitted]
        changed = True
        while changed:
            changed = False
            for o in list(leftover):
                if all(not r.uses for r in o.results):
                    leftover.remove(o)
                    o.erase()
                    changed = True
        for o in leftover:  # still read (by nothing emitted: cannot happen, kept for safety)
            for x in o.operands:
                self.ensure(x)
            self.place(o)


__all__ = ["rewrite"]
