"""On-chip placement of the DMA staging buffers, after the arena, and the on-chip capacity check.

The one owner of both: ``insert-dma`` and ``plan-memory`` each call :func:`place_dma_buffers`
(whichever runs second finds both the plan and the buffers), which places the buffers, checks
the on-chip total against the capacity and records the placement; ``insert-dma`` sizes its
schedule with :func:`onchip_total`, the same arithmetic. The placement is written by the plan's
writer (:func:`memopt.passes.plan_io.write_staging`) and read back through the plan readers
(:func:`memopt.passes.plan_io.read_staging`, :mod:`memopt.dialects.written_plan`), never
encoded or decoded here.

Why after the arena: the ping-pong buffers are live for the whole program (every Region of every
function reuses them), while the arena is planned per function; putting them behind the largest
arena keeps the arena plan untouched, so ``insert-dma`` and ``plan-memory`` can run in either
order. The placement is recorded as discardable attributes:

* ``memopt.onchip_offset = K : i64`` on every ``memopt.dma_buffer`` — its on-chip byte offset;
* ``memopt.onchip_size = N : i64`` on the module — total on-chip bytes, the largest arena plus
  the DMA buffers;
* ``memopt.capacity = C : i64`` on the module — the on-chip capacity ``insert-dma`` was given
  (its ``capacity`` or its target's), which ``plan-memory`` run afterwards must respect too.

:func:`place_dma_buffers` does nothing before the module is planned or while it has no DMA
buffers; :func:`check_dma_layout` is ``verify-plan``'s re-check of it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import DmaBufferOp, DmaStartOp
from memopt.dialects.written_plan import is_planned, read_written_plan, recorded_capacity
from memopt.passes.plan_io import staging_unplaced, write_capacity, write_staging
from memopt.planning import align_up
from memopt.planning.function_plan import Staging



def record_capacity(module: ModuleOp, capacity: int | None) -> None:
    """Record the on-chip capacity a schedule was made for (the smallest one given wins)."""
    if capacity is None:
        return
    known = recorded_capacity(module)
    write_capacity(module, capacity if known is None else min(known, capacity))


def dma_buffers(module: Operation) -> list[DmaBufferOp]:
    return [op for op in walk(module) if isinstance(op, DmaBufferOp)]


def planned_arenas(module: Operation) -> list[tuple[func.FuncOp, int]]:
    """Every planned function of ``module`` with its recorded arena size."""
    out = []
    for op in walk(module):
        if isinstance(op, func.FuncOp) and is_planned(op):
            out.append((op, read_written_plan(op, module).arena_size))
    return out


def layout_after_arena(arena: int, sizes: list[int], alignment: int) -> tuple[list[int], int]:
    """On-chip offsets of buffers of ``sizes`` placed in order after an arena of ``arena``
    bytes, each ``alignment``-aligned, and the total on-chip bytes."""
    offsets: list[int] = []
    end = arena
    for s in sizes:
        off = align_up(end, alignment)
        offsets.append(off)
        end = off + s
    return offsets, end


def onchip_total(arena: int, sizes: list[int], alignment: int) -> int:
    """Total on-chip bytes of an arena and the DMA buffers (negative size = no such buffer)."""
    return layout_after_arena(arena, [s for s in sizes if s >= 0], alignment)[1]


TAG_BYTES = 4
"""Bytes of one transfer tag (upstream IR: an ``i32`` per ``memref.dma_start`` of a function)."""


def staging_need(arena: int, sizes: list[int], alignment: int, tags: int = 0) -> int:
    """On-chip bytes of an arena and the staging buffers after it (negative size = no such
    buffer), and on upstream IR the tag buffer of ``tags`` transfers after them: what a
    schedule is checked against the capacity with before any buffer exists."""
    return onchip_total(arena, sizes + ([TAG_BYTES * tags] if tags else []), alignment)


def place_dma_buffers(module: ModuleOp, alignment: int = 16, capacity: int | None = None,
                      arenas: list[int] | None = None) -> int | None:
    """Give every DMA buffer an on-chip offset after the largest arena, check the total against
    ``capacity`` and record it.

    ``arenas``: the planned arenas' bytes when the caller knows them (else read from the plan).
    Does nothing (returns None) before the module is planned or when it has no DMA buffers.
    Returns the total on-chip bytes otherwise; over ``capacity`` is a located error.
    """
    bufs = dma_buffers(module)
    if not bufs:
        return None
    if arenas is None:
        arenas = [a for _, a in planned_arenas(module)]
    if not arenas:
        return None
    offsets, end = layout_after_arena(max(arenas), [b.size.value.data for b in bufs], alignment)
    write_staging(module, list(zip(bufs, offsets)), end)
    if capacity is not None and end > capacity:
        raise MemoptError(
            f"on-chip memory needs {end} bytes (arena plus DMA buffers), over capacity {capacity}", module
        )
    return end


def check_dma_layout(module: ModuleOp, arenas: list[tuple[func.FuncOp, int]], staging: Sequence[Staging],
                     total: int | None) -> None:
    """Re-check the placement as the plan reader reads it (``staging`` and ``total``:
    :func:`memopt.passes.plan_io.read_staging`; ``arenas``: each planned function with its
    recorded arena size): every DMA buffer has an offset past every arena, buffers do not
    overlap each other, and the module's total covers them all."""
    bufs = dma_buffers(module)
    used = {op.dst.root_reference.data for op in walk(module) if isinstance(op, DmaStartOp)}
    if not bufs and not used:
        return
    if not arenas:
        return  # verify-plan reports the missing plan itself
    top = max(a for _, a in arenas)
    offset_of = {s.name: s.offset for s in staging}
    placed: list[tuple[int, int, DmaBufferOp]] = []
    for b in bufs:
        off = offset_of.get(b.sym_name.data)
        if off is None:
            raise staging_unplaced(b)
        size = b.size.value.data
        if off < top:
            owner = max(arenas, key=lambda fa: fa[1])[0]
            raise MemoptError(
                f"invalid plan: DMA buffer @{b.sym_name.data} at on-chip offset {off} overlaps the arena "
                f"of '@{owner.sym_name.data}' ({top} bytes)", b,
            )
        for o2, s2, b2 in placed:
            if off < o2 + s2 and o2 < off + size and size and s2:
                raise MemoptError(
                    f"invalid plan: DMA buffers @{b2.sym_name.data} [{o2}, {o2 + s2}) and "
                    f"@{b.sym_name.data} [{off}, {off + size}) overlap", b,
                )
        placed.append((off, size, b))
    if not placed:
        return
    if total is None:
        raise staging_unplaced(module)
    capacity = recorded_capacity(module)
    if capacity is not None and total > capacity:
        raise MemoptError(f"invalid plan: on-chip memory needs {total} bytes (arena plus DMA buffers), over the "
                          f"capacity {capacity} recorded by insert-dma", module)
    for off, size, b in placed:
        if off + size > total:
            raise MemoptError(
                f"invalid plan: DMA buffer @{b.sym_name.data} [{off}, {off + size}) exceeds the "
                f"on-chip size {total}", b,
            )


__all__ = [
    "record_capacity", "check_dma_layout", "dma_buffers", "layout_after_arena",
    "onchip_total", "place_dma_buffers", "staging_need", "TAG_BYTES",
    "planned_arenas",
]
