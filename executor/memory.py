"""Where the executor keeps tensors: every value its own array, or one planned arena.

The interpreter asks a memory model for the storage of every value an op *writes* (function
arguments, compute/unknown-op results, ``if`` results, loop-carried slots) and for the DMA
transfers; views, weights and DMA results are derived from those. Two models:

* :class:`Unplanned` -- the reference semantics: every write gets a fresh array, and a
  ``dma_wait`` returns the weight's bytes directly (DMA buffers do not exist);
* :class:`Planned` -- what the plan attributes say, as the value-level plan reader
  (:mod:`memopt.dialects.written_plan`) reads them: one ``uint8`` arena of the planned size
  (filled with garbage, so nothing can be read before it is written), every value written at its
  ``memopt.offsets`` / ``memopt.arg_offsets`` entry, loop results and the body's block arguments
  sharing a slot, and real DMA staging buffers (``memopt.dma_buffer``; each its own array, or at
  its on-chip offset when it carries a ``memopt.onchip_offset`` attribute (set by ``plan-memory``/``insert-dma``, see :mod:`memopt.passes.dma_layout`)).

The plan is read from the attributes only -- never recomputed -- so a hand-edited or broken plan
is executed exactly as written. Malformed plan attributes are located :class:`MemoptError`\\ s.

DMA timing: by default a transfer lands when ``dma_start`` runs (``dma_landing="start"``), so a
later ``dma_start`` into bytes that an earlier ``dma_wait`` result still needs overwrites them;
``dma_landing="wait"`` delays the copy to the ``dma_wait`` instead (the other end of the window
in which real hardware may write). A plan is right only if it is right for both.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError
from memopt.dialects.written_plan import is_planned, read_written_plan
from memopt.dialects.memopt import CopyOp, DmaStartOp, DmaWaitOp, GetGlobalOp, ViewOp, YieldOp, byte_size

DMA_LANDINGS = ("start", "wait")


@dataclass
class Transfer:
    """A DMA in flight: the weight bytes, and where they go (None in unplanned execution)."""

    data: np.ndarray
    dst: np.ndarray | None = None
    landed: bool = False


class Unplanned:
    """Reference semantics: every written value gets its own fresh array."""

    planned = False

    def arg(self, index: int, value: SSAValue) -> np.ndarray:
        return np.empty(byte_size(value.type), np.uint8)  # type: ignore[arg-type]

    def result(self, op: Operation, k: int) -> np.ndarray:
        return np.empty(byte_size(op.results[k].type), np.uint8)  # type: ignore[arg-type]

    def dma_start(self, op: DmaStartOp, data: np.ndarray) -> Transfer:
        return Transfer(data)

    def dma_wait(self, op: DmaWaitOp, t: Transfer) -> np.ndarray:
        return t.data.copy()


def written_ops(f: func.FuncOp) -> list[Operation]:
    """Ops whose tensor results the executor writes into fresh storage (needing an offset)."""
    out = []
    for op in walk(f.body):
        if op is f or isinstance(op, (GetGlobalOp, ViewOp, DmaWaitOp, DmaStartOp, YieldOp, func.ReturnOp)):
            continue
        if any(isinstance(r.type, TensorType) for r in op.results):
            out.append(op)
    return out


def _memory(op: Operation) -> str | None:
    """The off-chip memory an op writes its result to (a spill copy), else None (on chip)."""
    return op.memory.data if isinstance(op, CopyOp) and op.memory is not None else None


@dataclass
class Planned:
    """One arena laid out by the plan attributes of ``f`` (see module docstring)."""

    f: func.FuncOp
    module: ModuleOp
    dma_landing: str = "start"
    arena: np.ndarray = field(init=False)
    arena_size: int = field(init=False)
    offsets: dict[tuple[Operation, int], int] = field(init=False)
    arg_offsets: list[int] = field(init=False)
    dma_buffers: dict[str, np.ndarray] = field(init=False)
    memories: dict[str, np.ndarray] = field(init=False)
    """Off-chip arenas (``memopt.memories``): where spilled tensors live."""

    planned = True

    def __post_init__(self) -> None:
        if self.dma_landing not in DMA_LANDINGS:
            raise ValueError(f"unknown dma landing '{self.dma_landing}'")
        f = self.f
        plan = read_written_plan(f, self.module)
        self.arena_size = plan.arena_size
        size = self.arena_size
        # DMA staging buffers (module-level symbols), possibly inside the on-chip arena.
        placed: dict[str, tuple[int, int]] = {}
        own: dict[str, int] = {}
        for buffer, at in plan.staging():
            n = buffer.size.value.data
            if at is None:
                own[buffer.sym_name.data] = n
                continue
            placed[buffer.sym_name.data] = (at, n)
            size = max(size, at + n)
        # Garbage, not zeros: reading a byte before anyone wrote it must show.
        self.arena = np.random.default_rng(0x6D656D).integers(0, 256, size, dtype=np.uint8)
        self.dma_buffers = {s: self.arena[o : o + n] for s, (o, n) in placed.items()}
        self.dma_buffers.update(
            {s: np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8) for s, n in own.items()}
        )
        names = ValueNames(f)
        args = f.body.blocks[0].args
        self.arg_offsets = []
        if any(isinstance(a.type, TensorType) for a in args):
            self.arg_offsets = plan.arg_offsets()
            for a, off in zip(args, self.arg_offsets):
                if isinstance(a.type, TensorType):
                    self._check(off, a, f, names)
        sizes = plan.memory_sizes()
        self.memories = {m: np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8) for m, n in sizes.items()}
        self.offsets = {}
        for op in written_ops(f):
            vals = plan.result_offsets(op)
            for k, (r, off) in enumerate(zip(op.results, vals)):
                if isinstance(r.type, TensorType):
                    memory = _memory(op)
                    size = self.arena_size if memory is None else plan.memory_size(memory, op)
                    self._check(off, r, op, names, size, memory)
                    self.offsets[(op, k)] = off

    def _check(self, off: int, value: SSAValue, op: Operation, names: "ValueNames", size: int | None = None,
               memory: str | None = None) -> None:
        n = byte_size(value.type)  # type: ignore[arg-type]
        size = self.arena_size if size is None else size
        if off < 0:
            raise MemoptError(f"tensor '{names.of(value)}' has no arena offset ({off}) in a planned function", op)
        if off + n > size:
            where = f"memory '{memory}'" if memory else "the arena"
            raise MemoptError(
                f"tensor '{names.of(value)}' at [{off}, {off + n}) exceeds the size of {where} ({size})"
                if memory else f"tensor '{names.of(value)}' at [{off}, {off + n}) exceeds the arena size {size}", op
            )

    def arg(self, index: int, value: SSAValue) -> np.ndarray:
        off = self.arg_offsets[index]
        return self.arena[off : off + byte_size(value.type)]  # type: ignore[arg-type]

    def result(self, op: Operation, k: int) -> np.ndarray:
        off = self.offsets[(op, k)]
        memory = _memory(op)
        arena = self.arena if memory is None else self.memories[memory]
        return arena[off : off + byte_size(op.results[k].type)]  # type: ignore[arg-type]

    def dma_start(self, op: DmaStartOp, data: np.ndarray) -> Transfer:
        buf = self.dma_buffers.get(op.dst.root_reference.data)
        if buf is None:
            raise MemoptError(f"unknown DMA buffer {op.dst}", op)
        off = op.offset.value.data
        if off + len(data) > len(buf):
            raise MemoptError(f"DMA of {len(data)} bytes at offset {off} overflows {op.dst}", op)
        t = Transfer(data, buf[off : off + len(data)])
        if self.dma_landing == "start":
            self._land(t)
        return t

    def dma_wait(self, op: DmaWaitOp, t: Transfer) -> np.ndarray:
        if not t.landed:
            self._land(t)
        assert t.dst is not None
        return t.dst

    @staticmethod
    def _land(t: Transfer) -> None:
        assert t.dst is not None
        t.dst[:] = t.data
        t.landed = True


def address(a: np.ndarray) -> int:
    """Where ``a``'s first byte is in memory."""
    return a.__array_interface__["data"][0]


class ValueNames:
    """Printable names of a function's values (see :func:`value_name`)."""

    def __init__(self, f: func.FuncOp) -> None:
        self._index: dict[SSAValue, int] = {}
        for a in f.body.blocks[0].args:
            self._index[a] = len(self._index)
        for op in walk(f.body):
            for region in op.regions:
                for block in region.blocks:
                    for a in block.args:
                        self._index.setdefault(a, len(self._index))
            for r in op.results:
                self._index.setdefault(r, len(self._index))

    def of(self, value: SSAValue) -> str:
        return value_name(value, self._index.get(value, 0))


def value_name(value: SSAValue, index: int = 0) -> str:
    """``%name`` (``%name#k`` for result k > 0 of a multi-result op), or ``%<index>``."""
    from xdsl.ir import OpResult

    base = value.name_hint or str(index)
    if isinstance(value, OpResult) and len(value.op.results) > 1 and value.index > 0:
        return f"%{base}#{value.index}"
    return f"%{base}"


__all__ = [
    "DMA_LANDINGS", "Planned", "Transfer", "Unplanned", "ValueNames", "address", "is_planned",
    "value_name", "written_ops",
]
