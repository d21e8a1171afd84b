"""The exact search's rounds: branch and bound (``bnb.py``) with node limits that double every
round, CP-SAT beside it, alternating between the problem and its stacked view.

Each round tries several preorders with the round's node limit, as MiniMalloc does, plus a
jittered copy of each with a quarter of it: run lengths are heavy-tailed, and a nearby order often
succeeds at once where its base order thrashes. Unlike MiniMalloc, independent partitions are
solved separately and kept across caps (``partitions.py``). With a capacity, a round first aims at
it; without one, the caps come from a binary search between the lower bound and the best height
found, and a run exhausted without reaching its node limit proves its cap infeasible and raises
the lower bound.

CP-SAT (``cpsat.py``, when OR-Tools is installed) joins from the first round whose node limit is
worth :data:`CPSAT_MIN_NODES`: at the capacity a stream of runs per partition
(``cpsat_runs.py``), below it one run per binary-search probe. The two methods fail on different
instances, and together they fit what neither fits alone.

The views (``views.py``) get every other round, so an instance only one of them solves costs at
most about twice its time there; all views' CP-SAT streams start in the same round, so both cores
stay busy while either view's branch and bound runs.
"""

from __future__ import annotations

from .. import cpsat
from ..bounds import lower_bound
from ..problem import Problem
from .bnb import FAIL, OK
from .cpsat_runs import CpsatRuns, once
from .partitions import try_cap
from .views import Best, View, stacked_view
from .work import Work

CPSAT_MIN_NODES = 3_000
"""Rounds whose node limit is below this (half a second) skip CP-SAT: its model building and
presolve would dominate such a short run."""


def exact_search(problem: Problem, best_h: int, lb: int, work: Work, capacity: int | None, seed: int,
                 stacking: bool, stats: dict) -> tuple[list[int], int] | None:
    """Best plan below ``best_h`` found by the rounds, as ``(offsets, height)``, or None.

    ``stacking``: the stacked view takes part when it removes enough buffers. Writes the views,
    the proven lower bound (``proven_lb``) and the methods that solved the best plan (``exact``)
    to ``stats``."""
    original = View(problem, lb, capacity, seed)
    views = [original]
    stacked = stacked_view(problem) if stacking else None
    if stacked is not None:
        views.insert(0, View(stacked.problem, lower_bound(stacked.problem), capacity, seed + 1, stacked))
    stats["views"] = "+".join(v.label() for v in views)
    if original.done:
        return None
    best = Best(best_h)
    target = lb if capacity is None else max(lb, capacity)
    try:
        while work.left > 0 and not original.done:
            _rounds(views, original, problem, best, work, capacity, target)
    finally:
        for v in views:
            v.stop()
    stats["proven_lb"] = original.proven_lo
    stats["exact"] = (best.view or original).method()
    return None if best.offsets is None else (best.offsets, best.height)


def _rounds(views: list[View], original: View, problem: Problem, best: Best, work: Work,
            capacity: int | None, target: int) -> None:
    """One round of every view not done; ``original`` (the problem's own view) is marked done once
    the best plan reaches the target or the problem's proven lower bound."""
    # CP-SAT joins every view from the first round in which one view's node limit is worth it
    # (CPSAT_MIN_NODES), so that the views' streams start together.
    active = [v for v in views if not v.done]
    for v in active:
        v.advance()
    with_cpsat = cpsat.available() and any(v.limit >= CPSAT_MIN_NODES for v in active)
    if with_cpsat and capacity is not None:
        for v in active:
            v.start_cpsat(capacity, original.proven_lo, work.deadline)
    for v in active:
        if v.done or work.left <= 0:
            continue
        _round(v, problem, best, work, capacity, original.proven_lo, with_cpsat)
        if v.done:
            v.stop()
        if best.height <= max(target, original.proven_lo):
            original.done = True
            break


def _round(v: View, problem: Problem, best: Best, work: Work, capacity: int | None, floor: int,
           with_cpsat: bool) -> None:
    """One round of view ``v``; ``floor`` is the problem's proven lower bound (every cap below it
    is infeasible for every view); ``with_cpsat``: CP-SAT runs beside it."""
    if capacity is not None and _at_capacity(v, problem, best, work, capacity, floor):
        return
    _binary_search(v, problem, best, work, capacity, floor, with_cpsat)
    if best.height <= max(v.proven_lo, floor):
        v.done = True


def _at_capacity(v: View, problem: Problem, best: Best, work: Work, capacity: int, floor: int) -> bool:
    """While the capacity is open for ``v``, try the round's runs at it; True when that ends the
    round (a plan found, or the best plan already as low)."""
    cap = v.aim(capacity, floor)
    if cap is None:
        return False
    if cap >= best.height:
        v.done = True
        return True
    status, sol = try_cap(v.st, cap, v.runs, work, v.cache, v.at_capacity)
    if status == OK:
        assert sol is not None  # OK comes with the offsets
        best.offer(v, problem, sol)
        return True
    if status == FAIL:
        v.proven_lo = cap + 1
        v.close_capacity()
    return False


def _binary_search(v: View, problem: Problem, best: Best, work: Work, capacity: int | None, floor: int,
                   with_cpsat: bool) -> None:
    """Probes between the lower bound and the best height, looking for plans strictly better than
    the best. With the capacity still open only one probe, above the capacity, with an eighth of
    the node limit (so that an unreachable capacity still yields a good plan); otherwise the
    round's runs, the first probe at the lower bound itself, and below the capacity one CP-SAT
    run per probe, worth its runs."""
    runs = v.runs
    lowest = max(v.proven_lo, floor)
    lo = lowest
    if v.open_capacity:
        assert capacity is not None  # open only when there is a capacity
        lo = max(lowest, capacity + 1)
    hi = best.height - 1
    probes = 1 if v.open_capacity else -1
    if v.open_capacity:
        runs = [(r, max(64, v.limit // 8)) for r in v.ranks]
    while lo <= hi and work.left > 0 and probes != 0:
        probes -= 1
        cap = lo if lo == lowest and not v.open_capacity else (lo + hi) // 2
        probe = (CpsatRuns(v.st, cap, once(min(sum(n for _, n in runs), work.left), v.round_seed), work.deadline)
                 if with_cpsat and not v.open_capacity else None)
        try:
            status, sol = try_cap(v.st, cap, runs, work, v.cache, probe)
        finally:
            if probe is not None:
                probe.stop()
        if status == OK:
            assert sol is not None  # OK comes with the offsets
            best.offer(v, problem, sol)
            hi = best.height - 1
        else:
            lo = cap + 1
            if status == FAIL:
                v.proven_lo = cap + 1
