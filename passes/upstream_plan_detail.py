"""What the buffers of an upstream plan are, beyond where they lie: their kind, a line about
each, and the branch spans of the numbering their lifetimes are in.

:func:`memopt.passes.upstream_plan_io.read_upstream_plan` says where every buffer of an arena
lies and when it lives, with the view it was read from. A report also tells apart the buffers
``insert-dma`` stages weights in, the arenas passed to planned callees, the loop state kept in
two buffers by iteration parity, and the buffers a function copies its inputs from or its
outputs to — all read off that view and its uses — and shades the branches of every ``scf.if``
over the steps the reader numbered the lifetimes in (the planner's own numbering).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from xdsl.dialects import func, memref
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from memopt.dialects.walk import walk
from .upstream_lifetime import BRANCHING, VIEWS, number
from .upstream_plan_io import ArenaPlan, call_scratch

STAGING, SCRATCH, CARRIED = "staging", "scratch", "loop-carried"
INPUT, OUTPUT, INTERMEDIATE = "input", "output", "intermediate"


@dataclass(frozen=True)
class Branch:
    """The steps one region of a branching op (``scf.if``, ``scf.index_switch``, ``affine.if``)
    covers in the plan's numbering, and the path of the block the op is in."""

    if_id: int
    branch: int
    start: int
    end: int
    path: tuple


def branch_spans(f: func.FuncOp) -> list[Branch]:
    """Every branch of every branching op of ``f``, in the numbering the reader traces in."""
    num = number(f.body.blocks[0])
    begin, path_of = num.begin, num.path
    out = []
    for op in walk(f.body):
        if not isinstance(op, BRANCHING):
            continue
        outer = path_of.get(op.parent_block(), ())
        for k, region in enumerate(op.regions):
            blocks = list(region.blocks)
            steps = [begin[o] for b in blocks for o in walk(b) if o in begin]
            if steps:
                if_id = path_of[blocks[0]][-1][0]
                out.append(Branch(if_id, k, min(steps), max(steps) + 1, outer))
    return out


def buffer_kinds(f: func.FuncOp, plan: ArenaPlan) -> list[str]:
    """One kind per buffer of ``plan`` (problem order): ``staging`` (a DMA staging buffer
    ``insert-dma`` placed after the plan), ``scratch`` (a callee's arena, passed at a call),
    ``loop-carried`` (double buffered by iteration parity), ``input`` / ``output`` (copied from
    / into an argument of ``f``), else ``intermediate``."""
    twice = Counter(id(v) for v in plan.sites)
    planned = {id(v) for v in plan.sites}
    inputs, outputs = _copied_with_arguments(f, planned)
    kinds = []
    for i, view in enumerate(plan.sites):
        if i in plan.staging:
            kinds.append(STAGING)
        elif _passed_as_callee_arena(view):
            kinds.append(SCRATCH)
        elif twice[id(view)] > 1:
            kinds.append(CARRIED)
        elif id(view) in outputs:
            kinds.append(OUTPUT)
        elif id(view) in inputs:
            kinds.append(INPUT)
        else:
            kinds.append(INTERMEDIATE)
    return kinds


def describe(view: Operation, kind: str) -> str:
    """A line about a buffer for tables and hover: what holds it and its type."""
    t = view.results[0].type
    if kind == SCRATCH:
        call = next(u.operation for u in view.results[0].uses if isinstance(u.operation, func.CallOp))
        return f"arena of @{call.callee.root_reference.data} for the call : {t}"
    if kind == CARRIED:
        return f"memref.view, one of two by iteration parity : {t}"
    return f"memref.view : {t}"


def _root(v: SSAValue, planned: set[int]) -> SSAValue:
    """``v`` followed back through views and casts to a planned view or what it aliases."""
    while isinstance(v, OpResult) and isinstance(v.op, VIEWS) and id(v.op) not in planned:
        v = v.op.operands[0]
    return v


def _copied_with_arguments(f: func.FuncOp, planned: set[int]) -> tuple[set[int], set[int]]:
    """Planned views (by id) that a ``memref.copy`` fills from an argument of ``f``, and those
    it copies into one: the function's inputs and outputs staged through the arena."""
    args = set(f.body.blocks[0].args)
    inputs: set[int] = set()
    outputs: set[int] = set()
    for op in walk(f.body):
        if not isinstance(op, memref.CopyOp):
            continue
        src, dst = _root(op.source, planned), _root(op.destination, planned)
        if isinstance(dst, BlockArgument) and dst in args and isinstance(src, OpResult):
            outputs.add(id(src.op))
        if isinstance(src, BlockArgument) and src in args and isinstance(dst, OpResult):
            inputs.add(id(dst.op))
    return inputs & planned, outputs & planned


def _passed_as_callee_arena(view: Operation) -> bool:
    """The view is the last operand of a call to a function whose arena is an argument."""
    for use in view.results[0].uses:
        call = use.operation
        if isinstance(call, func.CallOp) and use.index == len(call.operands) - 1 and call_scratch(call) is not None:
            return True
    return False


__all__ = ["Branch", "CARRIED", "INPUT", "INTERMEDIATE", "OUTPUT", "SCRATCH", "STAGING", "branch_spans",
           "buffer_kinds", "describe"]
