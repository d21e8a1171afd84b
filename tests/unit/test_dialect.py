"""Unit tests for the memopt dialect, diagnostics and the memopt-opt driver."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pytest
from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IndexType,
    ModuleOp,
    StringAttr,
    TensorType,
    f16,
    f32,
    f64,
    i1,
    i8,
    i32,
)
from xdsl.ir import Block, Region
from xdsl.passes import ModulePass
from xdsl.printer import Printer

from memopt.diagnostics import (
    LocatedParser,
    MemoptError,
    locate,
    verify_located,
)
from memopt.dialects.plan_attr_names import ARG_OFFSETS_ATTR, OFFSETS_ATTR, PLAN_ATTR
from memopt.dialects.memopt import (
    ComputeOp,
    DmaBufferOp,
    DmaStartOp,
    DmaWaitOp,
    GetGlobalOp,
    GlobalOp,
    IfOp,
    LoopOp,
    Memopt,
    PlanAttr,
    TokenType,
    ViewOp,
    YieldOp,
    byte_size,
)


def _ctx() -> Context:
    ctx = Context()
    ctx.load_dialect(builtin.Builtin)
    ctx.load_dialect(func.Func)
    ctx.load_dialect(Memopt)
    return ctx


def _print(op, generic: bool = False) -> str:
    s = io.StringIO()
    Printer(stream=s, print_generic_format=generic).print_op(op)
    return s.getvalue()


def _parse(text: str) -> ModuleOp:
    return LocatedParser(_ctx(), text, "t.mlir").parse_module()


# ----------------------------------------------------------------------------- byte_size


@pytest.mark.parametrize(
    "t, expected",
    [
        (TensorType(f32, [4, 4]), 64),
        (TensorType(f16, [3]), 6),
        (TensorType(f64, [2, 2]), 32),
        (TensorType(i8, [5]), 5),
        (TensorType(i32, [1, 3, 8, 8]), 768),
        (TensorType(i1, [10]), 10),
        (TensorType(IndexType(), [3]), 24),
        (TensorType(f32, []), 4),
        (TensorType(f32, [0, 7]), 0),
    ],
)
def test_byte_size(t, expected):
    assert byte_size(t) == expected


def test_byte_size_dynamic_rejected():
    with pytest.raises(ValueError, match="dynamic shape"):
        byte_size(TensorType(f32, [-1, 4]))


# ----------------------------------------------------------------------------- attrs


def test_plan_attr_get_and_roundtrip():
    p = PlanAttr.get(1024, 1000, "large-first")
    assert p.arena_size.data == 1024
    assert p.lower_bound.data == 1000
    assert p.strategy.data == "large-first"
    text = str(p)
    assert text == '#memopt.plan<arena_size = 1024, lower_bound = 1000, strategy = "large-first">'
    from xdsl.parser import Parser

    assert Parser(_ctx(), text).parse_attribute() == p


def test_constants():
    assert PLAN_ATTR == "memopt.plan"
    assert OFFSETS_ATTR == "memopt.offsets"
    assert ARG_OFFSETS_ATTR == "memopt.arg_offsets"
    assert str(TokenType()) == "!memopt.token"


# ----------------------------------------------------------------------------- python API


def _build_module() -> ModuleOp:
    t4 = TensorType(f32, [4])
    t2 = TensorType(f32, [2])
    cond_t = TensorType(i1, [])
    g = GlobalOp("w", t4)
    c = GlobalOp(
        "c", t2, DenseIntOrFPElementsAttr.from_list(t2, [1.0, 2.0])
    )
    buf = DmaBufferOp("buf", 64)

    block = Block(arg_types=[t4, cond_t])
    x, cond = block.args
    get = GetGlobalOp("w", t4)
    start = DmaStartOp("w", "buf", 16)
    wait = DmaWaitOp(start, t4)
    comp = ComputeOp("Add", [x, wait.result], [t4], cost=10, inplace=[0])
    view = ViewOp(comp.outputs[0], t2, offset=8)
    then_b = Block([YieldOp(view)])
    else_b = Block([YieldOp(view)])
    if_op = IfOp(cond, [t2], Region(then_b), Region(else_b))
    body = Block(arg_types=[t4])
    relu = ComputeOp("Relu", [body.args[0]], [t4])
    body.add_ops([relu, YieldOp(relu)])
    loop = LoopOp(3, [get.result], body)
    ret = func.ReturnOp(loop.outputs[0])
    block.add_ops([get, start, wait, comp, view, if_op, loop, ret])
    f = func.FuncOp("main", ([t4, cond_t], [t4]), Region(block))
    f.attributes[PLAN_ATTR] = PlanAttr.get(128, 100, "best")
    return ModuleOp([g, c, buf, f])


def test_python_api_roundtrip():
    m = _build_module()
    verify_located(m)
    text = _print(m)
    assert "memopt.dma_start @w into @buf[offset 16] : !memopt.token" in text
    assert 'memopt.compute "Add"' in text and "inplace = array<i64: 0>" in text
    assert "memopt.view" in text and "[offset 8]" in text
    m2 = _parse(text)
    verify_located(m2)
    assert _print(m2) == text
    generic = _print(m2, generic=True)
    m3 = _parse(generic)
    verify_located(m3)
    assert _print(m3) == text


def test_compute_accessors():
    t4 = TensorType(f32, [4])
    block = Block(arg_types=[t4, t4])
    op = ComputeOp("Add", list(block.args), [t4, t4], inplace=[1, -1])
    assert op.kind == StringAttr("Add")
    assert op.inplace_indices() == (1, -1)
    op2 = ComputeOp("Add", list(block.args), [t4])
    assert op2.inplace_indices() == (-1,)


# ----------------------------------------------------------------------------- diagnostics


def test_locations_recorded():
    m = _parse(
        "func.func @f(%a: tensor<4xf32>) {\n"
        '  %b = memopt.compute "Relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n'
        "  func.return\n"
        "}\n"
    )
    ops = list(m.walk())
    comp = next(o for o in ops if isinstance(o, ComputeOp))
    assert locate(comp) == (2, 3)
    # ops created later fall back to the nearest located ancestor
    new = ComputeOp("X", [], [])
    comp.parent_block().insert_op_after(new, comp)
    assert locate(new) == (1, 1)


def test_verify_located_reports_op():
    m = _parse(
        "func.func @f(%a: tensor<4x4xf32>) {\n"
        "  %v = memopt.view %a[offset 60] : tensor<4x4xf32> -> tensor<2xf32>\n"
        "  func.return\n"
        "}\n"
    )
    with pytest.raises(MemoptError) as ei:
        verify_located(m)
    assert isinstance(ei.value.op, ViewOp)
    assert locate(ei.value.op) == (2, 3)
    assert "out of range" in str(ei.value)


# ----------------------------------------------------------------------------- driver


@dataclass(frozen=True)
class _FailingPass(ModulePass):
    name = "fail-at-compute"

    def apply(self, ctx, op):
        for o in op.walk():
            if isinstance(o, ComputeOp):
                raise MemoptError("cannot plan this op", o)


@dataclass(frozen=True)
class _CrashingPass(ModulePass):
    name = "crash"

    def apply(self, ctx, op):
        raise RuntimeError("boom\nsecond line")


@dataclass(frozen=True)
class _OptionPass(ModulePass):
    name = "opts"
    strategy: str = "large-first"
    alignment: int = 1

    def apply(self, ctx, op):
        pass

    def __post_init__(self):
        if self.strategy not in ("large-first", "best"):
            raise ValueError(f"unknown strategy '{self.strategy}'")


@pytest.fixture
def driver(monkeypatch):
    import memopt.passes.registry as reg
    from memopt.tools import opt

    orig = reg.get_all_passes

    def fake():
        d = dict(orig())
        d["fail-at-compute"] = lambda: _FailingPass
        d["crash"] = lambda: _CrashingPass
        d["opts"] = lambda: _OptionPass
        return d

    monkeypatch.setattr(reg, "get_all_passes", fake)
    return opt


_SRC = (
    "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
    '  %b = memopt.compute "Relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n'
    "  func.return %b : tensor<4xf32>\n"
    "}\n"
)


def test_driver_pass_error_located(driver, tmp_path, capsys):
    f = tmp_path / "in.mlir"
    f.write_text(_SRC)
    assert driver.main([str(f), "--fail-at-compute"]) == 1
    err = capsys.readouterr().err
    assert err == f"memopt-opt: error: {f}:2:3: cannot plan this op\n"


def test_driver_internal_error(driver, tmp_path, capsys):
    f = tmp_path / "in.mlir"
    f.write_text(_SRC)
    assert driver.main([str(f), "-p", "crash"]) == 2
    err = capsys.readouterr().err
    assert err == "memopt-opt: error: internal error: RuntimeError: boom second line\n"


def test_driver_pass_options(driver, capsys):
    assert (
        driver.main(
            ["--opts=strategy=best alignment=16", "-p", "cse,opts", "--opts", "--print-pipeline"]
        )
        == 0
    )
    out = capsys.readouterr().out.strip()
    assert out == 'opts{strategy="best" alignment=16},cse,opts,opts'


def test_driver_bad_option_value(driver, capsys):
    assert driver.main(["--opts=strategy=nope", "--print-pipeline"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("memopt-opt: error: invalid options for pass 'opts'")
    assert "nope" in err and err.count("\n") == 1


def test_driver_unknown_option_key(driver, capsys):
    assert driver.main(["--opts=colour=red", "--print-pipeline"]) == 1
    err = capsys.readouterr().err
    assert "unknown option 'colour' for pass 'opts'" in err
    assert "alignment" in err and "strategy" in err


def test_driver_stdin(driver, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(_SRC))
    assert driver.main([]) == 0
    out = capsys.readouterr().out
    assert 'memopt.compute "Relu"' in out


def test_driver_help_lists_options(driver, capsys):
    assert driver.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "--opts" in out and "alignment" in out and "--plan-memory" in out
