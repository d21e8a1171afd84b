"""Which runs of a program to tile, and in which grids, to fit a capacity with the least
recomputation (issue 34's choice) — a covering problem over the program's op positions, no IR.

The program is a sequence of ops; ``live[i]`` is the memory op ``i`` needs untiled (the lower
bound's live bytes at its step). A tiling :class:`Option` replaces ops ``first..last`` by their
patch-by-patch computation, whose memory is ``peak`` at every step of the run and whose cost is
``extra`` recomputed MACs (an option may instead split one op by output channels: ``channels``).
Runs of one program never overlap. A capacity ``C`` is met when every op
outside the chosen runs has ``live <= C`` and every chosen run has ``peak <= C``.

:func:`fit` finds the options meeting ``C`` with the least total ``extra`` and ``transfer`` (then the fewest
streaming runs, the fewest patches, then the earliest options in the order given) by dynamic programming over the positions
(:func:`fit_preferring` first among the options that stream no input off chip);
:func:`smallest` the least capacity any choice meets (within a MAC budget), by bisection over the
candidate capacities (whether ``C`` is met is monotone in ``C``). Both are deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Option:
    """One run tiled in one grid."""

    first: int
    """Position of the run's first op."""
    last: int
    """Position of its last op (inclusive)."""
    grid: tuple[int, int]
    """Rows x columns of patches."""
    peak: int
    """Bytes the program needs at the run's steps, tiled (an upper estimate)."""
    extra: int
    """MACs the halos recompute."""
    channels: bool = False
    """Groups of output channels (``grid[0]`` of them) instead of spatial patches."""
    stream: bool = False
    """The run reads its inputs stripe by stripe from off-chip memory (they are not on chip across it)."""
    homed: bool = False
    """Its ``peak`` counts what crosses the run unread as off chip (it holds only with those homes)."""
    transfer: int = 0
    """What its copies between memories cost, in MACs (the latency model's cycles at the MAC rate)."""

    @property
    def patches(self) -> int:
        return self.grid[0] * self.grid[1]


def fit(live: Sequence[int], options: Sequence[Option], capacity: int, weigh: bool = True) -> list[Option] | None:
    """The options meeting ``capacity`` with the least extra MACs plus transfers (the extra MACs
    alone unless ``weigh``), or None when none does."""
    n = len(live)
    starting: dict[int, list[Option]] = {}
    for o in options:
        if o.peak <= capacity and 0 <= o.first <= o.last < n:
            starting.setdefault(o.first, []).append(o)
    best: list[tuple[int, int, int, tuple[Option, ...]] | None] = [None] * (n + 1)
    best[0] = (0, 0, 0, ())

    def relax(pos: int, cand: tuple[int, int, int, tuple[Option, ...]]) -> None:
        have = best[pos]
        if have is None or cand[:3] < have[:3]:
            best[pos] = cand

    for pos in range(n):
        here = best[pos]
        if here is None:
            continue
        if live[pos] <= capacity:
            relax(pos + 1, here)
        for o in starting.get(pos, ()):
            relax(o.last + 1, (here[0] + o.extra + (o.transfer if weigh else 0), here[1] + o.stream, here[2] + o.patches,
                               here[3] + (o,)))
    end = best[n]
    return None if end is None else list(end[3])


def fit_preferring(live: Sequence[int], options: Sequence[Option], capacity: int, prefer_whole: bool = True,
                   max_extra: int | None = None, live_homed: Sequence[int] | None = None) -> list[Option] | None:
    """:func:`fit` within ``max_extra`` extra MACs (unbounded when None); with ``prefer_whole``,
    among the options that stream no input first (a choice moving no data off chip), the
    streaming ones only when those meet nothing; with ``live_homed`` (each op's live bytes when
    what crosses it unread lives off chip), the options counting such homes last, when nothing
    else meets ``capacity``."""

    def within(live: Sequence[int], chosen: Sequence[Option]) -> list[Option] | None:
        """The cheapest choice, or, when its MACs pass ``max_extra``, the one with the fewest MACs."""
        choice = fit(live, chosen, capacity)
        if choice is not None and max_extra is not None and sum(o.extra for o in choice) > max_extra:
            choice = fit(live, chosen, capacity, weigh=False)
        if choice is None or (max_extra is not None and sum(o.extra for o in choice) > max_extra):
            return None
        return choice

    if prefer_whole:
        whole = within(live, [o for o in options if not o.stream])
        if whole is not None:
            return whole
    held = within(live, [o for o in options if not o.homed])
    if held is not None or live_homed is None:
        return held
    return within(live_homed, options)


def smallest(live: Sequence[int], options: Sequence[Option], max_extra: int | None = None,
             prefer_whole: bool = True, live_homed: Sequence[int] | None = None) -> tuple[int, list[Option]]:
    """The least capacity a choice of options meets with at most ``max_extra`` extra MACs
    (unbounded when None), and that choice (the cheapest at that capacity, by
    :func:`fit_preferring`)."""
    candidates = sorted({int(v) for v in live} | {o.peak for o in options} | {int(v) for v in live_homed or ()})
    top = max(live) if len(live) else 0
    candidates = [c for c in candidates if c <= top] or [top]

    def meets(c: int) -> list[Option] | None:
        return fit_preferring(live, options, c, prefer_whole, max_extra, live_homed)

    lo, hi = 0, len(candidates) - 1  # candidates[hi] (the untiled peak) is always met
    while lo < hi:
        mid = (lo + hi) // 2
        if meets(candidates[mid]) is not None:
            hi = mid
        else:
            lo = mid + 1
    choice = meets(candidates[lo])
    return candidates[lo], choice or []


__all__ = ["Option", "fit", "fit_preferring", "smallest"]
