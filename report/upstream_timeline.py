"""DMA timelines of an upstream (``func``/``memref``) function, as the latency model schedules it.

The Regions are ``insert-dma``'s (:func:`memopt.passes.dma_regions.cut_function`), the kernels
and their work its reading of upstream IR (:func:`memopt.passes.upstream_dma.kernel_profile`: a
``linalg`` op or a ``func.call``, its ``cost`` or one MAC per element written). A Region's ops
become the model's schedule in program order: a ``memref.dma_start`` issues a transfer of its
source's bytes, a ``memref.dma_wait`` blocks on the transfer last started on the same tag
element, and a kernel computes, reading first whatever constant globals it still reads off
chip. For ``T_serial`` and ``T_lb`` a kernel's weights are those it reads off chip plus the
transfers waited for since the previous kernel (where ``insert-dma`` puts the wait of the
kernel's own loads), so the figures are the same before and after streaming.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.ir import Operation, OpResult, SSAValue

from memopt.diagnostics import MemoptError
from memopt.planning.latency import OpProfile, Run, Start, Target, Wait, lower_bound_time, serial_time, simulate
from memopt.passes.dma_regions import cut_function, regions
from memopt.passes.upstream_dma import is_kernel, kernel_profile
from memopt.passes.upstream_lifetime import byte_size

from .model import RegionTimeline, TimelineEvent


def upstream_timelines(f: func.FuncOp, target: Target) -> list[RegionTimeline]:
    """Every Region of ``f`` with kernels, scheduled as the IR stands."""
    out = []
    for r in regions(cut_function(f, f"@{f.sym_name.data}")):
        schedule = _Schedule(r.name)
        for op in r.ops:
            schedule.add(op)
        if not schedule.profiles:
            continue
        trace: list = []
        t = simulate(schedule.items, target, trace)
        events = tuple(TimelineEvent(e.lane, e.start, e.end, schedule.labels[e.item]) for e in trace)
        out.append(RegionTimeline(r.name, r.runs, events, serial_time(schedule.profiles, target), t,
                                  lower_bound_time(schedule.profiles, target)))
    return out


class _Schedule:
    """One Region's ops as the model's items, a label per item and a profile per kernel."""

    def __init__(self, region: str):
        self.region = region
        self.items: list = []
        self.labels: list[str] = []
        self.profiles: list[OpProfile] = []
        self.transfers = 0
        self.started: dict[tuple, tuple[int, int]] = {}  # tag element -> (transfer, bytes)
        self.waited: list[int] = []  # bytes landed since the previous kernel

    def add(self, op: Operation) -> None:
        if isinstance(op, memref.DmaStartOp):
            src = op.src.type
            assert isinstance(src, MemRefType)
            transfer, n = self.transfers, byte_size(src)
            self.transfers += 1
            self.started[_tag(op.tag, op.tag_indices)] = (transfer, n)  # a reused tag: its latest transfer
            self.items.append(Start(transfer, n))
            self.labels.append(f"load {_source_name(op.src)}")
        elif isinstance(op, memref.DmaWaitOp):
            got = self.started.get(_tag(op.tag, op.tag_indices))
            if got is None:
                raise MemoptError(f"dma_wait waits for a dma_start outside its Region {self.region}", op)
            self.items.append(Wait(got[0]))
            self.labels.append("wait")
            self.waited.append(got[1])
        elif is_kernel(op):
            p = kernel_profile(op)
            self.items.append(Run(p.macs, p.weights))
            self.labels.append(p.name)
            self.profiles.append(OpProfile(p.name, p.macs, p.weights + tuple(self.waited)))
            self.waited = []


def _tag(tag: SSAValue, indices) -> tuple:
    """A tag element: the tag buffer and its constant indices (the value when not constant)."""
    return (tag, *(_constant(v) for v in indices))


def _constant(v: SSAValue):
    if isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp) and isinstance(v.op.value, IntegerAttr):
        return v.op.value.value.data
    return v


def _source_name(v: SSAValue) -> str:
    """``@global`` for a transfer from a ``memref.get_global`` (through views), else the value's name."""
    while isinstance(v, OpResult) and not isinstance(v.op, memref.GetGlobalOp) and v.op.operands:
        v = v.op.operands[0]
    if isinstance(v, OpResult) and isinstance(v.op, memref.GetGlobalOp):
        return f"@{v.op.name_.root_reference.data}"
    return v.name_hint or "?"


__all__ = ["upstream_timelines"]
