"""The plan model (memopt.planning.function_plan) as each flavour's one reader gives it back.

What plan-memory writes, the reader reads: offsets, sizes and bounds equal what the planner
returned; the control-flow numbering is the plan's own field, never read from the strategy's
name; an upstream plan's staging views are marked, not counted in its bound. The memopt
dialect's model is the one reader's written plan with lifetimes, and its writer takes from the
encoding only what it writes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.parser import Parser

from memopt.api import context
from memopt.diagnostics import MemoptError
from memopt.dialects.plan_attr_names import NUMBERING_ATTR, OFFSETS_ATTR
from memopt.dialects.walk import walk
from memopt.dialects.written_plan import read_written_plan
from memopt.passes.insert_dma import InsertDmaPass
from memopt.passes.plan_function import plan_function_memory
from memopt.passes.plan_io import read_function_plan
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.passes.upstream_plan_io import read_upstream_plan
from memopt.planning import Problem, find_conflicts, lower_bound, make_strategy

ROOT = Path(__file__).resolve().parents[2]

BRANCHY = """
builtin.module {
  func.func @main(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
    %a = memopt.compute "relu"(%x) : (tensor<4xf32>) -> tensor<16xf32>
    %r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {
      %t1 = memopt.compute "exp"(%a) : (tensor<16xf32>) -> tensor<16xf32>
      %t2 = memopt.compute "neg"(%a) : (tensor<16xf32>) -> tensor<16xf32>
      %t3 = memopt.compute "add"(%t1, %t2) : (tensor<16xf32>, tensor<16xf32>) -> tensor<4xf32>
      memopt.yield %t3 : tensor<4xf32>
    } else {
      %e1 = memopt.compute "abs"(%a) : (tensor<16xf32>) -> tensor<32xf32>
      %e2 = memopt.compute "sum"(%e1) : (tensor<32xf32>) -> tensor<4xf32>
      memopt.yield %e2 : tensor<4xf32>
    }
    %o = memopt.compute "mul"(%r, %a) : (tensor<4xf32>, tensor<16xf32>) -> tensor<4xf32>
    func.return %o : tensor<4xf32>
  }
}
"""


def parse(text: str):
    return Parser(context(), text).parse_module()


def main(module) -> func.FuncOp:
    return next(f for f in module.body.block.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main")


@pytest.mark.parametrize("mode", ["flat", "serial", "merge", "joint"])
def test_the_reader_gives_back_what_plan_memory_planned(mode: str) -> None:
    expected = plan_function_memory(main(parse(BRANCHY)), make_strategy("large-first"), control_flow=mode)
    m = parse(BRANCHY)
    PlanMemoryPass(strategy="large-first", control_flow=mode).apply(context(), m)
    plan = read_function_plan(main(m)).plan
    (arena,) = plan.arenas
    assert plan.numbering == expected.numbering == ("serial" if mode == "serial" else "joint")
    assert arena.memory == "" and arena.size == expected.solution.height
    assert list(arena.offsets) == list(expected.solution.offsets)
    assert [b.id for b in arena.problem.buffers] == [b.id for b in expected.lifetimes.problem.buffers]
    assert plan.strategy == expected.solution.strategy and plan.lower_bound == expected.lower_bound
    assert not find_conflicts(arena.problem, arena.offsets, limit=1)


SERIAL_ONLY = """
builtin.module {
  func.func @main(%c: tensor<i1>, %x: tensor<16xf32>) -> tensor<16xf32> attributes {memopt.arg_offsets = array<i64: 64, 0>, memopt.plan = #memopt.plan<arena_size = 320, lower_bound = 192, strategy = "large-first/serial">, memopt.numbering = "serial"} {
    %v = memopt.compute "v"(%x) {memopt.offsets = array<i64: 128>} : (tensor<16xf32>) -> tensor<16xf32>
    %r = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
      %t1 = memopt.compute "t1"(%x) {memopt.offsets = array<i64: 256>} : (tensor<16xf32>) -> tensor<16xf32>
      %t2 = memopt.compute "t2"(%t1, %v) {memopt.offsets = array<i64: 192>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %t2 : tensor<16xf32>
    } else {
      %e1 = memopt.compute "e1"(%v) {memopt.offsets = array<i64: 256>} : (tensor<16xf32>) -> tensor<16xf32>
      %e2 = memopt.compute "e2"(%e1) {memopt.offsets = array<i64: 128>} : (tensor<16xf32>) -> tensor<16xf32>
      %e3 = memopt.compute "e3"(%e2) {memopt.offsets = array<i64: 192>} : (tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %e3 : tensor<16xf32>
    } attributes {memopt.offsets = array<i64: 192>}
    func.return %r : tensor<16xf32>
  }
}
"""
"""A layout sound in the serial numbering only: %e2 reuses %v's bytes, which the else branch
last reads before %e2 exists, while the overlaid then branch reads %v later."""


def test_the_numbering_is_its_own_field_not_the_strategy_name() -> None:
    """The layout read in its recorded numbering is sound; the same layout without the record is
    read jointly, whatever the strategy's name says — and then overlaps."""
    f = main(parse(SERIAL_ONLY))
    serial = read_function_plan(f).plan
    assert serial.numbering == "serial"
    assert not find_conflicts(serial.arenas[0].problem, serial.arenas[0].offsets, limit=1)
    del f.attributes[NUMBERING_ATTR]
    joint = read_function_plan(f).plan
    assert joint.numbering == "joint" and joint.strategy == serial.strategy == "large-first/serial"
    assert find_conflicts(joint.arenas[0].problem, joint.arenas[0].offsets, limit=1)


def test_a_missing_offset_is_a_located_error() -> None:
    m = parse(BRANCHY)
    PlanMemoryPass(strategy="large-first").apply(context(), m)
    f = main(m)
    relu = next(op for op in walk(f.body) if op.name == "memopt.compute")
    del relu.attributes[OFFSETS_ATTR]
    with pytest.raises(MemoptError, match="missing 'memopt.offsets' attribute on a planned op"):
        read_function_plan(f)


def test_an_upstream_plan_marks_its_staging_buffers() -> None:
    """After insert-dma, the staging views sit in the arena beside the planned buffers: the
    reader marks them, and the recorded bound is the planned buffers' alone."""
    m = parse((ROOT / "examples" / "mlp.mlir").read_text())
    PlanMemoryPass().apply(context(), m)
    InsertDmaPass(mode="always").apply(context(), m)
    f = next(op for op in m.body.block.ops if isinstance(op, func.FuncOp) and op.body.blocks)
    plan = read_upstream_plan(f)
    arena = plan.arena()
    assert arena is not None and arena.staging and arena.planned()
    assert set(arena.planned()).isdisjoint(arena.staging)
    planned = Problem.of([arena.problem.buffers[i] for i in arena.planned()])
    assert plan.lower_bound == lower_bound(planned)
    assert plan.onchip_size == arena.size > (plan.arena_size or 0)
    assert not find_conflicts(arena.problem, arena.offsets, limit=1)


SPILLED = """
builtin.module attributes {memopt.onchip_size = 9728 : i64} {
  memopt.global @w : tensor<128xf32>
  memopt.dma_buffer @alloc0 size 512 {memopt.onchip_offset = 9216 : i64}
  func.func @main(%x: tensor<256xf32>) -> tensor<256xf32> attributes {memopt.arg_offsets = array<i64: 0>, memopt.plan = #memopt.plan<arena_size = 9216, lower_bound = 9216, strategy = "sequential">, memopt.numbering = "joint", memopt.memories = {dram = 4096 : i64}, memopt.lower_bound_inplace = 8192 : i64} {
    %a = memopt.compute "conv"(%x) {memopt.offsets = array<i64: 1024>} : (tensor<256xf32>) -> tensor<1024xf32>
    %a.spill = memopt.copy %a to "dram" {memopt.offsets = array<i64: 0>} : tensor<1024xf32>
    %b = memopt.compute "relu"(%a) {memopt.offsets = array<i64: 5120>} : (tensor<1024xf32>) -> tensor<1024xf32>
    %c = memopt.compute "relu"(%b) {memopt.offsets = array<i64: 0>} : (tensor<1024xf32>) -> tensor<1024xf32>
    %d = memopt.compute "relu"(%c) {memopt.offsets = array<i64: 4096>} : (tensor<1024xf32>) -> tensor<1024xf32>
    %a.reload = memopt.copy %a.spill {memopt.offsets = array<i64: 0>} : tensor<1024xf32>
    %e = memopt.compute "add"(%d, %a.reload) {memopt.offsets = array<i64: 8192>} : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<256xf32>
    func.return %e : tensor<256xf32>
  }
}
"""
"""A plan with a spill to "dram", a recorded in-place bound and a placed staging buffer."""


def test_the_model_is_the_written_plan_with_lifetimes() -> None:
    """Every number of the model is the one reader's (the plan as written), and every arena's
    offsets are the values' written offsets, buffer by buffer."""
    f = main(parse(SPILLED))
    read = read_function_plan(f)
    plan, written = read.plan, read_written_plan(f)
    assert (plan.strategy, plan.arena_size, plan.lower_bound) == (written.strategy, written.arena_size,
                                                                  written.lower_bound) == ("sequential", 9216, 9216)
    assert plan.lower_bound_inplace == written.lower_bound_inplace() == 8192
    assert plan.numbering == written.numbering() == "joint"
    assert plan.staging == written.placed_staging() and [s.name for s in plan.staging] == ["alloc0"]
    assert plan.onchip_size == written.onchip_size() == 9728
    assert [a.memory for a in plan.arenas] == ["", *written.offchip_memories()] == ["", "dram"]
    assert [a.size for a in plan.arenas] == [9216, written.memory_size("dram", f)] == [9216, 4096]
    onchip = read.lifetimes
    for value, off in written.value_offsets():
        if value in onchip.storage_of:
            b, rel = onchip.storage_of[value]
            assert plan.arenas[0].offsets[b] + rel == off


def _imported_names(tree: ast.Module, modules: set[str]) -> set[str]:
    return {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and node.module in modules for alias in node.names}


def test_plan_io_takes_from_the_encoding_only_what_its_writer_writes() -> None:
    """The memopt dialect's plan is read in one place (``dialects.written_plan``): every name
    ``passes.plan_io`` imports from the attribute names or the decoder is used by a writer."""
    tree = ast.parse((ROOT / "passes" / "plan_io.py").read_text())
    names = _imported_names(tree, {"memopt.dialects.plan_attrs", "memopt.dialects.plan_attr_names"})
    writers = [node for node in tree.body if isinstance(node, ast.FunctionDef)
               and (node.name.startswith("write_") or node.name == "staging_unplaced")]
    used = {n.id for w in writers for n in ast.walk(w) if isinstance(n, ast.Name)}
    assert names and names <= used, names - used
