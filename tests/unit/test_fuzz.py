"""Property-based fuzzing (fast profile): random programs, every strategy x control-flow mode x
DMA x alignment; plan-memory validates, verify-plan re-checks, the executor proves the plan.

The long profile is ``bench/fuzz.py --cases N --seed S``. Strategies, control-flow modes and the
``insert-dma`` pass are discovered at run time (see :mod:`memopt.fuzz`).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memopt.fuzz import FuzzConfig, FuzzFailure, configurations, parse, run_case
from memopt.executor.graphgen import GenConfig, generate
from memopt.passes.lifetime import CONTROL_FLOW_MODES
from memopt.planning import strategy_names

CONFIGS = configurations()


def run(text: str, config: FuzzConfig, module=None, seeds=(0,)) -> None:
    try:
        run_case(text, config, module, seeds)
    except FuzzFailure as e:
        pytest.fail(e.report(), pytrace=False)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(rng=st.randoms(use_true_random=False), dma=st.booleans(),
       configs=st.lists(st.sampled_from(CONFIGS), min_size=1, max_size=2, unique=True))
def test_random_programs_plan_validate_and_execute_identically(rng, dma, configs):
    text = generate(rng, GenConfig(dma=dma))
    module = parse(text)
    for config in configs:
        run(text, config, module)


def test_every_configuration_is_fuzzed():
    """Each configuration on a fixed program, so no combination is left to chance; the programs
    (with and without DMA) take turns, so each one meets every strategy and control-flow mode."""
    programs = [generate(random.Random(seed), GenConfig(dma=seed % 2 == 1, max_depth=3)) for seed in range(3)]
    modules = [parse(t) for t in programs]
    for i, config in enumerate(CONFIGS):
        k = i % len(programs)
        run(programs[k], config, modules[k])


def test_configurations_cover_what_is_registered():
    assert {c.strategy for c in CONFIGS} == set(strategy_names())
    assert {c.control_flow for c in CONFIGS} == set(CONTROL_FLOW_MODES)
    from memopt.fuzz import has_pass

    from memopt.fuzz import DMA_SCHEDULES

    assert {c.dma for c in CONFIGS} == ({"", *DMA_SCHEDULES} if has_pass("insert-dma") else {""})


def test_generated_programs_exercise_the_interesting_constructs():
    """A generator that stopped producing loops, views or DMA would make the fuzzing vacuous."""
    texts = [generate(random.Random(seed), GenConfig(dma=True)) for seed in range(60)]
    joined = "\n".join(texts)
    for construct in ("memopt.loop 0", "memopt.loop 3", "memopt.if", "} else {", "memopt.view",
                      "[offset", "inplace = array", "memopt.get_global", "memopt.dma_start",
                      "memopt.dma_wait", ":2 = memopt.compute", ":2 = memopt.loop", "-> tensor<i1>"):
        assert construct in joined, construct
    nested = sum(1 for t in texts if any(line.startswith("        memopt.") or line.startswith("        %") for line in t.splitlines()))
    assert nested >= 5  # regions inside regions


def test_the_harness_catches_a_lifetime_bug(monkeypatch):
    """Mutation check: with loop-carried slots cut to one step, fuzzing must fail somewhere."""
    import dataclasses

    import memopt.passes.lifetime as lifetime
    import memopt.passes.plan_function as plan_function
    import memopt.passes.plan_io as plan_io
    import memopt.passes.plan_memory as plan_memory
    import memopt.passes.verify_plan as verify_plan
    from memopt.dialects.memopt import LoopOp
    from memopt.planning import Problem

    real = lifetime.analyze_function

    def buggy(f, **kw):
        lt = real(f, **kw)
        bufs = [
            dataclasses.replace(b, end=b.start + 1)
            if getattr(v, "op", None) is not None and isinstance(v.op, LoopOp) else b
            for b, v in zip(lt.problem.buffers, lt.owner)
        ]
        lt.problem = Problem.of(bufs, lt.problem.overwrites)
        return lt

    # every module that calls the analysis: the planner and verify-plan (through the plan
    # reader) share the bug, as they share the analysis
    for mod in (lifetime, plan_function, plan_io, plan_memory, verify_plan):
        monkeypatch.setattr(mod, "analyze_function", buggy)
    failures = []
    for seed in range(40):
        text = generate(random.Random(seed))
        try:
            run_case(text, FuzzConfig("large-first", "serial", False, 1))
        except FuzzFailure as e:
            failures.append(e)
    assert failures, "a planner bug went unnoticed"
    assert all(e.stage == "check" for e in failures)  # only the executor sees it: verify-plan shares the bug
    assert "differs between planned and unplanned execution" in failures[0].message


# Hand-written programs for the corners the lifetime analysis must get right (a value yielded
# twice, nested ifs computed into the outer result, a yielded view, an if inside a loop feeding an
# in-place op, a loop body value read after a new one is computed, in-place through a view).
_HEAD = (
    "builtin.module {\n  memopt.global @w : tensor<4xf32>\n  func.func @main(%x: tensor<4xf32>, "
    "%y: tensor<4xf32>, %c: tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>) {\n"
)
ADVERSARIAL = {
"yield-twice": """
    %r:2 = memopt.if %c : tensor<i1> -> (tensor<4xf32>, tensor<4xf32>) {
      %t = memopt.compute "mix"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      memopt.yield %t, %t : tensor<4xf32>, tensor<4xf32>
    } else {
      %e = memopt.compute "mix"(%y) : (tensor<4xf32>) -> tensor<4xf32>
      memopt.yield %x, %e : tensor<4xf32>, tensor<4xf32>
    }
    %z = memopt.compute "mix"(%r#0, %r#1, %x) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    func.return %z, %r#1 : tensor<4xf32>, tensor<4xf32>
""",
"nested-if": """
    %r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {
      %t = memopt.compute "mix"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %n = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {
        %u = memopt.compute "mix"(%t, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
        memopt.yield %u : tensor<4xf32>
      } else {
        memopt.yield %t : tensor<4xf32>
      }
      %q = memopt.compute "mix"(%n, %t) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      memopt.yield %n : tensor<4xf32>
    } else {
      memopt.yield %y : tensor<4xf32>
    }
    func.return %r, %x : tensor<4xf32>, tensor<4xf32>
""",
"yield-view": """
    %r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {
      %t = memopt.compute "mix"(%x) : (tensor<4xf32>) -> tensor<8xf32>
      %v = memopt.view %t[offset 16] : tensor<8xf32> -> tensor<4xf32>
      memopt.yield %v : tensor<4xf32>
    } else {
      memopt.yield %y : tensor<4xf32>
    }
    func.return %r, %x : tensor<4xf32>, tensor<4xf32>
""",
"loop-if": """
    %l:2 = memopt.loop 3 iter_args(%a = %x, %b = %y) : tensor<4xf32>, tensor<4xf32> {
      %r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {
        %t = memopt.compute "mix"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
        memopt.yield %t : tensor<4xf32>
      } else {
        memopt.yield %b : tensor<4xf32>
      }
      %s = memopt.compute "add"(%r, %a) {inplace = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      memopt.yield %s, %a : tensor<4xf32>, tensor<4xf32>
    }
    func.return %l#0, %l#1 : tensor<4xf32>, tensor<4xf32>
""",
"loop-reuse-slot": """
    %l = memopt.loop 2 iter_args(%a = %x) : tensor<4xf32> {
      %n = memopt.compute "mix"(%a) : (tensor<4xf32>) -> tensor<4xf32>
      %m = memopt.compute "mix"(%a, %n) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %k = memopt.compute "add"(%m, %n) {inplace = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      memopt.yield %n : tensor<4xf32>
    }
    func.return %l, %x : tensor<4xf32>, tensor<4xf32>
""",
"inplace-view": """
    %t = memopt.compute "mix"(%x) : (tensor<4xf32>) -> tensor<8xf32>
    %v = memopt.view %t[offset 16] : tensor<8xf32> -> tensor<4xf32>
    %u = memopt.compute "relu"(%v) {inplace = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
    %s = memopt.compute "add"(%u, %y) {inplace = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    func.return %s, %u : tensor<4xf32>, tensor<4xf32>
""",
"if-inplace-in-branch": """
    %r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {
      %t = memopt.compute "mix"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %u = memopt.compute "relu"(%t) {inplace = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
      memopt.yield %u : tensor<4xf32>
    } else {
      %t2 = memopt.compute "mix"(%y) : (tensor<4xf32>) -> tensor<4xf32>
      memopt.yield %t2 : tensor<4xf32>
    }
    %z = memopt.compute "relu"(%r) {inplace = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
    func.return %z, %y : tensor<4xf32>, tensor<4xf32>
""",
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_programs_under_every_configuration(name):
    text = _HEAD + ADVERSARIAL[name] + "  }\n}\n"
    module = parse(text)
    for config in CONFIGS:
        if config.alignment == 1 and not config.dma:
            run(text, config, module, seeds=(0, 1, 2, 3))
