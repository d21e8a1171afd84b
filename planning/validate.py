"""The plan validator: planners are never trusted, their plans are checked.

A plan is valid iff every offset respects its buffer's alignment and is non-negative, and no
two buffers that can be live at the same time share an address. Buffers in exclusive branches
of one ``if`` (see :func:`memopt.planning.problem.exclusive`) may share addresses. The pairs of
``problem.overwrites`` may overlap too, but only when the child sits exactly at its permitted
place inside the parent (``child_offset == parent_offset + overwrite.offset``).

The check is a sweep over time with the live set kept sorted by offset, so it costs about
``n log n`` plus the number of address neighbours examined, not ``n²``.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from .problem import PlanningError, Problem, Solution, exclusive


@dataclass(frozen=True)
class Conflict:
    """Two buffers that are live together and overlap in address."""

    a: str
    b: str
    message: str


def find_conflicts(problem: Problem, offsets: Sequence[int], limit: int = 1) -> list[Conflict]:
    """Return up to ``limit`` conflicts (alignment errors included); empty means valid."""
    bufs = problem.buffers
    offsets = [int(o) for o in offsets]
    if len(offsets) != len(bufs):
        raise PlanningError(f"plan has {len(offsets)} offsets for {len(bufs)} buffers")
    found: list[Conflict] = []
    for b, off in zip(bufs, offsets):
        if off < 0 or off % b.alignment:
            found.append(
                Conflict(b.id, b.id, f"buffer '{b.id}' at offset {off} violates alignment {b.alignment}"
                         if off >= 0 else f"buffer '{b.id}' has negative offset {off}")
            )
            if len(found) >= limit:
                return found
    # (child, parent) -> permitted child-minus-parent offsets
    allowed: dict[tuple[int, int], set[int]] = {}
    for w in problem.overwrites:
        allowed.setdefault((w.child, w.parent), set()).add(w.offset)
    order = sorted((i for i in range(len(bufs)) if bufs[i].size > 0), key=lambda i: (bufs[i].start, i))
    by_end = sorted(order, key=lambda i: bufs[i].end)
    active: list[tuple[int, int]] = []  # (offset, index), sorted
    max_size = max((b.size for b in bufs), default=0)
    e = 0
    for i in order:
        b = bufs[i]
        while e < len(by_end) and bufs[by_end[e]].end <= b.start:
            # Ended before b starts, so it started earlier and is in the live set.
            j = by_end[e]
            active.pop(bisect.bisect_left(active, (offsets[j], j)))
            e += 1
        lo = bisect.bisect_left(active, (offsets[i] - max_size + 1, -1))
        hi = bisect.bisect_left(active, (offsets[i] + b.size, -1))
        for off_j, j in active[lo:hi]:
            if off_j + bufs[j].size > offsets[i] and not exclusive(b.path, bufs[j].path):
                if allowed and (
                    offsets[i] - off_j in allowed.get((i, j), ())
                    or off_j - offsets[i] in allowed.get((j, i), ())
                ):
                    continue
                c = bufs[j]
                found.append(Conflict(
                    c.id, b.id,
                    f"buffers '{c.id}' [{off_j}, {off_j + c.size}) live [{c.start}, {c.end}) and "
                    f"'{b.id}' [{offsets[i]}, {offsets[i] + b.size}) live [{b.start}, {b.end}) overlap",
                ))
                if len(found) >= limit:
                    return found
        bisect.insort(active, (offsets[i], i))
    return found


def validate(problem: Problem, solution: Solution | list[int] | tuple[int, ...]) -> None:
    """Raise :class:`PlanningError` naming the first conflict when the plan is invalid."""
    offsets = solution.offsets if isinstance(solution, Solution) else solution
    conflicts = find_conflicts(problem, offsets, limit=1)
    if conflicts:
        raise PlanningError(conflicts[0].message)
