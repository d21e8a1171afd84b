"""planning.synthetic.training_like: training-compiler-like traces (SOMAS / IOPDDL shaped).

Cheap structural checks (no planner runs): the generator's contract (n buffers, valid
intervals, deterministic per seed) and the trace properties it is built to reproduce.
"""

from __future__ import annotations

import numpy as np
import pytest

from memopt.planning import lower_bound
from memopt.planning.synthetic import training_like

SEEDS = range(6)


@pytest.fixture(scope="module")
def traces():
    return {seed: training_like(1500, seed) for seed in SEEDS}


def _arrays(problem):
    return (np.asarray(problem.sizes, dtype=np.int64), np.asarray(problem.starts, dtype=np.int64),
            np.asarray(problem.ends, dtype=np.int64))


def _peak(problem):
    """(time of the largest live bytes, boolean mask of the buffers live then)."""
    sizes, starts, ends = _arrays(problem)
    delta = np.zeros(int(ends.max()) + 2, dtype=np.int64)
    np.add.at(delta, starts, sizes)
    np.add.at(delta, ends, -sizes)
    live = np.cumsum(delta)
    t = int(live.argmax())
    assert live[t] == lower_bound(problem)
    return t, (starts <= t) & (ends > t)


@pytest.mark.parametrize("n", [1, 37, 1000, 2500])
def test_exactly_n_valid_buffers(n):
    for seed in (0, 1):
        p = training_like(n, seed)
        sizes, starts, ends = _arrays(p)
        assert len(p) == n
        assert (sizes > 0).all()
        assert (starts >= 0).all() and (starts < ends).all()
        assert len({b.id for b in p.buffers}) == n


def test_empty():
    assert len(training_like(0, 3)) == 0


def test_deterministic_per_seed():
    a, b, c = training_like(1500, 11), training_like(1500, 11), training_like(1500, 12)
    assert [(x.id, x.size, x.start, x.end) for x in a.buffers] == [(x.id, x.size, x.start, x.end) for x in b.buffers]
    assert [(x.size, x.start, x.end) for x in a.buffers] != [(x.size, x.start, x.end) for x in c.buffers]


def test_peak_is_early_and_holds_a_large_share_of_the_buffers(traces):
    """As in the real traces (ResNet-50: 31 % of the buffers live at the peak, TinyBERT 16 %,
    IOPDDL G_1 19 %; the peak in the first third of the step), not a handful of large ones."""
    for seed in SEEDS:
        p = traces[seed]
        t, live = _peak(p)
        _, starts, ends = _arrays(p)
        assert 0.12 <= live.mean() <= 0.45, (seed, live.mean())
        assert (t - starts.min()) / (ends.max() - starts.min()) < 0.5, seed


def test_few_distinct_sizes_from_shapes(traces):
    """Sizes come from a few tensor shapes (the real traces: 22-154 distinct sizes in 800-1,800
    buffers), not one size per buffer."""
    for seed in SEEDS:
        sizes, _, _ = _arrays(traces[seed])
        assert 8 <= len(np.unique(sizes)) <= 60, seed


def test_peak_is_not_a_last_in_first_out_stack(traces):
    """Buffers live at the peak are freed out of order (ResNet-50: 19 % of neighbours by start
    end in start order, TinyBERT 23 %), and short-lived ones are live at the peak itself — the
    two things a nested stack lacks and the planners trip on."""
    for seed in SEEDS:
        p = traces[seed]
        t, live = _peak(p)
        _, starts, ends = _arrays(p)
        order = np.argsort(starts[live], kind="stable")
        crossing = (np.diff(ends[live][order]) > 0).mean()
        assert crossing > 0.1, (seed, crossing)
        assert ((ends - starts)[live] <= 8).sum() >= 1, seed


def test_scales_to_large_traces():
    p = training_like(30_000, 5)
    assert len(p) == 30_000
    _, live = _peak(p)
    assert live.mean() > 0.1


def test_the_default_says_when_its_polish_cannot_search():
    """Above the descent's size, one first fit of a long-lived trace exceeds the climb's work:
    the stats say the polish could not run, not that it found no gain."""
    from memopt.planning import make_strategy
    from memopt.planning.strategies import polish_evaluations

    problem = training_like(5000, 9302)
    assert polish_evaluations(problem) == 0
    best = make_strategy("best")
    sol = best.plan(problem)
    if sol.height > lower_bound(problem):
        assert best.stats["polish"] == "none possible (one first fit exceeds the climb's work)"
    else:
        assert best.stats["polish"] == "none"
