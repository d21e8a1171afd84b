"""The default's exact step (planning/aim.py): CP-SAT aiming at the lower bound."""

import pytest

from memopt.planning import Buffer, Problem, lower_bound, make_strategy, validate
from memopt.planning import aim, cpsat
from memopt.planning.stacking import stack, stacked_first
from memopt.planning.synthetic import suite_like

pytestmark = pytest.mark.skipif(not cpsat.available(), reason="OR-Tools not installed")


def _instance():
    """A suite look-alike whose bound is reachable (built from a packing of the capacity) and
    which the greedy portfolio leaves well above it."""
    problem, _ = suite_like(502)
    assert lower_bound(problem) == 1 << 20
    return problem


def test_the_default_reaches_the_bound_the_portfolio_misses():
    problem = _instance()
    plain = make_strategy("best", polish=False).plan(problem)
    assert plain.height > lower_bound(problem)
    best = make_strategy("best")
    sol = best.plan(problem)
    validate(problem, sol)
    assert sol.height == lower_bound(problem) and sol.strategy == "cp-sat"
    assert best.stats["polish"] == "cp-sat" and best.stats["aim"] >= 1
    assert make_strategy("best").plan(problem) == sol  # same input, same plan


def test_an_unreachable_height_falls_back_to_the_polish():
    problem = _instance()
    below = Problem.of(problem.buffers)
    attempt = aim.Aim(below, lower_bound(below) - 1024)  # under the bound: nothing fits
    assert attempt.offsets() is None
    assert attempt.infeasible or attempt.attempts >= 1


def test_a_fit_is_a_plan_under_the_height():
    problem = _instance()
    offsets = aim.Aim(problem, 1 << 20).offsets()
    assert offsets is not None
    assert max(o + b.size for o, b in zip(offsets, problem.buffers)) <= 1 << 20


def test_an_aim_can_be_abandoned():
    problem = _instance()
    attempt = aim.Aim(problem, lower_bound(problem))
    attempt.stop()
    assert not attempt._thread.is_alive()


def test_work_is_counted_not_timed(monkeypatch):
    """The quick attempts stop at their count (aim.QUICK's third field) and at the buffers they
    attempt (its fourth); the longer ones at their deterministic work (aim.WORK)."""
    problem = _instance()
    conflicts, det, _, _ = aim.QUICK
    monkeypatch.setattr(aim, "WORK", 0.0)  # no longer attempt
    monkeypatch.setattr(aim, "QUICK", (conflicts, det, 1, 10_000))
    one = aim.Aim(problem, lower_bound(problem) - 1)  # nothing fits: every attempt fails
    one.offsets()
    assert one.attempts <= 1
    monkeypatch.setattr(aim, "QUICK", (conflicts, det, 10, len(problem) - 1))  # less than one attempt on the buffers
    none = aim.Aim(Problem.of(problem.buffers), lower_bound(problem) - 1)
    none.offsets()
    views = stacked_first(problem, stack(problem))
    assert none.attempts == (len(views) > 1 and len(views[0][0]) <= len(problem) - 1)
    monkeypatch.setattr(aim, "QUICK", (conflicts, det, 0, 0))
    monkeypatch.setattr(aim, "WORK", aim.MIN_ATTEMPT / 2)  # too little for a longer attempt
    assert aim.Aim(problem, lower_bound(problem) - 1).attempts == 0


def test_the_longer_attempts_fit_what_the_quick_ones_miss(monkeypatch):
    """A look-alike whose bound (its capacity) none of the quick attempts reaches fits in a
    longer one, counted by work alone: the same offsets on every run."""
    problem, _ = suite_like(131067)
    cap = lower_bound(problem)
    assert cap == 1 << 20
    fit = aim.Aim(problem, cap)
    offsets = fit.offsets()
    assert offsets is not None and fit.attempts > aim.QUICK[2]
    assert max(o + b.size for o, b in zip(offsets, problem.buffers)) <= cap
    assert aim.Aim(problem, cap).offsets() == offsets
    monkeypatch.setattr(aim, "WORK", 0.0)
    quick = aim.Aim(problem, cap)
    assert quick.offsets() is None and quick.attempts == aim.QUICK[2]


def test_eligibility():
    small = Problem.of(Buffer(f"b{i}", 8, i, i + 2) for i in range(aim.MIN_BUFFERS - 1))
    assert not aim.eligible(small)
    assert aim.eligible(_instance())
    branches = Problem.of(Buffer(f"b{i}", 8, i, i + 2, 1, ((0, i % 2),)) for i in range(100))
    assert not aim.eligible(branches)



def test_the_polish_runs_beside_the_attempts_and_stops_at_a_fit(monkeypatch):
    """A fit is taken whenever there is one, so the polish (run meanwhile) stops once it
    exists; without a fit the polish's plan is the one it gives alone, whatever finished first."""
    from memopt.planning import strategies

    problem = _instance()
    asked = []
    real = strategies.polished

    def watched(p, sol, stop=None):
        out = real(p, sol, stop)
        asked.append(stop is not None and stop())
        return out

    monkeypatch.setattr(strategies, "polished", watched)
    best = make_strategy("best")
    assert best.plan(problem).strategy == "cp-sat" and asked == [True]  # stopped by the fit

    monkeypatch.setattr(aim, "QUICK", (*aim.QUICK[:2], 0, 0))  # no attempt: the polish decides
    monkeypatch.setattr(aim, "WORK", 0.0)
    asked.clear()
    miss = make_strategy("best")
    sol = miss.plan(problem)
    assert miss.stats["polish"].startswith("cp-sat found none, ") and asked == [False]
    portfolio = make_strategy("best", polish=False).plan(problem)
    assert sol == real(problem, portfolio)  # the polish alone gives the same plan


def test_a_stopped_polish_returns_at_once_no_higher():
    from memopt.planning.search import climb, exact_polish

    problem = _instance()
    start = make_strategy("large-first").plan(problem)
    calls = []

    def stop():
        calls.append(1)
        return True

    offsets, height = exact_polish(problem, start.offsets, 5_000, stop)
    assert height <= start.height and len(calls) <= 8
    calls.clear()
    offsets, height = climb(problem, start.offsets, lower_bound(problem), 200, stop=stop)
    assert height <= start.height and len(calls) == 1
