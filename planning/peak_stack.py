"""Peak stacking: the buffers live at the peak step first, stacked without a gap, then each side
of the peak by first fit.

At the step where the live bytes reach the lower bound, a plan at the bound leaves no hole: the
buffers live there tile the arena exactly. The greedy members decide that step's layout
buffer by buffer, from gaps elsewhere in time, and on long-lived training traces leave a few
holes there — a plan a fraction of a percent above the bound. Here the peak's buffers go first,
one on top of the other, so the peak step is at the bound by construction; the buffers that
end before it (the left side) and those that start after it (the right side) are then placed
around the stack by first fit.

The stack's order decides how well each side fits around it. Stacked by start (earliest at the
bottom), the stack's buffers live at any earlier step form a bottom prefix, so the left side
packs over a staircase without overhangs; stacked by end (latest at the bottom) the right side
does; :data:`STACK_MIXES` also tries ranks in between. The two sides never meet in time, so for
each stack order every side keeps the lower of its fills (:data:`FILL_KEYS`), and the plan
combines the best left with the best right.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .bounds import live_profile
from .firstfit import first_fit, first_fit_work
from .inplace import plan_with_inplace
from .problem import Problem, Solution
from .strategy import Strategy

STACK_MIXES = (0.5, 1.0, 0.0)
"""How the peak's buffers are stacked, bottom first: ``mix * rank(start) + (1 - mix) *
rank(-end)``. 1 stacks by start (the left side sees a staircase), 0 by end, latest first (the
right side does)."""

FILL_KEYS: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]] = {
    "size": lambda sizes, starts, ends, dist: -sizes,
    "area": lambda sizes, starts, ends, dist: -sizes * (ends - starts),
    "outward": lambda sizes, starts, ends, dist: dist,
}
"""Orders of the buffers off the peak (smaller key first; then larger size, then index):
largest first, largest area first, and nearest the peak first."""

WORK = 140_000_000
"""First-fit work (:func:`first_fit_work` units) the strategy may spend, about two seconds:
every stack order and fill up to about ten thousand buffers of a training trace, fewer on
larger ones, never fewer than :data:`MIN_RUNS` runs (one per stack order)."""

MIN_RUNS = 3


def peak_step(problem: Problem) -> int:
    """The first step at which the live bytes are largest."""
    times, live = live_profile(problem)
    return int(times[int(np.argmax(live))])


def _ranks(values: np.ndarray) -> np.ndarray:
    ranks = np.empty(len(values), np.float64)
    ranks[np.argsort(values, kind="stable")] = np.arange(len(values))
    return ranks


def _runs(problem: Problem) -> list[tuple[float, str]]:
    """The (stack mix, fill) pairs to run, as many as :data:`WORK` pays for, mixes first."""
    return _pairs(max(MIN_RUNS, WORK // max(1, first_fit_work(problem))))


def _pairs(count: int) -> list[tuple[float, str]]:
    pairs = [(mix, fill) for fill in FILL_KEYS for mix in STACK_MIXES]
    return pairs[:count]


class PeakStack(Strategy):
    """Stack the peak step's buffers, then fill each side of it (see the module docstring)."""

    name = "peak-stack"
    in_portfolio = False
    """``best`` runs it on large problems only (:attr:`memopt.planning.strategies.Best.MEDIUM_MEMBERS`)."""

    def plan(self, problem: Problem) -> Solution:
        if problem.overwrites:
            return plan_with_inplace(self, problem)
        if not len(problem):
            return Solution.of(problem, [], self.name)
        return Solution.of(problem, peak_stack_offsets(problem, _runs(problem)), self.name)


def peak_stack_offsets(problem: Problem, runs: list[tuple[float, str]]) -> list[int]:
    """The lowest plan over ``runs``, each side of the peak taken from its lowest fill."""
    sizes = problem.sizes.astype(np.int64)
    starts, ends = problem.starts.astype(np.int64), problem.ends.astype(np.int64)
    t = peak_step(problem)
    at_peak = (starts <= t) & (ends > t)
    left = ends <= t
    peak = np.flatnonzero(at_peak)
    rest = np.flatnonzero(~at_peak)
    dist = np.where(left, t - ends, starts - t)
    by_start, by_late_end = _ranks(starts[peak]), _ranks(-ends[peak])
    index = np.arange(len(problem))
    best: tuple[int, list[int]] | None = None
    for mix in dict.fromkeys(m for m, _ in runs):
        stack = peak[np.lexsort((peak, mix * by_start + (1 - mix) * by_late_end))].tolist()
        sides: dict[bool, tuple[int, np.ndarray]] = {}
        for fill in (f for m, f in runs if m == mix):
            key = FILL_KEYS[fill](sizes, starts, ends, dist)[rest]
            order = stack + rest[np.lexsort((index[rest], -sizes[rest], key))].tolist()
            offsets = np.asarray(first_fit(problem, order), np.int64)
            tops = offsets + sizes
            for side, members in ((True, left | at_peak), (False, ~left)):
                h = int(tops[members].max()) if members.any() else 0
                if side not in sides or h < sides[side][0]:
                    sides[side] = (h, offsets)
        combined = np.where(left, sides[True][1], sides[False][1])
        h = max(sides[True][0], sides[False][0])
        if best is None or h < best[0]:
            best = (h, combined.tolist())
    assert best is not None
    return best[1]
