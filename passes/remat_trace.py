"""The tracer of the ``rematerialize`` pass (:mod:`memopt.passes.rematerialize`): the top block of
a function as an IR-free :class:`~memopt.planning.remat.RematGraph`, and the way back to its IR.

A tensor is an on-chip buffer: an argument (pinned: nothing can recompute it) or an op's result;
a ``memopt.view`` is its source (uses of the view are uses of the source); weights
(``memopt.get_global`` and views of it) live off chip and take no budget. Every
``memopt.compute`` is one op with its ``cost`` (MACs; one per output element without it). A
region op (``memopt.if``/``memopt.loop``) is one step — remat stays inside one block — reading
every outside tensor its regions use, never recomputed, and holding its inner peak as extra
bytes. Ops whose kind is random or collective (:data:`BLACKLIST`) or that carry
``memopt.no_remat`` are never recomputed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import ComputeOp, DmaStartOp, DmaWaitOp, GetGlobalOp, ViewOp, byte_size
from memopt.dialects.walk import walk
from memopt.passes.dma_profile import op_macs
from memopt.passes.lifetime import FunctionLifetimes, analyze_function
from memopt.planning import align_up, nested_live_profile
from memopt.planning.problem import Problem
from memopt.planning.remat import RematGraph, RematOp

BLACKLIST = ("random", "dropout", "multinomial", "bernoulli", "allreduce", "all_reduce", "allgather",
             "all_gather", "send", "recv", "print")
"""Kinds never recomputed (substring, case-insensitive): random draws would differ, collectives
and I/O must run exactly once — DTR's blacklist."""
NO_REMAT_ATTR = "memopt.no_remat"
"""An op carrying this attribute is never recomputed."""


def view_root(v: SSAValue) -> SSAValue:
    """The value ``v`` views: itself unless it is a ``memopt.view``'s result (through chains)."""
    while isinstance(v.owner, ViewOp):
        v = v.owner.source
    return v


def _offchip(v: SSAValue) -> bool:
    return isinstance(view_root(v).owner, GetGlobalOp)


@dataclass
class Traced:
    """A function's remat graph and the way back to its IR."""

    graph: RematGraph
    ops: list[Operation]
    """The IR op of every RematOp, in schedule order."""
    tensors: list[SSAValue]
    """The IR value (a root: argument or op result) of every tensor."""


@dataclass
class _Tensors:
    """The graph's tensors, numbered as the tracer first meets them: each one's IR value, its
    size rounded up to ``alignment`` (0 off chip) and the inputs (present from the start)."""

    alignment: int
    index: dict[SSAValue, int] = field(default_factory=dict)
    values: list[SSAValue] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    inputs: list[int] = field(default_factory=list)

    def of(self, v: SSAValue) -> int:
        """The number of ``v``'s tensor, numbering it when new (weights become inputs)."""
        if v not in self.index:
            self.index[v] = len(self.values)
            self.values.append(v)
            t = v.type
            offchip = _offchip(v) or not isinstance(t, TensorType)
            self.sizes.append(0 if offchip or not isinstance(t, TensorType)
                              else align_up(byte_size(t), self.alignment))
            if offchip:
                self.inputs.append(self.index[v])  # weights: present from the start, off chip
        return self.index[v]


def remat_graph(f: func.FuncOp, alignment: int = 1) -> Traced:
    """The tracer (see module docstring); sizes rounded up to ``alignment``, as the arena
    plan will place them."""
    block = f.body.blocks[0]
    tensors = _Tensors(alignment)
    for a in block.args:
        t = tensors.of(a)
        if t not in tensors.inputs:
            tensors.inputs.append(t)
    joint: FunctionLifetimes | None = None
    ops: list[RematOp] = []
    ir_ops: list[Operation] = []
    for op in block.ops:
        if isinstance(op, (DmaStartOp, DmaWaitOp)):
            raise MemoptError("rematerialize: run it before insert-dma (the function already streams weights)", op)
        if isinstance(op, (ViewOp, GetGlobalOp, func.ReturnOp)):
            continue
        if not op.results and not op.regions:
            continue
        if op.regions:
            joint = joint or analyze_function(f, mode="joint")
        ops.append(_remat_op(op, tensors, joint))
        ir_ops.append(op)
    ret = block.last_op
    outputs = [tensors.of(view_root(v)) for v in ret.operands] if isinstance(ret, func.ReturnOp) else []
    names = tuple(f"%{v.name_hint}" if v.name_hint else "" for v in tensors.values)
    graph = RematGraph(tuple(tensors.sizes), tuple(ops), tuple(tensors.inputs), tuple(dict.fromkeys(outputs)), names)
    return Traced(graph, ir_ops, tensors.values)


def _remat_op(op: Operation, tensors: _Tensors, joint: FunctionLifetimes | None) -> RematOp:
    """``op`` as one step of the graph: the tensors it reads (its regions' uses included) and
    writes, its cost, the inner peak of a region op (from the function's ``joint`` lifetimes),
    whether it may be recomputed and its in-place hint."""
    reads = _reads(op, tensors)
    outs = [tensors.of(r) for r in op.results if isinstance(r.type, TensorType)]
    extra = 0
    if op.regions:
        assert joint is not None
        extra = _inner_peak(op, joint)
    kind = op.kind.data.lower() if isinstance(op, ComputeOp) else op.name
    recomputable = (isinstance(op, ComputeOp) and NO_REMAT_ATTR not in op.attributes
                    and not any(b in kind for b in BLACKLIST))
    cost = float(op_macs(op)) if isinstance(op, ComputeOp) else 0.0
    inplace = _inplace(op, tensors) if isinstance(op, ComputeOp) else ()
    return RematOp(_op_name(op), cost, tuple(reads), tuple(outs), extra, recomputable, inplace)


def _reads(op: Operation, tensors: _Tensors) -> list[int]:
    """The tensors ``op`` reads, once each in the order met: through views, and every value
    from outside that its regions use."""
    reads: list[int] = []
    for v in _outside_operands(op):
        if isinstance(v.type, TensorType):
            t = tensors.of(view_root(v))
            if t not in reads:
                reads.append(t)
    return reads


def _inplace(op: ComputeOp, tensors: _Tensors) -> tuple[int, ...]:
    """The op's ``inplace`` hint as the graph's: per result, the tensor of the operand it may
    overwrite — an on-chip tensor itself, not a view of one (-1 otherwise); empty when none."""
    taken = []
    for idx in op.inplace_indices():
        v = op.inputs[idx] if idx >= 0 else None
        t = tensors.index.get(v, -1) if v is not None and view_root(v) is v else -1
        taken.append(t if t >= 0 and tensors.sizes[t] > 0 else -1)
    return tuple(taken) if any(t >= 0 for t in taken) else ()


def _op_name(op: Operation) -> str:
    if op.results and op.results[0].name_hint:
        return f"%{op.results[0].name_hint}"
    return op.name


def captured_uses(op: Operation) -> list[tuple[Operation, int, SSAValue]]:
    """Every (op inside ``op``'s regions, operand index, value) reading a value defined outside."""
    if not op.regions:
        return []
    inside: set[SSAValue] = set()
    for inner in walk(op):
        inside.update(inner.results)
        for r in inner.regions:
            for b in r.blocks:
                inside.update(b.args)
    return [(inner, i, v) for inner in walk(op) if inner is not op
            for i, v in enumerate(inner.operands) if v not in inside]


def _outside_operands(op: Operation) -> list[SSAValue]:
    """Operands of ``op`` and every value its regions use that is defined outside it."""
    return list(op.operands) + [v for _, _, v in captured_uses(op)]


def _inner_peak(op: Operation, joint: FunctionLifetimes) -> int:
    """Peak bytes of the buffers that begin inside ``op``'s regions (its results excluded)."""
    lo, hi = joint.numbering.begin[op], joint.numbering.end[op]
    inner = [b for b, owner in zip(joint.problem.buffers, joint.owner)
             if lo < b.start <= hi and owner not in op.results]
    if not inner:
        return 0
    _, live = nested_live_profile(Problem.of(inner))
    return int(live.max()) if len(live) else 0


__all__ = ["BLACKLIST", "NO_REMAT_ATTR", "Traced", "captured_uses", "remat_graph", "view_root"]
