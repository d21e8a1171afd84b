"""The rematerialize pass's core (passes/remat_function.py), driven without the pass."""

from pathlib import Path

from xdsl.dialects import func
from xdsl.parser import Parser

from memopt.api import context
from memopt.passes.remat_function import rematerialize_function

CHAIN4 = Path(__file__).parents[1] / "filecheck" / "remat" / "Inputs" / "chain4.mlir"


def _main() -> func.FuncOp:
    module = Parser(context(), CHAIN4.read_text()).parse_module()
    return next(o for o in module.body.block.ops if isinstance(o, func.FuncOp) and o.sym_name.data == "main")


def test_a_function_that_fits_is_left_as_it_is(capsys):
    f = _main()
    text = str(f)
    assert rematerialize_function(f, 8192) is None
    assert str(f) == text
    assert capsys.readouterr().err == ""


def test_the_rewrite_is_returned_and_nothing_is_written(capsys):
    f = _main()
    result = rematerialize_function(f, 4096)
    assert result is not None and result.cloned == 3
    assert "remat1" in str(f)
    assert capsys.readouterr().err == ""
