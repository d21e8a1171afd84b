"""The optimum of rematerialization (Checkmate's integer program on CP-SAT) as a reference.

Never trusted on its own: its schedules are re-derived with :func:`schedule_peak`, its optimum is
checked against Griewank's revolve on Checkmate's linear chain and against brute force over every
clone set of tiny graphs (multi-output ops, ``extra`` bytes, pinned inputs, blacklisted ops), and
its memory accounting against :func:`schedule_peak` with the clones fixed.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from memopt.planning import cpsat
from memopt.planning.remat import (
    HEURISTICS, RematError, RematGraph, RematOp, live_peak, rematerialize, schedule_peak, working_set_bound,
)
from memopt.planning.remat_optimal import MAX_OPS, _Model, optimal, optimal_with_status, solve
from memopt.planning.training import linear_chain, revolve

pytestmark = pytest.mark.skipif(not cpsat.available(), reason="OR-Tools is not installed")

CHEAP = ("dtr", "dtr-eq", "dtr-local", "lru", "largest")
"""Heuristic hints without lookahead's local search (seconds at tight budgets)."""


def _valid(graph: RematGraph, r, budget: int) -> None:
    originals = [k for k, c in zip(r.schedule, r.clone) if not c]
    assert originals == list(range(len(graph.ops)))  # every op once, in order
    assert schedule_peak(graph, r.schedule) == r.peak <= budget
    assert r.extra_cost == pytest.approx(sum(graph.ops[k].cost for k, c in zip(r.schedule, r.clone) if c))
    assert r.heuristic == "optimal"


@pytest.mark.parametrize("n,budgets", [
    (8, range(4, 10)), (10, (4, 5, 7)), (12, (4, 5, 6, 9)), (14, (4, 8)), (16, (4, 7, 12)),
])
def test_equals_revolve_on_the_linear_chain(n: int, budgets) -> None:
    g = linear_chain(n)
    for budget in budgets:
        r, proven = optimal_with_status(g, budget, work=10, hint=CHEAP)
        assert proven, budget
        assert r.extra_cost == revolve(n, budget - 4), budget  # 4: input, gradient, an op's operands
        _valid(g, r, budget)


def _brute(graph: RematGraph, budget: int) -> float | None:
    """The cheapest fitting schedule over every clone set in Checkmate's stage form (clones of
    earlier ops before each op, in index order, and after the last op), by schedule_peak."""
    n = len(graph.ops)
    pairs = [(t, i) for t in range(n + 1) for i in range(min(t, n)) if graph.ops[i].recomputable]
    best = None
    for mask in range(1 << len(pairs)):
        chosen = {pairs[j] for j in range(len(pairs)) if mask >> j & 1}
        cost = sum(graph.ops[i].cost for _, i in chosen)
        if best is not None and cost >= best:
            continue
        schedule = []
        for t in range(n + 1):
            schedule += sorted(i for s, i in chosen if s == t)
            if t < n:
                schedule.append(t)
        try:
            if schedule_peak(graph, schedule) <= budget:
                best = cost
        except ValueError:
            pass
    return best


def _tiny(rng: random.Random, n_ops: int, zero_sizes: bool = False) -> RematGraph:
    """A random graph with multi-output ops, extra bytes, blacklisted ops and results anywhere
    (an input among them, sometimes)."""
    n_in = rng.randint(1, 2)
    sizes = [rng.choice([0, 1, 2, 4, 8, 16] if zero_sizes else [1, 2, 4, 8, 16]) for _ in range(n_in)]
    ops = []
    for k in range(n_ops):
        reads = rng.sample(range(len(sizes)), min(len(sizes), rng.randint(1 - zero_sizes, 3)))
        outs = []
        for _ in range(rng.choice([1, 1, 2, 3])):
            sizes.append(rng.choice([0, 1, 2, 4, 8, 16, 32] if zero_sizes else [1, 2, 4, 8, 16, 32]))
            outs.append(len(sizes) - 1)
        ops.append(RematOp(f"op{k}", float(rng.randint(0, 9)), tuple(reads), tuple(outs),
                           extra=rng.choice([0, 0, 0, 3, 10]), recomputable=rng.random() < 0.85))
    outputs = tuple(rng.sample(range(len(sizes)), rng.randint(1, 2)))
    return RematGraph(tuple(sizes), tuple(ops), tuple(range(n_in)), outputs)


def test_equals_brute_force_on_tiny_graphs() -> None:
    checked = 0
    for seed in range(150):
        rng = random.Random(seed)
        g = _tiny(rng, rng.randint(2, 4))
        lo, _ = working_set_bound(g)
        hi = live_peak(g)
        for budget in sorted({lo, lo + 1, (lo + hi) // 2, hi - 1}):
            if not lo <= budget < hi:
                continue
            expected = _brute(g, budget)
            if expected is None:
                with pytest.raises(RematError, match="infeasible"):
                    optimal(g, budget, hint=())
                continue
            r, proven = optimal_with_status(g, budget, hint=())
            assert proven and r.extra_cost == expected, (seed, budget)
            _valid(g, r, budget)
            checked += 1
    assert checked > 80


def test_model_bytes_equal_schedule_peak_with_the_clones_fixed() -> None:
    """The model, its clones fixed (random clone sets, each clone read later), fits a budget
    exactly when schedule_peak says so: feasible at the schedule's peak, infeasible one byte
    below (the kept values and frees follow from the clones)."""
    from ortools.sat.python import cp_model

    for seed in range(40):
        rng = random.Random(1000 + seed)
        g = _tiny(rng, rng.randint(2, 10), zero_sizes=True)
        free = _Model(g, 1 << 30)
        clones = free.used({key for key in free.R if rng.random() < 0.3})
        peak = schedule_peak(g, [k for k, _ in free.schedule(clones)])
        for budget, fits in ((peak, True), (peak - 1, False)):
            m = _Model(g, budget)
            for key, v in m.R.items():
                m.m.add(v == int(key in clones))
            solver = cp_model.CpSolver()
            solver.parameters.num_workers = 1
            status = solver.solve(m.m)
            assert (status in (cp_model.OPTIMAL, cp_model.FEASIBLE)) == fits, (seed, budget, sorted(clones))


@st.composite
def dags(draw):
    n_in = draw(st.integers(1, 3))
    sizes = [draw(st.integers(1, 64)) for _ in range(n_in)]
    ops = []
    for k in range(draw(st.integers(2, 16))):
        reads = draw(st.lists(st.integers(0, len(sizes) - 1), min_size=1, max_size=3, unique=True))
        sizes.append(draw(st.integers(1, 64)))
        ops.append(RematOp(f"op{k}", float(draw(st.integers(0, 50))), tuple(reads), (len(sizes) - 1,),
                           recomputable=draw(st.booleans()) or k % 3 != 0))
    return RematGraph(tuple(sizes), tuple(ops), tuple(range(n_in)), (len(sizes) - 1,))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(g=dags(), frac=st.floats(0.0, 1.0))
def test_never_worse_than_a_heuristic_that_fits(g: RematGraph, frac: float) -> None:
    lo, _ = working_set_bound(g)
    hi = live_peak(g)
    budget = int(lo + frac * max(hi - lo, 0))
    fits = {}
    for h in HEURISTICS:
        try:
            fits[h] = rematerialize(g, budget, h).extra_cost
        except RematError:
            pass
    try:
        r = optimal(g, budget, work=5)
    except RematError as e:
        assert not fits, (str(e), fits)  # a heuristic's schedule proves a budget feasible
        return
    _valid(g, r, budget)
    for h, cost in fits.items():
        assert r.extra_cost <= cost + 1e-9, h


def test_deterministic() -> None:
    g = linear_chain(16)
    runs = [solve(g, 6, work=0.3, hint=CHEAP) for _ in range(2)]
    assert runs[0].result.schedule == runs[1].result.schedule
    assert runs[0].result.extra_cost == runs[1].result.extra_cost
    assert runs[0].lower_bound == runs[1].lower_bound and runs[0].status == runs[1].status


def _multi_output() -> RematGraph:
    # P(x) -> big (10), small (2); Q reads small; R reads Q's; S reads big and R's.
    return RematGraph((1, 10, 2, 10, 1, 1), (
        RematOp("P", 3, (0,), (1, 2)), RematOp("Q", 1, (2,), (3,)), RematOp("R", 1, (3,), (4,)),
        RematOp("S", 1, (1, 4), (5,)),
    ), inputs=(0,), outputs=(5,))


def test_multi_output_op_recomputes_both_and_the_dead_one_dies_at_once() -> None:
    g = _multi_output()
    assert live_peak(g) == 22  # x died at P: big, small and Q's at Q
    # big is dropped after P and P runs again before S (x, pinned, lives until then): the clone
    # makes small again too, dead at once (x 1 + r 1 + big 10 + small 2 = 14)
    r, proven = optimal_with_status(g, 14)
    assert proven
    assert r.schedule == [0, 1, 2, 0, 3] and r.clone == [False, False, False, True, False]
    assert r.peak == 14 and r.extra_cost == 3 and r.evictions == 1
    assert optimal(g, 22).extra_cost == 0  # fits as it is


def test_infeasible_budgets_raise() -> None:
    g = _multi_output()
    with pytest.raises(RematError) as e:
        optimal(g, 12)  # below P's working set: x, big, small
    assert e.value.minimum == 13
    # at 13 every op's working set fits, but big cannot live through Q nor be made again there
    with pytest.raises(RematError, match="proven infeasible") as e:
        optimal(g, 13)
    assert "\n" not in str(e.value)
    with pytest.raises(RematError, match="found within 0 units of work"):
        optimal(linear_chain(16), 5, work=0.0, hint=())
    big = linear_chain(MAX_OPS // 2)  # 2 n + 1 ops
    with pytest.raises(RematError, match=f"above the limit of {MAX_OPS}"):
        optimal(big, 10)


def test_blacklisted_ops_and_min_size() -> None:
    g = linear_chain(8)
    ops = tuple(op if k != 2 else RematOp(op.name, op.cost, op.inputs, op.outputs, recomputable=False)
                for k, op in enumerate(g.ops))
    black = RematGraph(g.sizes, ops, g.inputs, g.outputs)
    for budget in (6, 8):
        r = optimal(black, budget)
        _valid(black, r, budget)
        assert not any(c and k == 2 for k, c in zip(r.schedule, r.clone))
        assert r.extra_cost >= optimal(g, budget).extra_cost
    # every tensor below min_size: nothing may be dropped, so only budgets the original fits
    with pytest.raises(RematError):
        optimal(g, live_peak(g) - 1, min_size=2)
