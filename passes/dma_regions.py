"""Cutting a function into Regions for ping-pong DMA (the LUNA control-flow paper's Algorithm 3, with control flow).

Why: with control flow the execution order is not static, so a prefetch issued before a branch
could target an op that never runs, and a loop body runs many times. The LUNA paper therefore cuts the
graph into Regions and ping-pongs inside each one only:

1. from the start of a block to its first control-flow op,
2. from after a control-flow op to the next one (or to the end of the block),
3. every branch of an ``if`` and every loop body is a block of its own, cut the same way,
   recursively.

A control-flow op is any op with regions (``memopt.if``, ``memopt.loop``, ``scf.if``,
``scf.for``, an unknown op ...) except a ``linalg`` structured op: its body is scalar code run per
element, so the op is one kernel of the Region it stands in, not a branch or a loop of it.
Names are stable paths: ``@main/0`` is the run before the first control-flow op of ``@main``,
``@main/1`` the run after it; that op is ``@main/if0`` (or ``loop0``, ``op0``; the number is its
index among the block's control-flow ops) and its blocks are ``@main/if0/then``,
``@main/if0/else``, ``@main/loop0/body``. ``scf.if`` and ``scf.for`` / ``affine.for`` are named
as ``memopt.if`` and ``memopt.loop`` are (a ``scf.for`` with constant bounds has their trip
count); any other op is ``op<k>`` with blocks ``region0``, ``region1`` ...
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.dialects import affine, arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, Operation, OpResult, SSAValue

from memopt.dialects.memopt import IfOp, LoopOp
from memopt.dialects.structured import StructuredOp


@dataclass
class Region:
    """A maximal run of ops without control flow in one block."""

    name: str
    block: Block
    ops: list[Operation]
    runs: int = 1
    """How often the Region executes per call (product of enclosing loop trip counts)."""


@dataclass
class ControlFlow:
    """A control-flow op and the Region trees of its blocks."""

    name: str
    op: Operation
    trips: int
    exclusive: bool
    """True for an ``if``: its blocks are alternatives, not a sequence."""
    blocks: list[tuple[str, list[Region | ControlFlow]]] = field(default_factory=list)


Node = Region | ControlFlow


def is_control_flow(op: Operation) -> bool:
    """Does ``op`` end a Region? Any op with regions but a structured op (whose body is
    scalar code per element, not a branch or loop of the program)."""
    return bool(op.regions) and not isinstance(op, StructuredOp)


def _const_index(v: SSAValue) -> int | None:
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp) and isinstance(v.op.value, IntegerAttr):
        return v.op.value.value.data
    return None


def scf_trips(op: scf.ForOp) -> int:
    """The trip count of an ``scf.for`` with constant bounds (1 when not known)."""
    lb, ub, step = (_const_index(v) for v in (op.lb, op.ub, op.step))
    if lb is None or ub is None or not step or step < 0:
        return 1
    return max(0, -(-(ub - lb) // step))


def _cf_kind(op: Operation) -> tuple[str, list[str], int, bool]:
    if isinstance(op, (IfOp, scf.IfOp)):
        return "if", ["then", "else"], 1, True
    if isinstance(op, LoopOp):
        return "loop", ["body"], op.trip_count.value.data, False
    if isinstance(op, scf.ForOp):
        return "loop", ["body"], scf_trips(op), False
    if isinstance(op, affine.ForOp):
        return "loop", ["body"], 1, False
    names = [f"region{k}" for k in range(len(op.regions))]
    return "op", names, 1, False


def cut_block(block: Block, prefix: str, runs: int = 1) -> list[Node]:
    """The Region tree of ``block`` (see module docstring); empty runs are kept so that
    Region ``i`` always follows control-flow op ``i - 1``."""
    nodes: list[Node] = []
    current: list[Operation] = []
    n_cf = 0
    for op in block.ops:
        if not is_control_flow(op):
            current.append(op)
            continue
        nodes.append(Region(f"{prefix}/{n_cf}", block, current, runs))
        current = []
        kind, names, trips, excl = _cf_kind(op)
        name = f"{prefix}/{kind}{n_cf}"
        cf = ControlFlow(name, op, trips, excl)
        for region, rname in zip(op.regions, names):
            for k, b in enumerate(region.blocks):
                bname = f"{name}/{rname}" if len(region.blocks) == 1 else f"{name}/{rname}.{k}"
                cf.blocks.append((bname, cut_block(b, bname, runs * trips)))
        nodes.append(cf)
        n_cf += 1
    nodes.append(Region(f"{prefix}/{n_cf}", block, current, runs))
    return nodes


def cut_function(func_op: Operation, name: str) -> list[Node]:
    """The Region tree of a function body (``name`` is the symbol, e.g. ``@main``)."""
    body = func_op.regions[0].blocks[0]
    return cut_block(body, name)


def regions(nodes: list[Node]) -> Iterator[Region]:
    """Every Region of a tree in program order (pre-order)."""
    for n in nodes:
        if isinstance(n, Region):
            yield n
        else:
            for _, sub in n.blocks:
                yield from regions(sub)


def region_of(nodes: list[Node]) -> dict[Operation, Region]:
    """Map every non-control-flow op to its Region."""
    out: dict[Operation, Region] = {}
    for r in regions(nodes):
        for op in r.ops:
            out[op] = r
    return out


__all__ = ["ControlFlow", "Node", "Region", "cut_block", "cut_function", "is_control_flow", "region_of", "regions",
           "scf_trips"]
