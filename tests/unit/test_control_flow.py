"""Control flow: branch tree, the LUNA paper's Algorithm 2 (merge), joint packing, and the pass wiring.

IR-free property tests run on random nested problems built the way the joint lifetime analysis
numbers a program (branches overlaid on the same steps, every branch tensor inside its ``if``'s
span, outer tensors ending at op boundaries); IR property tests run random nested memopt
programs through ``plan-memory`` in every mode.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st
from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.parser import Parser

from memopt.dialects.memopt import Memopt
from memopt.passes.lifetime import analyze_function, if_spans, number_ops
from memopt.passes.plan_function import plan_function_memory
from memopt.planning import (
    Buffer, Overwrite, PlanningError, Problem, Solution, find_conflicts, lower_bound, make_strategy,
    max_live, nested_lower_bound, validate,
)
from memopt.planning.control_flow import (
    IfSpan, branch_tree, flat_problem, merge, merge_plan, node_of, plan_joint, plan_merge, unpolished,
)
from memopt.planning.search import climb

GREEDY = ["sequential", "large-first", "short-first"]


# --------------------------------------------------------------------------- random problems


def random_nested(seed: int, max_depth: int = 3, items: int = 6):
    """A jointly numbered random program: (problem, spans).

    A block is a run of items; an item is a tensor definition (one step) or an ``if`` (begin
    step, both branches overlaid, end step). A tensor dies at a later op boundary of its own
    block: after a definition, right after an ``if``'s begin (the ``if`` read it as its
    condition), after an ``if``'s end (read inside it), or at the block's end.
    """
    rng = random.Random(seed)
    buffers: list[Buffer] = []
    spans: list[IfSpan] = []

    def block(path, step: int, depth: int) -> int:
        defs: list[tuple[int, int]] = []  # (buffer start, index into boundaries at definition)
        boundaries: list[int] = []
        for _ in range(rng.randint(1 if depth == 0 else 0, items)):
            if depth < max_depth and rng.random() < 0.35:
                if_id = len(spans)
                spans.append(None)  # reserve the id, fill in after the branches
                begin = step
                boundaries.append(begin + 1)
                after = begin + 1
                for k in range(2):
                    after = max(after, block(path + ((if_id, k),), begin + 1, depth + 1))
                spans[if_id] = IfSpan(if_id, path, begin + 1, after)  # `after`: the end step
                boundaries.append(after + 1)
                step = after + 1
            else:
                defs.append((step, len(boundaries)))
                boundaries.append(step + 1)
                step += 1
        boundaries.append(step + 1)  # the block's last op (yield or return) reads at `step`
        step += 1
        for start, k in defs:
            end = rng.choice(boundaries[k:])
            size = rng.choice([0, 8, 16, 24, 64, 100, 256])
            buffers.append(Buffer(f"b{len(buffers)}", size, start, end, rng.choice([1, 4, 16]), path))
        return step

    block((), 0, 0)
    return Problem.of(buffers), spans


# --------------------------------------------------------------------------- branch tree


def test_branch_tree_groups_by_depth_and_rejects_inconsistent_spans():
    p, spans = random_nested(3, max_depth=3)
    tree = branch_tree(p, spans)
    assert sorted(i for own in tree.own.values() for i in own) == list(range(len(p)))
    for node, own in tree.own.items():
        assert all(node_of(p.buffers[i].path) == node for i in own)

    bad = Problem.of([Buffer("t", 8, 1, 3, path=((0, 0),))])
    with pytest.raises(PlanningError, match="unknown branch"):
        branch_tree(bad, [])
    with pytest.raises(PlanningError, match="outside its if's span"):
        branch_tree(bad, [IfSpan(0, (), 1, 2)])
    with pytest.raises(PlanningError, match="unknown branch"):
        branch_tree(Problem.of([]), [IfSpan(1, ((0, 0),), 2, 3)])


def test_depth_counts_nested_ifs():
    spans = [IfSpan(0, (), 0, 10), IfSpan(1, ((0, 1),), 1, 8), IfSpan(2, ((0, 1), (1, 0)), 2, 6)]
    assert branch_tree(Problem.of([]), spans).depth() == 3


class _CountedId(int):
    """An if id that counts how often it is hashed: a path of depth d hashes d of them."""

    hashes = 0

    def __hash__(self) -> int:
        _CountedId.hashes += 1
        return int.__hash__(self)


def _nested_chain(depth: int) -> tuple[Problem, list[IfSpan]]:
    """``depth`` ifs nested in each other's branch 0, one tensor in each branch."""
    buffers, spans, path = [], [], ()
    end = 4 * depth + 4
    for i in range(depth):
        if_id = _CountedId(i)
        spans.append(IfSpan(if_id, path, i + 1, end - i))
        inner, other = path + ((if_id, 0),), path + ((if_id, 1),)
        buffers.append(Buffer(f"a{i}", 16, i + 1, i + 2, path=inner))
        buffers.append(Buffer(f"b{i}", 8, i + 1, end - i, path=other))
        path = inner
    return Problem.of(buffers), spans


def test_deep_nesting_plans_in_time_linear_in_depth():
    """Each node of the branch tree is looked up by its last step, not by its whole path: a
    path hashed per node makes the merge quadratic in depth (3,000 nested ifs took minutes)."""
    counts = {}
    for depth in (50, 200):
        problem, spans = _nested_chain(depth)
        _CountedId.hashes = 0
        sol = merge(problem, spans, make_strategy("large-first"))
        assert not find_conflicts(problem, sol.offsets)
        counts[depth] = _CountedId.hashes
    assert counts[200] < 6 * counts[50], counts  # 4x for linear work, 16x for quadratic


# --------------------------------------------------------------------------- Algorithm 2


def hole_problem():
    """Three long tensors with two 64-byte holes between them when an ``if`` starts; the then
    branch needs two 64-byte tensors at once, the else branch nothing."""
    bufs = [
        Buffer("x1", 64, 0, 10), Buffer("h1", 64, 0, 2), Buffer("x2", 64, 0, 10),
        Buffer("h2", 64, 0, 2), Buffer("x3", 64, 0, 10),
        Buffer("t1", 64, 3, 5, path=((0, 0),)), Buffer("t2", 64, 3, 5, path=((0, 0),)),
    ]
    return Problem.of(bufs), [IfSpan(0, (), 2, 6)]


def test_merge_reserves_one_region_of_the_largest_branch_peak():
    # then: a (100) and b (50) live together -> peak 150; else: c (120) then d (120) -> peak 120.
    bufs = [
        Buffer("x", 40, 0, 8),
        Buffer("a", 100, 2, 4, path=((0, 0),)), Buffer("b", 50, 2, 5, path=((0, 0),)),
        Buffer("c", 120, 2, 3, path=((0, 1),)), Buffer("d", 120, 3, 5, path=((0, 1),)),
        Buffer("y", 30, 6, 8),
    ]
    p, spans = Problem.of(bufs), [IfSpan(0, (), 1, 6)]
    sol = merge(p, spans, make_strategy("sequential"))
    validate(p, sol)
    off = sol.offset_of(p)
    # Top level: x@0, region if#0 (150 bytes, [1,6)) @40, y@40 after the region.
    assert (off["x"], off["a"], off["b"], off["c"], off["d"], off["y"]) == (0, 40, 140, 40, 40, 40)
    assert sol.height == 190 == lower_bound(p)
    assert sol.strategy == "sequential/merge"


def test_merge_only_merges_tensors_at_the_same_depth():
    # The inner if's region (64 bytes over its span [2,6)) is planned as one buffer beside the
    # then-branch tensor "o"; the inner branches share it; the outer if's region is 96 bytes.
    bufs = [
        Buffer("o", 32, 2, 7, path=((0, 0),)),
        Buffer("i1", 64, 3, 4, path=((0, 0), (1, 0))),
        Buffer("i2", 16, 3, 5, path=((0, 0), (1, 1))),
        Buffer("e", 8, 2, 7, path=((0, 1),)),
    ]
    p, spans = Problem.of(bufs), [IfSpan(0, (), 1, 8), IfSpan(1, ((0, 0),), 2, 6)]
    sol = merge_plan(p, spans, make_strategy("sequential").plan)
    validate(p, sol)
    off = sol.offset_of(p)
    assert off["o"] == 0 and off["i1"] == off["i2"] == 32 and off["e"] == 0
    assert sol.height == 96


def test_joint_uses_holes_that_merge_cannot():
    p, spans = hole_problem()
    seq = make_strategy("sequential")
    merged = merge(p, spans, seq)
    joint = plan_joint(p, spans, seq)
    validate(p, merged)
    validate(p, joint)
    assert merged.height == 448  # region of 128 does not fit a 64-byte hole: on top of x3
    assert joint.height == 320 == nested_lower_bound(p)
    assert joint.strategy == "sequential/joint"


def test_joint_polishes_a_plan_above_lb_nest_and_ignores_bad_or_equal_candidates():
    # Sequential stacks c above b (height 50); the optimum puts b at 0 and a, c above it (40).
    # 50 is above LB_nest (40), so the joint polish climbs to the optimum.
    p = Problem.of([Buffer("a", 10, 0, 2), Buffer("b", 20, 0, 4), Buffer("c", 20, 2, 4)])
    spans = [IfSpan(0, (), 4, 6)]  # an if whose branches hold nothing
    seq = make_strategy("sequential")
    assert seq.plan(p).height == 50 and nested_lower_bound(p) == 40
    polished = plan_joint(p, spans, seq)
    validate(p, polished)
    # Without branch paths on its buffers the polish is the short branch and bound (+exact).
    assert polished.height == 40 and polished.strategy in ("sequential+exact/joint", "sequential+climb/joint")
    optimum = Solution.of(p, (20, 0, 20), "large-first")
    worse = Solution.of(p, (0, 20, 40), "short-first")
    invalid = Solution.of(p, (0, 0, 0), "bogus")  # a and b overlap while both live
    sol = plan_joint(p, spans, seq, [("bogus", p, invalid), ("flat", p, worse), ("serial", p, optimum)])
    assert sol == polished  # a tie keeps the joint-numbered plan


@pytest.mark.parametrize("seed", [2, 8, 23, 29])
def test_joint_polishes_once_and_only_the_plan_it_keeps(seed, monkeypatch):
    """With ``best``, the direct plan, merge's flat plan and the candidate are planned
    unpolished; one polish follows, on the lowest (plus one more only when a candidate lower
    still is taken). The result is valid in the numbering it names and never above the lowest
    unpolished layout."""
    import memopt.planning.control_flow as cf
    import memopt.planning.strategies as strategies

    from memopt.planning.bounds import lower_bound_inplace

    p, spans = random_nested(seed, items=8)
    raw = unpolished(make_strategy("best"))
    serial = flat_problem(p)
    # Both the direct plan and flat's miss their bounds: a polishing best would polish each.
    assert raw.plan(p).height > lower_bound_inplace(p) and raw.plan(serial).height > lower_bound_inplace(serial)
    calls: list[int] = []
    original = strategies.polished

    def counting(problem, solution):
        calls.append(len(problem))
        return original(problem, solution)

    monkeypatch.setattr(cf, "polished", counting)
    monkeypatch.setattr(strategies, "polished", counting)  # best's own polish would count here
    sol = plan_joint(p, spans, make_strategy("best"), [("serial", serial, raw.plan(serial))])
    assert len(calls) == 1 + (sol.mode == "serial")
    validate(serial if sol.mode == "serial" else p, sol)
    lowest = min(raw.plan(p).height, plan_merge(p, spans, raw).height, raw.plan(serial).height)
    assert sol.height <= lowest


def test_joint_with_an_unpolished_best_never_polishes(monkeypatch):
    """``best`` with ``polish=False``: no polish anywhere, not even on a candidate it keeps."""
    import memopt.planning.control_flow as cf

    p, spans = random_nested(29, items=8)
    calls = []
    monkeypatch.setattr(cf, "polished", lambda problem, solution: calls.append(1) or solution)
    raw = make_strategy("best", polish=False)
    # A numbering where no two buffers live at once: everything at offset 0, far below joint.
    apart = Problem.of([Buffer(b.id, b.size, k, k + 1, b.alignment) for k, b in enumerate(p.buffers)])
    lower = Solution.of(apart, [0] * len(p), "hand")
    sol = plan_joint(p, spans, raw, [("serial", apart, lower)])
    assert sol.strategy == "hand/serial" and sol.height < raw.plan(p).height
    assert calls == []


def test_unpolished_drops_only_bests_polish():
    best = make_strategy("best", budget=2.0)
    raw = unpolished(best)
    assert raw is not best and raw.polish is False and best.polish is True
    assert raw.budget == 2.0 and raw.options == best.options
    assert unpolished(raw) is raw
    lf = make_strategy("large-first")
    assert unpolished(lf) is lf


def test_joint_checks_a_candidate_against_its_own_numbering():
    # In the candidate's numbering b dies before c starts, so c takes b's bytes (20 instead of
    # 30); that layout conflicts in the joint problem, yet is kept: it names its mode and is
    # re-checked in that numbering. A candidate invalid for its own problem, or of another
    # size, is not.
    p = Problem.of([Buffer("a", 10, 0, 4), Buffer("b", 10, 0, 4), Buffer("c", 10, 2, 4)])
    other = Problem.of([Buffer("a", 10, 0, 4), Buffer("b", 10, 0, 2), Buffer("c", 10, 2, 4)])
    spans = [IfSpan(0, (), 4, 6)]
    seq = make_strategy("sequential")
    layout = Solution.of(other, (0, 10, 10), "hand")
    assert find_conflicts(p, layout.offsets) and not find_conflicts(other, layout.offsets)
    sol = plan_joint(p, spans, seq, [("serial", other, layout)])
    assert (sol.height, sol.strategy) == (20, "hand/serial")
    assert plan_joint(p, spans, seq, [("serial", p, layout)]).strategy == "sequential/joint"
    short = Problem.of(other.buffers[:2])
    assert plan_joint(p, spans, seq, [("serial", short, layout)]).strategy == "sequential/joint"


def test_joint_tries_outer_levels_first():
    # An if result r (parent level) written at step 4, after the branches' first tensors die.
    # Large-first places the then branch's t1, t2, then e2 at t1's offset (exclusive): r, live
    # beside t2 and e2, lands on top. Placing the parent level first puts r at 0, where t1 and
    # e1 (dead before r's write) go too: LB_nest.
    p = Problem.of([
        Buffer("a", 4096, 0, 8), Buffer("r", 16384, 4, 8),
        Buffer("t1", 16384, 2, 4, path=((0, 0),)), Buffer("t2", 16384, 3, 5, path=((0, 0),)),
        Buffer("e1", 8192, 2, 4, path=((0, 1),)), Buffer("e2", 16384, 3, 5, path=((0, 1),)),
    ])
    spans = [IfSpan(0, (), 2, 6)]
    lf = make_strategy("large-first")
    assert lf.plan(p).height == 53248
    sol = plan_joint(p, spans, lf)
    validate(p, sol)
    assert (sol.height, sol.strategy) == (36864, "large-first(outer first)/joint")
    assert sol.height == nested_lower_bound(p)
    assert merge(p, spans, lf).height == 53248  # the region (32 KB) sits beside r


def test_merge_mode_keeps_flat_when_the_region_costs_more():
    # x1 (64 B) is read by the else branch's first op and dies at step 4; the else branch's
    # peak is v5 (64) + v3 (16) = 80. Algorithm 2 reserves that region over the whole if
    # (steps 1..8), beside x1: 64 + 80 + the rest. Flat lets v5 and v6 take x1's bytes after
    # it dies. The merge mode keeps flat's (valid) layout and names it.
    p = Problem.of([
        Buffer("x0", 32, 0, 2), Buffer("x1", 64, 0, 4), Buffer("c0", 1, 0, 7), Buffer("r1", 12, 1, 11),
        Buffer("v3", 16, 1, 5, path=((0, 1),)), Buffer("v5", 64, 3, 4, path=((0, 1),)),
        Buffer("v6", 16, 4, 7, path=((0, 1),)), Buffer("v7", 12, 5, 7, path=((0, 1),)),
    ])
    spans = [IfSpan(0, (), 1, 8)]
    lf = make_strategy("large-first")
    alg2 = merge(p, spans, lf)
    flat = lf.plan(flat_problem(p))
    assert alg2.height > flat.height
    sol = plan_merge(p, spans, lf)
    validate(p, sol)
    assert (sol.height, sol.strategy, sol.offsets) == (flat.height, "large-first/flat", flat.offsets)
    # A tie (the hole problem: 320 both ways) keeps Algorithm 2's layout.
    q, qspans = hole_problem()
    assert merge(q, qspans, lf).height == lf.plan(flat_problem(q)).height == 320
    assert plan_merge(q, qspans, lf) == merge(q, qspans, lf)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 64))
def test_climb_never_raises_the_plan_stays_valid_and_is_deterministic(seed, evaluations):
    p, _ = random_nested(seed)
    start = make_strategy("large-first").plan(p)
    target = nested_lower_bound(p)
    offsets, height = climb(p, start.offsets, target, evaluations, seed=seed)
    assert not find_conflicts(p, offsets, limit=1)
    assert target <= height <= start.height
    assert height == Solution.of(p, offsets, "x").height
    assert (offsets, height) == climb(p, start.offsets, target, evaluations, seed=seed)
    if evaluations == 0:
        assert offsets == list(start.offsets)


def test_merge_with_best_runs_every_member_and_names_the_winner():
    p, spans = hole_problem()
    sol = merge(p, spans, make_strategy("best"))
    validate(p, sol)
    per_member = {
        s: merge(p, spans, make_strategy(s)).height for s in GREEDY
    }
    assert sol.height == min(per_member.values())
    assert sol.mode == "merge" and sol.strategy.endswith("/merge")


def test_merge_keeps_overwrites_inside_one_level():
    bufs = [
        Buffer("a", 64, 2, 4, path=((0, 0),)), Buffer("b", 64, 3, 5, path=((0, 0),)),
        Buffer("x", 16, 0, 7),
    ]
    p = Problem.of(bufs, [Overwrite(1, 0, 0)])
    sol = merge(p, [IfSpan(0, (), 1, 6)], make_strategy("large-first"))
    validate(p, sol)
    assert sol.height == 80  # b written over a: the then branch needs 64 bytes, not 128


def test_merge_regions_respect_alignment():
    bufs = [
        Buffer("x", 3, 0, 8, alignment=1),
        Buffer("a", 5, 2, 4, alignment=64, path=((0, 0),)),
        Buffer("b", 5, 2, 4, alignment=64, path=((0, 0),)),
    ]
    p = Problem.of(bufs)
    sol = merge(p, [IfSpan(0, (), 1, 6)], make_strategy("sequential"))
    validate(p, sol)  # validate checks every offset's alignment
    assert sol.offset_of(p)["a"] % 64 == 0 and sol.offset_of(p)["b"] % 64 == 0


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(GREEDY + ["best"]))
def test_every_mode_is_valid_and_joint_never_loses_to_merge(seed, strategy):
    p, spans = random_nested(seed)
    s = make_strategy(strategy)
    lb = nested_lower_bound(p)
    merged = merge(p, spans, s)
    joint = plan_joint(p, spans, s)
    flat = flat_problem(p)
    flat_sol = s.plan(flat)
    validate(p, merged)
    validate(p, joint)
    validate(flat, flat_sol)
    validate(p, flat_sol)  # flat conflicts include joint's: a flat layout is valid jointly
    assert lb <= joint.height <= merged.height
    guarded = plan_merge(p, spans, s)
    validate(p, guarded)
    assert joint.height <= guarded.height <= min(merged.height, flat_sol.height)
    assert guarded.mode == ("merge" if guarded.height == merged.height else "flat")
    assert guarded.strategy.endswith(f"/{guarded.mode}")
    assert max_live(flat) <= flat_sol.height
    assert lb <= max_live(flat)


# --------------------------------------------------------------------------- IR: the pass


def parse(text: str) -> builtin.ModuleOp:
    ctx = Context()
    ctx.load_dialect(builtin.Builtin)
    ctx.load_dialect(func.Func)
    ctx.load_dialect(Memopt)
    return Parser(ctx, text).parse_module()


def random_program(seed: int, max_depth: int = 3, items: int = 5) -> str:
    """A random nested memopt function: computes, ``if`` (sometimes with an empty else or a
    branch yielding an outer value) and ``loop`` ops, each op reading random visible values."""
    rng = random.Random(seed)
    lines: list[str] = []
    counter = [0]

    def fresh() -> str:
        counter[0] += 1
        return f"%v{counter[0]}"

    def ty(n: int) -> str:
        return f"tensor<{n}xf32>"

    def block(visible: list[tuple[str, int]], depth: int, indent: str) -> list[tuple[str, int]]:
        local: list[tuple[str, int]] = []
        for _ in range(rng.randint(1, items)):
            scope = visible + local
            r = rng.random()
            if depth < max_depth and r < 0.3:
                n = rng.choice([4, 16, 64])
                res = fresh()
                lines.append(f"{indent}{res} = memopt.if %c : tensor<i1> -> ({ty(n)}) {{")
                branch_vals = []
                for k in range(2):
                    inner = block(scope, depth + 1, indent + "  ")
                    same = [v for v, m in inner if m == n]
                    outer = [v for v, m in scope if m == n]
                    if same and rng.random() < 0.7:
                        yv = rng.choice(same)
                    elif outer:
                        yv = rng.choice(outer)  # a branch yielding an outer value
                    else:
                        src = rng.choice(scope + inner)
                        yv = fresh()
                        lines.append(f'{indent}  {yv} = memopt.compute "cast"({src[0]}) : ({ty(src[1])}) -> {ty(n)}')
                    lines.append(f"{indent}  memopt.yield {yv} : {ty(n)}")
                    branch_vals.append(yv)
                    lines.append(f"{indent}}}" + (" else {" if k == 0 else ""))
                local.append((res, n))
            elif depth < max_depth and r < 0.4:
                lines.append(f"{indent}memopt.if %c : tensor<i1> {{")  # no results, empty else
                block(scope, depth + 1, indent + "  ")
                lines.append(f"{indent}  memopt.yield")
                lines.append(f"{indent}}}")
            elif depth < max_depth and r < 0.5:
                init, n = rng.choice(scope)
                res, arg = fresh(), fresh()
                lines.append(f"{indent}{res} = memopt.loop 3 iter_args({arg} = {init}) : {ty(n)} {{")
                inner = block(scope + [(arg, n)], depth + 1, indent + "  ")
                same = [v for v, m in inner if m == n] or [arg]
                lines.append(f"{indent}  memopt.yield {rng.choice(same)} : {ty(n)}")
                lines.append(f"{indent}}}")
                local.append((res, n))
            else:
                srcs = rng.sample(scope, min(len(scope), rng.randint(1, 2)))
                n = rng.choice([4, 16, 64, 256])
                res = fresh()
                ins = ", ".join(v for v, _ in srcs)
                tys = ", ".join(ty(m) for _, m in srcs)
                lines.append(f'{indent}{res} = memopt.compute "op"({ins}) : ({tys}) -> {ty(n)}')
                local.append((res, n))
        return local

    local = block([("%x", 64)], 0, "    ")
    out, n = local[-1] if local else ("%x", 64)
    head = f"  func.func @main(%x: {ty(64)}, %c: tensor<i1>) -> {ty(n)} {{"
    return "\n".join(["builtin.module {", head, *lines, f"    func.return {out} : {ty(n)}", "  }", "}"])


MODES = ("flat", "serial", "merge", "joint")


def plan_modes(module: builtin.ModuleOp, strategy: str = "best", alignment: int = 16):
    f = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    s = make_strategy(strategy)
    return {m: plan_function_memory(f, s, control_flow=m, alignment=alignment) for m in MODES}


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10_000))
def test_random_programs_every_mode_valid_joint_below_merge_and_serial(seed):
    module = parse(random_program(seed))
    module.verify()
    plans = plan_modes(module)
    joint = plans["joint"]
    f = joint.lifetimes.func
    problems = {m: analyze_function(f, mode=m).problem for m in ("joint", "serial")}
    lb = min(lower_bound(problems["joint"]), lower_bound(problems["serial"]))
    for m, fp in plans.items():
        # Each layout must be valid in the numbering its recorded mode names (what verify-plan
        # checks), and no layout is below the bound.
        numbering = fp.numbering
        assert numbering == ("serial" if fp.solution.mode == "serial" else "joint")
        assert not fp.solution.mode or fp.solution.strategy.endswith(f"/{fp.solution.mode}")
        assert not find_conflicts(problems[numbering], fp.solution.offsets, limit=1), m
        assert fp.lower_bound == lb
        assert fp.solution.height >= fp.lower_bound
    assert joint.solution.height <= plans["merge"].solution.height <= plans["flat"].solution.height
    assert joint.solution.height <= plans["serial"].solution.height


def _fuzz():
    try:
        from memopt import fuzz
    except ImportError:  # the executor is optional
        return None
    return fuzz


@pytest.mark.skipif(_fuzz() is None, reason="memopt.executor is not available")
@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(GREEDY + ["best"]), st.sampled_from([1, 16]))
def test_random_programs_every_mode_verifies_and_executes_identically(seed, strategy, alignment):
    """Every mode's plan passes verify-plan and is proved by execution (planned vs unplanned,
    input seeds 0 and 1: complementary conditions, so both branches of every if run)."""
    fuzz = _fuzz()
    text = random_program(seed)
    module = fuzz.parse(text)
    for mode in MODES:
        fuzz.run_case(text, fuzz.FuzzConfig(strategy, mode, False, alignment), module.clone(), seeds=(0,))


@pytest.mark.skipif(_fuzz() is None, reason="memopt.executor is not available")
@settings(max_examples=6, deadline=None)
@given(st.randoms(use_true_random=False))
def test_generated_programs_every_mode_verifies_and_executes_identically(rng):
    """The executor's generator: conditions computed in the graph, views, in-place hints,
    loops with swapped carried values, ifs without results."""
    from memopt.executor.graphgen import generate

    fuzz = _fuzz()
    text = generate(rng)
    module = fuzz.parse(text)
    for mode in MODES:
        fuzz.run_case(text, fuzz.FuzzConfig("best", mode, False, 16), module.clone(), seeds=(0,))


SERIAL_ONLY = """
builtin.module {
  func.func @main(%c: tensor<i1>, %x: tensor<16xf32>) -> tensor<16xf32> {
    %v = memopt.compute "v"(%x) : (tensor<16xf32>) -> tensor<16xf32>
    %r = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
      %t1 = memopt.compute "t1"(%x) : (tensor<16xf32>) -> tensor<16xf32>
      %t2 = memopt.compute "t2"(%t1, %v) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %t2 : tensor<16xf32>
    } else {
      %e1 = memopt.compute "e1"(%v) : (tensor<16xf32>) -> tensor<16xf32>
      %e2 = memopt.compute "e2"(%e1) : (tensor<16xf32>) -> tensor<16xf32>
      %e3 = memopt.compute "e3"(%e2) : (tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %e3 : tensor<16xf32>
    }
    func.return %r : tensor<16xf32>
  }
}
"""


def test_serial_and_joint_numberings_each_allow_what_the_other_rejects():
    """Why verify-plan checks a plan in its own mode's numbering: neither contains the other."""
    f = next(op for op in parse(SERIAL_ONLY).walk() if isinstance(op, func.FuncOp))
    serial, joint = analyze_function(f, mode="serial"), analyze_function(f, mode="joint")
    names = [b.id for b in joint.problem.buffers]
    assert names == [b.id for b in serial.problem.buffers] == ["c", "x", "v", "r", "t1", "e1", "e2"]
    v, r, t1, e1, e2 = (names.index(n) for n in ("v", "r", "t1", "e1", "e2"))
    # serial: v is last read by e1 on the else path, so e2 may take its bytes; joint: v is
    # read by t2 at step 3, while e2 exists.
    offs = [0, 16, 128, 192, 256, 256, 128]
    assert not find_conflicts(serial.problem, offs) and find_conflicts(joint.problem, offs)


RESULT_REUSE = """
builtin.module {
  func.func @main(%c: tensor<i1>, %x: tensor<16xf32>) -> tensor<16xf32> {
    %r = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
      %t1 = memopt.compute "t1"(%x) : (tensor<16xf32>) -> tensor<16xf32>
      %t2 = memopt.compute "t2"(%t1) : (tensor<16xf32>) -> tensor<16xf32>
      %t3 = memopt.compute "t3"(%t2) : (tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %t3 : tensor<16xf32>
    } else {
      %e1 = memopt.compute "e1"(%x) : (tensor<16xf32>) -> tensor<16xf32>
      %e2 = memopt.compute "e2"(%e1) : (tensor<16xf32>) -> tensor<16xf32>
      %e3 = memopt.compute "e3"(%e2) : (tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %e3 : tensor<16xf32>
    }
    func.return %r : tensor<16xf32>
  }
}
"""


def test_if_result_starts_at_its_earliest_write_in_any_branch():
    f = next(op for op in parse(RESULT_REUSE).walk() if isinstance(op, func.FuncOp))
    serial, joint = analyze_function(f, mode="serial"), analyze_function(f, mode="joint")
    assert [b.id for b in joint.problem.buffers] == ["c", "x", "r", "t1", "t2", "e1", "e2"]
    # joint: 0 if, 1 t1/e1, 2 t2/e2, 3 t3/e3 (into r), 4 yields, 5 end, 6 return.
    assert [(b.start, b.end) for b in joint.problem.buffers] == [
        (0, 1), (0, 2), (3, 7), (1, 3), (2, 4), (1, 3), (2, 4)
    ]
    # serial: the else branch runs at 5..8, after r's first write (t3, 3): r spans it.
    assert [(b.start, b.end) for b in serial.problem.buffers] == [
        (0, 1), (0, 6), (3, 11), (1, 3), (2, 4), (5, 7), (6, 8)
    ]
    # joint: r takes t1's and e1's bytes (they die before r is written on either path);
    # serial: e1 lives while r does.
    offs = [0, 16, 128, 128, 192, 128, 192]
    assert not find_conflicts(joint.problem, offs) and find_conflicts(serial.problem, offs)
    fp = plan_function_memory(f, make_strategy("large-first"))
    assert (fp.solution.height, fp.lower_bound, fp.solution.strategy) == (128, 128, "large-first/joint")
    heights = {m: p.solution.height for m, p in plan_modes(parse(RESULT_REUSE), "large-first").items()}
    assert heights == {"flat": 256, "serial": 192, "merge": 192, "joint": 128}


def test_earliest_write_follows_nested_ifs_and_copies():
    f = next(op for op in parse(NESTED_WRITE).walk() if isinstance(op, func.FuncOp))
    lt = analyze_function(f, mode="joint")
    spans = {b.id: (b.start, b.end) for b in lt.problem.buffers}
    # 0 a, 1 outer if; then: 2 inner if; 3 p0, 4 p, 5 yield | 3 yield (copies %a); 6 inner
    # end, 7 yield | else: 2 q, 3 q1, 4 q2, 5 yield; 8 outer end, 9 return. The outer result's
    # storage is %r_in's and %p's and %q2's (computed into it); its first write is the inner
    # else's copy (3), found through the yielded nested if -- not p (4) nor q2 (4).
    assert spans["r"] == (3, 10)
    assert "r_in" not in spans and "p" not in spans and "q2" not in spans
    # %a is read by the inner else's yield (3) and q (2): it dies at 4, not at the outer end.
    assert spans["a"] == (0, 4)


NESTED_WRITE = """
builtin.module {
  func.func @main(%c: tensor<i1>, %x: tensor<16xf32>) -> tensor<16xf32> {
    %a = memopt.compute "a"(%x) : (tensor<16xf32>) -> tensor<16xf32>
    %r = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
      %r_in = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
        %p0 = memopt.compute "p0"(%x) : (tensor<16xf32>) -> tensor<16xf32>
        %p = memopt.compute "p"(%p0) : (tensor<16xf32>) -> tensor<16xf32>
        memopt.yield %p : tensor<16xf32>
      } else {
        memopt.yield %a : tensor<16xf32>
      }
      memopt.yield %r_in : tensor<16xf32>
    } else {
      %q = memopt.compute "q"(%a) : (tensor<16xf32>) -> tensor<64xf32>
      %q1 = memopt.compute "q1"(%q) : (tensor<64xf32>) -> tensor<64xf32>
      %q2 = memopt.compute "q2"(%q1) : (tensor<64xf32>) -> tensor<16xf32>
      memopt.yield %q2 : tensor<16xf32>
    }
    func.return %r : tensor<16xf32>
  }
}
"""

READS = """
builtin.module {
  func.func @main(%c: tensor<i1>, %x: tensor<16xf32>) -> tensor<16xf32> {
    %a = memopt.compute "a"(%x) : (tensor<16xf32>) -> tensor<16xf32>
    %b = memopt.compute "b"(%x) : (tensor<16xf32>) -> tensor<16xf32>
    %r = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
      %t = memopt.compute "t"(%a) : (tensor<16xf32>) -> tensor<16xf32>
      %l = memopt.loop 2 iter_args(%k = %t) : tensor<16xf32> {
        %z = memopt.compute "z"(%k, %b) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
        memopt.yield %z : tensor<16xf32>
      }
      %u = memopt.compute "u"(%l) : (tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %u : tensor<16xf32>
    } else {
      memopt.yield %x : tensor<16xf32>
    }
    func.return %r : tensor<16xf32>
  }
}
"""


def test_reads_in_branches_count_at_their_step_and_reads_in_loops_at_the_loop_end():
    f = next(op for op in parse(READS).walk() if isinstance(op, func.FuncOp))
    spans = {b.id: (b.start, b.end) for b in analyze_function(f, mode="joint").problem.buffers}
    # 0 a, 1 b, 2 if; then: 3 t, 4 loop, 5 z, 6 yield, 7 loop end, 8 u, 9 yield | else: 3
    # yield; 10 if end, 11 return.
    assert spans["a"] == (0, 4)  # read by t only: dies there, not at the if's end (10)
    assert spans["b"] == (1, 8)  # read inside the loop: intact until the loop ends (7)
    assert spans["r"] == (3, 12)  # the else branch copies %x into it at step 3


def test_if_spans_describe_the_joint_numbering():
    module = parse(random_program(5, max_depth=3))
    f = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    lt = analyze_function(f, mode="joint")
    spans = if_spans(lt.numbering)
    assert spans and [s.if_id for s in spans] == list(range(len(spans)))
    branch_tree(lt.problem, spans)  # every branch buffer inside its if's span
    assert number_ops(f.body.blocks[0], "merge").end == lt.numbering.end


NESTED = """
builtin.module {
  func.func @main(%x: tensor<16xf32>, %c: tensor<i1>) -> tensor<16xf32> {
    %r = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
      %a = memopt.compute "exp"(%x) : (tensor<16xf32>) -> tensor<16xf32>
      %b = memopt.compute "neg"(%a) : (tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %b : tensor<16xf32>
    } else {
      memopt.yield %x : tensor<16xf32>
    }
    func.return %r : tensor<16xf32>
  }
}
"""


def test_yielded_branch_value_is_computed_into_the_if_result():
    module = parse(NESTED)
    f = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    lt = analyze_function(f, mode="joint")
    values = {v.name_hint: v for v in lt.storage_of}
    assert lt.storage_of[values["b"]] == lt.storage_of[values["r"]]
    assert lt.storage_of[values["a"]] != lt.storage_of[values["r"]]
    assert lt.storage_of[values["x"]] != lt.storage_of[values["r"]]  # outer value: a copy
    assert [b.id for b in lt.problem.buffers] == ["x", "c", "r", "a"]


def test_modes_are_recorded_only_with_control_flow():
    plans = plan_modes(parse(NESTED), strategy="large-first")
    assert {m: fp.solution.strategy for m, fp in plans.items()} == {
        "flat": "large-first/flat", "serial": "large-first/serial",
        "merge": "large-first/merge", "joint": "large-first/joint",
    }
    plain = parse(NESTED.replace('"neg"', '"abs"').split("%r = ")[0] + "func.return %x : tensor<16xf32>\n  }\n}\n")
    assert plan_modes(plain, strategy="large-first")["joint"].solution.strategy == "large-first"
