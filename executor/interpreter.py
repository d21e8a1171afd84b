"""Run a memopt-dialect function for real, with numpy, in a given memory model.

Each value is bound to a flat ``uint8`` array: storage the memory model hands out for values
that ops write, a slice of its source for views (views alias), a read-only slice of the
off-chip store for weights, a DMA buffer slice for ``dma_wait`` results. Control flow runs for
real: ``memopt.if`` takes the branch its condition's first element selects (for ``i1`` its low
bit), ``memopt.loop`` runs ``trip_count`` times with its carried values in their slots. A
``memopt.yield`` reads all its values before any destination is written, so a yield that swaps
two loop-carried values, or yields a view of a slot into another slot, is a parallel copy.

An :class:`Observer` sees every value when it is produced and every operand when it is read;
that is how :mod:`memopt.executor.check` compares planned against unplanned execution at the
moment each byte matters, not at the end (a planned tensor may legitimately be overwritten
after its last use).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType
from xdsl.ir import Block, Operation, SSAValue

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import (
    ComputeOp, CopyOp, DmaBufferOp, DmaStartOp, DmaWaitOp, GetGlobalOp, GlobalOp, IfOp, LoopOp, ViewOp,
    IDENT_ATTR, REMAT_ATTR, YieldOp, byte_size,
)

from . import kernels
from .data import global_bytes, input_bytes, tensor_info
from .liveness import Releases, releases
from .memory import Transfer, value_name


class Observer:
    """Hooks called during execution (no-ops here)."""

    def on_produce(self, value: SSAValue, data: np.ndarray) -> None:
        """``value`` now holds ``data`` (called after the producing op wrote all its results)."""

    def on_read(self, value: SSAValue, data: np.ndarray, user: Operation) -> None:
        """``user`` is about to read ``value``, whose storage now holds ``data``."""


@dataclass
class Execution:
    """The returned tensors of one run (bytes copies, in return order)."""

    func: func.FuncOp
    outputs: list[np.ndarray]
    types: list


def _inplace_hint(op: Operation) -> tuple[int, ...]:
    """A compute op's ``inplace`` hint (the only ones the planner grants), per result the input it
    may be written over (-1: none) — the IR's promise that it may write over that input as it
    reads it: its stand-in keeps it."""
    return op.inplace_indices() if isinstance(op, ComputeOp) else ()


def _span(a: np.ndarray) -> tuple[int, int] | None:
    """The address range of a contiguous array's bytes (None: not contiguous)."""
    if not a.flags.c_contiguous:
        return None
    start = a.__array_interface__["data"][0]
    return start, start + a.nbytes


def _overlap(a: tuple[int, int] | None, b: tuple[int, int] | None) -> tuple[int, int] | None:
    if a is None or b is None:
        return None
    lo, hi = max(a[0], b[0]), min(a[1], b[1])
    return (lo, hi) if lo < hi else None


def op_identities(f: func.FuncOp) -> dict[Operation, int]:
    """The identity each op's pseudo-kernel is seeded with: its position among the function's
    ops (views, get_globals, copies and DMA ops aside: they move bytes and compute none, and a
    spill's copies must not shift the identities of the ops after them). A recomputation (``memopt.remat = K``) takes the
    identity ``K`` of the op it copies and is not counted, so a rewritten program computes the
    same bytes as the original — what ``memopt-run --against`` compares. An op a rewrite cut or
    moved (``memopt.ident = K``, the ``tile`` pass) takes identity ``K`` and the ops after it are
    numbered from ``K + 1``, as they were before the rewrite."""
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


def find_function(module: ModuleOp, name: str | None = None) -> func.FuncOp:
    """The function to run: ``name``, else ``@main``, else the first function with a body."""
    funcs = [op for op in walk(module) if isinstance(op, func.FuncOp) and op.body.blocks]
    if name is not None:
        for f in funcs:
            if f.sym_name.data == name:
                return f
        raise MemoptError(f"no function '@{name}' with a body in the module")
    for f in funcs:
        if f.sym_name.data == "main":
            return f
    if not funcs:
        raise MemoptError("the module has no function with a body to run")
    return funcs[0]


def global_store(module: ModuleOp) -> dict[str, np.ndarray]:
    """Off-chip memory: the (read-only) bytes of every ``memopt.global``."""
    store = {}
    for op in walk(module):
        if isinstance(op, GlobalOp):
            data = global_bytes(op.sym_name.data, op.type, op.value)
            data.flags.writeable = False
            store[op.sym_name.data] = data
    return store


class Interpreter:
    """Executes one function in one memory model (``Unplanned`` or ``Planned``)."""

    def __init__(self, module: ModuleOp, memory, observer: Observer | None = None, seed: int = 0,
                 branches: dict[Operation, bool] | None = None):
        """``branches``: ``if`` ops whose branch is forced (True: then) instead of chosen by
        their condition, to prove a plan on paths the generated inputs do not select; every
        ``if`` the run reaches is recorded in :attr:`reached` (first-reach order)."""
        self.branches = branches or {}
        self.reached: list[Operation] = []
        self.taken: dict[Operation, bool] = {}
        self.decisions: list[tuple[Operation, bool]] = []
        self.module = module
        self.memory = memory
        self.observer = observer or Observer()
        self.seed = seed
        self.store = global_store(module)
        self.env: dict[SSAValue, np.ndarray | Transfer | None] = {}  # None: not a tensor
        self.ident: dict[Operation, int] = {}
        self.releases = Releases({}, {})

    # ------------------------------------------------------------------ entry

    def run(self, f: func.FuncOp) -> Execution:
        self.ident = op_identities(f)
        self.releases = releases(f)
        self.env = {}
        block = f.body.blocks[0]
        args = []
        for i, a in enumerate(block.args):
            if not isinstance(a.type, TensorType):
                self.env[a] = None
                continue
            dst = self.memory.arg(i, a)
            dst[:] = input_bytes(i, a.name_hint or "", a.type, self.seed)
            self.env[a] = dst
            args.append((a, dst))
        for a, dst in args:
            self.observer.on_produce(a, dst)
        outs = self.run_block(block)
        ret = block.last_op
        types = list(ret.operand_types) if isinstance(ret, func.ReturnOp) else []
        return Execution(f, outs, types)

    # ------------------------------------------------------------------ blocks

    def read(self, value: SSAValue, user: Operation) -> np.ndarray:
        if value not in self.env:  # xDSL does not check dominance
            raise MemoptError(f"value '{value_name(value)}' is used before it is defined", user)
        data = self.env[value]
        if not isinstance(data, np.ndarray):
            raise MemoptError(f"cannot execute a use of non-tensor value '{value_name(value)}'", user)
        self.observer.on_read(value, data, user)
        return data

    def read_all(self, values, user: Operation) -> list[np.ndarray]:
        """Copies of all ``values``, read before anything is written (parallel-copy semantics)."""
        return [self.read(v, user).copy() for v in values]

    def run_block(self, block: Block) -> list[np.ndarray]:
        """Run ``block``; return copies of what its terminator yields/returns. Each value is
        dropped after its last read (:mod:`.liveness`): an unplanned run holds only what is
        alive, not every value it ever wrote."""
        self.release(self.releases.unread.get(block, ()))
        for op in block.ops:
            if isinstance(op, (YieldOp, func.ReturnOp)):
                out = self.read_all(op.operands, op)
                self.release(self.releases.after.get(op, ()))
                return out
            self.exec_op(op)
            self.release(self.releases.after.get(op, ()))
        return []

    def holding(self, value: SSAValue) -> np.ndarray:
        """What ``value``'s storage holds now, unobserved: a kernel writing over its inputs
        recomputes from them as they are (``value``: an input the op has read)."""
        data = self.env[value]
        assert isinstance(data, np.ndarray)
        return data

    def produce(self, value: SSAValue, data: np.ndarray) -> None:
        """Bind ``value`` to ``data`` (storage it now holds), seen by the observer."""
        self.env[value] = data
        self.observer.on_produce(value, data)

    def release(self, values) -> None:
        for v in values:
            self.env.pop(v, None)

    def bind(self, op: Operation, datas: list[np.ndarray], values) -> None:
        """Write ``datas`` into fresh storage for ``op``'s results and bind them to ``values``."""
        dsts = []
        for k, data in enumerate(datas):
            dst = self.memory.result(op, k)
            dst[:] = data
            dsts.append(dst)
        for v, dst in zip(values, dsts):
            self.env[v] = dst
        for v, dst in zip(values, dsts):
            self.observer.on_produce(v, dst)

    # ------------------------------------------------------------------ ops

    def exec_op(self, op: Operation) -> None:
        if isinstance(op, GetGlobalOp):
            self.produce(op.result, self.store[op.global_name.root_reference.data])
        elif isinstance(op, ViewOp):
            src = self.read(op.source, op)
            off = op.offset.value.data
            self.produce(op.result, src[off : off + byte_size(op.result.type)])
        elif isinstance(op, ComputeOp):
            self.exec_compute(op, op.kind.data)
        elif isinstance(op, CopyOp):
            # A spill (to an off-chip memory's arena) or a reload (to the on-chip arena): the
            # bytes move, the value does not change.
            src = self.read(op.input, op)
            dst = self.memory.result(op, 0)
            if np.shares_memory(dst, src):
                src = src.copy()
            dst[:] = src
            self.env[op.result] = dst
            self.observer.on_produce(op.result, dst)
        elif isinstance(op, DmaStartOp):
            self.env[op.token] = self.memory.dma_start(op, self.store[op.src.root_reference.data])
        elif isinstance(op, DmaWaitOp):
            t = self.env.get(op.token)
            if t is None:
                raise MemoptError("dma_wait on a transfer that was never started", op)
            self.produce(op.result, self.memory.dma_wait(op, t))
        elif isinstance(op, IfOp):
            cond = self.read(op.cond, op)
            if op not in self.reached:
                self.reached.append(op)
            then = self.branches[op] if op in self.branches else truth(cond, op.cond.type)
            self.taken.setdefault(op, then)
            self.decisions.append((op, then))
            taken = op.then_region if then else op.else_region
            datas = self.run_block(taken.blocks[0]) if taken.blocks else []
            self.bind(op, datas, op.results)
        elif isinstance(op, LoopOp):
            current = self.read_all(op.init, op)
            body = op.body.blocks[0]
            for _ in range(op.trip_count.value.data):
                self.bind(op, current, body.args)
                current = self.run_block(body)
            self.bind(op, current, op.results)
        elif isinstance(op, (GlobalOp, DmaBufferOp)):
            pass
        elif op.regions:
            raise MemoptError(f"cannot execute operation '{op.name}' (unknown op with regions)", op)
        else:
            self.exec_compute(op, op.name)

    IN_ORDER_CHUNKS = 8

    def _write_in_order(self, op, kind, ins, in_infos, out_infos, r, dst: np.ndarray, attrs) -> None:
        """Write result ``r`` into ``dst`` (which overlaps an input's storage) in
        :attr:`IN_ORDER_CHUNKS` element-aligned chunks, recomputing from the current input bytes
        before each: exact for element-wise kernels, wrong — and so caught by ``--check`` — for a
        kernel whose output element reads other input elements (LRN, softmax ...)."""
        k = [x.index for x in op.results if isinstance(x.type, TensorType)].index(r.index)
        info = out_infos[k]
        width = info.nbytes // max(info.count, 1) or 1
        n = max(info.count, 1)
        bounds = [width * (n * c // self.IN_ORDER_CHUNKS) for c in range(self.IN_ORDER_CHUNKS + 1)]
        for lo, hi in zip(bounds, bounds[1:]):
            if lo == hi:
                continue
            now = [self.holding(v).copy() for v in ins]
            out = kernels.compute(kind, self.ident[op], now, in_infos, out_infos, attrs, _inplace_hint(op))[k]
            dst[lo:hi] = out[lo:hi]

    @staticmethod
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

    def exec_compute(self, op: Operation, kind: str) -> None:
        """A compute op, or any unknown op without regions (treated as an opaque compute)."""
        ins = [v for v in op.operands if isinstance(v.type, TensorType)]
        datas = [self.read(v, op) for v in ins]
        in_infos = [tensor_info(v.type) for v in ins]
        res = [r for r in op.results if isinstance(r.type, TensorType)]
        attrs = {k: getattr(a, "value", a) for k, a in op.attributes.items()}
        if "axis" in attrs:
            attrs["axis"] = getattr(attrs["axis"], "data", attrs["axis"])
        out_infos = [tensor_info(r.type) for r in res]
        hints = _inplace_hint(op)
        outs = kernels.compute(kind, self.ident[op], datas, in_infos, out_infos, attrs, hints)
        dsts = []
        for k, (r, data) in enumerate(zip(res, outs)):
            dst = self.memory.result(op, r.index)
            if self._over_its_input(op, kind, r, dst, ins, datas, hints[k] if k < len(hints) else -1):
                # Written over its in-place input: a real kernel writes its output element by
                # element while it still reads, so emulate that — each chunk of the output is
                # computed from the inputs as they are *now* — and a kernel whose element i reads
                # more than input element i sees its own writes.
                self._write_in_order(op, kind, ins, in_infos, out_infos, r, dst, attrs)
            else:
                dst[:] = data
            dsts.append(dst)
        for r in op.results:
            if not isinstance(r.type, TensorType):
                self.env[r] = None
        for r, dst in zip(res, dsts):
            self.env[r] = dst
        for r, dst in zip(res, dsts):
            self.observer.on_produce(r, dst)


__all__ = ["Execution", "Interpreter", "Observer", "find_function", "global_store", "truth"]
