"""NNVM/TVM PlanMemory (storage ids, in-place, match range, colours, layouts)."""

import pytest
from hypothesis import given, settings, strategies as st

from memopt.planning import Buffer, Overwrite, PlanningError, Problem, lower_bound, make_strategy, validate
from memopt.planning.nnvm import (
    GraphAllocator, Nnvm, nnvm_heights, packed_offsets, plan_storage, plan_storage_auto, stacked_offsets,
)


def example() -> Problem:
    # op0: a ; op1: b = relu(a) in place, c ; op2: d ; op3: e ; op4: f
    return Problem.of(
        [
            Buffer("a", 100, 0, 2), Buffer("b", 100, 1, 3), Buffer("c", 30, 1, 3),
            Buffer("d", 60, 2, 4), Buffer("e", 120, 3, 5), Buffer("f", 25, 4, 5),
        ],
        [Overwrite(child=1, parent=0, offset=0)],
    )


def test_hand_worked_storage_ids():
    p = example()
    # r=2: t0 a->S0; t1 b in place of a (a dies after t1) -> S0, c->S1; t2 d->S2;
    # t3 b, c released (S0=100, S1=30); e(120): nothing >= 120 in [60, 240], the largest smaller
    # (S0) grows to 120; t4 d released; f(25): smallest >= 25 in [12.5, 50] is S1.
    sp = plan_storage(p, match_range=2)
    assert sp.storage_of == [0, 0, 1, 2, 0, 1] and sp.storage_sizes == [120, 30, 60]
    # r=1: exact matches only
    sp1 = plan_storage(p, match_range=1)
    assert sp1.storage_of == [0, 0, 1, 2, 3, 4] and sp1.storage_sizes == [100, 30, 60, 120, 25]
    assert plan_storage_auto(p).storage_of == sp.storage_of  # auto keeps the least total (210)
    # two colours (i % 2): S0 was released by b (odd), e is even -> no reuse; S1 (c, even) is
    # out of e's range; f (odd) cannot take S1 (released by c, even)
    sp2 = plan_storage(p, match_range=2, num_groups=2)
    assert sp2.storage_of == [0, 0, 1, 2, 3, 4]
    # match_range 0 disables reuse, in place still works
    assert plan_storage(p, match_range=0).storage_of == [0, 0, 1, 2, 3, 4]


def test_layouts():
    p = example()
    sp = plan_storage(p, match_range=2)
    st_off = stacked_offsets(p, sp)
    assert st_off == [0, 0, 120, 150, 0, 120]
    validate(p, st_off)
    validate(p, packed_offsets(p, sp))
    assert nnvm_heights(p, match_range=2) == {"stacked": 210, "packed": 210}
    sol = Nnvm().plan(p)
    validate(p, sol)
    assert sol.strategy.startswith(("nnvm(packed", "nnvm(stacked")) and sol.height == 210


def test_packing_beats_stacking_when_storages_do_not_overlap_in_time():
    # exact matching: two storages whose users never meet pack into one region
    p = Problem.of([Buffer("a", 10, 0, 2), Buffer("b", 99, 2, 4)])
    assert nnvm_heights(p, match_range=1) == {"stacked": 109, "packed": 99}
    sol = make_strategy("nnvm", match_range=1).plan(p)
    assert sol.strategy.startswith("nnvm(packed;") and sol.height == 99


def test_request_order_and_ranges():
    g = GraphAllocator(match_range=4)
    s = [g.request(sz, i) for i, sz in enumerate([10, 40, 40, 100])]
    assert s == [0, 1, 2, 3]
    for sid in (1, 2, 0):
        g.release(sid, sid)
    assert g.request(30, 9) == 1  # smallest >= 30: both 40s, the first released wins
    assert g.request(50, 9) == 2  # nothing >= 50 in [12.5, 200]: largest smaller (40) grows
    assert g.sizes[2] == 50
    assert g.request(100, 9) == 4  # 10 is out of [25, 400]: new storage


def test_same_storage_groups():
    p = Problem.of([Buffer("w", 8, 0, 2), Buffer("w2", 8, 3, 5), Buffer("t", 8, 2, 3)])
    sp = plan_storage(p, same_storage=[[0, 1]])
    assert sp.storage_of[0] == sp.storage_of[1] != sp.storage_of[2]
    validate(p, Nnvm(same_storage=[[0, 1]]).plan(p))
    with pytest.raises(PlanningError, match="live together"):
        plan_storage(Problem.of([Buffer("x", 8, 0, 2), Buffer("y", 8, 1, 3)]), same_storage=[[0, 1]])


def test_inplace_needs_equal_sizes_as_in_nnvm():
    # x dies at step 1, where y (same bytes) or z (smaller) is written over it: NNVM reuses
    # the storage in place only when the byte sizes match.
    same = Problem.of([Buffer("x", 64, 0, 2), Buffer("y", 64, 1, 3)], [Overwrite(1, 0, 0)])
    smaller = Problem.of([Buffer("x", 64, 0, 2), Buffer("z", 32, 1, 3)], [Overwrite(1, 0, 0)])
    assert plan_storage(same, match_range=0).storage_of == [0, 0]
    assert plan_storage(smaller, match_range=0).storage_of == [0, 1]


def test_options_are_checked():
    with pytest.raises(PlanningError):
        Nnvm(match_range=-1)
    with pytest.raises(PlanningError):
        Nnvm(num_groups=0)


rows = st.lists(
    st.tuples(st.integers(0, 50), st.integers(0, 30), st.integers(1, 10), st.sampled_from([1, 2, 8])),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(rows, st.sampled_from(["auto", 0, 1, 1.5, 16]), st.integers(1, 3))
def test_random_problems_validate(rows, match_range, groups):
    p = Problem.of(Buffer(f"b{i}", s, t, t + l, a) for i, (s, t, l, a) in enumerate(rows))
    sol = Nnvm(match_range=match_range, num_groups=groups).plan(p)
    validate(p, sol)
    assert sol.height >= lower_bound(p)
    sp = plan_storage_auto(p, match_range, groups)
    for b, sid in zip(p.buffers, sp.storage_of):
        assert (sid == -1) == (b.size == 0)
        if sid >= 0:
            assert sp.storage_sizes[sid] >= b.size


def test_select_height_is_never_worse():
    from memopt.planning.synthetic import nn_like
    p = nn_like(300, seed=1)
    a = Nnvm().plan(p)
    b = Nnvm(select="height").plan(p)
    validate(p, b)
    assert b.height <= a.height
    with pytest.raises(PlanningError):
        Nnvm(select="nope")
