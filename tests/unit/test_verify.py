"""dialects/verify.py: the located IR checks every tool runs on what it reads."""

from __future__ import annotations

import pytest

from memopt.dialects.context import make_context
from memopt.dialects.errors import MemoptError, locate
from memopt.dialects.located_parser import LocatedParser
from memopt.dialects.verify import verify_located


def _verify(body: str, result: str = "tensor<4xf32>") -> None:
    text = (f"func.func @f(%a : tensor<4xf32>) -> {result} {{\n{body}\n}}\n")
    verify_located(LocatedParser(make_context(), text, "t.mlir").parse_module())


def test_a_valid_function_verifies():
    _verify('  %y = "memopt.compute"(%a) {kind = "relu"} : (tensor<4xf32>) -> tensor<4xf32>\n'
            "  func.return %y : tensor<4xf32>")


def test_a_use_before_its_definition_is_located_at_the_use():
    with pytest.raises(MemoptError, match="value '%y' is used before it is defined") as e:
        _verify('  %z = "memopt.compute"(%y) {kind = "relu"} : (tensor<4xf32>) -> tensor<4xf32>\n'
                '  %y = "memopt.compute"(%a) {kind = "relu"} : (tensor<4xf32>) -> tensor<4xf32>\n'
                "  func.return %z : tensor<4xf32>")
    assert locate(e.value.op) == (2, 3)


def test_a_type_beyond_the_64_bit_byte_range_is_refused():
    big = "tensor<4611686018427387904x4xf32>"
    with pytest.raises(MemoptError, match="beyond the 64-bit byte range"):
        _verify(f'  %y = "memopt.compute"(%a) {{kind = "relu"}} : (tensor<4xf32>) -> {big}\n'
                f"  func.return %y : {big}", big)


def test_an_op_that_does_not_verify_is_named_and_located():
    with pytest.raises(MemoptError, match="^'func.return' op") as e:
        _verify("  func.return")
    assert locate(e.value.op) == (2, 3)
