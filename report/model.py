"""What a plan report shows, as plain data: tensors as time × address boxes, branches, staging
buffers and DMA timelines.

Why a model of its own: the pictures, the text summary and the HTML page must all show *the
same* plan, and that plan must be the one recorded in the IR (or the CSV), not a re-planned one.
So the readers (:mod:`memopt.report.from_ir`, :mod:`memopt.report.from_csv`) turn a plan into
these dataclasses once, and everything downstream (figures, tables, tests) works on them without
touching IR. Nothing here imports xDSL or matplotlib.

Time is the plan's op numbering; a box covers the half-open step interval ``[start, end)`` of
its buffer (first write to one past the last read, the planning core's convention) and the byte
range ``[offset, offset + size)`` of the arena.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from memopt.planning import Buffer, Overwrite, Path, Problem, inplace_live_profile
from memopt.planning.function_plan import Staging
from memopt.planning.inplace import fold_overwrites
from memopt.planning.pool import replay

KINDS = ("input", "intermediate", "output", "inplace", "loop-carried", "view", "buffer", "scratch")
"""Box kinds, in legend order. ``inplace``: written over an input that dies at its op (MegEngine's
write dependency); ``view``: an alias drawn over its source; ``buffer``: a CSV row (no IR);
``scratch``: a planned callee's arena, passed to it at a call (upstream IR)."""


@dataclass(frozen=True)
class TiledRun:
    """A run the ``tile`` pass computes patch by patch (as it recorded it on the function)."""

    run: str
    """first..last op, by the tensors they write."""
    ops: int
    grid: str
    macs: int
    """The run's MACs untiled."""
    extra: int
    """The MACs its halos recompute (negative when its patches compute fewer cells)."""
    streamed: tuple[str, ...] = ()
    """The inputs it reads stripe by stripe from off chip."""

    @property
    def halo_pct(self) -> float:
        return 100.0 * self.extra / self.macs if self.macs else 0.0


@dataclass(frozen=True)
class TensorBox:
    """One arena tensor (or a view of one) as a rectangle: steps × bytes."""

    name: str
    offset: int
    size: int
    start: int
    end: int
    kind: str = "intermediate"
    path: Path = ()
    """Branches containing the tensor, as in :class:`memopt.planning.Buffer`."""
    detail: str = ""
    """Free text for tables and hover (type, defining op)."""
    inplace_of: str = ""
    """The tensor this one is written over in place (the plan uses that permission), if any."""

    @property
    def top(self) -> int:
        return self.offset + self.size


@dataclass(frozen=True)
class BranchSpan:
    """The steps one branch of an ``if`` occupies in the plan's numbering."""

    if_id: int
    branch: int
    start: int
    end: int
    path: Path = ()


@dataclass(frozen=True)
class TimelineEvent:
    """A busy interval of one lane of a Region's schedule (cycles from the Region's start)."""

    lane: str
    start: int
    end: int
    label: str


@dataclass(frozen=True)
class RegionTimeline:
    """A DMA Region as the latency model schedules it, with its three figures."""

    name: str
    runs: int
    events: tuple[TimelineEvent, ...]
    serial: int
    pingpong: int
    lb: int

    @property
    def eta(self) -> float | None:
        if self.serial <= self.lb:
            return None
        return (self.serial - self.pingpong) / (self.serial - self.lb)


@dataclass(frozen=True)
class FunctionView:
    """The plan of one function (or one CSV problem)."""

    name: str
    arena_size: int
    lower_bound: int
    strategy: str
    tensors: tuple[TensorBox, ...]
    lower_bound_inplace: int | None = None
    mode: str = ""
    branches: tuple[BranchSpan, ...] = ()
    timelines: tuple[RegionTimeline, ...] = ()
    staging: tuple[Staging, ...] = ()
    """The function's own DMA staging buffers (upstream IR: views of its arena after the
    planned bytes); memopt's dialect has module-wide ones, in :attr:`PlanView.staging`."""
    onchip_size: int | None = None
    """The function's arena plus its staging buffers, when ``insert-dma`` placed some in it."""
    notes: tuple[str, ...] = ()
    """What the report leaves out for this function, and why (one line each)."""
    space: int = 0
    """The memory space of the arena shown (upstream IR: one arena per integer memory space)."""
    tiled: tuple[TiledRun, ...] = ()
    """The runs ``tile`` computes patch by patch, in program order."""

    @property
    def arena_tensors(self) -> tuple[TensorBox, ...]:
        """The tensors that own arena bytes (views only alias them)."""
        return tuple(t for t in self.tensors if t.kind != "view")

    @property
    def steps(self) -> int:
        return max((t.end for t in self.tensors), default=0)

    @cached_property
    def _live_curve(self) -> tuple[np.ndarray, np.ndarray]:
        """:func:`live_curve`, computed once per view: a report asks for it up to three times
        (summary, picture, peak), and on a plan of 200,000 tensors each costs a second."""
        return _compute_live_curve(self)


@dataclass(frozen=True)
class PlanView:
    """Everything a report shows about one input file."""

    source: str
    functions: tuple[FunctionView, ...]
    staging: tuple[Staging, ...] = ()
    onchip_size: int | None = None
    """Largest arena plus the staging buffers, when ``insert-dma`` placed them."""
    capacity: int | None = None
    target: str = ""
    notes: tuple[str, ...] = field(default=())
    before: tuple[FunctionView, ...] = ()
    """The same functions in the program they were transformed from (``--before``), to compare."""
    before_source: str = ""

    def before_of(self, fv: FunctionView) -> FunctionView | None:
        """The function ``fv`` was transformed from, when a program to compare with was given."""
        return next((b for b in self.before if b.name == fv.name), None)


def has_dma(fv: FunctionView) -> bool:
    """True when some Region moves weights (DMA or direct off-chip reads): a timeline or a DMA
    table of compute alone says nothing."""
    return any(e.lane == "dma" for r in fv.timelines for e in r.events)


def _problem(fv: FunctionView) -> Problem:
    """The arena tensors as a planning problem, with the in-place pairs the plan uses."""
    ts = fv.arena_tensors
    bufs = [Buffer(f"{k}", t.size, t.start, max(t.end, t.start + 1), 1, t.path) for k, t in enumerate(ts)]
    index = {t.name: k for k, t in enumerate(ts)}
    overwrites = []
    for k, t in enumerate(ts):
        p = index.get(t.inplace_of) if t.inplace_of else None
        if p is not None and p != k and 0 <= t.offset - ts[p].offset <= ts[p].size - t.size:
            overwrites.append(Overwrite(k, p, t.offset - ts[p].offset))
    return Problem(tuple(bufs), tuple(overwrites))


def live_curve(fv: FunctionView) -> tuple[np.ndarray, np.ndarray]:
    """``(steps, live_bytes)``: bytes live at every step ``0 .. steps-1`` on the heaviest
    execution path (each ``if`` counts its heaviest branch, so without in-place pairs the maximum
    is ``LB_nest``); a tensor written in place over another shares its bytes, so a pair counts
    once where both are live (the in-place bound's curve)."""
    steps, live = fv._live_curve
    return steps.copy(), live.copy()


def _compute_live_curve(fv: FunctionView) -> tuple[np.ndarray, np.ndarray]:
    n = fv.steps
    steps = np.arange(n, dtype=np.int64)
    if not fv.arena_tensors:
        return steps, np.zeros(n, np.int64)
    times, live = inplace_live_profile(_problem(fv))
    idx = np.searchsorted(times, steps, side="right") - 1
    return steps, np.where(idx >= 0, live[np.clip(idx, 0, None)], 0).astype(np.int64)


def pool_series(fv: FunctionView, allocator: str) -> tuple[str, list[int], list[int]]:
    """An eager pool's bytes allocated over the plan's steps (:mod:`memopt.planning.pool` replays
    the same tensors: allocated at their first step, freed after their last, in-place pairs as
    one), labelled with the pool's peak reserved: ``(label, steps, bytes)`` for the live curve."""
    problem = fold_overwrites(_problem(fv))[0]
    r = replay(problem, allocator)
    steps = [t[0] for t in r.timeline]
    allocated = [t[2] for t in r.timeline]
    return f"{allocator} pool allocated (reserved peak {r.peak_reserved})", steps, allocated


@dataclass(frozen=True)
class Peak:
    step: int
    live_bytes: int
    tensors: tuple[TensorBox, ...]
    """Live at the peak on the heaviest path, largest first: what to shrink to lower the peak
    (a tensor written in place over another one live there is left out: it adds no bytes)."""


def peak(fv: FunctionView) -> Peak:
    """The step where the heaviest path holds the most live bytes (first such step) and the
    tensors live there, choosing at every ``if`` the branch that makes the peak."""
    steps, live = live_curve(fv)
    if len(live) == 0:
        return Peak(0, 0, ())
    s = int(np.argmax(live))
    live_now = [t for t in fv.arena_tensors if t.start <= s < t.end]
    chosen = _heaviest_paths(live_now)
    on_path = [t for t in live_now if _on(t.path, chosen)]
    names = {t.name for t in on_path}
    on_path = [t for t in on_path if not (t.inplace_of and t.inplace_of in names)]
    on_path.sort(key=lambda t: (-t.size, t.name))
    return Peak(s, int(live[s]), tuple(on_path))


def _heaviest_paths(tensors: list[TensorBox]) -> dict[Path, int]:
    """For every branch node (a path prefix ending in an ``if``), the branch chosen: the one whose
    heaviest execution path holds the most bytes among ``tensors`` (first branch on a tie).

    A node's heaviest path is its own tensors plus, for each ``if`` directly inside it, the
    heaviest of that ``if``'s branches — not all of the node's descendants: two nested branches
    never run together, so summing them would favour a branch that splits its bytes over an
    inner ``if``. Computed bottom-up (deepest nodes first), so deep nesting needs no recursion."""
    own: dict[Path, int] = {}
    nodes: set[Path] = {()}
    for t in tensors:
        own[t.path] = own.get(t.path, 0) + t.size
        nodes.update(t.path[:k] for k in range(1, len(t.path) + 1))
    ifs_in: dict[Path, set[Path]] = {}  # node -> the ifs directly inside it
    for p in nodes:
        if p:
            ifs_in.setdefault(p[:-1], set()).add(_if_of(p))
    best: dict[Path, tuple[int, int]] = {}  # if -> (chosen branch, its heaviest path)
    for p in sorted(nodes, key=lambda q: (-len(q), q)):  # every branch before the node it is in
        w = own.get(p, 0) + sum(best[key][1] for key in ifs_in.get(p, ()))
        if p:
            key, branch = _if_of(p), p[-1][1]
            got = best.get(key)
            if got is None or w > got[1] or (w == got[1] and branch < got[0]):
                best[key] = (branch, w)
    return {key: branch for key, (branch, _) in best.items()}


def _if_of(branch: Path) -> Path:
    """The key of the ``if`` a branch node (a path ending in ``(if_id, branch)``) belongs to: its
    parent's path with ``(if_id, -1)``."""
    return branch[:-1] + ((branch[-1][0], -1),)


def _on(path: Path, chosen: dict[Path, int]) -> bool:
    for k, (_, branch) in enumerate(path):
        if chosen.get(_if_of(path[:k + 1])) != branch:
            return False
    return True


__all__ = [
    "KINDS", "BranchSpan", "FunctionView", "Peak", "PlanView", "RegionTimeline", "TensorBox",
    "TiledRun", "TimelineEvent", "has_dma", "live_curve", "peak", "pool_series",
]
