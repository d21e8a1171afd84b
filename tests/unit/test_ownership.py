"""Byte ownership in proofs by execution: the shared record, and the memopt checker using it.

A plan that lets a live tensor's bytes be overwritten by another tensor is wrong whatever the
values: the checker must reject it on every input seed, also when the clobbering bytes equal the
clobbered ones (two identical computations), and must accept every construct whose sharing the IR
promises (views, in-place results, ``if`` results and loop-carried values in their yields'
slots, DMA staging buffers, spills).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, i64

from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import GetGlobalOp, ViewOp
from memopt.executor import check_module
from memopt.executor.graphgen import GenConfig, generate
from memopt.executor.ownership import Ownership, blank_shadow
from memopt.fuzz import _CTX, parse
from memopt.passes.plan_memory import PlanMemoryPass

SEEDS = range(6)


# ------------------------------------------------------------------ the shared record

def test_a_read_finds_its_own_stamps():
    o = Ownership("tensor")
    a, b = o.new_owner("%a", None), o.new_owner("%b", None)
    shadow = blank_shadow(8)
    o.stamp(shadow[:8], a, None)
    o.check(shadow[:8], a, "%a", None)
    o.stamp(shadow[4:], b, None)
    o.check(shadow[4:], b, "%b", None)
    with pytest.raises(MemoptError, match="tensor '%a' differs between planned and unplanned execution: "
                                          "its bytes were overwritten by '%b' before this read"):
        o.check(shadow[:8], a, "%a", None)


def test_bytes_nothing_wrote_are_undefined():
    o = Ownership("buffer")
    a = o.new_owner("%a", None)
    shadow = blank_shadow(8).reshape(2, 4)
    assert o.fault(shadow, a, "%a") == "buffer '%a' is read before anything is written to it (its bytes are undefined)"
    shadow[0] = a
    assert o.fault(shadow, a, "%a") == "element [1] of buffer '%a' is read before it is written (its bytes are undefined)"


# ------------------------------------------------------------------ equal values, clobbered

TWINS = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arg_offsets = array<i64: 0>, memopt.plan = #memopt.plan<arena_size = 48, lower_bound = 48, strategy = "hand">} {
  %b = memopt.compute "Relu"(%a) {memopt.offsets = array<i64: 16>} : (tensor<4xf32>) -> tensor<4xf32>
  %c = memopt.compute "Relu"(%a) {memopt.offsets = array<i64: OFFC>} : (tensor<4xf32>) -> tensor<4xf32>
  %d = memopt.compute "Add"(%b, %c) {memopt.offsets = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}
"""


@pytest.mark.parametrize("seed", SEEDS)
def test_equal_values_over_a_live_tensor_are_caught_on_every_seed(seed):
    assert check_module(parse(TWINS.replace("OFFC", "32")), seed=seed)
    with pytest.raises(MemoptError) as info:
        check_module(parse(TWINS.replace("OFFC", "16")), seed=seed)
    assert info.value.message == ("tensor '%b' differs between planned and unplanned execution: its bytes were "
                                  "overwritten by '%c' (written at line 4) before its use by 'memopt.compute' at 5:3")


# ------------------------------------------------------------------ sharing the IR promises

SHARING = {
    "in-place": """
func.func @f(%a: tensor<16xf32>) -> tensor<16xf32> attributes {memopt.arg_offsets = array<i64: 0>, memopt.plan = #memopt.plan<arena_size = 64, lower_bound = 64, strategy = "hand">} {
  %b = memopt.compute "exp"(%a) {inplace = array<i64: 0>, memopt.offsets = array<i64: 0>} : (tensor<16xf32>) -> tensor<16xf32>
  %c = memopt.compute "neg"(%b) {inplace = array<i64: 0>, memopt.offsets = array<i64: 0>} : (tensor<16xf32>) -> tensor<16xf32>
  func.return %c : tensor<16xf32>
}
""",
    "view": """
func.func @f(%a: tensor<16xf32>) -> tensor<4xf32> attributes {memopt.arg_offsets = array<i64: 0>, memopt.plan = #memopt.plan<arena_size = 128, lower_bound = 128, strategy = "hand">} {
  %b = memopt.compute "exp"(%a) {memopt.offsets = array<i64: 64>} : (tensor<16xf32>) -> tensor<16xf32>
  %v = memopt.view %b[offset 16] : tensor<16xf32> -> tensor<4xf32>
  %c = memopt.compute "neg"(%v) {memopt.offsets = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}
""",
    "if": """
func.func @f(%a: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> attributes {memopt.arg_offsets = array<i64: 0, 48>, memopt.plan = #memopt.plan<arena_size = 49, lower_bound = 49, strategy = "hand">} {
  %r = memopt.if %p : tensor<i1> -> (tensor<4xf32>) {
    %x = memopt.compute "exp"(%a) {memopt.offsets = array<i64: 16>} : (tensor<4xf32>) -> tensor<4xf32>
    memopt.yield %x : tensor<4xf32>
  } else {
    %y = memopt.compute "neg"(%a) {memopt.offsets = array<i64: 16>} : (tensor<4xf32>) -> tensor<4xf32>
    memopt.yield %y : tensor<4xf32>
  } attributes {memopt.offsets = array<i64: 16>}
  %s = memopt.compute "add"(%r, %a) {memopt.offsets = array<i64: 32>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
""",
    "if yielding an outer value": """
func.func @f(%a: tensor<4xf32>, %p: tensor<i1>) -> tensor<4xf32> attributes {memopt.arg_offsets = array<i64: 0, 48>, memopt.plan = #memopt.plan<arena_size = 49, lower_bound = 49, strategy = "hand">} {
  %r = memopt.if %p : tensor<i1> -> (tensor<4xf32>) {
    memopt.yield %a : tensor<4xf32>
  } else {
    %y = memopt.compute "neg"(%a) {memopt.offsets = array<i64: 16>} : (tensor<4xf32>) -> tensor<4xf32>
    memopt.yield %y : tensor<4xf32>
  } attributes {memopt.offsets = array<i64: 16>}
  %s = memopt.compute "add"(%r, %a) {memopt.offsets = array<i64: 32>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
""",
    "loop-carried": """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arg_offsets = array<i64: 0>, memopt.plan = #memopt.plan<arena_size = 48, lower_bound = 48, strategy = "hand">} {
  %l = memopt.loop 3 iter_args(%x = %a) : tensor<4xf32> {
    %y = memopt.compute "exp"(%x) {inplace = array<i64: 0>, memopt.offsets = array<i64: 16>} : (tensor<4xf32>) -> tensor<4xf32>
    %z = memopt.compute "neg"(%y) {inplace = array<i64: 0>, memopt.offsets = array<i64: 16>} : (tensor<4xf32>) -> tensor<4xf32>
    memopt.yield %z : tensor<4xf32>
  } attributes {memopt.offsets = array<i64: 16>}
  %s = memopt.compute "add"(%l, %a) {memopt.offsets = array<i64: 32>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}
""",
    "dma": """
builtin.module {
  memopt.global @w1 : tensor<4xf32>
  memopt.global @w2 : tensor<4xf32>
  memopt.dma_buffer @alloc0 size 16 {memopt.onchip_offset = 32 : i64}
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arg_offsets = array<i64: 0>, memopt.plan = #memopt.plan<arena_size = 48, lower_bound = 48, strategy = "hand">} {
    %t1 = memopt.dma_start @w1 into @alloc0[offset 0] : !memopt.token
    %a = memopt.dma_wait %t1 : tensor<4xf32>
    %y = memopt.compute "add"(%a, %x) {memopt.offsets = array<i64: 16>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %t2 = memopt.dma_start @w2 into @alloc0[offset 0] : !memopt.token
    %b = memopt.dma_wait %t2 : tensor<4xf32>
    %z = memopt.compute "add"(%y, %b) {memopt.offsets = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    func.return %z : tensor<4xf32>
  }
}
""",
}


@pytest.mark.parametrize("case", sorted(SHARING))
def test_sharing_the_ir_promises_passes(case):
    for seed in SEEDS:
        assert check_module(parse(SHARING[case]), seed=seed)


def test_an_if_result_over_an_outer_value_still_read_is_caught():
    """The else branch writes its own value over ``%a``, which is read after the ``if``."""
    text = SHARING["if yielding an outer value"].replace("attributes {memopt.offsets = array<i64: 16>}",
                                                         "attributes {memopt.offsets = array<i64: 0>}")
    with pytest.raises(MemoptError, match="tensor '%a' differs .*overwritten by '%r'"):
        for seed in SEEDS:
            check_module(parse(text), seed=seed)


def test_a_second_landing_over_a_weight_still_read_is_caught():
    text = SHARING["dma"].replace("%z = memopt.compute \"add\"(%y, %b)", "%z = memopt.compute \"add\"(%a, %b)")
    with pytest.raises(MemoptError, match="tensor '%a' differs .*overwritten by '%b' \\(written at line 10\\)"):
        check_module(parse(text), dma_landings=("start",))


# ------------------------------------------------------------------ generated programs

def _planned(n: int):
    module = parse(generate(random.Random(n), GenConfig(max_depth=0)))
    PlanMemoryPass(strategy="sequential").apply(_CTX, module)
    return module


def _clobbers(module) -> list[tuple]:
    """(op, result index, offset) moves that put a result over another still read directly
    after it is written (straight-line code: op order is execution order)."""
    f = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    ops = list(f.body.blocks[0].ops)
    at = {op: k for k, op in enumerate(ops)}
    written = [(op, r) for op in ops if not isinstance(op, (ViewOp, GetGlobalOp, func.ReturnOp))
               and "memopt.offsets" in op.attributes for r in op.results]

    def offset(op, r) -> int:
        return op.attributes["memopt.offsets"].get_values()[r.index]

    def read_after(r, k: int) -> bool:
        return any(at[use.operation] > k for use in r.uses if use.operation in at)

    moves = []
    for op, r in written:
        for other_op, other in written:
            if other is not r and at[other_op] < at[op] and read_after(other, at[op]):
                moves.append((op, r.index, offset(other_op, other)))
    return moves


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.data())
def test_generated_plans_pass_and_one_offset_over_a_live_tensor_is_caught(n, data):
    module = _planned(n)
    for seed in range(2):
        check_module(module, seed=seed)
    moves = _clobbers(module)
    if not moves:
        return
    op, k, off = data.draw(st.sampled_from(moves))
    values = list(op.attributes["memopt.offsets"].get_values())
    values[k] = off
    op.attributes["memopt.offsets"] = DenseArrayBase.from_list(i64, values)
    for seed in range(3):
        with pytest.raises(MemoptError):
            check_module(module, seed=seed)
