"""Peak stacking (planning/peak_stack.py): the stacked step is packed without a gap, every plan
is valid, the pivots are the live bytes' highest local maxima, and ``best`` runs it on large
problems only."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from memopt.planning.bounds import lower_bound
from memopt.planning.firstfit import FIRST_FIT_FLOOR, first_fit_work
from memopt.planning.peak_stack import (
    FILLS, LOWEST_RUNS, PEAK_LOWEST_RUNS, PIVOT_RUNS, RUNS, STACKS, TIGHT_LOWEST_RUNS, PeakStack, _Peak, near_peak_steps, peak_stack_offsets, pivot_steps,
    runs,
)
from memopt.planning.problem import Buffer, Overwrite, Problem
from memopt.planning.strategies import Best, make_strategy
from memopt.planning.validate import find_conflicts

PORTFOLIO = ("sequential", "large-first", "short-first", "megengine", "nnvm", "skyline")

# Six buffers where every member of the small portfolio leaves a hole at the peak step (5):
# the bound is 10, their plans 11-12.
HOLE_AT_PEAK = [(4, 1, 2), (4, 5, 8), (4, 0, 4), (3, 3, 7), (3, 4, 6), (2, 3, 5)]


def _problem(rows) -> Problem:
    return Problem.of(Buffer(f"b{i}", size, s, e) for i, (size, s, e) in enumerate(rows))


def _height(p: Problem, offsets) -> int:
    return int(max(np.asarray(offsets) + p.sizes))


def _lowest(pivots: list[int]) -> list[tuple[int, str, str]]:
    """The lowest-first runs :func:`runs` schedules for ``pivots`` (the peak first)."""
    every = [(pivots[0], stack, sweep) for stack, sweep in LOWEST_RUNS + PEAK_LOWEST_RUNS]
    every += [(t, stack, sweep) for t in pivots[1:] for stack, sweep in LOWEST_RUNS]
    every += [(pivots[0], stack, sweep) for stack, sweep in TIGHT_LOWEST_RUNS]
    return [(t, stack, f"lowest-{sweep}") for t, stack, sweep in every]


def test_reaches_the_bound_where_the_portfolio_leaves_a_hole_at_the_peak():
    p = _problem(HOLE_AT_PEAK)
    assert min(make_strategy(n).plan(p).height for n in PORTFOLIO) > lower_bound(p)
    assert PeakStack().plan(p).height == lower_bound(p)


def test_each_side_takes_its_lowest_fill():
    p = _problem(HOLE_AT_PEAK)
    t = pivot_steps(p)[0]
    every = [(t, stack, fill) for stack, fill in RUNS]
    assert _height(p, peak_stack_offsets(p, every)) <= min(_height(p, peak_stack_offsets(p, [r])) for r in every)


def test_the_first_plan_at_the_bound_ends_the_runs(monkeypatch):
    import memopt.planning.peak_stack as peak_stack

    p = _problem(HOLE_AT_PEAK)
    t = pivot_steps(p)[0]
    every = [(t, stack, fill) for stack, fill in RUNS]
    reaching = next(k for k, r in enumerate(every) if _height(p, peak_stack_offsets(p, [r])) == lower_bound(p))
    assert reaching < len(every) - 1  # runs are left to skip
    ran = []
    fill = peak_stack._Plans.fill
    monkeypatch.setattr(peak_stack._Plans, "fill", lambda self, *run: (ran.append(run), fill(self, *run)))
    offsets = peak_stack_offsets(p, every)
    assert _height(p, offsets) == lower_bound(p) and not find_conflicts(p, offsets)
    assert ran == every[:reaching + 1]


def test_the_next_lowest_first_fill_is_at_the_pivot_where_the_plan_is_highest():
    from memopt.planning.peak_stack import _Plans

    p = _problem([(4, 0, 2), (4, 3, 5)])  # two pivots, steps 0 and 3
    pending = [(0, "close", "lowest-outward"), (3, "close", "lowest-outward"), (3, "close", "lowest-inward")]
    plans = _Plans(p, pending)
    for offsets, first in (([0, 6], 1), ([6, 0], 0), ([0, 0], 0)):
        plans.best = lambda offsets=offsets: (10, np.asarray(offsets, np.int64))
        assert plans.next_lowest(pending) == first


def test_pivots_are_the_highest_local_maxima_peak_first():
    # live bytes per step: 3, 7, 7, 4, 6, 3, 5 (local maxima: 7 from step 1, 6 at 4, 5 at 6)
    p = _problem([(3, 0, 7), (4, 1, 3), (1, 3, 4), (3, 4, 5), (2, 6, 7)])
    assert pivot_steps(p) == [1, 4, 6]
    assert pivot_steps(p, 1) == [1]


def test_a_maximum_stacking_almost_the_buffers_of_a_higher_one_is_no_pivot():
    # 1500 buffers through every step; maxima at 2 and 5 (one small buffer each, a dip between)
    # and at 10 (ten more buffers): 5 differs from 2 by two buffers of 1501, 10 by eleven
    rows = [(1, 0, 20)] * 1500 + [(20, 2, 4), (20, 5, 7)] + [(1, 10, 12)] * 10
    p = _problem(rows)
    assert pivot_steps(p) == [2, 10]
    assert pivot_steps(_problem(rows[-12:])) == [2, 5, 10]  # alone, the small buffers differ


def test_near_peak_steps_count_the_steps_within_a_share_of_the_peak():
    # live bytes per step: 1000 (0-1), 997 (2-3), 500 (4-5), 996 (6), 985 (7-9)
    p = _problem([(500, 0, 10), (500, 0, 2), (497, 2, 4), (496, 6, 7), (485, 7, 10)])
    assert near_peak_steps(p).tolist() == [8, 2, 2, 1, 3]  # within 2 %: every step but 4-5
    assert near_peak_steps(p, 0.005).tolist() == [5, 2, 2, 1, 0]


def test_the_critical_stack_puts_the_buffers_living_through_more_near_peak_steps_lower():
    # the pivot (step 5) holds a, b, c, d; steps 1-2 and 9 are near the peak too
    rows = [(10, 0, 12), (10, 1, 6), (10, 4, 12), (10, 4, 6), (91, 1, 3), (91, 9, 10)]
    p = _problem(rows)
    peak = _Peak(p, 5)
    assert near_peak_steps(p)[:4].tolist() == [3, 2, 1, 0]
    assert peak.stack("critical") == [0, 1, 2, 3]
    assert peak.stack("end") == [0, 2, 1, 3] and peak.stack("start") == [0, 1, 2, 3]
    # a tie in near-peak steps goes to the latest end, as in the end order
    tie = _Peak(_problem([(10, 0, 12), (10, 4, 6), (10, 4, 12), (91, 0, 1)]), 5)
    assert tie.stack("critical") == [0, 2, 1]


def test_the_close_and_tight_stacks_count_only_the_steps_nearer_the_peak():
    # a and b at the pivot (step 5); live bytes 997 at steps 1-3 (a), 999 at 9-10 (b), 1000 at 13
    p = _problem([(100, 0, 8), (100, 4, 12), (897, 1, 4), (899, 9, 11), (1000, 13, 14)])
    assert near_peak_steps(p, 0.005)[:2].tolist() == [3, 2]
    assert near_peak_steps(p, 0.002)[:2].tolist() == [0, 2]
    peak = _Peak(p, 5)
    assert peak.stack("close") == [0, 1]
    assert peak.stack("tight") == [1, 0]


buffers = st.lists(
    st.tuples(st.integers(0, 64), st.integers(0, 30), st.integers(1, 12), st.sampled_from([1, 1, 8]),
              st.sampled_from([(), (), ((0, 0),), ((0, 1),)])),
    min_size=1, max_size=40,
)


@settings(max_examples=80, deadline=None)
@given(buffers, st.sampled_from(FILLS))
def test_plans_are_valid_and_the_stacked_step_has_no_gap(rows, fill):
    p = Problem.of(Buffer(f"b{i}", size, s, s + length, align, path)
                   for i, (size, s, length, align, path) in enumerate(rows))
    for t in pivot_steps(p):
        offsets = peak_stack_offsets(p, [(t, stack, fill) for stack in STACKS])
        assert not find_conflicts(p, offsets)
        if all(b.alignment == 1 and not b.path for b in p.buffers):
            live = [i for i, b in enumerate(p.buffers) if b.start <= t < b.end]
            assert max(offsets[i] + p.buffers[i].size for i in live) == sum(p.buffers[i].size for i in live)
    assert not find_conflicts(p, PeakStack().plan(p).offsets)


def test_in_place_permissions_are_kept_valid():
    p = Problem.of(
        [Buffer("a", 8, 0, 2), Buffer("b", 8, 1, 4), Buffer("c", 4, 0, 5)], [Overwrite(child=1, parent=0)]
    )
    assert not find_conflicts(p, PeakStack().plan(p).offsets)


def test_best_runs_it_past_the_descent_only(monkeypatch):
    import memopt.planning.strategies as strategies

    p = _problem(HOLE_AT_PEAK)
    small = Best()
    small.plan(p)
    assert "peak-stack" not in small.stats["members"]
    monkeypatch.setattr(strategies, "DESCENT_MAX", 5)
    past = Best(polish=False)
    assert past.plan(p).height == lower_bound(p)
    assert past.stats["members"][-1] == "peak-stack"
    monkeypatch.setattr(Best, "MEDIUM", 2)
    medium = Best()
    assert medium.plan(p).height == lower_bound(p)
    assert medium.stats["members"][:2] == ["skyline", "peak-stack"]


def test_runs_cover_every_pair_and_shrink_with_the_work(monkeypatch):
    import memopt.planning.peak_stack as peak_stack

    assert sorted(RUNS) == sorted((stack, fill) for fill in FILLS for stack in STACKS[:4])
    tiny = _problem(HOLE_AT_PEAK)
    peak, *others = pivot_steps(tiny)
    lowest = _lowest([peak, *others])
    assert runs(tiny) == ([(peak, *r) for r in RUNS[:5]] + [(t, *r) for t in others for r in PIVOT_RUNS]
                          + [(peak, *r) for r in RUNS[5:]] + lowest)
    big = Problem.of(Buffer(f"b{i}", 1 + i % 7, 0, 1) for i in range(8000))  # one first fit: 64M units
    some = [r for r in runs(big) if not r[2].startswith("lowest-")]
    assert some[0] == (0, *RUNS[0]) and len(some) < len(RUNS)
    assert ("size" in {f for _, _, f in some}) and ("outward" not in {f for _, _, f in some})
    monkeypatch.setattr(peak_stack, "WORK", 1)
    assert runs(big) == [(0, *RUNS[0])] + _lowest([0])


# The peak (7) and the second pivot (9) are both at the bound, 16; none of the peak's first five
# runs reaches it, nor the second pivot stacked by end; stacked by the near-peak steps it does.
SECOND_PIVOT_CRITICAL = [(4, 1, 9), (2, 5, 10), (6, 3, 6), (6, 9, 11), (5, 7, 10), (5, 6, 8)]


def test_the_second_pivot_runs_the_critical_stack_within_its_first_three(monkeypatch):
    import memopt.planning.peak_stack as peak_stack

    p = _problem(SECOND_PIVOT_CRITICAL)
    peak, second, *_ = pivot_steps(p)
    by_end = [(peak, *r) for r in RUNS[:5]] + [(second, *r) for r in RUNS[:2]]
    assert _height(p, peak_stack_offsets(p, by_end)) > lower_bound(p)
    first_fit_price = max(first_fit_work(p), FIRST_FIT_FLOOR * len(p))
    monkeypatch.setattr(peak_stack, "WORK", 5 * first_fit_price + 3 * peak_stack.SKYLINE_WORK * len(p))
    assert [r for r in runs(p) if not r[2].startswith("lowest-")] == by_end + [(second, "critical", "size")]
    assert PeakStack().plan(p).height == lower_bound(p)


def _count_lowest_fills(monkeypatch) -> list[int]:
    import memopt.planning.peak_stack as peak_stack

    calls: list[int] = []

    def counted(*args, **kwargs):
        calls.append(kwargs.get("work", args[4] if len(args) > 4 else None))
        return real(*args, **kwargs)

    real = peak_stack.lowest_first
    monkeypatch.setattr(peak_stack, "lowest_first", counted)
    return calls


@pytest.fixture
def any_gap(monkeypatch):
    """The lowest-first fills run however far above the bound the plan is (these problems are
    small: a byte is percents)."""
    import memopt.planning.peak_stack as peak_stack

    monkeypatch.setattr(peak_stack, "LOWEST_GAP", float("inf"))


def test_lowest_first_fills_run_only_above_the_bound(monkeypatch, any_gap):
    calls = _count_lowest_fills(monkeypatch)
    at_bound = _problem(HOLE_AT_PEAK)
    PeakStack().plan(at_bound)
    assert calls == []
    above = _problem(SECOND_PIVOT_CRITICAL)
    t = pivot_steps(above)[0]
    first_five = [(t, *r) for r in RUNS[:5]]
    assert _height(above, peak_stack_offsets(above, first_five)) > lower_bound(above)
    lowest = _lowest([t])
    peak_stack_offsets(above, first_five + lowest)
    assert len(calls) == len(lowest)


def test_lowest_first_fills_stop_when_their_work_is_spent(monkeypatch, any_gap):
    import memopt.planning.peak_stack as peak_stack

    calls = _count_lowest_fills(monkeypatch)
    p = _problem(SECOND_PIVOT_CRITICAL)
    t = pivot_steps(p)[0]
    lowest = _lowest([t])
    monkeypatch.setattr(peak_stack, "LOWEST_WORK", 1)
    offsets = peak_stack_offsets(p, [(t, *RUNS[0])] + lowest)
    assert calls == [1] and not find_conflicts(p, offsets)


@settings(max_examples=60, deadline=None)
@given(buffers, st.sampled_from(LOWEST_RUNS + PEAK_LOWEST_RUNS))
def test_lowest_first_fills_are_valid_and_keep_the_stack(rows, run):
    p = Problem.of(Buffer(f"b{i}", size, s, s + length, align, path)
                   for i, (size, s, length, align, path) in enumerate(rows))
    t = pivot_steps(p)[0]
    offsets = peak_stack_offsets(p, [(t, run[0], f"lowest-{run[1]}")])
    assert not find_conflicts(p, offsets)
    if all(b.alignment == 1 and not b.path for b in p.buffers):
        live = [i for i, b in enumerate(p.buffers) if b.start <= t < b.end]
        assert max(offsets[i] + p.buffers[i].size for i in live) == sum(p.buffers[i].size for i in live)


def test_a_lowest_first_fill_places_only_the_side_not_yet_within_the_bound(monkeypatch, any_gap):
    import memopt.planning.peak_stack as peak_stack

    p = _problem(SECOND_PIVOT_CRITICAL)
    t = pivot_steps(p)[0]
    peak = _Peak(p, t)
    by_end = peak.first_fit(peak.stack("end"), "size") + p.sizes
    left, right = np.flatnonzero(peak.left), np.flatnonzero(peak.starts > t)
    assert by_end[left].max() > lower_bound(p) >= by_end[right].max()  # the right side is done
    placed: list[list[int]] = []

    def recorded(problem, fixed, offsets, ties, work=None):
        placed.append(list(ties))
        return real(problem, fixed, offsets, ties, work)

    real = peak_stack.lowest_first
    monkeypatch.setattr(peak_stack, "lowest_first", recorded)
    offsets = peak_stack_offsets(p, [(t, "end", "size"), (t, "end", "lowest-outward")])
    assert placed == [left.tolist()]
    assert not find_conflicts(p, offsets)


def test_lowest_first_fills_do_not_run_far_above_the_bound(monkeypatch):
    import memopt.planning.peak_stack as peak_stack

    calls = _count_lowest_fills(monkeypatch)
    p = _problem(SECOND_PIVOT_CRITICAL)
    t = pivot_steps(p)[0]
    runs = [(t, *r) for r in RUNS[:5]] + _lowest([t])
    gap = _height(p, peak_stack_offsets(p, runs[:5])) / lower_bound(p) - 1  # 1 byte over 16
    monkeypatch.setattr(peak_stack, "LOWEST_GAP", gap * 0.99)
    peak_stack_offsets(p, runs)
    assert calls == []
    monkeypatch.setattr(peak_stack, "LOWEST_GAP", gap)
    peak_stack_offsets(p, runs)
    assert calls
