"""The CP-SAT backend of ``search``: exact answers, alignment, branches, and its thread."""

import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from memopt.planning import Buffer, Problem, Solution, validate
from memopt.planning import cpsat
from memopt.planning.search import SearchStrategy
from memopt.planning.search.cpsat_runs import CpsatRuns
from memopt.planning.search.sections import Structure
from memopt.planning.synthetic import packed, suite_like

pytestmark = pytest.mark.skipif(not cpsat.available(), reason="OR-Tools is not installed")


def _fit(buffers, cap, neighbours=None):
    return cpsat.fit([b.size for b in buffers], [b.start for b in buffers], [b.end for b in buffers],
                     [b.alignment for b in buffers], cap, 10.0, 30.0, neighbours)


def test_fit_is_a_valid_plan_under_the_cap():
    problem, _ = packed(5, capacity=1 << 14, horizon=1 << 14, unit=256)
    res = _fit(problem.buffers, 1 << 14)
    assert res.status == cpsat.FIT
    sol = Solution.of(problem, list(res.offsets), "cp-sat")
    validate(problem, sol)
    assert sol.height <= 1 << 14


def test_a_cross_section_above_the_cap_is_proven_infeasible():
    bufs = [Buffer("a", 6, 0, 4), Buffer("b", 5, 2, 6), Buffer("c", 1, 0, 9)]
    assert _fit(bufs, 11).status == cpsat.INFEASIBLE  # 12 bytes live at time 2
    assert _fit(bufs, 12).status == cpsat.FIT


def test_alignment_is_honoured():
    bufs = [Buffer("a", 3, 0, 4), Buffer("b", 5, 1, 3, alignment=8), Buffer("c", 6, 2, 6, alignment=4)]
    res = _fit(bufs, 32)
    assert res.status == cpsat.FIT
    problem = Problem.of(bufs)
    validate(problem, Solution.of(problem, list(res.offsets), "cp-sat"))


def test_offsets_keep_the_sizes_granularity_and_odd_alignments():
    """The model's unit is the gcd of the sizes and of the alignments above 1 (not of the cap):
    a problem in KiB gets KiB offsets, and an alignment of 96 next to KiB sizes still holds."""
    problem, _ = packed(11, capacity=1 << 14, horizon=1 << 14, unit=1024)
    res = _fit(problem.buffers, (1 << 14) + 100)  # a cap off the KiB grid
    assert res.status == cpsat.FIT and all(o % 1024 == 0 for o in res.offsets)
    bufs = [Buffer("a", 1024, 0, 4), Buffer("b", 2048, 1, 3, alignment=96), Buffer("c", 1024, 2, 6)]
    res = _fit(bufs, 8192)
    assert res.status == cpsat.FIT and res.offsets[1] % 96 == 0
    problem = Problem.of(bufs)
    validate(problem, Solution.of(problem, list(res.offsets), "cp-sat"))


def test_exclusive_branches_may_share_memory():
    # Two 8-byte buffers at the same time in exclusive branches fit in 8 bytes.
    bufs = [Buffer("then", 8, 0, 2, path=((0, 0),)), Buffer("else", 8, 0, 2, path=((0, 1),))]
    assert _fit(bufs, 8, neighbours=[[], []]).status == cpsat.FIT
    assert _fit(bufs, 8, neighbours=[[1], [0]]).status == cpsat.INFEASIBLE


buffers = st.lists(st.tuples(st.integers(1, 16), st.integers(0, 10), st.integers(1, 6)),
                   min_size=1, max_size=9)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(buffers, st.integers(0, 12))
def test_property_fit_iff_the_search_proves_it(rows, slack):
    """CP-SAT and the branch and bound agree on small problems: a fit is a valid plan, and
    an infeasibility proof means no plan at that height exists (the optimum is higher)."""
    problem = Problem.of([Buffer(f"b{i}", s, t, t + d) for i, (s, t, d) in enumerate(rows)])
    optimum = SearchStrategy(budget=30, nodes=200_000).plan(problem).height
    cap = max(b.size for b in problem.buffers) + slack
    res = _fit(problem.buffers, cap)
    if res.status == cpsat.FIT:
        validate(problem, Solution.of(problem, list(res.offsets), "cp-sat"))
        assert optimum <= cap
    else:
        assert res.status == cpsat.INFEASIBLE
        assert optimum > cap


def _stream(bufs, cap, runs, seconds=60.0):
    return cpsat.Stream([b.size for b in bufs], [b.start for b in bufs], [b.end for b in bufs],
                        [1] * len(bufs), cap, runs, seconds)


def test_a_stream_can_be_stopped_early():
    problem, _ = packed(9120)  # hard at capacity: CP-SAT runs until its limit
    run = _stream(problem.buffers, 1 << 20, ((100.0, seed) for seed in range(1000)))
    time.sleep(0.2)
    t0 = time.perf_counter()
    run.stop()
    assert time.perf_counter() - t0 < 5
    assert run.outcome(0).status == cpsat.UNKNOWN


def test_a_stream_ends_at_its_first_decided_run():
    """Run k answers the k-th consultation; the first run that decides ends the stream, so
    later consultations get UNKNOWN instead of waiting for runs that never start."""
    bufs = [Buffer("a", 4, 0, 2), Buffer("b", 4, 1, 3), Buffer("c", 8, 3, 4)]
    fits = _stream(bufs, 8, [(1.0, 0), (1.0, 1), (1.0, 2)])
    first = fits.outcome(0)
    assert first.status == cpsat.FIT
    validate(Problem.of(bufs), Solution.of(Problem.of(bufs), list(first.offsets), "cp-sat"))
    assert fits.outcome(1).status == cpsat.UNKNOWN
    assert _stream(bufs, 7, [(1.0, 0), (1.0, 1)]).outcome(0).status == cpsat.INFEASIBLE


def test_a_stream_that_runs_out_of_runs_or_time_answers_unknown():
    problem, _ = packed(9120)
    few = _stream(problem.buffers, 1 << 20, [(0.001, 0)])
    assert few.outcome(0).status == cpsat.UNKNOWN  # a run too short to decide
    assert few.outcome(3).status == cpsat.UNKNOWN  # no run 3: the stream has ended
    late = _stream(problem.buffers, 1 << 20, ((100.0, seed) for seed in range(1000)), seconds=0.0)
    assert late.outcome(0).status == cpsat.UNKNOWN  # past its hard stop before the first run


def test_search_uses_cpsat_where_the_branch_and_bound_thrashes():
    """A held-out-style instance where the canonical branch and bound alone needs ~200,000 nodes
    (measured: 19 s): with CP-SAT beside it the search fits the capacity after ~24,000 nodes,
    by CP-SAT's plan, and the plan is valid."""
    problem, _ = packed(9112)
    strategy = SearchStrategy(budget=60, capacity=1 << 20)
    sol = strategy.plan(problem)
    validate(problem, sol)
    assert sol.height <= 1 << 20
    assert "cp-sat" in strategy.stats["source"]


def test_sweep_orders_are_permutations_and_time_reversal_swaps_the_sweeps():
    problem, _ = packed(31, capacity=1 << 14, horizon=1 << 14, unit=256)
    sizes, starts, ends = list(problem.sizes), list(problem.starts), list(problem.ends)
    cap = 1 << 14
    orders = cpsat.sweep_orders(sizes, starts, ends, cap)
    assert len(orders) == 7
    for order in orders:
        assert sorted(order) == list(range(len(sizes)))
    left, right = orders[0], orders[1]
    assert all((starts[i], -sizes[i]) <= (starts[j], -sizes[j]) for i, j in zip(left, left[1:]))
    assert all((-ends[i], -sizes[i]) <= (-ends[j], -sizes[j]) for i, j in zip(right, right[1:]))
    # A packing is one whichever way time runs: mirrored lifetimes swap the two sweeps.
    horizon = max(ends)
    mirrored = cpsat.sweep_orders(sizes, [horizon - e for e in ends], [horizon - s for s in starts], cap)
    assert mirrored[0] == right and mirrored[1] == left
    assert mirrored[2] == orders[3] and mirrored[3] == orders[2]
    # The peak sweeps go outward: buffers live at the peak first, then ever farther ones.
    near = cpsat.peak_distance(sizes, starts, ends)
    for order in orders[5:]:
        low = [i for i in order if 2 * sizes[i] <= cap]
        assert all(near[i] <= near[j] for i, j in zip(low, low[1:]))
        assert near[low[0]] == 0 and near[low[-1]] > 0


def test_peak_distance_measures_from_the_first_most_loaded_instant():
    # live bytes: 5 on [0, 2), 8 on [2, 4) (the peak, at 2), 3 on [4, 6), 7 on [6, 8), 4 on [8, 9)
    sizes, starts, ends = [5, 3, 4, 1], [0, 2, 6, 0], [4, 8, 9, 1]
    assert cpsat.peak_distance(sizes, starts, ends) == [0, 0, 4, 2]
    assert cpsat.peak_distance([], [], []) == []


def test_sweeps_place_the_buffers_taller_than_half_the_cap_first():
    sizes, starts, ends = [2, 9, 3, 6, 5], [0, 4, 1, 0, 2], [3, 6, 4, 2, 5]
    orders = cpsat.sweep_orders(sizes, starts, ends, 10)
    for order in orders[:4] + orders[5:]:
        assert set(order[:2]) == {1, 3}  # 9 and 6 are above 5; 5 itself is not
    assert cpsat.sweep_orders(sizes, starts, ends, 10)[0] == [3, 1, 0, 2, 4]
    assert cpsat.sweep_orders(sizes, starts, ends, 100)[0] == [3, 0, 2, 4, 1]  # none tall


@pytest.mark.parametrize("order, expected", [([0, 1], (0, 4)), ([1, 0], (3, 0))])
def test_the_fixed_search_places_buffers_in_the_given_order(order, expected):
    """Lowest possible offset first, ties broken by the order: the first buffer of the order
    lands at 0 (sizes differ, so CP-SAT's presolve cannot break the tie by symmetry)."""
    bufs = [Buffer("a", 4, 0, 2), Buffer("b", 3, 1, 3)]
    res = cpsat.fit([4, 3], [0, 1], [2, 3], [1, 1], 8, 1.0, 30.0, orders=[order])
    assert res.status == cpsat.FIT and res.offsets == expected
    validate(Problem.of(bufs), Solution.of(Problem.of(bufs), list(res.offsets), "cp-sat"))


def test_the_sweeps_fit_what_the_given_order_misses():
    """A generated instance (suite_like 82001, E-like, 245 buffers) that neither the branch and
    bound nor MiniMalloc fitted within 60 s, and the fixed search in the given order not within
    30 s: with the sweep orders, a small deterministic limit fits it (measured: 0.002 units in
    the right-to-left sweep)."""
    problem, _ = suite_like(82001)
    args = ([b.size for b in problem.buffers], [b.start for b in problem.buffers],
            [b.end for b in problem.buffers], [1] * len(problem), 1 << 20)
    orders = cpsat.sweep_orders(*args[:3], 1 << 20)
    res = cpsat.fit(*args, 0.1, 30.0, orders=orders)
    assert res.status == cpsat.FIT
    validate(problem, Solution.of(problem, list(res.offsets), "cp-sat"))
    assert cpsat.fit(*args, 0.1, 30.0).status == cpsat.UNKNOWN


def test_the_sweep_from_the_peak_fits_what_the_sweeps_from_either_end_miss():
    """A generated instance (suite_like 90016, C-like, 207 buffers) that the search needed 22 s
    for before the peak sweeps: the longest-first sweep outward from the peak fits it within a
    small deterministic limit (measured: 0.003 units), each of the other five orders not."""
    problem, _ = suite_like(90016)
    args = ([b.size for b in problem.buffers], [b.start for b in problem.buffers],
            [b.end for b in problem.buffers], [1] * len(problem), 1 << 20)
    orders = cpsat.sweep_orders(*args[:3], 1 << 20)
    res = cpsat.fit(*args, 0.02, 30.0, orders=[orders[6]])
    assert res.status == cpsat.FIT
    validate(problem, Solution.of(problem, list(res.offsets), "cp-sat"))
    for order in orders[:5]:
        assert cpsat.fit(*args, 0.02, 30.0, orders=[order]).status == cpsat.UNKNOWN


def test_the_search_hands_cpsat_the_sweep_orders(monkeypatch):
    seen = []

    class Spy:
        def __init__(self, sizes, starts, ends, aligns, cap, runs, seconds, neighbours=None, orders=()):
            seen.append((list(sizes), list(starts), list(ends), cap, orders))

        def stop(self):
            pass

    monkeypatch.setattr(cpsat, "Stream", Spy)
    problem, _ = packed(5, capacity=1 << 14, horizon=1 << 14, unit=256)
    st = Structure(problem)
    members = list(range(st.m))
    runs = CpsatRuns(st, 1 << 14, lambda pi: [(1.0, 0)], time.perf_counter() + 10)
    runs.start(0, members)
    (sizes, starts, ends, cap, orders), = seen
    assert orders == cpsat.sweep_orders(sizes, starts, ends, cap) and len(orders) == 7


def test_jittered_is_a_nearby_permutation_fixed_by_its_seed():
    import random

    order = list(range(200))[::-1]
    a = cpsat.jittered(order, random.Random(7))
    assert sorted(a) == sorted(order) and a != order
    assert a == cpsat.jittered(order, random.Random(7))
    assert a != cpsat.jittered(order, random.Random(8))
    assert cpsat.jittered(order, random.Random(7), sigma=0.0) == order
    moved = [abs(a.index(i) - order.index(i)) for i in order]
    assert max(moved) < 30 and sum(moved) / len(moved) < 6  # about three places


def test_every_stream_run_tries_the_sweeps_then_fresh_jittered_copies(monkeypatch):
    calls = []

    def spy(*args, seed=0, orders=(), **kwargs):
        calls.append((seed, [list(o) for o in orders]))
        return cpsat.Fit(cpsat.UNKNOWN, None, 0.0)

    monkeypatch.setattr(cpsat, "fit", spy)
    base = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]]
    stream = cpsat.Stream([1] * 10, list(range(10)), list(range(1, 11)), [1] * 10, 4,
                          [(1.0, 11), (1.0, 12)], 30.0, orders=base)
    assert stream.outcome(1).status == cpsat.UNKNOWN
    (s1, o1), (s2, o2) = calls
    assert (s1, s2) == (11, 12)
    assert o1[:2] == base and o2[:2] == base and len(o1) == len(o2) == 4
    assert all(sorted(o) == list(range(10)) for o in o1 + o2)
    assert o1[2:] != o2[2:]  # a fresh jitter every run, from its seed
