"""``memref.dma_start``/``memref.dma_wait``: transfers into staging buffers, checked.

A transfer lands at its start (the earliest it may): a plan that gives its staging bytes to a
buffer still in use is caught at that buffer's next read. Until its ``dma_wait``, reading or
writing the bytes it fills is refused (the transfer may still be writing them). The tag
element is written by the start and read by the wait, through the checked path like any other
access: a plan that lets another buffer overwrite a tag in flight is caught at the wait.
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.ir import Operation

from memopt.diagnostics import MemoptError

from .core import Compiler
from .memref_machine import Machine, where
from .memref_ops import load, store
from .memref_program import compiles
from .memref_values import Ref


def transfer_view(ref: Ref, idx: tuple, n: int, op: Operation) -> Ref:
    """The ``n`` elements of contiguous ``ref`` from ``idx`` on, as a 1-d view."""
    if not ref.contiguous():
        raise MemoptError(f"DMA on buffer '{ref.name}', which is not contiguous", op)
    flat = total = 0
    for i, d in zip(idx, ref.sizes):
        flat = flat * d + i
    total = 1
    for d in ref.sizes:
        total *= d
    if n < 0 or flat + n > total:
        raise MemoptError(f"dma_start of {n} elements from element {flat} runs past buffer '{ref.name}' "
                          f"({total} elements)", op)
    return ref.derive(ref.base, ref.offset + flat, [n], [1])


def tag_key(tag: Ref, idx: tuple) -> tuple:
    return tag.storage.ident, tag.start + sum(i * s for i, s in zip(idx, tag.strides)) * tag.elem.itemsize


@compiles("memref.dma_start")
def dma_start(c: Compiler, op: Operation):
    assert isinstance(op, memref.DmaStartOp)  # registered under its name (memopt's parsed form subclasses it)
    src, dst, tag, num = c.slot(op.src), c.slot(op.dest), c.slot(op.tag), c.slot(op.num_elements)
    src_idx, dst_idx, tag_idx = c.slots_of(op.src_indices), c.slots_of(op.dest_indices), c.slots_of(op.tag_indices)

    def step(m: Machine, frame, op=op):
        n = int(frame[num])
        a = transfer_view(frame[src], tuple(int(frame[s]) for s in src_idx), n, op)
        b = transfer_view(frame[dst], tuple(int(frame[s]) for s in dst_idx), n, op)
        if a.elem.itemsize != b.elem.itemsize:
            raise MemoptError("dma_start between element types of different sizes", op)
        m.write(b, m.read(a, op), op)
        t = tuple(int(frame[s]) for s in tag_idx)
        key = tag_key(frame[tag], t)
        if key in m.pending:
            raise MemoptError("dma_start reuses a tag whose transfer was not waited for", op)
        store(m, frame[tag], t, n, op)
        m.pending[key] = (b, op)
    return step


@compiles("memref.dma_wait")
def dma_wait(c: Compiler, op: Operation):
    assert isinstance(op, memref.DmaWaitOp)  # registered under its name (memopt's parsed form subclasses it)
    tag, tag_idx = c.slot(op.tag), c.slots_of(op.tag_indices)

    def step(m: Machine, frame, op=op):
        t = tuple(int(frame[s]) for s in tag_idx)
        key = tag_key(frame[tag], t)
        if m.pending.pop(key, None) is None:
            raise MemoptError("dma_wait on a tag with no transfer in flight", op)
        load(m, frame[tag], t, op)
    return step


def never_waited(m: Machine) -> None:
    """Refuse a run that ends with a transfer in flight."""
    if m.pending:
        _, start = next(iter(m.pending.values()))
        raise MemoptError(f"a DMA transfer (started at {where(start)}) is never waited for", start)


__all__ = ["never_waited"]
