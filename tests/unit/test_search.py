"""The ``search`` strategy: valid, never worse than greedy, deterministic, capacity-aware."""

import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from memopt.planning import (
    Buffer, Problem, lower_bound, make_strategy, plan, strategy_names, validate,
)
from memopt.planning.search import SearchStrategy
from memopt.planning.strategies import Best
from memopt.planning.synthetic import nn_like

GREEDY = ["sequential", "large-first", "short-first"]


def search(problem, **kw):
    kw.setdefault("budget", 2.0)
    kw.setdefault("nodes", 3000)
    s = SearchStrategy(**kw)
    sol = s.plan(problem)
    validate(problem, sol)
    return sol, s


def greedy_trap() -> Problem:
    # Every greedy order needs 7; the optimum (the lower bound) is 6:
    # b0@0, b3@2, b1@4, b2@0.
    return Problem.of([
        Buffer("b0", 2, 2, 5), Buffer("b1", 2, 4, 6), Buffer("b2", 4, 5, 7), Buffer("b3", 3, 2, 3),
    ])


def test_registered_and_anytime():
    assert "search" in strategy_names()
    s = make_strategy("search", budget=0.5, seed=3, capacity=10)
    assert isinstance(s, SearchStrategy) and s.uses_budget
    assert (s.budget, s.seed, s.capacity) == (0.5, 3, 10)
    # `best` runs it only when given a budget.
    assert "search" not in [m.name for m in Best().members()]
    assert "search" in [m.name for m in Best(budget=0.1).members()]


def test_finds_the_optimum_greedy_misses():
    p = greedy_trap()
    assert lower_bound(p) == 6
    assert min(plan(p, g).height for g in GREEDY) == 7
    sol, s = search(p)
    assert sol.height == 6
    assert sol.strategy == "search"


def test_empty_and_zero_size():
    sol, _ = search(Problem.of([]))
    assert sol.offsets == () and sol.height == 0
    p = Problem.of([Buffer("z", 0, 0, 3), Buffer("a", 8, 0, 2), Buffer("b", 8, 1, 3)])
    sol, _ = search(p)
    assert sol.height == 16


def test_alignment_is_honoured():
    p = Problem.of([
        Buffer("a", 3, 0, 4), Buffer("b", 5, 1, 3, alignment=8), Buffer("c", 6, 2, 6, alignment=4),
        Buffer("d", 2, 3, 5, alignment=16), Buffer("e", 7, 0, 2, alignment=2),
    ])
    sol, _ = search(p)
    for b, off in zip(p.buffers, sol.offsets):
        assert off % b.alignment == 0


def test_control_flow_exclusive_branches_stay_valid():
    # Two branches of if#0 each need 10 bytes on top of a shared 4-byte buffer.
    p = Problem.of([
        Buffer("shared", 4, 0, 10),
        Buffer("then", 10, 2, 6, path=((0, 0),)), Buffer("else", 10, 2, 6, path=((0, 1),)),
        Buffer("then2", 3, 3, 5, path=((0, 0),)), Buffer("else2", 6, 1, 4, path=((0, 1),)),
    ])
    sol, _ = search(p)
    assert sol.height >= lower_bound(p)
    assert sol.height <= plan(p, "large-first").height


def test_capacity_mode_stops_as_soon_as_it_fits():
    p = greedy_trap()
    t0 = time.perf_counter()
    sol, s = search(p, capacity=6, budget=30.0, nodes=10**9)
    assert sol.height <= 6
    assert time.perf_counter() - t0 < 5
    # A capacity the greedy plan already meets needs no search at all.
    sol, s = search(p, capacity=7, budget=30.0, nodes=10**9)
    assert sol.height <= 7 and s.stats["work"] == 0


def test_capacity_too_small_returns_best_found():
    p = greedy_trap()
    sol, _ = search(p, capacity=5)  # below the lower bound: infeasible
    assert sol.height == 6


def test_deterministic_for_a_seed():
    p = nn_like(300, seed=4)
    a, _ = search(p, seed=7, nodes=1500)
    b, _ = search(p, seed=7, nodes=1500)
    assert a.offsets == b.offsets


def test_nn_like_improves_or_matches_greedy():
    p = nn_like(400, seed=1, alignment=16)
    sol, s = search(p, nodes=2000)
    assert lower_bound(p) <= sol.height <= min(plan(p, g).height for g in GREEDY)
    assert s.stats["work"] <= 2000 + len(p)


buffers = st.lists(
    st.tuples(
        st.integers(1, 64),            # size
        st.integers(0, 12),            # start
        st.integers(1, 6),             # length
        st.sampled_from([1, 1, 2, 4, 8]),  # alignment
        st.sampled_from([(), (), ((0, 0),), ((0, 1),), ((0, 1), (1, 0)), ((0, 1), (1, 1))]),
    ),
    min_size=1, max_size=14,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(buffers, st.integers(0, 3), st.booleans())
def test_property_valid_bounded_and_never_worse(rows, seed, with_capacity):
    p = Problem.of(
        Buffer(f"t{i}", size, start, start + length, align, path)
        for i, (size, start, length, align, path) in enumerate(rows)
    )
    lb = lower_bound(p)
    lf = plan(p, "large-first").height
    cap = lb if with_capacity else None
    sol, _ = search(p, seed=seed, capacity=cap, nodes=400)
    assert lb <= sol.height <= lf
    again, _ = search(p, seed=seed, capacity=cap, nodes=400)
    assert again.offsets == sol.offsets


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_small_random_problems_reach_the_lower_bound_often(seed):
    # Without branches, exhaustive search either reaches LB or proves it impossible; either
    # way the result never exceeds the greedy plan.
    p = nn_like(60, seed=seed)
    sol, s = search(p, nodes=20000)
    assert lower_bound(p) <= sol.height <= plan(p, "large-first").height


def test_partitions_are_solved_and_cached_independently():
    from memopt.planning.search.partitions import PartCache, try_cap
    from memopt.planning.search.sections import Structure
    from memopt.planning.search.views import perturb
    from memopt.planning.search.work import Work
    import random
    # Two independent groups (nothing is live across t=10); each is a greedy trap.
    trap = greedy_trap().buffers
    shifted = [Buffer(b.id + "'", b.size, b.start + 10, b.end + 10) for b in trap]
    p = Problem.of(list(trap) + shifted)
    st_ = Structure(p)
    cache = PartCache(st_)
    assert [sorted(m) for m, _, _ in cache.parts] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    ranks = [st_.preorder(h) for h in ("WAT", "TAW", "TWA")]
    runs = [(r, 100) for r in ranks]
    status, sol = try_cap(st_, 6, runs, Work(10_000, time.perf_counter() + 60), cache)
    assert status == 0 and all(s is not None and s[0] <= 6 for s in cache.solved)
    # A cached partition is reused for any larger cap (no further work).
    work = Work(10_000, time.perf_counter() + 60)
    status, sol2 = try_cap(st_, 9, runs, work, cache)
    assert status == 0 and sol2 == sol and work.used == 0
    # Below the lower bound: proven infeasible, and remembered.
    status, _ = try_cap(st_, 5, runs, Work(10_000, time.perf_counter() + 60), cache)
    assert status == 1 and max(cache.infeasible) == 5
    # Jittered preorders are permutations, reproducible from the seed.
    r = ranks[0]
    a, b = perturb(r, random.Random(1)), perturb(r, random.Random(1))
    assert a == b and sorted(a) == list(range(len(r)))


def test_the_descent_reaches_the_bound_of_a_real_training_trace():
    """MindSpore's SOMAS dump of ResNet-50 training (idealloc's trace): every greedy member stays
    above the bound; the branch and bound's descent reaches it."""
    import pathlib

    from memopt.planning import Solution, lower_bound, make_strategy, validate
    from memopt.planning.csvio import read_problem
    from memopt.planning.search import descent

    path = pathlib.Path(__file__).resolve().parents[2] / "bench" / "data" / "idealloc" / "resnet50.csv"
    problem, _ = read_problem(path.read_text(), str(path))
    lb = lower_bound(problem)
    offsets = descent(problem, lb)
    assert offsets is not None
    sol = make_strategy("large-first").plan(problem)
    assert sol.height > lb
    validate(problem, Solution.of(problem, offsets, "descent"))
    assert max(o + b.size for o, b in zip(offsets, problem.buffers)) == lb
    assert descent(problem, lb - 1) is None  # below the bound nothing fits
