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
does; :data:`STACKS` also tries ranks in between, and an order by the near-peak steps each
buffer lives through, for traces whose tight steps lie on both sides. A side is filled by first
fit (the orders of :data:`FILL_KEYS`: it may use the holes under the stack) or by the skyline
best fit over the stack (:data:`FILLS`). The two sides never meet in time, so for each stack
order every side keeps the lower of its fills, and the plan combines the best left with the best
right.

When several steps come near the bound, the stack at the peak forces a layout on the sides that
leaves holes at the others; so the next highest local maxima of the live bytes are stacked in
turn too (:data:`PIVOTS`; a maximum that stacks almost the same buffers as a higher one is
skipped, :data:`SAME_PIVOT`), each with a few runs (:data:`PIVOT_RUNS`, the critical stack among
the first), and the lowest plan is kept.

Last, while the plan is still above the bound, the sides of each pivot's ``close`` stack are
filled lowest first (:mod:`memopt.planning.lowest_first`, :data:`LOWEST_RUNS`): the buffer that
can go lowest goes next, so the holes near the stack are filled as the placement reaches them.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .bounds import live_profile, lower_bound
from .firstfit import first_fit, first_fit_cost
from .inplace import plan_with_inplace
from .lowest_first import lowest_first
from .problem import Problem, Solution, align_up
from .skyline import skyline_offsets
from .strategy import Strategy

STACKS = ("end", "start", "halfway", "critical", "close", "tight")
"""How the pivot's buffers are stacked, bottom first: by latest end (the right side sees a
staircase), by start (the left side does), by the mean of the two ranks, or ``critical``: by
the near-peak steps each lives through (:func:`near_peak_steps`), most first, latest end first
on ties — at every step near the bound the buffers live there then tend to form a bottom block,
which the start and end orders promise only on one side of the pivot; ``close`` and ``tight``:
the same by the steps nearer the peak still (:data:`NEAR`), for the lowest-first fills."""

NEAR = {"critical": 0.02, "close": 0.005, "tight": 0.002}
"""How near the peak a step must be (its live bytes within this share of the highest) to count
for each near-peak stack of :data:`STACKS`. Why three: the first fits leave holes of whole
tenths of a percent, which any step within a few percent of the peak may lack room for
(``critical``); the lowest-first fills leave fewer, and the steps that decide whether one more
costs height are those within half a percent (``close``) or, where many steps come that near,
the very tightest few (``tight``): counting them all would rank the buffers by how long they
live near the peak rather than by those steps."""

FILL_KEYS: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]] = {
    "size": lambda sizes, starts, ends, dist: -sizes,
    "area": lambda sizes, starts, ends, dist: -sizes * (ends - starts),
    "outward": lambda sizes, starts, ends, dist: dist,
}
"""First-fit orders of the buffers off the peak (smaller key first; then larger size, then
index): largest first, largest area first, and nearest the peak first."""

FILLS = ("size", "skyline-area", "skyline-duration", "area", "outward")
"""Every fill of the sides: a first fit in one of the orders of :data:`FILL_KEYS` (which may
use the holes the stack leaves), or ``skyline-<rule>``, the skyline best fit
(:mod:`memopt.planning.skyline`, that fill rule) of each side over the stack."""

RUNS = (
    ("end", "size"), ("end", "skyline-area"), ("halfway", "size"), ("start", "size"), ("start", "skyline-area"),
    ("critical", "size"), ("critical", "skyline-area"), ("end", "skyline-duration"),
    ("halfway", "skyline-area"), ("start", "skyline-duration"), ("halfway", "skyline-duration"),
    ("critical", "skyline-duration"), ("end", "area"), ("critical", "area"), ("start", "area"), ("halfway", "area"),
    ("end", "outward"), ("start", "outward"), ("halfway", "outward"), ("critical", "outward"),
)
"""Every (stack, fill) pair of the first four stacks, in the order they are run while the work
lasts: the stack by latest end with the first fit largest-first and the skyline by area, the
other stacks largest-first, then the critical stack (on large training traces the first few
reach about what all of them reach), the cheaper skyline fills before the remaining first
fits."""

WORK = 360_000_000
"""Work the strategy may spend, in :func:`first_fit_work` units (about three and a half
seconds): every run :func:`runs` schedules up to several thousand buffers of a training trace,
the first ones that fit the work on larger problems; the first run always."""

LOWEST_RUNS = (("close", "outward"), ("close", "inward"))
"""Lowest-first fills (:mod:`memopt.planning.lowest_first`, ``lowest-<sweep>`` fills, ties
broken by :meth:`_Peak.sweep`) of every pivot: the peak's first, then these of the other
pivots, the peak's :data:`PEAK_LOWEST_RUNS` and :data:`TIGHT_LOWEST_RUNS`, each next one at the
pivot where the plan so far is highest (:meth:`_Plans.next_lowest`); run after every other run
while the plan is above the bound and :data:`LOWEST_WORK` lasts. Why: where a side is as
tight as the pivot, first fit in any order fixed beforehand leaves holes near the stack that the
side's later buffers needed; placing the buffer that can go lowest next fills each hole as the
placement reaches it. Why every pivot: on traces with several steps near the bound, the pivot
whose sides the lowest-first fill packs is often not the peak."""

PEAK_LOWEST_RUNS = (("start", "inward"), ("end", "outward"))
"""The lowest-first fills of the peak's start and end stacks, after the peak's
:data:`LOWEST_RUNS`, before the other pivots' where the plan is as high at the peak as there."""

TIGHT_LOWEST_RUNS = (("tight", "outward"), ("tight", "inward"))
"""The lowest-first fills of the peak's ``tight`` stack, the last of the peak's."""

LOWEST_WORK = 2_700_000_000
"""Work the lowest-first fills may spend together, in :func:`lowest_first`'s units (about two
seconds of CPU)."""

LOWEST_GAP = 0.02
"""How far above the live bytes' peak (a share of it) a plan may be for the lowest-first fills to
run. Why: they fill the holes a fixed order leaves near the stacks, from a few tenths of a
percent to over one on long-lived training traces; a plan several percent above the peak is
above it for another reason (a peak the sides cannot reach, as on traces whose bound is loose),
and they would spend their work for nothing."""

PIVOTS = 5
"""How many steps are tried as the one stacked (:func:`pivot_steps`): the peak, then the next
highest local maxima of the live bytes. Why: when several steps come near the bound, the
layout one stack forces on the sides leaves holes at the others, and stacking another of them
instead may leave none."""

SAME_PIVOT = 0.002
"""The share of a maximum's live buffers by which it must differ from each higher pivot to be
a pivot too. Why: two maxima a small dip apart (a few short buffers ending and others starting)
stack almost the same buffers, and their fills come out the same."""

PIVOT_RUNS = (*RUNS[:2], ("critical", "size"), *RUNS[2:5])
"""The runs of each pivot but the peak, in order (after the peak's first five): the peak's first
five with the critical stack largest-first third. Why the critical stack early: a pivot other
than the peak has the peak, a step at the bound, on one side and often other near-peak steps on
the other, and the start and end orders keep the buffers live there low on one side only; on
large problems :data:`WORK` pays for the first three runs of the second pivot only."""

SKYLINE_WORK = 1_500
"""What a skyline fill of both sides costs per buffer, in work units."""


def pivot_steps(problem: Problem, k: int = PIVOTS) -> list[int]:
    """The first steps of the ``k`` highest local maxima of the live bytes (plateaus higher than
    both neighbours), highest first, earliest on ties: the peak step first. A maximum whose live
    buffers are, but for :data:`SAME_PIVOT` of them, those of a higher one kept is left out: it
    stacks the same buffers, and its fills would repeat that one's."""
    times, live = live_profile(problem)
    if not len(live):
        return []
    first = np.flatnonzero(np.concatenate(([True], live[1:] != live[:-1])))  # each plateau's first step
    level = live[first]
    lower = np.concatenate(([-1], level[:-1])) < level
    higher_than_next = level > np.concatenate((level[1:], [-1]))
    tops = first[lower & higher_than_next]
    tops = tops[np.lexsort((tops, -live[tops]))]
    kept: list[tuple[int, np.ndarray]] = []
    for t in (int(times[i]) for i in tops):
        if len(kept) == k:
            break
        at = (problem.starts <= t) & (problem.ends > t)
        if all(np.count_nonzero(at != other) > SAME_PIVOT * np.count_nonzero(at) for _, other in kept):
            kept.append((t, at))
    return [t for t, _ in kept]


def near_peak_steps(problem: Problem, near: float = NEAR["critical"]) -> np.ndarray:
    """Per buffer, how many of the steps it lives through are within ``near`` of the peak (a
    share of it)."""
    times, live = live_profile(problem)
    if not len(live):
        return np.zeros(len(problem), np.int64)
    close = np.where(live >= (1 - near) * live.max(), np.diff(times, append=times[-1]), 0)
    before = np.concatenate(([0], np.cumsum(close)))  # near-peak steps before each time
    return before[np.searchsorted(times, problem.ends)] - before[np.searchsorted(times, problem.starts)]


def _ranks(values: np.ndarray) -> np.ndarray:
    ranks = np.empty(len(values), np.float64)
    ranks[np.argsort(values, kind="stable")] = np.arange(len(values))
    return ranks


def runs(problem: Problem) -> list[tuple[int, str, str]]:
    """(pivot step, stack, fill) triples to run: the peak's first five of :data:`RUNS`, the
    :data:`PIVOT_RUNS` of each other pivot, the peak's rest — the first always, each later one
    when the rest of :data:`WORK` pays for it — then the peak's :data:`LOWEST_RUNS` and
    :data:`PEAK_LOWEST_RUNS`, the other pivots' :data:`LOWEST_RUNS` and the peak's
    :data:`TIGHT_LOWEST_RUNS`, which :func:`peak_stack_offsets` runs while their own work lasts."""
    n = len(problem)
    cost = {"first-fit": first_fit_cost(problem), "skyline": SKYLINE_WORK * n}
    peak, *others = pivot_steps(problem)
    schedule = [(peak, *r) for r in RUNS[:5]]
    schedule += [(t, *r) for t in others for r in PIVOT_RUNS]
    schedule += [(peak, *r) for r in RUNS[5:]]
    left = WORK
    out = []
    for k, (t, stack, fill) in enumerate(schedule):
        price = cost["skyline" if fill.startswith("skyline-") else "first-fit"]
        if k == 0 or price <= left:
            left -= price
            out.append((t, stack, fill))
    lowest = [(peak, *r) for r in LOWEST_RUNS + PEAK_LOWEST_RUNS] + [(t, *r) for t in others for r in LOWEST_RUNS]
    lowest += [(peak, *r) for r in TIGHT_LOWEST_RUNS]
    return out + [(t, stack, f"lowest-{sweep}") for t, stack, sweep in lowest]


class PeakStack(Strategy):
    """Stack the peak step's buffers, then fill each side of it (see the module docstring)."""

    name = "peak-stack"
    in_portfolio = False
    """``best`` runs it on large problems only (:attr:`memopt.planning.strategies.Best.PAST_DESCENT`)."""

    def plan(self, problem: Problem) -> Solution:
        if problem.overwrites:
            return plan_with_inplace(self, problem)
        if not len(problem):
            return Solution.of(problem, [], self.name)
        return Solution.of(problem, peak_stack_offsets(problem, runs(problem)), self.name)


class _Peak:
    """A step of a problem to stack (the pivot: the peak, or another high step) and the buffers
    on either side of it."""

    def __init__(self, problem: Problem, t: int) -> None:
        self.problem = problem
        self.sizes = problem.sizes.astype(np.int64)
        self.starts, self.ends = problem.starts.astype(np.int64), problem.ends.astype(np.int64)
        self.t = t
        self.at_peak = (self.starts <= self.t) & (self.ends > self.t)
        self.left = self.ends <= self.t
        self.peak = np.flatnonzero(self.at_peak)
        self.rest = np.flatnonzero(~self.at_peak)
        self.dist = np.where(self.left, self.t - self.ends, self.starts - self.t)

    def stack(self, order: str) -> list[int]:
        """The pivot's buffers, bottom first, in the stack ``order`` (see :data:`STACKS`)."""
        by_start, by_end = _ranks(self.starts[self.peak]), _ranks(-self.ends[self.peak])
        if order in NEAR:
            near = near_peak_steps(self.problem, NEAR[order])[self.peak]
            return self.peak[np.lexsort((self.peak, by_end, -near))].tolist()
        key = {"end": by_end, "start": by_start, "halfway": (by_start + by_end) / 2}[order]
        return self.peak[np.lexsort((self.peak, key))].tolist()

    def first_fit(self, stack: list[int], fill: str) -> np.ndarray:
        """The stack, then the rest in the order ``fill`` of :data:`FILL_KEYS`, by first fit."""
        rest = self.rest
        key = FILL_KEYS[fill](self.sizes, self.starts, self.ends, self.dist)[rest]
        order = stack + rest[np.lexsort((rest, -self.sizes[rest], key))].tolist()
        return np.asarray(first_fit(self.problem, order), np.int64)

    def sweep(self, direction: str) -> list[int]:
        """The buffers off the pivot in a sweep over time, larger first at the same time:
        ``inward`` from either end toward the pivot (the left side by start, the right by latest
        end), ``outward`` from the pivot (the left side by latest end, the right by start)."""
        rest, left = self.rest, self.left[self.rest]
        if direction == "inward":
            when = np.where(left, self.starts[rest], -self.ends[rest])
        else:
            when = np.where(left, -self.ends[rest], self.starts[rest])
        return rest[np.lexsort((rest, -self.sizes[rest], when))].tolist()

    def stacked(self, stack: list[int]) -> np.ndarray:
        """Offsets with the stack's buffers one on top of the other (aligned), the rest at 0."""
        offsets = np.zeros(len(self.problem), np.int64)
        y = 0
        for i in stack:
            y = align_up(y, self.problem.buffers[i].alignment)
            offsets[i] = y
            y += int(self.sizes[i])
        return offsets


def peak_stack_offsets(problem: Problem, runs: list[tuple[int, str, str]]) -> list[int]:
    """The lowest plan over ``runs`` ((pivot step, stack, fill) triples), each side of a pivot
    taken from its lowest fill for that pivot and stack; the first plan at the lower bound ends
    the runs (no plan is lower). The lowest-first fills run last, and only while the plan is
    above the live bytes' peak, by at most :data:`LOWEST_GAP`, and :data:`LOWEST_WORK` lasts:
    one that gives up on its work ends them, and so does one that brings the plan to the peak.
    The first of them and those of its pivot and stack that follow it run first, the others in
    the order :meth:`_Plans.next_lowest` picks."""
    plans = _Plans(problem, runs)
    lowest = [r for r in runs if r[2].startswith("lowest-")]  # pending, in the order to run
    bound = int(live_profile(problem)[1].max(initial=0))
    optimal = lower_bound(problem)
    for t, order, fill in (r for r in runs if not r[2].startswith("lowest-")):
        plans.fill(t, order, fill)
        height, offsets = plans.combined(t, order)
        if height <= optimal:
            return offsets.tolist()
    if lowest and (not plans.fills or bound < plans.best()[0] <= bound + bound * LOWEST_GAP):
        left, lead = LOWEST_WORK, lowest[0][:2]
        while lowest:
            t, order, fill = lowest.pop(0 if lowest[0][:2] == lead else plans.next_lowest(lowest))
            spent = plans.fill_lowest(t, order, fill.removeprefix("lowest-"), left, bound)
            if spent is None or plans.combined(t, order)[0] <= bound:
                break
            left -= spent
    return plans.best()[1].tolist()


class _Plans:
    """The fills run so far, per pivot and stack, and the lowest plan they combine into."""

    def __init__(self, problem: Problem, runs: list[tuple[int, str, str]]) -> None:
        self.problem = problem
        self.peaks = {t: _Peak(problem, t) for t in dict.fromkeys(t for t, _, _ in runs)}
        self.keys = [(t, m) for t in self.peaks for m in dict.fromkeys(m for s, m, _ in runs if s == t)]
        self.stacks: dict[tuple[int, str], tuple[list[int], np.ndarray]] = {}
        self.fills: dict[tuple[int, str], list[np.ndarray]] = {}

    def stack(self, t: int, order: str) -> tuple[list[int], np.ndarray]:
        """The pivot ``t``'s buffers in the stack ``order``, and their offsets stacked."""
        if (t, order) not in self.stacks:
            stack = self.peaks[t].stack(order)
            self.stacks[t, order] = (stack, self.peaks[t].stacked(stack))
        return self.stacks[t, order]

    def fill(self, t: int, order: str, fill: str) -> None:
        """Run a first-fit or skyline fill around the stack."""
        peak = self.peaks[t]
        stack, stacked = self.stack(t, order)
        if fill.startswith("skyline-"):
            offsets = _skyline_fill(peak, stacked, fill.removeprefix("skyline-"))
        else:
            offsets = peak.first_fit(stack, fill)
        self.fills.setdefault((t, order), []).append(offsets)

    def fill_lowest(self, t: int, order: str, sweep: str, work: int, bound: int) -> int | None:
        """Run a lowest-first fill around the stack, ties in the ``sweep`` of
        :meth:`_Peak.sweep`, within ``work``: the work it spent, None when it gave up. A side
        that a fill of this stack already packs within ``bound`` is copied from it, not placed
        again (the two sides never meet in time)."""
        peak = self.peaks[t]
        start, placed = self._sides_at(t, order, bound)
        ties = [i for i in peak.sweep(sweep) if not placed[i]]
        offsets, spent = lowest_first(self.problem, peak.peak.tolist(), start, ties, work)
        if offsets is None:
            return None
        self.fills.setdefault((t, order), []).append(offsets)
        return spent

    def next_lowest(self, pending: list[tuple[int, str, str]]) -> int:
        """Which of the ``pending`` lowest-first fills runs next: the first of those whose pivot
        step the lowest plan so far is highest at. Why: a fill packs the steps around its pivot
        most tightly, and where the plan is already at the bound another fill of them gains
        nothing."""
        tops = self.best()[1] + self.problem.sizes.astype(np.int64)
        height = {t: int(tops[self.peaks[t].at_peak].max(initial=0)) for t in dict.fromkeys(t for t, _, _ in pending)}
        return min(range(len(pending)), key=lambda k: (-height[pending[k][0]], k))

    def _sides_at(self, t: int, order: str, bound: int) -> tuple[np.ndarray, np.ndarray]:
        """The stack's offsets with each side that a fill of it packs within ``bound`` copied
        from that fill, and which buffers that places (the stack's too)."""
        peak = self.peaks[t]
        start, placed = self.stack(t, order)[1].copy(), peak.at_peak.copy()
        held = peak.peak[peak.sizes[peak.peak] > 0]
        same = [f for f in self.fills.get((t, order), []) if np.array_equal(f[held], start[held])]
        for side in (peak.left, ~peak.left & ~peak.at_peak):
            done = next((f for f in same if side.any() and int((f + peak.sizes)[side].max()) <= bound), None)
            if done is not None:
                start[side], placed[side] = done[side], True
        return start, placed

    def combined(self, t: int, order: str) -> tuple[int, np.ndarray]:
        """The height and the lowest plan of the fills of the pivot ``t`` and stack ``order``."""
        return _combined(self.peaks[t], self.stacks[t, order][1], self.fills[t, order])

    def best(self) -> tuple[int, np.ndarray]:
        """The lowest plan and its height (the first on ties, in the runs' order of pivots and
        stacks)."""
        best: tuple[int, np.ndarray] | None = None
        for t, order in (k for k in self.keys if k in self.fills):
            h, offsets = self.combined(t, order)
            if best is None or h < best[0]:
                best = (h, offsets)
        assert best is not None
        return best


def _combined(peak: _Peak, stack: np.ndarray, fills: list[np.ndarray]) -> tuple[int, np.ndarray]:
    """The lowest plan from ``fills``: the lowest left side with the lowest right side among
    the fills that place the stack as ``stack`` does (first fit may put a buffer of another
    branch lower), or a whole fill when lower, and its height."""
    whole = min(range(len(fills)), key=lambda k: int((fills[k] + peak.sizes).max()))
    best = (int((fills[whole] + peak.sizes).max()), fills[whole])
    held = peak.peak[peak.sizes[peak.peak] > 0]  # an empty buffer meets nothing wherever it is
    same = [f for f in fills if np.array_equal(f[held], stack[held])]
    if not same:
        return best
    sides = []
    for members in (peak.left | peak.at_peak, ~peak.left):
        heights = [int((f + peak.sizes)[members].max()) if members.any() else 0 for f in same]
        k = int(np.argmin(heights))
        sides.append((heights[k], same[k]))
    (h_left, left), (h_right, right) = sides
    h = max(h_left, h_right)
    return (h, np.where(peak.left, left, right)) if h < best[0] else best


def _skyline_fill(peak: _Peak, offsets: np.ndarray, rule: str) -> np.ndarray:
    """``offsets`` (the stack placed) with each side of the peak placed by the skyline best fit
    with the fill rule ``rule`` over the stack: seen from either side the stack is a skyline, a
    staircase when the stack's order matches the side."""
    plan = offsets.copy()
    tops = offsets[peak.peak] + peak.sizes[peak.peak]
    for side in (np.flatnonzero(peak.left), np.flatnonzero(peak.starts > peak.t)):
        if not len(side):
            continue
        lo, hi = int(peak.starts[side].min()), int(peak.ends[side].max())
        floor = _stack_floor(peak, tops, lo, hi)
        sub = Problem.of([peak.problem.buffers[i] for i in side])
        plan[side] = skyline_offsets(sub, rule, floor)
    return plan


def _stack_floor(peak: _Peak, tops: np.ndarray, lo: int, hi: int) -> list[tuple[int, int, int]]:
    """The top of the stack's buffers live at each step of ``[lo, hi)``, a range on one side of
    the pivot (0 where none is), as ``(t0, t1, y)`` steps of equal height."""
    times = np.arange(lo, hi)
    heights = _stack_heights(peak, tops, times)
    cuts = np.flatnonzero(np.diff(heights)) + 1
    bounds = [0, *cuts.tolist(), len(times)]
    return [(lo + a, lo + b, int(heights[a])) for a, b in zip(bounds, bounds[1:])]


def _stack_heights(peak: _Peak, tops: np.ndarray, times: np.ndarray) -> np.ndarray:
    """The highest top among the stack's buffers live at each of ``times``, all before the
    pivot or all after it (0 where none is). Every stack buffer is live at the pivot, so before
    it a buffer is live from its start on, after it until its end: the running maximum of the
    tops in start order, or in order of latest end."""
    if not len(tops):
        return np.zeros(len(times), np.int64)
    before = bool(times[0] < peak.t)
    if before:
        key, query = peak.starts[peak.peak], times  # started by the step
    else:
        key, query = -peak.ends[peak.peak], -times  # not ended by the step
    order = np.argsort(key, kind="stable")
    reach = np.maximum.accumulate(tops[order])
    live = np.searchsorted(key[order], query, side="right" if before else "left")
    return np.where(live > 0, reach[np.maximum(live - 1, 0)], 0)
