"""Lowest-first placement (planning/lowest_first.py): the buffer that can go lowest goes next,
around buffers already fixed, within a work limit."""

import numpy as np
from hypothesis import given, settings, strategies as st

from memopt.planning.bounds import lower_bound
from memopt.planning.firstfit import first_fit
from memopt.planning.lowest_first import GIVE_UP, lowest_first
from memopt.planning.problem import Buffer, Problem
from memopt.planning.validate import find_conflicts

# (size, start, end). In start order (larger first on ties) first fit puts b2 on b1 and b0 on
# both, and b3 must go over b0: 14. Lowest first places b3 at 4 beside b2 (they never meet)
# before b0, which then goes on top: 11, the bound.
BOTTOM_UP = [(3, 1, 3), (4, 0, 4), (3, 0, 2), (4, 2, 3)]


def _problem(rows) -> Problem:
    return Problem.of(Buffer(f"b{i}", size, s, e) for i, (size, s, e) in enumerate(rows))


def _height(p: Problem, offsets) -> int:
    return int(max(np.asarray(offsets) + p.sizes))


def test_the_buffer_that_can_go_lowest_goes_first():
    p = _problem(BOTTOM_UP)
    order = [1, 2, 0, 3]
    assert _height(p, first_fit(p, order)) == 14
    offsets, _ = lowest_first(p, [], np.zeros(len(p), np.int64), order)
    assert offsets.tolist() == [8, 0, 4, 4]
    assert _height(p, offsets) == lower_bound(p) == 11


def test_ties_go_in_the_given_order():
    p = _problem([(2, 0, 2), (2, 0, 2)])
    assert lowest_first(p, [], np.zeros(2, np.int64), [1, 0])[0].tolist() == [2, 0]


def test_a_placement_over_its_work_gives_up_early():
    p = _problem(BOTTOM_UP)
    start = np.zeros(len(p), np.int64)
    _, spent = lowest_first(p, [], start, [1, 2, 0, 3])
    assert lowest_first(p, [], start, [1, 2, 0, 3], work=2 * spent)[0] is not None
    offsets, over = lowest_first(p, [], start, [1, 2, 0, 3], work=spent - 1)
    assert offsets is None
    # a quarter of the buffers (the first) placed with more than GIVE_UP's share of the work
    # spent: it stops there, before the work is used up
    first = lowest_first(p, [], start, [1], work=None)[1]
    share, limit = GIVE_UP[0]
    assert share == 0.25
    work = int(first / limit) - 1
    offsets, early = lowest_first(p, [], start, [1, 2, 0, 3], work=work)
    assert offsets is None and limit * work < early < work < spent
    assert lowest_first(p, [], start, [1, 2, 0, 3], work=int(first / limit) + 1)[1] > first


rows = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 20), st.integers(1, 10), st.sampled_from([1, 1, 4]),
                          st.booleans()), min_size=1, max_size=30)


def _around(rows, is_fixed):
    """The problem of ``rows``, its fixed buffers (``is_fixed(index, buffer)``) and the others,
    first fit's offsets with the fixed ones placed first (so valid among themselves), and
    lowest-first's around them."""
    p = Problem.of(Buffer(f"b{i}", size, s, s + length, align) for i, (size, s, length, align, _) in enumerate(rows))
    fixed = [i for i, b in enumerate(p.buffers) if is_fixed(i, b)]
    free = [i for i in range(len(p)) if i not in fixed]
    placed = np.asarray(first_fit(p, fixed + free), np.int64)
    return p, fixed, free, placed, lowest_first(p, fixed, placed, free)[0]


@settings(max_examples=100, deadline=None)
@given(rows)
def test_fixed_buffers_stay_and_the_plan_is_valid(rows):
    p, fixed, free, placed, offsets = _around(rows, lambda i, b: rows[i][4])
    assert offsets[fixed].tolist() == placed[fixed].tolist()
    assert all(offsets[i] % p.buffers[i].alignment == 0 for i in free)
    assert not find_conflicts(p, offsets.tolist())


def _reference(p: Problem, fixed: list[int], offsets: np.ndarray, ties: list[int]) -> list[int]:
    """Lowest first by its definition: every step, each unplaced buffer's lowest aligned offset
    clear of everything placed that meets it; the lowest goes, the first in ``ties`` on equal
    offsets."""
    b = p.buffers
    out = [int(o) for o in offsets]
    placed = [i for i in fixed if b[i].size]
    todo = [i for i in ties if b[i].size]

    def fit(i: int) -> int:
        meet = [j for j in placed if b[j].start < b[i].end and b[i].start < b[j].end]
        spots = sorted({0, *(-(-(out[j] + b[j].size) // b[i].alignment) * b[i].alignment for j in meet)})
        return next(y for y in spots
                    if all(y + b[i].size <= out[j] or out[j] + b[j].size <= y for j in meet))

    while todo:
        y, i = min((fit(i), rank, i) for rank, i in enumerate(todo))[::2]
        out[i] = y
        placed.append(i)
        todo.remove(i)
    return out


@settings(max_examples=150, deadline=None)
@given(rows)
def test_it_places_as_the_definition_does(rows):
    p, fixed, free, placed, offsets = _around(rows, lambda i, b: rows[i][4])
    assert offsets.tolist() == _reference(p, fixed, placed, free)


@settings(max_examples=150, deadline=None)
@given(rows, st.integers(0, 29))
def test_around_a_stack_it_places_as_the_definition_does(rows, pivot):
    # the fixed buffers all live at one step, stacked: disjoint, so their tops rise with their
    # offsets (the fit's shortcut)
    p, fixed, free, placed, offsets = _around(rows, lambda i, b: b.start <= pivot < b.end)
    assert offsets.tolist() == _reference(p, fixed, placed, free)
