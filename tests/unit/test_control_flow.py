"""Control flow: branch tree, seed 002 Algorithm 2 (merge), joint packing, and the pass wiring.

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
from memopt.passes.plan_memory import plan_function_memory
from memopt.planning import (
    Buffer, Overwrite, PlanningError, Problem, Solution, find_conflicts, lower_bound, make_strategy,
    max_live, nested_lower_bound, validate,
)
from memopt.planning.control_flow import (
    IfSpan, branch_tree, flat_problem, merge, merge_plan, plan_joint,
)

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
        assert all(p.buffers[i].path == node for i in own)

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


def test_joint_keeps_a_lower_valid_candidate_and_names_its_mode():
    # Sequential stacks c above b (height 50); the optimum puts b at 0 and a, c above it (40).
    p = Problem.of([Buffer("a", 10, 0, 2), Buffer("b", 20, 0, 4), Buffer("c", 20, 2, 4)])
    spans = [IfSpan(0, (), 4, 6)]  # an if whose branches hold nothing
    seq = make_strategy("sequential")
    assert plan_joint(p, spans, seq).height == 50
    optimum = Solution.of(p, (20, 0, 20), "large-first")
    worse = Solution.of(p, (0, 20, 40), "short-first")
    invalid = Solution.of(p, (0, 0, 0), "bogus")  # a and b overlap while both live
    sol = plan_joint(p, spans, seq, [("bogus", invalid), ("flat", worse), ("serial", optimum)])
    validate(p, sol)
    assert (sol.height, sol.strategy, sol.offsets) == (40, "large-first/serial", (20, 0, 20))
    # A tie keeps the direct joint plan.
    same = Solution.of(p, seq.plan(p).offsets, "short-first")
    assert plan_joint(p, spans, seq, [("serial", same)]).strategy == "sequential/joint"


def test_merge_with_best_runs_every_member_and_names_the_winner():
    p, spans = hole_problem()
    sol = merge(p, spans, make_strategy("best"))
    validate(p, sol)
    per_member = {
        s: merge(p, spans, make_strategy(s)).height for s in GREEDY
    }
    assert sol.height == min(per_member.values())
    assert sol.strategy.endswith("/merge")


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
    lt = joint.lifetimes
    for m, fp in plans.items():
        # plan_function_memory validated each on its own numbering; every layout must also be
        # valid under exact control-flow semantics (what verify-plan checks).
        assert not find_conflicts(lt.problem, fp.solution.offsets, limit=1), m
        assert fp.lower_bound == joint.lower_bound == lower_bound(lt.problem)
        assert fp.solution.height >= fp.lower_bound
    assert joint.solution.height <= plans["merge"].solution.height
    assert joint.solution.height <= plans["serial"].solution.height


def test_serial_layout_is_valid_for_the_joint_problem():
    """The claim ``plan_joint``'s serial candidate rests on: serial numbering only adds conflicts."""
    for seed in range(8):
        module = parse(random_program(seed, max_depth=3))
        f = next(op for op in module.walk() if isinstance(op, func.FuncOp))
        serial = analyze_function(f, mode="serial")
        joint = analyze_function(f, mode="joint")
        assert [b.id for b in serial.problem.buffers] == [b.id for b in joint.problem.buffers]
        for s in GREEDY:
            sol = make_strategy(s).plan(serial.problem)
            assert not find_conflicts(joint.problem, sol.offsets, limit=1)


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
