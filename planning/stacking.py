"""Stacking: buffers that live over exactly the same interval, packed as one block.

Why: in minimalloc's challenging suite a third of the buffers share their whole lifetime with
another (A: 74 of 154 in 23 classes; I: 182 of 374), and so do layers' multiple outputs and a
split tensor's pieces in real graphs. An exact search treats every one of them as a separate
rectangle, so it also tries every interleaving of a class with the buffers around it — and
those interleavings are most of its tree on the instances where it thrashes. Packing each
class as one contiguous block is a restriction (a plan of the blocks is a plan of the buffers;
the converse need not hold), so it is a second *view* of a problem, searched beside the
original rather than instead of it: on instances like the suite's it fits
within seconds what the original view takes far longer over, and the other way round on a few
(``search/rounds.py`` interleaves the two).

Within a block the members lie bottom-up by alignment, then size, descending (each offset
aligned up: the block's own alignment is the least common multiple of its members', so every
member stays aligned wherever the block goes). Buffers of size 0, and buffers in different
control-flow branches, are never stacked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from .problem import Buffer, Problem, align_up


@dataclass(frozen=True)
class Stacking:
    """A problem whose buffers are the blocks of another (``problem``), and how to expand a
    plan of it: block ``k`` holds the original buffers ``members[k]`` at ``inner[k]`` bytes
    above the block's offset."""

    problem: Problem
    members: tuple[tuple[int, ...], ...]
    inner: tuple[tuple[int, ...], ...]

    def expand(self, offsets: Sequence[int]) -> list[int]:
        """Offsets of the original buffers from offsets of the blocks."""
        out = [0] * sum(len(m) for m in self.members)
        for block, members, inner in zip(offsets, self.members, self.inner):
            for i, d in zip(members, inner):
                out[i] = block + d
        return out


def stack(problem: Problem) -> Stacking | None:
    """The stacked view of ``problem``: one block per class of non-empty buffers with the same
    ``(start, end, path)``, in the order of each class's first member; None when no class has
    two members (the view would be the problem itself)."""
    classes: dict[tuple[object, ...], list[int]] = {}
    for i, b in enumerate(problem.buffers):
        key = (b.start, b.end, b.path) if b.size > 0 else ("empty", i)
        classes.setdefault(key, []).append(i)
    if len(classes) == len(problem):
        return None
    bufs = problem.buffers
    blocks, members, inner = [], [], []
    for k, group in enumerate(classes.values()):
        group = sorted(group, key=lambda i: (-bufs[i].alignment, -bufs[i].size, i))
        top, offs = 0, []
        for i in group:
            top = align_up(top, bufs[i].alignment)
            offs.append(top)
            top += bufs[i].size
        first = bufs[group[0]]
        alignment = math.lcm(*(bufs[i].alignment for i in group))
        blocks.append(Buffer(f"block{k}", top, first.start, first.end, alignment, first.path))
        members.append(tuple(group))
        inner.append(tuple(offs))
    return Stacking(Problem.of(blocks), tuple(members), tuple(inner))


def stacked_first(problem: Problem, stacked: Stacking | None) -> list[tuple[Problem, Stacking | None]]:
    """The views an exact method tries in turn: ``stacked`` (a stacked view of ``problem``, when
    there is one), then the buffers themselves (``None``: nothing to expand)."""
    return ([(stacked.problem, stacked)] if stacked is not None else []) + [(problem, None)]
