"""Skyline best fit (planning/skyline.py): valid on any problem, the gap rule by hand, the size
rule that keeps it out of ``best`` on large inputs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from memopt.planning import Buffer, Problem, Solution, lower_bound, make_strategy, validate
from memopt.planning.skyline import FILL_RULES, Skyline, skyline_offsets
from memopt.planning.strategies import Best


@st.composite
def problems(draw):
    n = draw(st.integers(1, 40))
    buffers = []
    for i in range(n):
        start = draw(st.integers(0, 30))
        length = draw(st.integers(1, 15))
        size = draw(st.integers(1, 200))
        align = draw(st.sampled_from([1, 1, 4, 16]))
        buffers.append(Buffer(f"b{i}", size, start, start + length, align))
    return Problem.of(buffers)


@settings(max_examples=150, deadline=None)
@given(p=problems(), rule=st.sampled_from(sorted(FILL_RULES)))
def test_every_skyline_plan_is_valid_and_aligned(p, rule):
    offsets = skyline_offsets(p, rule)
    sol = Solution.of(p, offsets, "skyline")
    validate(p, sol)
    assert all(o % b.alignment == 0 for o, b in zip(offsets, p.buffers))
    assert sol.height >= lower_bound(p)


@settings(max_examples=50, deadline=None)
@given(p=problems())
def test_the_strategy_keeps_the_lower_rule_and_is_deterministic(p):
    sol = Skyline().plan(p)
    heights = [Solution.of(p, skyline_offsets(p, r), "x").height for r in FILL_RULES]
    assert sol.height == min(heights)
    assert Skyline().plan(p).offsets == sol.offsets


def test_a_time_cut_tiling_is_packed_exactly():
    """One long buffer under two that split its lifetime, and a third layer: the lowest gap is
    always filled by a buffer that fits inside it — the longest first — so the plan reaches the
    bound."""
    p = Problem.of([
        Buffer("long", 50, 0, 10),
        Buffer("left", 100, 0, 4),
        Buffer("right", 60, 4, 10),
        Buffer("top", 40, 4, 10),
    ])
    offsets = skyline_offsets(p, "duration")
    assert dict(zip((b.id for b in p.buffers), offsets)) == {"long": 0, "left": 50, "right": 50, "top": 110}
    assert Solution.of(p, offsets, "x").height == lower_bound(p) == 150


def test_a_gap_nothing_fits_is_raised_and_wasted():
    """After a [0,3) is placed, the gap [3,4) beside it takes no buffer (b and c start earlier):
    it is raised to a's top, and c, the longest of the rest, goes on top."""
    p = Problem.of([Buffer("a", 100, 0, 3), Buffer("b", 50, 1, 2), Buffer("c", 80, 2, 4)])
    assert skyline_offsets(p, "duration") == [0, 100, 100]


def test_best_runs_skyline_up_to_its_large_size_rule():
    from memopt.planning.synthetic import nn_like

    small = Problem.of([Buffer("a", 100, 0, 3), Buffer("b", 50, 1, 2), Buffer("c", 80, 2, 4), Buffer("d", 70, 0, 1)])
    best = make_strategy("best", polish=False)
    best.plan(small)
    assert "skyline" in best.stats["members"] or any(s.startswith("skyline (lower bound") for s in best.stats["skipped"])
    medium = nn_like(Best.MEDIUM + 1)
    best.plan(medium)
    ran = best.stats["members"]
    assert ran[0] == "skyline" and set(ran) <= {"skyline", "megengine", "large-first"}
    assert ran == ["skyline", "megengine", "large-first"] or "megengine (lower bound reached)" in best.stats["skipped"]
    large = nn_like(Best.LARGE + 1)
    best.plan(large)
    assert best.stats["members"][0] == "large-first"  # short lifetimes: the cheaper first
    assert best.stats["members"] == ["large-first", "skyline"] or "skyline (lower bound reached)" in best.stats["skipped"]
    validate(large, make_strategy("skyline").plan(large))  # asked for by name it runs at any size


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 9)), min_size=1, max_size=40), st.randoms(use_true_random=False))
def test_the_gap_query_is_the_scan_it_replaces(items, rng):
    """The segment tree answers what the scan of the buffers starting in the gap answered: the
    highest rank among the unplaced ones in the range that end by the gap's end."""
    from memopt.planning.skyline import _Candidates

    ends = [e for e, _ in items]
    ranks = list(range(len(items)))
    rng.shuffle(ranks)
    tree, unplaced = _Candidates(ends, ranks), set(range(len(items)))
    while unplaced:
        lo = rng.randrange(len(items))
        hi = rng.randrange(lo, len(items) + 1)
        t1 = rng.randrange(32)
        fits = [p for p in range(lo, hi) if p in unplaced and ends[p] <= t1]
        assert tree.best(lo, hi, t1) == (max(fits, key=ranks.__getitem__) if fits else -1)
        gone = rng.choice(sorted(unplaced))
        tree.remove(gone)
        unplaced.discard(gone)


def test_empty_problem():
    assert skyline_offsets(Problem.of([])) == []


@pytest.mark.parametrize("rule", sorted(FILL_RULES))
def test_each_rule_on_the_suite_instance_shape(rule):
    from memopt.planning.synthetic import suite_like

    p, _ = suite_like(7)
    validate(p, Solution.of(p, skyline_offsets(p, rule), "x"))


def test_a_rule_that_reaches_the_bound_ends_the_run(monkeypatch):
    """Three buffers that stack to their lower bound under either rule: only the first rule
    runs; a problem the first rule leaves above the bound runs both."""
    import memopt.planning.skyline as skyline

    calls = []
    real = skyline.skyline_offsets

    def counted(problem, rule="duration"):
        calls.append(rule)
        return real(problem, rule)

    monkeypatch.setattr(skyline, "skyline_offsets", counted)
    tight = Problem.of([Buffer("a", 100, 0, 4), Buffer("b", 50, 0, 2), Buffer("c", 50, 2, 4)])
    assert Skyline().plan(tight).height == 150
    assert calls == [next(iter(FILL_RULES))]
    calls.clear()
    # The duration rule leaves this one at 60, above its bound of 50; the area rule reaches it.
    loose = Problem.of([Buffer("a", 10, 4, 7), Buffer("b", 10, 2, 4), Buffer("c", 30, 3, 5),
                        Buffer("d", 10, 0, 3), Buffer("e", 10, 2, 6)])
    assert Skyline().plan(loose).height == lower_bound(loose) == 50
    assert calls == list(FILL_RULES)
