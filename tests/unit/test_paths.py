"""The path enumeration both checkers prove plans on (executor/paths.py)."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.dialects.test import TestOp

from memopt.diagnostics import MemoptError
from memopt.executor.memref_exec import check_memref_function
from memopt.executor.paths import Reference, explore
from memopt.tools.run import parse_module


def _program(branches, cannot=lambda forced: False, ways=None):
    """A fake program of independent branches, each going its first way (0) unless forced; a run
    reaches all. ``ways``: how many ways each op goes (two unless said)."""
    def reference(forced):
        if cannot(forced):
            return None
        taken = {op: forced.get(op, 0) for op in branches}
        return Reference(branches, taken, tuple(taken[op] for op in branches), ways=ways or {})
    return reference


def test_every_combination_of_independent_branches_is_proven_once():
    ops = [TestOp() for _ in range(3)]
    proven = explore(_program(ops), lambda forced, ref: ref.run, max_paths=64)
    assert sorted(proven) == sorted({(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)})
    assert proven[0] == (0, 0, 0)  # the natural path first


def test_a_switch_is_forced_to_each_of_its_ways():
    """A branch op of four ways (a switch of three cases and its default) next to an ``if``:
    every way of each, in every combination, the other ways in region order."""
    switch, if_op = TestOp(), TestOp()
    proven = explore(_program([switch, if_op], ways={switch: 4}), lambda forced, ref: ref.run, max_paths=64)
    assert sorted(proven) == sorted({(s, b) for s in range(4) for b in (0, 1)})
    assert proven[:4] == [(0, 0), (1, 0), (2, 0), (3, 0)]


def test_max_paths_and_impossible_paths():
    ops = [TestOp() for _ in range(3)]
    assert len(explore(_program(ops), lambda forced, ref: ref.run, max_paths=2)) == 2
    no_second = _program(ops, cannot=lambda forced: forced.get(ops[1]) == 1)
    proven = explore(no_second, lambda forced, ref: ref.run, max_paths=64)
    assert len(proven) == 4 and all(path[1] == 0 for path in proven)


def test_a_branch_the_first_run_took_both_ways_is_forced_both_ways():
    op = TestOp()

    def reference(forced):
        if op in forced:
            return Reference([op], {op: forced[op]}, ("forced", forced[op]))
        return Reference([op], {op: 0}, ("natural",), frozenset({op}))  # in a loop: both ways

    proven = explore(reference, lambda forced, ref: ref.run, max_paths=64)
    assert proven == [("natural",), ("forced", 0), ("forced", 1)]


SWITCH = """
func.func @main(%x: memref<8xf32>, %y: memref<8xf32>) attributes {memopt.arena_size = 64 : i64} {
  %arena = memref.alloc() alignment = 16 {memopt.arena} : memref<64xi8>
  %oa = arith.constant 0 : index
  %a = memref.view %arena[%oa][] : memref<64xi8> to memref<8xf32>
  %ob = arith.constant OFFB : index
  %b = memref.view %arena[%ob][] : memref<64xi8> to memref<8xf32>
  %two = arith.constant 2.0 : f32
  %k = arith.constant 0 : index
  linalg.map { arith.mulf } ins(%x, %x : memref<8xf32>, memref<8xf32>) outs(%a : memref<8xf32>)
  linalg.fill ins(%two : f32) outs(%y : memref<8xf32>)
  scf.index_switch %k
  case 0 {
    scf.yield
  }
  case 1 {
    linalg.fill ins(%two : f32) outs(%y : memref<8xf32>)
    scf.yield
  }
  case 2 {
    linalg.fill ins(%two : f32) outs(%b : memref<8xf32>)
    scf.yield
  }
  default {
    scf.yield
  }
  linalg.map { arith.addf } ins(%a, %a : memref<8xf32>, memref<8xf32>) outs(%y : memref<8xf32>)
  memref.dealloc %arena : memref<64xi8>
  return
}
"""
"""An upstream plan whose ``%b`` (at ``OFFB``) is written only in case 2 of a switch the inputs
send to case 0, while ``%a`` (at 0) is live across the switch."""


def test_every_case_of_a_switch_is_run_against_the_plan():
    """``%b`` over ``%a`` clobbers it in case 2 only: neither the natural path (case 0) nor the
    default shows it; forcing each case in turn does. Apart, the plan holds on all four paths."""
    def main(text):
        m = parse_module(text, "<test>")
        return m, next(o for o in m.walk() if isinstance(o, func.FuncOp) and o.sym_name.data == "main")

    assert check_memref_function(*main(SWITCH.replace("OFFB", "32"))).paths == 4  # cases 0, 1, 2, default
    wrong = main(SWITCH.replace("OFFB", "0"))
    assert check_memref_function(*wrong, max_paths=2).paths == 2  # case 0 and case 1: case 2 not reached
    with pytest.raises(MemoptError, match="buffer '%a' differs between planned and unplanned execution: its bytes "
                                          "were overwritten by '%b'"):
        check_memref_function(*wrong)
