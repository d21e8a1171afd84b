"""MegEngine's static planner: best-fit simulation and front-space offsets (hand-worked + properties)."""

from hypothesis import given, settings, strategies as st

from memopt.planning import Buffer, Overwrite, Problem, lower_bound, validate
from memopt.planning.bounds import lower_bound_inplace
from memopt.planning.megengine import BestFitPrealloc, MegEngine
from memopt.planning.synthetic import nn_like

M = 1 << 20


def test_seed_example_alloc_overwrite_20m_6m_10m():
    a = BestFitPrealloc()
    a.alloc("x", 5 * M)
    a.alloc("chunk1", 20 * M)
    a.alloc("y", 3 * M)
    a.alloc_overwrite("chunk1", 6 * M, "chunk2", 10 * M)
    # chunk1's 20M: 6M free, 10M kept by chunk2, 4M free
    assert a.blocks() == [("x", 5 * M), (None, 6 * M), ("chunk2", 10 * M), (None, 4 * M), ("y", 3 * M)]
    assert a.free_sizes() == [4 * M, 6 * M]
    assert a.front["chunk2"] == "x" and a.back["chunk2"] == "y"
    # freeing chunk2 merges everything between x and y back into one 20M block
    a.free("chunk2")
    assert a.blocks() == [("x", 5 * M), (None, 20 * M), ("y", 3 * M)]
    assert a.free_sizes() == [20 * M]


def test_alloc_best_fit_grow_and_append():
    a = BestFitPrealloc()
    a.alloc("a", 10)  # free queue empty: append
    a.alloc("b", 30)
    a.alloc("c", 20)
    a.alloc("d", 5)
    a.free("a")
    a.free("c")
    assert a.free_sizes() == [10, 20]
    a.alloc("e", 15)  # best fit: the 20 block, split 15 + 5
    assert a.blocks() == [(None, 10), ("b", 30), ("e", 15), (None, 5), ("d", 5)]
    assert a.front["e"] == "b" and a.back["e"] == "d"
    a.alloc("f", 12)  # nothing >= 12: grow the largest free block (10) to 12
    assert a.blocks() == [("f", 12), ("b", 30), ("e", 15), (None, 5), ("d", 5)]
    assert a.front["f"] is None and a.back["f"] == "b"
    a.free("b")
    a.free("e")  # merges with the freed b and the 5 after it
    assert a.blocks() == [("f", 12), (None, 50), ("d", 5)]


def test_seed_example_as_a_plan():
    # p (20) is overwritten by c (10) at offset 6; q (6) and r (4) start when p dies
    p = Problem.of(
        [Buffer("p", 20, 0, 2), Buffer("c", 10, 1, 3), Buffer("q", 6, 2, 4), Buffer("r", 4, 2, 4)],
        [Overwrite(child=1, parent=0, offset=6)],
    )
    sol = MegEngine().plan(p)
    validate(p, sol)
    # q takes the freed 6 bytes below c (best fit), r the 4 above it
    assert sol.offsets == (0, 6, 0, 16) and sol.height == 20 == lower_bound_inplace(p)
    assert sol.strategy == "megengine"


def test_grown_block_pushes_the_block_above_it_up():
    # z grows x's freed 10-byte block to 30 below y: y must move up (the "back" edge)
    p = Problem.of([Buffer("x", 10, 0, 2), Buffer("y", 10, 0, 4), Buffer("z", 30, 2, 4)])
    sol = MegEngine().plan(p)
    validate(p, sol)
    assert sol.offsets == (0, 30, 0) and sol.height == 40 == lower_bound(p)


def test_alignment_and_chains():
    p = Problem.of(
        [Buffer("a", 40, 0, 2, 16), Buffer("b", 24, 1, 3, 8), Buffer("c", 8, 2, 4, 8), Buffer("d", 7, 0, 4, 4)],
        [Overwrite(1, 0, 8), Overwrite(2, 1, 16)],
    )
    sol = MegEngine().plan(p)
    validate(p, sol)
    assert sol.offsets[1] == sol.offsets[0] + 8 and sol.offsets[2] == sol.offsets[1] + 16


def test_larger_synthetic_traces_validate():
    for seed in range(3):
        p = nn_like(400, seed=seed, alignment=64)
        sol = MegEngine().plan(p)
        validate(p, sol)
        assert sol.height >= lower_bound(p)


rows = st.lists(
    st.tuples(st.integers(0, 50), st.integers(0, 30), st.integers(1, 10), st.sampled_from([1, 2, 8])),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(rows)
def test_random_problems_validate(rows):
    p = Problem.of(Buffer(f"b{i}", s, t, t + l, a) for i, (s, t, l, a) in enumerate(rows))
    sol = MegEngine().plan(p)
    validate(p, sol)
    assert sol.height >= lower_bound(p)


def test_empty_child_passes_its_parents_block_on():
    # p is overwritten by an empty child; p's bytes must come back to the pool when c dies
    p = Problem.of(
        [Buffer("p", 10, 0, 2), Buffer("c", 0, 1, 3), Buffer("q", 10, 3, 5), Buffer("k", 5, 0, 5)],
        [Overwrite(1, 0, 4)],
    )
    sol = MegEngine().plan(p)
    validate(p, sol)
    assert sol.height == 15
