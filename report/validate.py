"""What a report checks before it draws a plan: a picture of an invalid plan looks valid.

The checks are the planning core's, on the plan as read (IR-free, so both IR flavours and plan
CSVs share them): no two buffers that can be live together overlap, no offset is negative,
every buffer lies inside the arena, and the arena is not below the plan's lower bound (no plan
of these buffers fits in fewer bytes, so a smaller recorded arena is a stale or hand-edited
one). Each answer names the buffer at fault (its index) so the reader of the plan can locate it
in its own terms: an op of the IR, a row of the CSV.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memopt.planning import Problem, find_conflicts


@dataclass(frozen=True)
class Violation:
    """The first thing wrong with a plan: ``buffer`` indexes the problem (None: the plan as a
    whole, e.g. its recorded sizes)."""

    buffer: int | None
    message: str


def layout_violation(problem: Problem, offsets: Sequence[int], arena_size: int) -> Violation | None:
    """Overlap (in-place permissions honoured), negative or misaligned offsets, then a buffer
    past ``arena_size``; None when the layout is sound."""
    conflicts = find_conflicts(problem, offsets, limit=1)
    if conflicts:
        ids = [b.id for b in problem.buffers]
        return Violation(ids.index(conflicts[0].b), f"invalid plan: {conflicts[0].message}")
    return extent_violation(problem, offsets, arena_size)


def extent_violation(problem: Problem, offsets: Sequence[int], arena_size: int,
                     among: list[int] | None = None) -> Violation | None:
    """The first buffer (of ``among``, default all) that ends past ``arena_size``."""
    for k in range(len(problem)) if among is None else among:
        b, off = problem.buffers[k], offsets[k]
        if off + b.size > arena_size:
            return Violation(k, f"invalid plan: buffer '{b.id}' [{off}, {off + b.size}) lies past the end of "
                                f"the {arena_size}-byte arena")
    return None


def bound_violation(arena_size: int, lower_bound: int, what: str = "lower bound") -> Violation | None:
    """An arena recorded below the plan's lower bound (``what`` names the bound)."""
    if arena_size < lower_bound:
        return Violation(None, f"invalid plan: the arena ({arena_size} bytes) is below its {what} {lower_bound}: "
                               "no plan of these buffers fits in fewer bytes")
    return None


def recorded_bound_violation(recorded: int, actual: int, exact: bool = True) -> Violation | None:
    """A recorded lower bound that is not the buffers' own (``actual``); with ``exact=False``
    only one above it (a plan may record a lower bound of another numbering)."""
    if recorded > actual or (exact and recorded != actual):
        return Violation(None, f"invalid plan: the recorded lower bound {recorded} is not the lower bound {actual} "
                               "of the buffers in the arena")
    return None


__all__ = ["Violation", "recorded_bound_violation", "bound_violation", "extent_violation", "layout_violation"]
