"""Which execution paths a proof by execution runs: each branch reached forced every way.

A plan must hold whichever way a branch goes, but one run follows only the way its inputs select. So
a proof runs the function on several paths, enumerated here for both IR flavours (by the driver of
:mod:`.checker`): the first run follows the conditions; then each branch op that run reached and
chose freely is forced each other way, keeping the choices made before it (both runs of a comparison
force the same ops), breadth-first, until every path is covered or ``max_paths`` were proven. The
ways of a branch op are its regions: an ``if`` goes two ways, a switch one per case and its default.
A forced op takes the same way every time it runs (in every iteration of a loop around it); an op
the first run took several ways (in a loop) is forced every way, and that run is a path of its own
(:attr:`Reference.mixed`).

Forcing is sound for a memory proof — where data lives does not depend on what it is — but a
forced path may be one the program cannot take (an assertion fails, an index leaves its bounds):
its unplanned run fails, proves nothing, and is skipped. Two forcings that reach the same
choices are one path, proven once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from xdsl.ir import Operation

Forced = dict[Operation, int]
"""Branch ops forced, and which way: the index of the region they run (0: the first, an ``if``'s
``then``, a switch's first case; a switch's default is the way after its cases)."""

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Reference(Generic[R]):
    """An unplanned run on one path: the branch ops it reached (in first-reach order), the way
    each went first, and what the planned run will be compared with."""

    reached: Sequence[Operation]
    taken: Mapping[Operation, int]
    run: R
    mixed: frozenset[Operation] = frozenset()
    """The ops it took several ways (each time it reached them, the way its condition said)."""
    ways: Mapping[Operation, int] = field(default_factory=dict)
    """How many ways each op reached can go (absent: two, an ``if``)."""

    def path(self) -> tuple:
        """What tells this path from another: the way each op reached went (None: several ways)."""
        return tuple((id(op), None if op in self.mixed else self.taken[op]) for op in self.reached)


def explore(reference: Callable[[Forced], Reference[R] | None], prove: Callable[[Forced, Reference[R]], T],
            max_paths: int) -> list[T]:
    """Prove up to ``max_paths`` distinct paths (see the module docstring): ``reference(forced)``
    runs unplanned (None: the program cannot take that path), ``prove`` runs planned and
    compares. The proofs, in the order run."""
    queue: list[Forced] = [{}]
    tried: set[frozenset] = set()
    proven: set[tuple] = set()
    out: list[T] = []
    while queue and len(proven) < max_paths:
        forced = queue.pop(0)
        key = frozenset((id(k), v) for k, v in forced.items())
        if key in tried:
            continue
        tried.add(key)
        ref = reference(forced)
        if ref is None:
            continue
        path = ref.path()
        if path in proven:
            continue
        out.append(prove(forced, ref))
        proven.add(path)
        queue.extend(_flips(forced, ref))
    return out


def _flips(forced: Forced, ref: Reference) -> list[Forced]:
    """Each op the run chose freely forced each other way, in region order (every way when it
    went several), the free choices before it kept."""
    out = []
    for op in ref.reached:
        if op not in forced:
            first = ref.taken[op]
            if op in ref.mixed:
                out.append({**forced, op: first})
            out += [{**forced, op: way} for way in range(ref.ways.get(op, 2)) if way != first]
            forced = {**forced, op: first}
    return out


__all__ = ["Forced", "Reference", "explore"]
