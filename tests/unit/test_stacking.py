"""Stacking (buffers of one lifetime as one block) and the search's stacked view."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from memopt.planning import Buffer, Problem, Solution, find_conflicts, lower_bound, plan, validate
from memopt.planning import search as search_mod
from memopt.planning.search import SearchStrategy, plans, polish, views
from memopt.planning.stacking import Stacking, stack
from memopt.planning.synthetic import Family, guillotine


def test_no_shared_lifetime_means_no_view():
    assert stack(Problem.of([Buffer("a", 4, 0, 2), Buffer("b", 4, 1, 3)])) is None
    assert stack(Problem.of([])) is None


def test_blocks_stack_a_class_by_alignment_then_size():
    p = Problem.of([
        Buffer("a", 3, 0, 4), Buffer("x", 5, 1, 2), Buffer("b", 8, 0, 4, alignment=4),
        Buffer("c", 6, 0, 4, alignment=8), Buffer("d", 2, 0, 4),
    ])
    s = stack(p)
    assert [(b.size, b.start, b.end, b.alignment) for b in s.problem.buffers] == [
        (21, 0, 4, 8), (5, 1, 2, 1)]
    # c (align 8) at 0, b (align 4) at 8 (6 aligned up), then a and d by size: 16, 19.
    assert s.members == ((3, 2, 0, 4), (1,))
    assert s.inner == ((0, 8, 16, 19), (0,))
    assert s.expand([8, 100]) == [24, 100, 16, 8, 27]


def test_branches_and_empty_buffers_are_never_stacked():
    p = Problem.of([
        Buffer("t", 4, 0, 3, path=((0, 0),)), Buffer("e", 4, 0, 3, path=((0, 1),)),
        Buffer("z1", 0, 0, 3), Buffer("z2", 0, 0, 3),
    ])
    assert stack(p) is None
    q = Problem.of([*p.buffers, Buffer("t2", 2, 0, 3, path=((0, 0),))])
    s = stack(q)
    assert s.members == ((0, 4), (1,), (2,), (3,))
    assert s.problem.buffers[0].path == ((0, 0),)


rows = st.lists(
    st.tuples(
        st.integers(0, 40),                        # size (0 included)
        st.sampled_from([(0, 3), (0, 3), (2, 5), (2, 5), (4, 6), (1, 9)]),  # few lifetimes: classes
        st.sampled_from([1, 1, 2, 4, 8, 3]),       # alignment (3: lcm is not the max)
        st.sampled_from([(), (), ((0, 0),), ((0, 1),)]),
    ),
    min_size=1, max_size=16,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows, st.sampled_from(["large-first", "sequential", "skyline"]))
def test_every_plan_of_the_blocks_expands_to_a_valid_aligned_plan_as_high(rows, strategy):
    p = Problem.of(Buffer(f"t{i}", size, a, z, al, path) for i, (size, (a, z), al, path) in enumerate(rows))
    s = stack(p)
    if s is None:
        return
    assert sorted(i for m in s.members for i in m) == list(range(len(p)))
    assert lower_bound(s.problem) >= lower_bound(p)
    blocks = plan(s.problem, strategy)
    offsets = s.expand(blocks.offsets)
    sol = Solution.of(p, offsets, "stacked")
    validate(p, sol)
    assert sol.height == blocks.height
    assert all(o % b.alignment == 0 for b, o in zip(p.buffers, offsets))


def _guillotine(seed: int) -> Problem:
    family = Family(time_cut=0.42, aspect=0.6, skew=1.0, drop=((0.0, 0.1), (1.0, 0.1)), greed=4.0)
    return guillotine(np.random.default_rng(seed), 80, family, capacity=1024, horizon=1024, unit=1)[0]


def test_the_stacked_view_fits_what_the_problem_alone_does_not_within_the_same_work():
    # A packed instance (a fit of height 1024 exists by construction): within 3,000 nodes the
    # branch and bound on the buffers misses the capacity; with the stacked view beside it
    # (half the rounds), the blocks fit within a few hundred.
    p = _guillotine(9)
    alone = SearchStrategy(budget=30, nodes=3000, capacity=1024, stacking=False)
    assert alone.plan(p).height > 1024
    both = SearchStrategy(budget=30, nodes=3000, capacity=1024)
    sol = both.plan(p)
    validate(p, sol)
    assert sol.height <= 1024
    assert both.stats["source"].startswith("stacked") and both.stats["work"] < 1000


def _padded(problem: Problem) -> Stacking | None:
    """A lossy stacked view: every block 7 bytes taller than its members need."""
    s = stack(problem)
    if s is None:
        return None
    blocks = [Buffer(b.id, b.size + 7, b.start, b.end, b.alignment, b.path) for b in s.problem.buffers]
    return Stacking(Problem.of(blocks), s.members, s.inner)


@pytest.mark.parametrize("capacity", [None, 6])
def test_a_stacked_view_finds_plans_but_proves_nothing(monkeypatch, capacity):
    # greedy_trap's optimum is its lower bound, 6 (b0@0, b3@2, b1@4, b2@0); b4 shares b3's
    # lifetime and fits at 5. The padded view cannot reach 6, and its failure there must not
    # count as a proof that the problem cannot.
    p = Problem.of([
        Buffer("b0", 2, 2, 5), Buffer("b1", 2, 4, 6), Buffer("b2", 4, 5, 7), Buffer("b3", 3, 2, 3),
        Buffer("b4", 1, 2, 3),
    ])
    monkeypatch.setattr(views, "stack", _padded)
    monkeypatch.setattr(views, "STACKED_MIN_SHARE", 0.0)
    s = SearchStrategy(budget=10, nodes=20000, capacity=capacity)
    sol = s.plan(p)
    assert not find_conflicts(p, sol.offsets)
    assert sol.height == 6 == lower_bound(p)
    assert s.stats.get("proven_lb", 6) <= 6


def test_the_polish_gives_half_its_nodes_to_the_blocks(monkeypatch):
    # best's short branch and bound: with the stacked view the same 600 nodes end lower on a
    # packed instance (the blocks' half finds what the buffers' half cannot).
    p = _guillotine(7)
    start = plans.large_first(p)
    offsets, h = search_mod.exact_polish(p, start, 600)
    validate(p, Solution.of(p, offsets, "polish"))
    assert Solution.of(p, offsets, "polish").height == h
    monkeypatch.setattr(polish, "stacked_view", lambda problem: None)
    _, alone = search_mod.exact_polish(p, start, 600)
    assert h < alone < plans.height(p, start)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows)
def test_the_polish_never_rises_and_stays_valid(rows):
    p = Problem.of(Buffer(f"t{i}", size, a, z, al) for i, (size, (a, z), al, _) in enumerate(rows))
    start = plan(p, "sequential")
    offsets, h = search_mod.exact_polish(p, start.offsets, 300)
    sol = Solution.of(p, offsets, "polish")
    validate(p, sol)
    assert sol.height == h <= start.height
    assert search_mod.exact_polish(p, start.offsets, 300) == (offsets, h)
