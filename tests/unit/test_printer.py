"""The memoised type parser and printer give exactly xDSL's results."""

import io

import pytest

from memopt.cli import ToolError, parse_source
from memopt.printer import MemoPrinter
from xdsl.printer import Printer

PROGRAM = """
builtin.module {
  func.func @f(%a: memref<4x8xf32>, %b: memref<16xi8, 1>, %c: tensor<?x3xbf16>) -> memref<4x8xf32> {
    %v = memref.alloc() : memref<4x8xf32>
    %w = memref.alloc() {alignment = 64 : i64} : memref<2x5xi32>
    %s = memref.subview %a[0, 0] [2, 4] [1, 1] : memref<4x8xf32> to memref<2x4xf32, strided<[8, 1]>>
    %t = "test.cast"(%c) : (tensor<?x3xbf16>) -> vector<4xf32>
    func.return %v : memref<4x8xf32>
  }
}
"""


def _print(printer_type, module) -> str:
    out = io.StringIO()
    printer_type(stream=out).print_op(module)
    return out.getvalue()


def test_memoised_printing_is_byte_identical():
    _, module = parse_source(PROGRAM, "t.mlir", allow_unregistered=True)
    plain = _print(Printer, module)
    memo = _print(MemoPrinter, module)
    assert memo == plain
    assert "memref<2x4xf32, strided<[8, 1]>>" in memo and "memref<16xi8, 1 : i64>" in memo


def test_memoised_parsing_gives_the_same_types():
    _, module = parse_source(PROGRAM, "t.mlir", allow_unregistered=True)
    text = _print(Printer, module)
    _, again = parse_source(text, "t2.mlir", allow_unregistered=True)
    assert _print(Printer, again) == text


def test_a_bad_type_is_still_located_after_good_ones_were_memoised():
    bad = PROGRAM.replace("%w = memref.alloc() {alignment = 64 : i64} : memref<2x5xi32>",
                          "%w = memref.alloc() : memref<4x8xf33>")
    with pytest.raises(ToolError) as e:
        parse_source(bad, "t.mlir", allow_unregistered=True)
    assert e.value.line == 5
