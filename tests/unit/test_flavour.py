"""executor/flavour.py: one way into both executors — the IR flavour picks the executor."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memopt.diagnostics import MemoptError
from memopt.executor import flavour
from memopt.executor.proof import digest
from memopt.executor.resources import Limits
from memopt.fuzz import _CTX, parse
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.tools.run import parse_module

CHAIN = (Path(__file__).resolve().parents[2] / "examples" / "chain.mlir").read_text()

PLANNED = """
func.func @main(%x: memref<8xf32>, %y: memref<8xf32>) attributes {memopt.arena_size = 64 : i64} {
  %arena = memref.alloc() alignment = 16 {memopt.arena} : memref<64xi8>
  %oa = arith.constant 0 : index
  %a = memref.view %arena[%oa][] : memref<64xi8> to memref<8xf32>
  %ob = arith.constant OB : index
  %b = memref.view %arena[%ob][] : memref<64xi8> to memref<8xf32>
  %two = arith.constant 2.0 : f32
  linalg.map { arith.mulf } ins(%x, %x : memref<8xf32>, memref<8xf32>) outs(%a : memref<8xf32>)
  linalg.fill ins(%two : f32) outs(%b : memref<8xf32>)
  linalg.map { arith.addf } ins(%a, %b : memref<8xf32>, memref<8xf32>) outs(%y : memref<8xf32>)
  memref.dealloc %arena : memref<64xi8>
  return
}
"""


def _upstream(ob: int = 32):
    return parse_module(PLANNED.replace("OB", str(ob)), "t.mlir")


def _memopt():
    m = parse(CHAIN)
    PlanMemoryPass().apply(_CTX, m)
    return m


def test_a_memopt_dialect_run_shows_its_results_typed_with_the_digest_of_their_bytes():
    shown = flavour.run(_memopt())
    assert [v.head for v in shown] == ["@main result #0"]
    assert shown[0].kind.startswith("tensor<") and len(shown[0].digest) == 16
    results = flavour.unplanned_results(_memopt(), None, 0, Limits())
    assert results.flavour == flavour.MEMOPT
    assert digest(np.frombuffer(results.values[0][1], np.uint8)) == shown[0].digest


def test_an_upstream_run_shows_its_results_then_its_arguments_after_the_run():
    shown = flavour.run(_upstream())
    assert [v.head for v in shown] == ["@main argument #0", "@main argument #1"]
    assert shown[1].kind == "memref<8xf32>" and shown[1].values.size == 8
    assert flavour.unplanned_results(_upstream(), None, 0, Limits()).flavour == flavour.UPSTREAM


def test_check_proves_each_flavour_and_names_a_clobbered_buffer():
    memopt_lines = flavour.check(_memopt(), known=(known := {}))
    assert memopt_lines[0].startswith("@main: planned execution matches unplanned (") and "main" in known
    assert "buffer writes" in flavour.check(_upstream())[0]
    with pytest.raises(MemoptError, match="differs between planned and unplanned execution"):
        flavour.check(_upstream(ob=0))  # %b placed over %a while %a is still to be read
