"""A function's memory plan as every reader sees it, whatever IR flavour it was read from.

``plan-memory`` writes a plan into the IR in one encoding per flavour (attributes on the memopt
dialect's ops; arena views on upstream ``memref``). Each flavour has one reader that decodes it
into this model (:mod:`memopt.passes.plan_io`, :mod:`memopt.passes.upstream_plan_io`), and
``verify-plan``, the report, the pool replay and the API read the model, never the encoding.

What a plan holds: an :class:`Arena` per memory (the on-chip one first), each the planned
buffers with their lifetimes and offsets; the staging buffers placed on chip after the arenas;
the bounds and the strategy recorded with it; and, as a field of its own, the control-flow
numbering the buffers' steps are counted in. The IR objects that carry each buffer's offset
(its *site*: a value, a view) travel beside the buffers, opaque here, so that a reader can
locate an error; this module stays IR-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from .problem import Problem

Site = TypeVar("Site")
"""The IR object that carries a buffer's offset (the reader's flavour decides which)."""

NUMBERINGS = ("joint", "serial")
"""The control-flow numberings a plan can be valid in: branches overlaid and exclusive, or
one after the other (see :mod:`memopt.passes.lifetime`)."""


@dataclass(frozen=True)
class Arena(Generic[Site]):
    """One memory's arena and the buffers placed in it."""

    memory: str
    """``""`` for the on-chip arena (the default memory space); else the memory's name (an
    off-chip memory spilled tensors live in, or ``space<N>``: an upstream memory space)."""
    space: int
    """The upstream memory space number (0 on chip; 0 for every memopt-dialect arena)."""
    size: int
    """The arena's bytes."""
    recorded_size: int | None
    """The size the plan's attributes record for it (None: not recorded)."""
    problem: Problem
    """The buffers, with their lifetimes in the plan's numbering."""
    offsets: tuple[int, ...]
    """Each buffer's byte offset in the arena, in problem order."""
    sites: tuple[Site, ...]
    """Each buffer's IR site, in problem order: where an error about it is reported."""
    staging: frozenset[int] = frozenset()
    """The buffers that are DMA staging buffers placed in this arena after the planned ones
    (upstream IR), by index: checked like the others, but no part of the plan's bound."""

    def planned(self) -> list[int]:
        """The indices of the buffers the planner placed (the staging buffers left out)."""
        return [i for i in range(len(self.problem)) if i not in self.staging]


@dataclass(frozen=True)
class Staging:
    """A DMA staging buffer placed on chip after the arenas."""

    name: str
    offset: int
    size: int


@dataclass(frozen=True)
class Plan(Generic[Site]):
    """The plan of one function (see module docstring)."""

    function: str
    arenas: tuple[Arena[Site], ...]
    """The on-chip arena first (when the function has one), then one per other memory."""
    strategy: str
    """The strategy whose layout was kept, as recorded (a name to show, never parsed)."""
    arena_size: int | None
    """The recorded size of the on-chip arena (None: not recorded)."""
    lower_bound: int | None
    """The recorded lower bound of the on-chip arena (None: not recorded)."""
    lower_bound_inplace: int | None = None
    """The bound with in-place permissions counted, when the plan may use them."""
    numbering: str = "joint"
    """The control-flow numbering the buffers' steps are in: one of :data:`NUMBERINGS`."""
    staging: tuple[Staging, ...] = ()
    """Staging buffers placed on chip after the arena."""
    onchip_size: int | None = None
    """The recorded on-chip total, arena plus staging buffers (None: not recorded)."""

    def arena(self, memory: str = "") -> Arena[Site] | None:
        """The arena of ``memory`` (the on-chip one by default), None when it has none."""
        return next((a for a in self.arenas if a.memory == memory), None)


__all__ = ["NUMBERINGS", "Arena", "Plan", "Site", "Staging"]
