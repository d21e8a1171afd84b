"""The numpy executor: kernels, control flow, the planned arena, and proof by execution.

Includes the deliberately broken planner (issue 5, item 6): a strategy registered only inside
one test shifts one buffer onto a live neighbour; the validator, ``verify-plan`` and
``memopt-run --check`` must all catch it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memopt.diagnostics import MemoptError, locate
from memopt.executor import check_module, run_function
from memopt.executor.data import TensorInfo, element_kind, tensor_info
from memopt.fuzz import _CTX, parse
from memopt.executor.kernels import compute, mix
from memopt.passes.lifetime import analyze_function, planned_functions
from memopt.passes.plan_io import write_plan
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.passes.verify_plan import VerifyPlanPass
from memopt.planning import Solution, lower_bound, make_strategy, register_strategy
from memopt.planning import strategies as strategies_mod
from memopt.tools import run as run_tool
from xdsl.dialects.builtin import Float32Type, TensorType

ROOT = Path(__file__).resolve().parents[2]


def f32(*shape: int) -> TensorInfo:
    return tensor_info(TensorType(Float32Type(), list(shape)))


def b(values, dtype=np.float32) -> np.ndarray:
    return np.asarray(values, dtype=dtype).reshape(-1).view(np.uint8)


def floats(data: np.ndarray) -> list[float]:
    return data.view(np.float32).tolist()


def plan(text: str, **options):
    module = parse(text)
    PlanMemoryPass(**options).apply(_CTX, module)
    return module


def check_error(module, **kw) -> str:
    with pytest.raises(MemoptError) as info:
        check_module(module, **kw)
    loc = locate(info.value.op)
    return f"{loc[0]}:{loc[1]}: {info.value.message}" if loc else info.value.message


# ------------------------------------------------------------------ kernels


def test_elementwise_kernels_compute_numpy_values():
    a, c = b([1, 2, 3, 4]), b([0.5, -1, 0.25, 2])
    assert floats(compute("add", 0, [a, c], [f32(4)] * 2, [f32(4)])[0]) == [1.5, 1, 3.25, 6]
    assert floats(compute("onnx.Mul", 0, [a, c], [f32(4)] * 2, [f32(4)])[0]) == [0.5, -2, 0.75, 8]
    assert floats(compute("Relu", 0, [c], [f32(4)], [f32(4)])[0]) == [0.5, 0, 0.25, 2]
    # broadcasting [4] + [1] -> [4]
    assert floats(compute("sub", 0, [a, b([1])], [f32(4), f32(1)], [f32(4)])[0]) == [0, 1, 2, 3]


def test_conv_matmul_gemm_reshape_concat_kernels():
    x = np.arange(1 * 2 * 4 * 4, dtype=np.float32).reshape(1, 2, 4, 4) / 8
    w = np.arange(3 * 2 * 3 * 3, dtype=np.float32).reshape(3, 2, 3, 3) / 16
    same = compute("conv2d", 0, [b(x), b(w)], [f32(1, 2, 4, 4), f32(3, 2, 3, 3)], [f32(1, 3, 4, 4)])[0]
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1))).astype(np.float64)
    ref = np.zeros((1, 3, 4, 4))
    for f in range(3):
        for i in range(4):
            for j in range(4):
                ref[0, f, i, j] = (xp[0, :, i:i + 3, j:j + 3] * w[f]).sum()
    np.testing.assert_allclose(same.view(np.float32).reshape(1, 3, 4, 4), ref, rtol=1e-6)
    valid = compute("Conv", 0, [b(x), b(w)], [f32(1, 2, 4, 4), f32(3, 2, 3, 3)], [f32(1, 3, 2, 2)])[0]
    np.testing.assert_allclose(valid.view(np.float32).reshape(1, 3, 2, 2), ref[:, :, 1:3, 1:3], rtol=1e-6)

    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    n = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = compute("matmul", 0, [b(m), b(n)], [f32(2, 3), f32(3, 4)], [f32(2, 4)])[0]
    np.testing.assert_array_equal(got.view(np.float32).reshape(2, 4), m @ n)
    got = compute("Gemm", 0, [b(m), b(n.T.copy()), b([1, 2, 3, 4])], [f32(2, 3), f32(4, 3), f32(4)], [f32(2, 4)])[0]
    np.testing.assert_array_equal(got.view(np.float32).reshape(2, 4), m @ n + [1, 2, 3, 4])
    assert compute("reshape", 0, [b(m)], [f32(2, 3)], [f32(6)])[0].tobytes() == b(m).tobytes()
    cat = compute("concat", 0, [b(m), b(m)], [f32(2, 3)] * 2, [f32(2, 6)])[0]
    np.testing.assert_array_equal(cat.view(np.float32).reshape(2, 6), np.concatenate([m, m], 1))


def test_kernels_fall_back_to_mix_when_shapes_do_not_fit():
    a = b([1, 2, 3, 4])
    # add with an output shape numpy broadcasting would not give: not a sum any more
    got = compute("add", 7, [a, a], [f32(4)] * 2, [f32(8)])
    assert got[0].tobytes() == mix("add", 7, [a, a], [f32(8)])[0].tobytes()


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=1, max_size=64), st.data())
def test_mix_reads_every_input_byte_and_writes_every_output_byte(data, draw):
    x = np.frombuffer(data, np.uint8).copy()
    out = f32(16)
    base = mix("k", 3, [x], [out])[0]
    assert len(base) == out.nbytes
    pos = draw.draw(st.integers(0, len(x) - 1))
    flipped = x.copy()
    flipped[pos] ^= 1 << draw.draw(st.integers(0, 7))
    assert mix("k", 3, [flipped], [out])[0].tobytes() != base.tobytes()
    assert mix("k", 4, [x], [out])[0].tobytes() != base.tobytes()  # op identity matters
    assert mix("k", 3, [x], [out])[0].tobytes() == base.tobytes()  # deterministic
    assert np.isfinite(base.view(np.float32)).all()


def test_element_kinds():
    assert tensor_info(TensorType(Float32Type(), [2, 3])).nbytes == 24
    from xdsl.dialects.builtin import BFloat16Type, IntegerType, i1

    assert element_kind(i1).family == "bool"
    assert element_kind(IntegerType(8)).dtype == np.int8
    assert element_kind(BFloat16Type()).family == "bf16"


# ------------------------------------------------------------------ unplanned semantics

ADD = """
builtin.module {
  memopt.global @k : tensor<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
    %k = memopt.get_global @k : tensor<4xf32>
    %s = memopt.compute "add"(%x, %k) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %v = memopt.view %k[offset 8] : tensor<4xf32> -> tensor<2xf32>
    func.return %s, %v : tensor<4xf32>, tensor<2xf32>
  }
}
"""


def test_weights_inputs_and_views():
    m = parse(ADD)
    ex = run_function(m)
    x = run_function(parse(ADD.replace('"add"(%x, %k)', '"add"(%x, %x)'))).outputs[0].view(np.float32) / 2
    assert floats(ex.outputs[0]) == (x + [1, 2, 3, 4]).tolist()
    assert floats(ex.outputs[1]) == [3.0, 4.0]
    # inputs are deterministic, small, finite; --seed changes them
    assert run_function(m).outputs[0].tobytes() == ex.outputs[0].tobytes()
    assert run_function(m, seed=1).outputs[0].tobytes() != ex.outputs[0].tobytes()
    assert np.all(np.abs(x) <= 1)


CONTROL = """
builtin.module {
  func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %c: tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %l:2 = memopt.loop TRIP iter_args(%a = %x, %b = %y) : tensor<4xf32>, tensor<4xf32> {
      memopt.yield %b, %a : tensor<4xf32>, tensor<4xf32>
    }
    %r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {
      memopt.yield %x : tensor<4xf32>
    } else {
      memopt.yield %y : tensor<4xf32>
    }
    %n = memopt.loop 3 iter_args(%acc = %x) : tensor<4xf32> {
      %s = memopt.compute "add"(%acc, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      memopt.yield %s : tensor<4xf32>
    }
    func.return %x, %y, %l#0, %r, %n : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}
"""


@pytest.mark.parametrize("trip", [0, 1, 2, 3])
def test_loops_swap_in_parallel_and_if_follows_its_condition(trip):
    m = parse(CONTROL.replace("TRIP", str(trip)))
    branches = set()
    for seed in range(8):
        x, y, swapped, chosen, acc = (o.tobytes() for o in run_function(m, seed=seed).outputs)
        assert x != y
        assert swapped == (x if trip % 2 == 0 else y)
        xs, ys = np.frombuffer(x, np.float32), np.frombuffer(y, np.float32)
        assert np.frombuffer(acc, np.float32).tolist() == (xs + ys + ys + ys).tolist()
        assert chosen in (x, y)
        branches.add(chosen == x)
    assert branches == {True, False}  # over several seeds the condition takes both branches


# ------------------------------------------------------------------ planned execution


def test_planned_matches_unplanned_on_the_example():
    text = (ROOT / "examples" / "chain.mlir").read_text()
    ref = run_function(parse(text)).outputs
    for strategy in ("sequential", "large-first", "best"):
        m = plan(text, strategy=strategy)
        reports = check_module(m)
        assert reports[0].productions == 8 and reports[0].outputs == 1
        got = run_function(m, planned=True).outputs
        assert [a.tobytes() for a in got] == [a.tobytes() for a in ref]


CORRUPT = """
builtin.module {
  func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> attributes {memopt.arg_offsets = array<i64: 0>, memopt.plan = #memopt.plan<arena_size = ARENA, lower_bound = 192, strategy = "hand">} {
    %a = memopt.compute "relu"(%x) {memopt.offsets = array<i64: 64>} : (tensor<16xf32>) -> tensor<16xf32>
    %b = memopt.compute "exp"(%a) {memopt.offsets = array<i64: OFFB>} : (tensor<16xf32>) -> tensor<16xf32>
    %c = memopt.compute "add"(%a, %b) {memopt.offsets = array<i64: OFFC>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    func.return %c : tensor<16xf32>
  }
}
"""


def corrupt(offb: str, offc: str = "128", arena: str = "192") -> str:
    return CORRUPT.replace("OFFB", offb).replace("OFFC", offc).replace("ARENA", arena)


def test_check_names_the_clobbered_tensor_at_its_definition():
    assert check_module(parse(corrupt("0")))[0].arena_size == 192
    # %b over %a, which exp takes in place (the hint's promise), while %c still reads %a
    in_place = corrupt("64").replace('"exp"(%a) {', '"exp"(%a) {inplace = array<i64: 0>, ')
    msg = check_error(parse(in_place))
    assert msg.startswith("4:5: tensor '%a' differs between planned and unplanned execution")
    assert "its bytes were overwritten by '%b' (written at line 5) before its use by 'memopt.compute' at 6:5" in msg
    # without the hint, a result over its own input is refused at the op that writes it
    assert check_error(parse(corrupt("64"))).startswith(
        "5:5: result '%b' is planned over input '%a', which 'exp' does not take in place")


def test_plan_attribute_errors_are_located():
    assert check_error(parse(corrupt("0", arena="100"))) == "4:5: tensor '%a' at [64, 128) exceeds the arena size 100"
    assert check_error(parse(corrupt("-1"))).startswith("5:5: tensor '%b' has no arena offset (-1)")
    assert check_error(parse(corrupt("0", offc="128, 3"))) == "6:5: 'memopt.offsets' has 2 entries, expected 1"
    assert check_error(parse(ADD)) == "4:3: function '@main' is not planned: no 'memopt.plan' attribute (run memopt-opt --plan-memory first)"


DMA_CLOBBER = """
builtin.module {
  memopt.global @w1 : tensor<4xf32>
  memopt.global @w2 : tensor<4xf32>
  memopt.dma_buffer @alloc0 size 16
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %t1 = memopt.dma_start @w1 into @alloc0[offset 0] : !memopt.token
    %a = memopt.dma_wait %t1 : tensor<4xf32>
    %t2 = memopt.dma_start @w2 into @alloc0[offset 0] : !memopt.token
    %b = memopt.dma_wait %t2 : tensor<4xf32>
    %y = memopt.compute "add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %z = memopt.compute "add"(%y, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    func.return %z : tensor<4xf32>
  }
}
"""


@pytest.mark.parametrize("landing", ["start", "wait"])
def test_a_dma_start_over_weights_still_needed_is_caught(landing):
    m = plan(DMA_CLOBBER, strategy="large-first")
    msg = check_error(m, dma_landings=(landing,))
    assert msg.startswith("8:5: tensor '%a' differs between planned and unplanned execution")
    # with a second buffer the same program is fine
    fixed = DMA_CLOBBER.replace("@w2 into @alloc0", "@w2 into @alloc1").replace(
        "memopt.dma_buffer @alloc0 size 16", "memopt.dma_buffer @alloc0 size 16\n  memopt.dma_buffer @alloc1 size 16")
    assert check_module(plan(fixed, strategy="large-first"), dma_landings=(landing,))


def test_dma_buffers_live_in_the_arena_at_their_onchip_offset():
    # Put @alloc0 (16 bytes) over %x's arena slot: the DMA landing clobbers the argument.
    m = plan(DMA_CLOBBER.replace("@w2 into @alloc0", "@w2 into @alloc1").replace(
        "memopt.dma_buffer @alloc0 size 16", "memopt.dma_buffer @alloc0 size 16\n  memopt.dma_buffer @alloc1 size 16"),
        strategy="large-first", alignment=1)
    assert check_module(m)
    f = planned_functions(m)[0]
    x_off = f.attributes["memopt.arg_offsets"].get_values()[0]
    from xdsl.dialects.builtin import IntegerAttr, i64

    for op in m.walk():
        if getattr(op, "sym_name", None) is not None and op.name == "memopt.dma_buffer" and op.sym_name.data == "alloc0":
            op.attributes["memopt.onchip_offset"] = IntegerAttr(x_off, i64)
    assert check_error(m).startswith("7:3: tensor '%x' differs between planned and unplanned execution")


# ------------------------------------------------------------------ the deliberately broken planner


class _ShiftOnto:
    """large-first, then buffer ``victim`` moved onto live buffer ``onto`` (test-only)."""

    name = "broken"
    in_portfolio = False
    uses_budget = False

    def __init__(self, victim: str = "c2", onto: str = "r1"):
        self.victim, self.onto = victim, onto

    def plan(self, problem):
        sol = make_strategy("large-first").plan(problem)
        ids = [bf.id for bf in problem.buffers]
        offsets = list(sol.offsets)
        offsets[ids.index(self.victim)] = offsets[ids.index(self.onto)]
        return Solution.of(problem, offsets, "broken")


@pytest.fixture
def broken_strategy():
    register_strategy("broken", _ShiftOnto)
    try:
        yield
    finally:
        del strategies_mod._REGISTRY["broken"]


def test_broken_planner_is_caught_by_validator_verify_plan_and_executor(broken_strategy, tmp_path):
    text = (ROOT / "examples" / "chain.mlir").read_text()
    # 1. plan-memory validates what the strategy returns and refuses it.
    with pytest.raises(MemoptError, match="internal error: strategy 'broken' produced an invalid plan"):
        plan(text, strategy="broken")
    # 2. Write the broken plan bypassing validation.
    m = parse(text)
    f = planned_functions(m)[0]
    lt = analyze_function(f, mode="joint", alignment=16)
    write_plan(lt, _ShiftOnto().plan(lt.problem), lower_bound(lt.problem))
    with pytest.raises(MemoptError, match="invalid plan: buffers 'r1' .* and 'c2' .* overlap"):
        VerifyPlanPass().apply(_CTX, m)
    # 3. The executor names what the shift corrupts: %c2 is written over %r1, which the conv
    #    computing %c2 reads without taking it in place (no hint), caught at that op.
    assert check_error(m).startswith("10:5: result '%c2' is planned over input '%r1', which 'conv2d' does not take in place")
    # 4. The same through the command-line tools, on the printed module.
    from io import StringIO

    from xdsl.printer import Printer

    out = StringIO()
    Printer(stream=out).print_op(m)
    path = tmp_path / "broken.mlir"
    path.write_text(out.getvalue())
    bin_dir = Path(sys.executable).parent
    vp = subprocess.run([bin_dir / "memopt-opt", "--verify-plan", path], capture_output=True, text=True)
    assert vp.returncode == 1 and "invalid plan: buffers 'r1'" in vp.stderr
    run = subprocess.run([bin_dir / "memopt-run", "--check", path], capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stderr.strip().splitlines() == [
        f"memopt-run: error: {path}:9:5: result '%c2' is planned over input '%r1', which 'conv2d' does not take "
        "in place (no inplace hint for it): a kernel may write its result before it reads that input"
    ]


def test_broken_strategy_is_not_left_registered():
    assert "broken" not in strategies_mod.strategy_names()


# ------------------------------------------------------------------ memopt-run


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = run_tool.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_runs_and_checks(capsys, tmp_path):
    example = ROOT / "examples" / "chain.mlir"
    code, out, err = run_cli(capsys, example)
    assert code == 0 and err == ""
    assert out.startswith("@main result #0 : tensor<1x8x16x16xf32> = [") and "digest=" in out
    planned = tmp_path / "p.mlir"
    m = plan(example.read_text())
    from xdsl.printer import Printer

    with planned.open("w") as fh:
        Printer(stream=fh).print_op(m)
    code, out2, _ = run_cli(capsys, planned, "--planned")
    assert code == 0 and out2 == out
    code, out3, _ = run_cli(capsys, planned, "--check")
    assert code == 0 and out3.startswith("@main: planned execution matches unplanned (8 values")
    code, out4, _ = run_cli(capsys, example, "--seed", "3")
    assert code == 0 and out4 != out


@pytest.mark.parametrize("args, message", [
    (["{missing}"], "{missing}: could not open input file: no such file or directory"),
    (["{example}", "--check"], "{example}:5:3: function '@main' is not planned: no 'memopt.plan' attribute"),
    (["{bad}"], "{bad}:1:23: operation name expected"),
    (["{example}", "--func", "nope"], "{example}: no function '@nope' with a body in the module"),
    (["{example}", "--seed", "x"], "argument --seed: invalid int value: 'x'"),
])
def test_cli_errors_are_one_located_line(capsys, tmp_path, args, message):
    paths = {"missing": tmp_path / "nope.mlir", "example": ROOT / "examples" / "chain.mlir", "bad": tmp_path / "bad.mlir"}
    paths["bad"].write_text("builtin.module { %x = }\n")
    code, out, err = run_cli(capsys, *[a.format(**paths) for a in args])
    assert code == 1 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("memopt-run: error: ")
    assert message.format(**paths) in err
    assert "Traceback" not in err


# ------------------------------------------------------------------ every example, everywhere


def _example_files() -> list[Path]:
    files = sorted((ROOT / "examples").glob("*.mlir"))
    files += sorted(p for p in (ROOT / "tests" / "filecheck").rglob("*.mlir") if "Output" not in p.parts)
    return files


def _prove_upstream(pristine) -> None:
    """Upstream (func/memref) programs: planned, with DMA before and after planning, each
    function proven by the memref executor (verify-plan reads the memopt dialect only)."""
    from xdsl.dialects import func

    from memopt.dialects.ir_flavour import is_memref_function
    from memopt.executor.memref_exec import check_memref_function
    from memopt.passes.registry import get_all_passes

    for pipeline in (["plan-memory"], ["insert-dma", "plan-memory"], ["plan-memory", "insert-dma"]):
        m = pristine.clone()
        for name in pipeline:
            get_all_passes()[name]()().apply(_CTX, m)
        for f in [o for o in m.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks]:
            if is_memref_function(f):
                for seed in (0, 1):
                    try:
                        check_memref_function(m, f, seed=seed, shapes=_dynamic_shapes(f))
                    except MemoptError as e:
                        if str(e).startswith("cannot execute operation"):
                            pytest.skip(str(e))  # an op memopt-run has no semantics for (remarked)
                        raise


def _dynamic_shapes(f) -> dict:
    """``--input-shape`` for every dynamically shaped argument: each unknown dimension 3."""
    from xdsl.dialects.builtin import MemRefType

    from memopt.executor.memref_values import DYNAMIC

    return {a.name_hint or f"#{a.index}": [3 if d == DYNAMIC else d for d in a.type.get_shape()]
            for a in f.body.blocks.first.args if isinstance(a.type, MemRefType) and DYNAMIC in a.type.get_shape()}


def _expected_to_fail(text: str) -> bool:
    runs = [line.split("RUN:", 1)[1].strip() for line in text.splitlines() if "RUN:" in line]
    if any("not memopt-run" in r and "--check" in r for r in runs):
        return True  # an input whose execution proof is meant to fail (e.g. a wrong in-place hint)
    return bool(runs) and all(r.startswith("not ") or "| not " in r for r in runs)


@pytest.mark.parametrize("path", _example_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_plans_verifies_and_executes_identically(path):
    """Issue 5, item 2: every example and FileCheck input that is not expected to fail (and
    parses as it is: templates edited by sed in their RUN lines do not) is
    planned (plain, and after insert-dma), re-verified by verify-plan and proven by memopt-run's
    check; inputs that carry a plan already are verified and proven as they are."""
    from memopt.fuzz import has_pass
    from memopt.passes.registry import get_all_passes

    text = path.read_text()
    if _expected_to_fail(text):
        pytest.skip("expected to fail (every RUN line starts with 'not')")
    try:
        pristine = parse(text)
    except Exception as e:  # noqa: BLE001 - e.g. needs --allow-unregistered-dialect
        pytest.skip(f"not a plain memopt module: {type(e).__name__}")
    if not planned_functions(pristine):
        pytest.skip("no function with a body")
    from memopt.dialects.ir_flavour import is_upstream_module

    if is_upstream_module(pristine):
        _prove_upstream(pristine)
        return
    if any("memopt.plan" in f.attributes for f in planned_functions(pristine)):
        VerifyPlanPass().apply(_CTX, pristine)
        check_module(pristine)
        return
    pipelines = [["plan-memory"]]
    if has_pass("insert-dma"):
        pipelines.append(["insert-dma", "plan-memory"])
    for pipeline in pipelines:
        m = pristine.clone()
        for name in pipeline:
            get_all_passes()[name]()().apply(_CTX, m)
        VerifyPlanPass().apply(_CTX, m)
        for seed in (0, 1):
            check_module(m, seed=seed)


# ------------------------------------------------------------------ every branch is proven

_TWO_BRANCHES = """
builtin.module {
  func.func @main(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
    %a = memopt.compute "relu"(%x) : (tensor<4xf32>) -> tensor<16xf32>
    %r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {
      %t1 = memopt.compute "exp"(%a) : (tensor<16xf32>) -> tensor<16xf32>
      %t3 = memopt.compute "sum"(%t1, %a) : (tensor<16xf32>, tensor<16xf32>) -> tensor<4xf32>
      memopt.yield %t3 : tensor<4xf32>
    } else {
      %e1 = memopt.compute "abs"(%a) : (tensor<16xf32>) -> tensor<16xf32>
      %e2 = memopt.compute "sum"(%e1, %a) : (tensor<16xf32>, tensor<16xf32>) -> tensor<4xf32>
      memopt.yield %e2 : tensor<4xf32>
    }
    %o = memopt.compute "mul"(%r, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    func.return %o : tensor<4xf32>
  }
}
"""


@pytest.mark.parametrize("seed", [0, 1])
def test_check_proves_the_branch_the_inputs_do_not_select(seed):
    """A plan corrupted only in the branch the generated inputs do not take: following the
    inputs alone (one path) accepts it; forcing every if both ways catches it."""
    from memopt.dialects.memopt import IfOp
    from memopt.executor.check import check_function, count_paths
    from memopt.executor.interpreter import Interpreter
    from memopt.executor.memory import Unplanned
    from xdsl.dialects.builtin import DenseArrayBase, i64

    m = plan(_TWO_BRANCHES, strategy="large-first")
    f = planned_functions(m)[0]
    assert count_paths(f.body.blocks[0]) == 2
    probe = Interpreter(m, Unplanned(), None, seed)
    probe.run(f)
    if_op = next(op for op in f.body.walk() if isinstance(op, IfOp))
    untaken = if_op.else_region if probe.taken[if_op] == 0 else if_op.then_region  # 0: then
    first = next(iter(untaken.blocks[0].ops))  # its first op's result goes over %a, still read later
    a_off = next(op for op in f.body.walk() if op.results and op.results[0].name_hint == "a").attributes[
        "memopt.offsets"].get_values()[0]
    first.attributes["memopt.offsets"] = DenseArrayBase.from_list(i64, [a_off])
    assert check_function(m, f, seed=seed, max_paths=1).paths == 1  # the selected path alone: blind
    with pytest.raises(MemoptError, match="is planned over input '%a', which '(exp|abs)' does not take in place"):
        check_function(m, f, seed=seed)


def test_multi_output_elementwise_op_in_place_is_checked_as_elementwise(tmp_path):
    """ONNX Dropout (output + mask) may write its output over its input: every output of an
    element-wise kind is computed element by element, so the in-place plan is proven, not
    reported as a difference (a whole-tensor mix read its own partial writes)."""
    import subprocess
    import sys

    src = tmp_path / "d.mlir"
    src.write_text('''builtin.module {
  func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
    %a = memopt.compute "Relu"(%x) : (tensor<64xf32>) -> tensor<64xf32>
    %b, %m = memopt.compute "Dropout"(%a) {inplace = array<i64: 0, -1>} : (tensor<64xf32>) -> (tensor<64xf32>, tensor<64xi1>)
    %c = memopt.compute "Relu"(%b) : (tensor<64xf32>) -> tensor<64xf32>
    func.return %c : tensor<64xf32>
  }
}
''')
    out = tmp_path / "p.mlir"
    subprocess.run([sys.executable, "-m", "memopt.tools.opt", "--plan-memory", str(src), "-o", str(out)], check=True)
    assert "inplace" in out.read_text()
    r = subprocess.run([sys.executable, "-m", "memopt.tools.run", "--check", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "matches unplanned" in r.stdout


def test_per_channel_batchnorm_in_place_is_checked_as_elementwise(tmp_path):
    """ONNX BatchNormalization's parameters hold one value per channel of an NCHW tensor: numpy
    broadcasting does not align them, so the executor broadcasts them along the channel axis and
    the in-place plan is proven (it was a whole-tensor mix, a false difference)."""
    import subprocess
    import sys

    src = tmp_path / "bn.mlir"
    src.write_text('''builtin.module {
  func.func @main(%x: tensor<1x4x8x8xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
    %a = memopt.compute "Relu"(%x) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    %n = memopt.compute "BatchNormalization"(%a, %s, %b) {inplace = array<i64: 0>} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    %c = memopt.compute "Relu"(%n) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    func.return %c : tensor<1x4x8x8xf32>
  }
}
''')
    out = tmp_path / "p.mlir"
    subprocess.run([sys.executable, "-m", "memopt.tools.opt", "--plan-memory", str(src), "-o", str(out)], check=True)
    r = subprocess.run([sys.executable, "-m", "memopt.tools.run", "--check", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "matches unplanned" in r.stdout


def test_affine_stores_are_checked_element_by_element(tmp_path):
    """affine.for/load/store execute; a plan that puts %b one element above %a (so the second
    loop's store to b[i] clobbers a[i+1] before it is read) is caught at that read, naming both
    buffers, while the
    real plan (where %c reuses %a's bytes after %a's last read) matches."""
    text = (ROOT / "tests" / "filecheck" / "upstream" / "affine.mlir").read_text()
    bin_dir = Path(sys.executable).parent
    planned = subprocess.run([bin_dir / "memopt-opt", "-", "--plan-memory"], input=text,
                             capture_output=True, text=True, check=True).stdout
    good, bad = tmp_path / "good.mlir", tmp_path / "bad.mlir"
    good.write_text(planned)
    assert "%1 = arith.constant 256 : index" in planned
    bad.write_text(planned.replace("%1 = arith.constant 256 : index", "%1 = arith.constant 4 : index"))
    ok = subprocess.run([bin_dir / "memopt-run", "--check", good], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    run = subprocess.run([bin_dir / "memopt-run", "--check", bad], capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stderr.strip().endswith("buffer '%a' differs between planned and unplanned execution: its bytes "
                                       "were overwritten by '%b' (written at line 15) before this read")
