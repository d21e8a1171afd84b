"""The memoised type parser and printer give exactly xDSL's results."""

import io

import pytest

from memopt.cli import ToolError
from memopt.tools.source import parse_source
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


COMPUTE = """
builtin.module {
  func.func @g(%a: tensor<4xf32>, %b: tensor<8xi8>) -> tensor<4xf32> {
    %x = memopt.compute "add"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %y = memopt.compute "add"(%x, %a) : (tensor<4xf32>,tensor<4xf32>)->tensor<4xf32>
    %p, %q = memopt.compute "split"(%b) : (tensor<8xi8>) -> (tensor<4xi8>, tensor<4xi8>)
    %r, %s = memopt.compute "split"(%b) : (tensor<8xi8>) -> (tensor<4xi8>, tensor<4xi8>)
    %z = memopt.compute "mix"(%y, %p, %s) {cost = 3 : i64} : (tensor<4xf32>, tensor<4xi8>, tensor<4xi8>) -> tensor<4xf32>
    func.return %z : tensor<4xf32>
  }
}
"""


def test_memoised_function_types_parse_and_print_as_xdsl_does():
    _, module = parse_source(COMPUTE, "c.mlir")
    plain = _print(Printer, module)
    assert _print(MemoPrinter, module) == plain
    assert plain.count(": (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>") == 2
    assert plain.count(": (tensor<8xi8>) -> (tensor<4xi8>, tensor<4xi8>)") == 2
    _, again = parse_source(plain, "c2.mlir")
    assert _print(Printer, again) == plain


def test_a_bad_function_type_is_still_located_after_good_ones_were_memoised():
    bad = COMPUTE.replace('%r, %s = memopt.compute "split"(%b) : (tensor<8xi8>) -> (tensor<4xi8>, tensor<4xi8>)',
                          '%r, %s = memopt.compute "split"(%b) : (tensor<8xi8>) -> (tensor<4xi9>, tensor<4xi8>)')
    assert bad != COMPUTE
    _, module = parse_source(bad, "c.mlir")  # i9 is a valid integer type: a different type, not a memo hit
    assert _print(MemoPrinter, module).count("-> (tensor<4xi9>, tensor<4xi8>)") == 1
    wrong = COMPUTE.replace("(tensor<4xf32>,tensor<4xf32>)->tensor<4xf32>", "(tensor<4xf32>,tensor<4xf32>)->tensor<4xq32>")
    with pytest.raises(ToolError) as e:
        parse_source(wrong, "c.mlir")
    assert e.value.line == 5
