"""Buffers, planning problems and solutions: the data every planner shares.

The planning core knows nothing about IR. A *buffer* is a block of bytes that must stay intact
over a live interval of one global op numbering; a *problem* is a set of buffers; a *solution*
gives every buffer an offset in one arena. Passes translate IR into a problem, run a strategy,
and write the solution back; `memopt-pack` does the same from minimalloc CSV files.

Time convention: a buffer is live over the **half-open** interval ``[start, end)``. A tensor
produced by op ``t(u)`` and last read by op ``t(v)`` lives over ``[t(u), t(v) + 1)``, so two
tensors conflict in time iff ``a.start < b.end and b.start < a.end``. This is minimalloc's
``lower``/``upper`` convention, which lets plans be exchanged with it unchanged.

Control-flow context: ``path`` is the chain of branches that contains the buffer, outermost
first, as ``(if_id, branch_index)`` pairs. Two buffers whose paths first differ at the same
``if_id`` with different branch indices are in *exclusive* branches: they can never be live at
the same time, whatever their intervals say, so they may share addresses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence, TypeVar

import numpy as np

Path = tuple[tuple[int, int], ...]
T = TypeVar("T")


class PlanningError(ValueError):
    """A planning problem or plan is malformed or cannot be satisfied (one-line message)."""


@dataclass(frozen=True, slots=True)
class Buffer:
    """One block of memory that must not be clobbered while live.

    ``id`` is a stable name (a tensor name, a CSV id); ``size`` is in bytes; ``start``/``end``
    delimit the half-open live interval; ``alignment`` constrains the offset; ``path`` is the
    control-flow context (see module docstring).
    """

    id: str
    size: int
    start: int
    end: int
    alignment: int = 1
    path: Path = ()

    def __post_init__(self) -> None:
        if self.size < 0:
            raise PlanningError(f"buffer '{self.id}': negative size {self.size}")
        if self.end <= self.start:
            raise PlanningError(
                f"buffer '{self.id}': empty live interval [{self.start}, {self.end})"
            )
        if self.alignment < 1:
            raise PlanningError(f"buffer '{self.id}': alignment must be >= 1, got {self.alignment}")

    @property
    def length(self) -> int:
        """Lifetime length in op steps."""
        return self.end - self.start


def exclusive(a: Path, b: Path) -> bool:
    """True when two control-flow paths lie in different branches of one ``if``."""
    for (ia, ba), (ib, bb) in zip(a, b):
        if ia != ib:
            return False
        if ba != bb:
            return True
    return False


@dataclass(frozen=True, slots=True)
class Overwrite:
    """Permission for ``child`` to be written in place over ``parent`` (MegEngine's write dependency).

    ``parent`` dies at the op that creates ``child`` (their intervals meet in that one step), and
    ``child`` may occupy ``[parent_offset + offset, parent_offset + offset + child.size)``. It is a
    permission, not an obligation: strategies that ignore it stay valid; the validator accepts the
    overlap of exactly these pairs. Indices refer to ``Problem.buffers``.
    """

    child: int
    parent: int
    offset: int = 0


@dataclass(frozen=True)
class Problem:
    """An immutable set of buffers to place in one arena, with optional in-place permissions.

    The numpy views (``sizes``, ``starts``, ...) are computed once, so strategies and bounds can
    work on arrays without touching the dataclasses again.
    """

    buffers: tuple[Buffer, ...]
    overwrites: tuple[Overwrite, ...] = ()
    _derived: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @staticmethod
    def of(buffers: Iterable[Buffer], overwrites: Iterable[Overwrite] = ()) -> "Problem":
        buffers = tuple(buffers)
        overwrites = tuple(overwrites)
        seen: set[str] = set()
        for b in buffers:
            if b.id in seen:
                raise PlanningError(f"duplicate buffer id '{b.id}'")
            seen.add(b.id)
        for w in overwrites:
            if not (0 <= w.child < len(buffers) and 0 <= w.parent < len(buffers)) or w.child == w.parent:
                raise PlanningError(f"overwrite {w}: bad buffer index")
            child, parent = buffers[w.child], buffers[w.parent]
            if w.offset < 0 or w.offset + child.size > parent.size:
                raise PlanningError(
                    f"overwrite of '{parent.id}' by '{child.id}': range [{w.offset}, "
                    f"{w.offset + child.size}) is outside the parent's {parent.size} bytes"
                )
        return Problem(buffers, overwrites)

    def __len__(self) -> int:
        return len(self.buffers)

    def derived(self, key: str, make: Callable[["Problem"], T]) -> T:
        """``make(self)``, computed on the first call for ``key`` and kept: the problem is
        immutable, so what depends on it alone (its numpy views, first fit's window layout)
        is derived once however many plans are made of it."""
        got = self._derived.get(key)
        if got is None:
            got = self._derived[key] = make(self)
        return got

    def _array(self, name: str) -> np.ndarray:
        return self.derived(name, lambda p: np.fromiter(
            (getattr(b, name) for b in p.buffers), dtype=np.int64, count=len(p.buffers)))

    @property
    def sizes(self) -> np.ndarray:
        return self._array("size")

    @property
    def starts(self) -> np.ndarray:
        return self._array("start")

    @property
    def ends(self) -> np.ndarray:
        return self._array("end")

    @property
    def alignments(self) -> np.ndarray:
        return self._array("alignment")

    @property
    def has_control_flow(self) -> bool:
        """True when some buffers carry a branch path (exclusivity must be honoured)."""
        return any(b.path for b in self.buffers)

    def naive_size(self) -> int:
        """Bytes needed without any reuse: every buffer gets its own aligned slot."""
        total = 0
        for b in self.buffers:
            total = align_up(total, b.alignment) + b.size
        return total


def align_up(value: int, alignment: int) -> int:
    """Smallest multiple of ``alignment`` that is >= ``value``."""
    if alignment <= 1:
        return value
    return -(-value // alignment) * alignment


@dataclass(frozen=True)
class Solution:
    """An offset for every buffer of a problem (same order) and the arena height it needs."""

    offsets: tuple[int, ...]
    height: int
    strategy: str
    """The name of what produced it; a control-flow plan's ends in ``"/<mode>"`` (shown, never parsed)."""
    mode: str = ""
    """The control-flow mode whose layout this is (:mod:`memopt.planning.control_flow`: ``joint``,
    ``merge``, ``flat``, ``serial``); ``""`` for a plan made without control-flow planning."""

    @staticmethod
    def of(problem: Problem, offsets: Sequence[int], strategy: str) -> "Solution":
        offsets = tuple(int(o) for o in offsets)
        if len(offsets) != len(problem):
            raise PlanningError(
                f"solution has {len(offsets)} offsets for {len(problem)} buffers"
            )
        height = 0
        if offsets:
            height = int((np.asarray(offsets, dtype=np.int64) + problem.sizes).max())
        return Solution(offsets, height, strategy)

    def offset_of(self, problem: Problem) -> dict[str, int]:
        """Map buffer id → offset."""
        return {b.id: o for b, o in zip(problem.buffers, self.offsets)}
