"""The linear IsolatedFromAbove check: xDSL's verdicts, without one parent climb per use."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from xdsl.ir.core import _IRNode
from xdsl.parser import Parser
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException

from memopt.diagnostics import MemoptError, verify_located
from memopt.dialects.context import make_context
from memopt.dialects.isolation import verify_isolated


def nested_ifs(depth: int) -> str:
    """``depth`` nested ifs: the program ``bench/parse_scaling.py --shape nested`` times."""
    path = Path(__file__).resolve().parents[2] / "bench" / "parse_scaling.py"
    spec = importlib.util.spec_from_file_location("bench_parse_scaling", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.nested(depth)


USE_FROM_ABOVE = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "test.op"() ({
    func.func @g() -> tensor<4xf32> {
      func.return %x : tensor<4xf32>
    }
    "test.end"() : () -> ()
  }) : () -> tensor<4xf32>
  func.return %x : tensor<4xf32>
}
"""


def parse(text: str):
    return Parser(make_context(), text).parse_module()


def test_a_valid_deep_nesting_verifies_without_climbing_parents(monkeypatch):
    """xDSL's check climbs from every use to the function (quadratic in depth)."""
    climbs = []
    original = _IRNode.is_ancestor

    def counted(self, op):
        climbs.append(op)
        return original(self, op)

    module = parse(nested_ifs(60))
    monkeypatch.setattr(_IRNode, "is_ancestor", counted)
    verify_located(module)
    assert climbs == []


def test_a_use_from_above_gets_xdsl_verdict_and_the_check_is_restored():
    module = parse(USE_FROM_ABOVE)
    with pytest.raises(MemoptError, match="using value defined out of its IsolatedFromAbove parent: ReturnOp"):
        verify_located(module)
    assert IsolatedFromAbove.verify is not verify_isolated  # xDSL's own check is back


def test_the_check_refuses_the_inner_function_and_accepts_the_module():
    """The use of %x is inside the module and outside @g: only @g's check refuses it."""
    module = parse(USE_FROM_ABOVE)
    outer = next(op for op in module.walk() if op.name == "func.func" and op.sym_name.data == "f")
    verify_isolated(IsolatedFromAbove(), module)  # the module holds every definition
    with pytest.raises(VerifyException, match="ReturnOp"):
        verify_isolated(IsolatedFromAbove(), outer.body.block.first_op.regions[0].block.first_op)
