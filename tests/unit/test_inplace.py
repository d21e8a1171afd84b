"""In-place (overwrite) support in the core: validator, folding, bounds, greedy strategies."""

import pytest
from hypothesis import given, settings, strategies as st

from memopt.planning import (
    Buffer, Overwrite, PlanningError, Problem, find_conflicts, lower_bound, make_strategy, plan,
    strategy_names, validate,
)
from memopt.planning.bounds import folded_max_live, lower_bound_inplace
from memopt.planning.inplace import expand, fold_overwrites, plan_with_inplace, select_chains
from memopt.planning.strategies import _REGISTRY, LargeFirst


def quick(name: str) -> dict:
    """Options that keep anytime strategies (``search``) to a few milliseconds in property tests."""
    return {"budget": 0.05} if getattr(_REGISTRY.get(name), "uses_budget", False) else {}


def relu_chain() -> Problem:
    # x -> relu (in place) -> y ; plus z alive during the relu step
    return Problem.of(
        [Buffer("x", 100, 0, 2), Buffer("y", 100, 1, 3), Buffer("z", 50, 1, 2)],
        [Overwrite(child=1, parent=0, offset=0)],
    )


def test_validator_accepts_the_permitted_place_only():
    p = relu_chain()
    validate(p, [0, 0, 100])
    with pytest.raises(PlanningError, match="'x'.*'y'|'y'.*'x'"):
        validate(p, [0, 8, 100])  # overlapping, but not at the permitted offset
    q = Problem.of([Buffer("p", 20, 0, 2), Buffer("c", 10, 1, 3)], [Overwrite(1, 0, 6)])
    validate(q, [0, 6])
    validate(q, [100, 106])
    validate(q, [0, 20])  # no overlap at all is always fine
    with pytest.raises(PlanningError):
        validate(q, [0, 0])
    with pytest.raises(PlanningError):
        validate(q, [6, 0])  # the reverse relation is not permitted


def test_greedy_strategies_use_overwrites():
    p = relu_chain()
    plain = Problem.of(p.buffers)
    assert plan(plain, "large-first").height == 250
    sol = plan(p, "large-first")
    validate(p, sol)
    assert sol.offsets[0] == sol.offsets[1] and sol.height == 150
    assert lower_bound(p) == 250 and lower_bound_inplace(p) == 150


def test_fold_merges_a_chain():
    p = Problem.of(
        [Buffer("a", 64, 0, 3), Buffer("b", 32, 2, 5, 16), Buffer("c", 8, 4, 6), Buffer("d", 10, 0, 9)],
        [Overwrite(1, 0, 16), Overwrite(2, 1, 8), Overwrite(3, 0, 0)],  # d: parent already taken
    )
    folded, root_of, rel = fold_overwrites(p)
    assert [b.id for b in folded.buffers] == ["a", "d"]
    a = folded.buffers[0]
    assert (a.size, a.start, a.end, a.alignment) == (64, 0, 6, 16)
    assert root_of == [0, 0, 0, 1] and rel == [0, 16, 24, 0]
    sol = plan_with_inplace(LargeFirst(), p)
    validate(p, sol)
    assert sol.offsets[:3] == (sol.offsets[0], sol.offsets[0] + 16, sol.offsets[0] + 24)


def test_fold_pads_for_alignment_and_cuts_impossible_links():
    # the child needs 8-alignment at offset 4 inside its parent: the root is padded by 4
    p = Problem.of([Buffer("a", 16, 0, 2), Buffer("b", 8, 1, 3, 8)], [Overwrite(1, 0, 4)])
    folded, root_of, rel = fold_overwrites(p)
    assert rel == [4, 8] and folded.buffers[0].size == 20 and folded.buffers[0].alignment == 8
    # a parent aligned to 8 cannot host a child aligned to 8 at offset 4: the link is cut
    q = Problem.of([Buffer("a", 16, 0, 2, 8), Buffer("b", 8, 1, 3, 8)], [Overwrite(1, 0, 4)])
    ch = select_chains(q)
    assert ch.parent == [-1, -1]
    assert len(fold_overwrites(q)[0]) == 2
    # cycles are ignored
    r = Problem.of([Buffer("a", 8, 0, 2), Buffer("b", 8, 1, 3)], [Overwrite(1, 0), Overwrite(0, 1)])
    assert len(fold_overwrites(r)[0]) == 1


def test_fold_cuts_a_grandchild_overlapping_its_grandparent():
    # three members created in one step: g and c would overlap while both live
    p = Problem.of(
        [Buffer("g", 10, 0, 3), Buffer("p", 10, 2, 3), Buffer("c", 10, 2, 4)],
        [Overwrite(1, 0), Overwrite(2, 1)],
    )
    ch = select_chains(p)
    assert ch.parent == [-1, 0, -1]
    for name in strategy_names():
        validate(p, make_strategy(name, **quick(name)).plan(p))


def test_lower_bound_inplace_is_not_the_folded_max_live():
    # root 100 overwritten by a 1-byte child that lives long, next to a 99-byte buffer
    p = Problem.of(
        [Buffer("r", 100, 0, 2), Buffer("c", 1, 1, 10), Buffer("o", 99, 2, 10)],
        [Overwrite(1, 0, 0)],
    )
    assert folded_max_live(p) == 199
    assert lower_bound_inplace(p) == 100
    sol = make_strategy("megengine").plan(p)
    validate(p, sol)
    assert sol.height == 100  # alloc_overwrite released the parent's 99 other bytes
    # folding loses here (199); the greedy strategies keep the plain plan instead
    assert plan_with_inplace(LargeFirst(), p, compare_plain=False).height == 199
    lf = plan(p, "large-first")
    validate(p, lf)
    assert lf.height == 101


# -- properties ------------------------------------------------------------------------------

PATHS = [(), (), ((0, 0),), ((0, 1),), ((0, 1), (5, 0)), ((0, 1), (5, 1))]


@st.composite
def problems(draw, with_overwrites=True, with_paths=True):
    n = draw(st.integers(0, 25))
    bufs = []
    for i in range(n):
        size = draw(st.integers(0, 40))
        start = draw(st.integers(0, 30))
        length = draw(st.integers(1, 8))
        align = draw(st.sampled_from([1, 1, 2, 4, 8]))
        path = draw(st.sampled_from(PATHS)) if with_paths else ()
        bufs.append([size, start, length, align, path])
    pairs = []
    if with_overwrites and n >= 2:
        for _ in range(draw(st.integers(0, n))):
            c = draw(st.integers(0, n - 1))
            p = draw(st.integers(0, n - 1))
            if c == p:
                continue
            if draw(st.booleans()):  # make the lifetimes meet in one step, as the IR does
                bufs[c][1] = bufs[p][1] + bufs[p][2] - 1
            if bufs[c][0] > bufs[p][0]:
                bufs[c][0] = bufs[p][0]
            pairs.append((c, p))
    ows = []
    for c, p in pairs:  # sizes may have shrunk since: draw the offsets last
        if bufs[c][0] <= bufs[p][0]:
            ows.append(Overwrite(c, p, draw(st.integers(0, bufs[p][0] - bufs[c][0]))))
    return Problem.of(
        [Buffer(f"b{i}", s, t, t + l, a, path) for i, (s, t, l, a, path) in enumerate(bufs)], ows
    )


@settings(max_examples=150, deadline=None)
@given(problems())
def test_every_strategy_validates_with_overwrites(p):
    heights = {}
    lb = lower_bound_inplace(p) if p.overwrites else lower_bound(p)
    assert lb <= lower_bound(p)
    for name in strategy_names():
        sol = make_strategy(name, **quick(name)).plan(p)
        validate(p, sol)
        assert sol.height >= lb
        heights[name] = sol.height
    # ``best`` (without a budget) is the minimum over the greedy portfolio, polished when above
    # the bound; anytime strategies such as ``search`` join it only with a budget.
    portfolio = [n for n in heights if n != "best" and getattr(_REGISTRY[n], "in_portfolio", True)
                 and not getattr(_REGISTRY[n], "uses_budget", False)]
    assert make_strategy("best", polish=False).plan(p).height == min(heights[n] for n in portfolio)
    assert all(heights[n] >= heights["best"] for n in portfolio)


@settings(max_examples=150, deadline=None)
@given(problems())
def test_fold_expand_round_trip(p):
    folded, root_of, rel = fold_overwrites(p)
    assert not folded.overwrites
    for b, r, x in zip(p.buffers, root_of, rel):
        f = folded.buffers[r]
        assert 0 <= x and x + b.size <= f.size and f.start <= b.start and b.end <= f.end
        assert f.alignment % b.alignment == 0 and x % b.alignment == 0
    fsol = LargeFirst().plan(folded)
    offsets = expand(fsol.offsets, root_of, rel)
    validate(p, offsets)
    if not p.overwrites:
        assert folded == p and rel == [0] * len(p) and root_of == list(range(len(p)))


@settings(max_examples=150, deadline=None)
@given(problems(), st.data())
def test_validator_agrees_with_pairwise_definition_with_overwrites(p, data):
    offsets = [data.draw(st.integers(0, 60)) for _ in p.buffers]
    allowed = {(w.child, w.parent, w.offset) for w in p.overwrites}

    def permitted(i, j):
        return (i, j, offsets[i] - offsets[j]) in allowed or (j, i, offsets[j] - offsets[i]) in allowed

    from memopt.planning import exclusive
    expected = any(
        x.size and y.size and x.start < y.end and y.start < x.end
        and offsets[i] < offsets[j] + y.size and offsets[j] < offsets[i] + x.size
        and not exclusive(x.path, y.path) and not permitted(i, j)
        for i, x in enumerate(p.buffers) for j, y in enumerate(p.buffers) if i < j
    )
    misaligned = any(o % b.alignment for o, b in zip(offsets, p.buffers))
    assert bool(find_conflicts(p, offsets)) == (expected or misaligned)
