"""The memopt dialect's op table: how each op compiles into a step of the interpreter core (:mod:`.core`).

A step runs on :class:`.interpreter.Interpreter`, whose frame binds each value to a flat
``uint8`` array: storage the memory model hands out for values that ops write, a slice of its
source for views (views alias), a read-only slice of the off-chip store for weights, a DMA
buffer slice for ``dma_wait`` results. Control flow runs for real: ``memopt.if`` takes the
branch its condition's first element selects (for ``i1`` its low bit), ``memopt.loop`` runs
``trip_count`` times with its carried values in their slots. A compute op runs its stand-in
kernel (:mod:`.kernels`), and keeps its ``inplace`` promise: a result planned over an input is
written while the input is read; a result planned over an input it does not promise to take in
place is a plan error. An unknown op without regions is an opaque compute.

Everything a step needs from the IR is worked out when it compiles; everything that can fail is
left to the step, so a run raises the errors it raises in the order its ops run. A step also
drops the values its op read last (:mod:`.liveness`).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, TensorType
from xdsl.ir import Block, Operation

from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import (
    ComputeOp, CopyOp, DmaBufferOp, DmaStartOp, DmaWaitOp, GetGlobalOp, GlobalOp, IDENT_ATTR, IfOp, LoopOp,
    REMAT_ATTR, ViewOp, byte_size,
)
from memopt.dialects.walk import walk

from . import kernels
from .core import Compiler, Semantics, Step, failing
from .data import tensor_info
from .liveness import Releases, releases
from .memory import address, value_name

TERMINATORS = frozenset({"memopt.yield", "func.return"})


def op_identities(f) -> dict[Operation, int]:
    """The identity each op's pseudo-kernel is seeded with: its position among the function's
    ops (views, get_globals, copies and DMA ops aside: they move bytes and compute none, and a
    spill's copies must not shift the identities of the ops after them). A recomputation
    (``memopt.remat = K``) takes the identity ``K`` of the op it copies and is not counted, so a
    rewritten program computes the same bytes as the original — what ``memopt-run --against``
    compares. An op a rewrite cut or moved (``memopt.ident = K``, the ``tile`` pass) takes
    identity ``K`` and the ops after it are numbered from ``K + 1``, as they were before the
    rewrite."""
    ident: dict[Operation, int] = {}
    n = 0
    for op in walk(f.body):
        if op is f or isinstance(op, (GetGlobalOp, ViewOp, CopyOp, DmaStartOp, DmaWaitOp)):
            continue
        k = op.attributes.get(IDENT_ATTR)
        if isinstance(k, IntegerAttr):
            ident[op] = k.value.data
            n = k.value.data + 1
            continue
        k = op.attributes.get(REMAT_ATTR)
        if isinstance(k, IntegerAttr):
            ident[op] = k.value.data
            continue
        ident[op] = n
        n += 1
    return ident


def truth(data: np.ndarray, t) -> bool:
    """Truth value of a condition tensor: its first element (for ``i1``, the low bit)."""
    info = tensor_info(t)
    if info.count == 0:
        return False
    first = data[: info.kind.itemsize]
    if info.kind.family == "bool":
        return bool(first[0] & 1)
    if info.kind.dtype is not None:
        return bool(np.frombuffer(first.tobytes(), dtype=info.kind.dtype)[0] != 0)
    return bool(first.any())


UNDEFINED = object()
"""What a frame's slot holds before its value is defined and once it is dropped (a non-tensor
value is bound to None)."""


def slot(c: Compiler, v) -> int:
    """``v``'s slot; a value not of the function (IR that breaks dominance) gets the frame's
    last slot, which is never bound: reading it is a use before the definition."""
    return c.slots.get(v, c.size)


def slots(c: Compiler, vs) -> tuple[int, ...]:
    return tuple(slot(c, v) for v in vs)


def _releases(c: Compiler) -> Releases:
    return c.program.fact(("releases", id(c.func)), lambda: releases(c.func))


class Body:
    """A block compiled, with the values it drops: its arguments nothing reads (once they are
    bound) and the values its terminator reads last (once it read them)."""

    __slots__ = ("code", "unread", "values", "after_term")

    def __init__(self, c: Compiler, block: Block):
        found = _releases(c)
        self.code = code = c.code(block)
        self.unread = slots(c, found.unread.get(block, ()))
        self.values = tuple(code.term.operands) if code.term is not None else ()
        self.after_term = slots(c, found.after.get(code.term, ())) if code.term is not None else ()


# ---------------------------------------------------------------------- values that move no bytes

def get_global(c: Compiler, op: GetGlobalOp) -> Step:
    name, r = op.global_name.root_reference.data, slot(c, op.result)

    def step(m, frame):
        m.produce(frame, r, op.result, m.store[name])
    return step


def view(c: Compiler, op: ViewOp) -> Step:
    src, r = slot(c, op.source), slot(c, op.result)

    def step(m, frame):
        data = m.read(frame, src, op.source, op)
        off = op.offset.value.data
        m.produce(frame, r, op.result, data[off : off + byte_size(op.result.type)])
    return step


def copy(c: Compiler, op: CopyOp) -> Step:
    """A spill (to an off-chip memory's arena) or a reload (to the on-chip arena): the bytes
    move, the value does not change."""
    src, r = slot(c, op.input), slot(c, op.result)

    def step(m, frame):
        data = m.read(frame, src, op.input, op)
        dst = m.memory.result(op, 0)
        if np.shares_memory(dst, data):
            data = data.copy()
        dst[:] = data
        m.produce(frame, r, op.result, dst)
    return step


def dma_start(c: Compiler, op: DmaStartOp) -> Step:
    name, token = op.src.root_reference.data, slot(c, op.token)

    def step(m, frame):
        frame[token] = m.memory.dma_start(op, m.store[name])
    return step


def dma_wait(c: Compiler, op: DmaWaitOp) -> Step:
    token, r = slot(c, op.token), slot(c, op.result)

    def step(m, frame):
        t = frame[token]
        if t is None or t is UNDEFINED:
            raise MemoptError("dma_wait on a transfer that was never started", op)
        m.produce(frame, r, op.result, m.memory.dma_wait(op, t))
    return step


# ---------------------------------------------------------------------- control flow

def if_op(c: Compiler, op: IfOp) -> Step:
    cond = slot(c, op.cond)
    then = Body(c, op.then_region.blocks[0]) if op.then_region.blocks else None
    other = Body(c, op.else_region.blocks[0]) if op.else_region.blocks else None
    results = slots(c, op.results)

    def step(m, frame):
        data = m.read(frame, cond, op.cond, op)
        taken = m.branch(op, truth(data, op.cond.type))  # a forced if goes the forced way
        body = then if taken else other
        datas = m.run_body(body, frame) if body is not None else []
        m.bind(frame, op, datas, op.results, results)
    return step


def loop(c: Compiler, op: LoopOp) -> Step:
    init, block = slots(c, op.init), op.body.blocks[0]
    body, results, trips = Body(c, block), slots(c, op.results), op.trip_count.value.data

    def step(m, frame):
        current = m.read_all(frame, init, op.init, op)
        for _ in range(trips):
            m.bind(frame, op, current, block.args, body.code.args)
            current = m.run_body(body, frame)
        m.bind(frame, op, current, op.results, results)
    return step


# ---------------------------------------------------------------------- compute

def _inplace_hint(op: Operation) -> tuple[int, ...]:
    """A compute op's ``inplace`` hint (the only ones the planner grants), per result the input it
    may be written over (-1: none) — the IR's promise that it may write over that input as it
    reads it: its stand-in keeps it."""
    return op.inplace_indices() if isinstance(op, ComputeOp) else ()


def _span(a: np.ndarray) -> tuple[int, int] | None:
    """The address range of a contiguous array's bytes (None: not contiguous)."""
    if not a.flags.c_contiguous:
        return None
    start = address(a)
    return start, start + a.nbytes


def _overlap(a: tuple[int, int] | None, b: tuple[int, int] | None) -> tuple[int, int] | None:
    if a is None or b is None:
        return None
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    return (lo, hi) if lo < hi else None


def _over_its_input(op, kind, r, dst: np.ndarray, ins, datas, hint: int) -> bool:
    """Whether result ``r``'s storage ``dst`` overlaps an input — allowed only over the bytes of
    the input its ``inplace`` hint names, whichever operand reads them (a view of it, say).
    Anything else is a plan error whatever the kernel computes: without the hint a kernel may
    write its result (an accumulator's zeros, a scratch pass) before it reads that input."""
    promised = _span(datas[hint]) if 0 <= hint < len(datas) else None
    over = False
    for v, d in zip(ins, datas):
        if not np.shares_memory(dst, d):
            continue
        over = True
        if promised is not None:
            shared = _overlap(_span(dst), _span(d))
            if shared is not None and promised[0] <= shared[0] and shared[1] <= promised[1]:
                continue
        raise MemoptError(
            f"result '{value_name(r)}' is planned over input '{value_name(v)}', which '{kind}' does not "
            f"take in place (no inplace hint for it): a kernel may write its result before it reads that input",
            op,
        )
    return over


IN_ORDER_CHUNKS = 8


class _Kernel:
    """One compute op's stand-in, worked out from the IR once: its kind, identity, tensor
    operands and results, attributes and ``inplace`` hint."""

    def __init__(self, c: Compiler, op: Operation, kind: str, ident: int):
        self.op, self.kind, self.ident = op, kind, ident
        self.ins = [v for v in op.operands if isinstance(v.type, TensorType)]
        self.in_slots = slots(c, self.ins)
        self.res = [r for r in op.results if isinstance(r.type, TensorType)]
        self.res_slots = slots(c, self.res)
        self.other_slots = slots(c, [r for r in op.results if not isinstance(r.type, TensorType)])
        attrs = {k: getattr(a, "value", a) for k, a in op.attributes.items()}
        if "axis" in attrs:
            attrs["axis"] = getattr(attrs["axis"], "data", attrs["axis"])
        self.attrs, self.hints = attrs, _inplace_hint(op)

    def __call__(self, m, frame) -> None:
        op, ins = self.op, self.ins
        datas = [m.read(frame, s, v, op) for s, v in zip(self.in_slots, ins)]
        in_infos = [tensor_info(v.type) for v in ins]
        out_infos = [tensor_info(r.type) for r in self.res]
        outs = kernels.compute(self.kind, self.ident, datas, in_infos, out_infos, self.attrs, self.hints)
        dsts = []
        for k, (r, data) in enumerate(zip(self.res, outs)):
            dst = m.memory.result(op, r.index)
            if _over_its_input(op, self.kind, r, dst, ins, datas, self.hints[k] if k < len(self.hints) else -1):
                # Written over its in-place input: a real kernel writes its output element by
                # element while it still reads, so emulate that — each chunk of the output is
                # computed from the inputs as they are *now* — and a kernel whose element i reads
                # more than input element i sees its own writes.
                self._write_in_order(m, frame, in_infos, out_infos, k, dst)
            else:
                dst[:] = data
            dsts.append(dst)
        for s in self.other_slots:
            frame[s] = None
        for s, dst in zip(self.res_slots, dsts):
            frame[s] = dst
        for r, dst in zip(self.res, dsts):
            m.observer.on_produce(r, dst)

    def _write_in_order(self, m, frame, in_infos, out_infos, k: int, dst: np.ndarray) -> None:
        """Write result ``k`` into ``dst`` (which overlaps an input's storage) in
        :data:`IN_ORDER_CHUNKS` element-aligned chunks, recomputing from the current input bytes
        before each: exact for element-wise kernels, wrong — and so caught by ``--check`` — for a
        kernel whose output element reads other input elements (LRN, softmax ...)."""
        info = out_infos[k]
        width = info.nbytes // max(info.count, 1) or 1
        n = max(info.count, 1)
        bounds = [width * (n * c // IN_ORDER_CHUNKS) for c in range(IN_ORDER_CHUNKS + 1)]
        for lo, hi in zip(bounds, bounds[1:]):
            if lo == hi:
                continue
            now = [m.holding(frame, s).copy() for s in self.in_slots]
            out = kernels.compute(self.kind, self.ident, now, in_infos, out_infos, self.attrs, self.hints)[k]
            dst[lo:hi] = out[lo:hi]


def compute(c: Compiler, op: Operation, kind: str) -> Step:
    """A compute op, or any unknown op without regions (treated as an opaque compute)."""
    ident = c.program.fact(("ident", id(c.func)), lambda: op_identities(c.func))
    return _Kernel(c, op, kind, ident[op])


def nothing(m, frame) -> None:
    """``memopt.global`` and ``memopt.dma_buffer``: declarations, nothing to run."""


def _compile(c: Compiler, op: Operation) -> Step:
    if isinstance(op, GetGlobalOp):
        return get_global(c, op)
    if isinstance(op, ViewOp):
        return view(c, op)
    if isinstance(op, ComputeOp):
        return compute(c, op, op.kind.data)
    if isinstance(op, CopyOp):
        return copy(c, op)
    if isinstance(op, DmaStartOp):
        return dma_start(c, op)
    if isinstance(op, DmaWaitOp):
        return dma_wait(c, op)
    if isinstance(op, IfOp):
        return if_op(c, op)
    if isinstance(op, LoopOp):
        return loop(c, op)
    if isinstance(op, (GlobalOp, DmaBufferOp)):
        return nothing
    if op.regions:
        return failing(MemoptError(f"cannot execute operation '{op.name}' (unknown op with regions)", op))
    return compute(c, op, op.name)


def compile_op(c: Compiler, op: Operation) -> Step:
    """``op``'s step, which then drops the values ``op`` read last. Anything that fails while
    compiling fails when the step runs instead: in run order, as it would executing the IR."""
    try:
        step = _compile(c, op)
    except Exception as e:  # noqa: BLE001 - raised in run order, when the op runs
        step = failing(e)
    drop = _releases(c).after.get(op)
    if not drop:
        return step
    dropped = slots(c, drop)

    def step_and_drop(m, frame):
        step(m, frame)
        m.release(frame, dropped)
    return step_and_drop


MEMOPT = Semantics(TERMINATORS, compile_op)
"""The memopt dialect's semantics, for :class:`.core.Program`."""

__all__ = ["IN_ORDER_CHUNKS", "MEMOPT", "UNDEFINED", "Body", "compile_op", "op_identities", "truth"]
