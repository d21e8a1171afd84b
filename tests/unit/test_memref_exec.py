"""memopt-run's executor of upstream IR (``memopt.executor.memref_*``): values, views, scalar
semantics, the plan check and its limits."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import func

from memopt.diagnostics import MemoptError
from memopt.executor.memref_exec import check_memref_function, run_memref_function
from memopt.executor.memref_values import bf16_bits, round_bf16
from memopt.executor.resources import Limits
from memopt.tools.run import parse_module


def module_of(text: str):
    return parse_module(text, "<test>")


def function(m, name: str = "main") -> func.FuncOp:
    return next(o for o in m.walk() if isinstance(o, func.FuncOp) and o.sym_name.data == name)


def run(text: str, name: str = "main", **kw):
    m = module_of(text)
    return run_memref_function(m, function(m, name), **kw)


def out_values(text: str, k: int = 0, name: str = "main") -> np.ndarray:
    _, params = run(text, name)
    return params[k].values()


# ---------------------------------------------------------------------- scalar semantics

SCALAR = """
func.func @main(%out: memref<{n}x{t}>) {{
{body}
  return
}}
"""


def scalars(t: str, lines: list[str], values: list[str]) -> np.ndarray:
    """Run ``lines`` and store ``values`` (SSA names of type ``t``) into an out-parameter."""
    body = [f"  {line}" for line in lines]
    for k, v in enumerate(values):
        body.append(f"  %i{k} = arith.constant {k} : index")
        body.append(f"  memref.store {v}, %out[%i{k}] : memref<{len(values)}x{t}>")
    alloc = f"  %keep = memref.alloc() : memref<{len(values)}x{t}>"
    return out_values(SCALAR.format(n=len(values), t=t, body="\n".join([alloc] + body)))


def test_integer_arithmetic_wraps_at_the_width_and_divides_toward_zero():
    got = scalars("i8", [
        "%a = arith.constant 127 : i8", "%b = arith.constant 1 : i8", "%m7 = arith.constant -7 : i8",
        "%two = arith.constant 2 : i8",
        "%s = arith.addi %a, %b : i8",  # wraps to -128
        "%d = arith.divsi %m7, %two : i8",  # -3 (toward zero)
        "%r = arith.remsi %m7, %two : i8",  # -1 (sign of the dividend)
        "%f = arith.floordivsi %m7, %two : i8",  # -4
        "%u = arith.divui %m7, %two : i8",  # 249 // 2 = 124
        "%sh = arith.shrsi %m7, %b : i8",  # -4
        "%shu = arith.shrui %m7, %b : i8",  # 124
    ], ["%s", "%d", "%r", "%f", "%u", "%sh", "%shu"])
    assert got.tolist() == [-128, -3, -1, -4, 124, -4, 124]


def test_casts_follow_mlir():
    got = scalars("i32", [
        "%t = arith.constant true", "%x = arith.constant -2.75 : f32", "%big = arith.constant 300 : i32",
        "%e = arith.extsi %t : i1 to i32",  # -1
        "%z = arith.extui %t : i1 to i32",  # 1
        "%f = arith.fptosi %x : f32 to i32",  # -2 (toward zero)
        "%n8 = arith.trunci %big : i32 to i8", "%n = arith.extsi %n8 : i8 to i32",  # 300 mod 256 = 44
        "%u8 = arith.extui %n8 : i8 to i32",
        "%ix = arith.index_cast %big : i32 to index", "%back = arith.index_cast %ix : index to i32",
    ], ["%e", "%z", "%f", "%n", "%u8", "%back"])
    assert got.tolist() == [-1, 1, -2, 44, 44, 300]


def test_float_comparisons_and_extrema_treat_nan_and_zeros_as_mlir_does():
    got = scalars("i1", [
        "%nan = arith.constant 0x7FC00000 : f32", "%one = arith.constant 1.0 : f32",
        "%pz = arith.constant 0.0 : f32", "%nz = arith.constant -0.0 : f32",
        "%olt = arith.cmpf olt, %nan, %one : f32", "%ult = arith.cmpf ult, %nan, %one : f32",
        "%une = arith.cmpf une, %nan, %nan : f32", "%oeq = arith.cmpf oeq, %pz, %nz : f32",
        "%mx = arith.maximumf %nz, %pz : f32", "%neg = arith.cmpf olt, %mx, %pz : f32",
        "%mn = arith.minimumf %pz, %nz : f32", "%sgn = math.copysign %one, %mn : f32",
        "%isneg = arith.cmpf olt, %sgn, %pz : f32",
        "%mxn = arith.maximumf %nan, %one : f32", "%isnan = arith.cmpf uno, %mxn, %mxn : f32",
        "%num = arith.maxnumf %nan, %one : f32", "%ok = arith.cmpf oeq, %num, %one : f32",
    ], ["%olt", "%ult", "%une", "%oeq", "%neg", "%isneg", "%isnan", "%ok"])
    assert got.tolist() == [False, True, True, True, False, True, True, True]


def test_bf16_values_round_to_nearest_even():
    # 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to the even mantissa (1); 1 + 3 * 2^-8 is
    # halfway between 1 + 2^-7 and 1 + 2^-6: to the even one (1 + 2^-6).
    x = np.array([1.0, 1.00390625, 1.01171875, -2.5, np.nan], np.float32)
    assert bf16_bits(x).dtype == np.uint16
    got = round_bf16(x)
    assert got[:4].tolist() == [1.0, 1.0, 1.015625, -2.5] and np.isnan(got[4])


# ---------------------------------------------------------------------- views, property-tested

def _dims(draw, rank: int):
    return [draw(st.integers(1, 6)) for _ in range(rank)]


@st.composite
def subview_chains(draw):
    """A source shape and 1-3 subviews (each offsets, sizes, strides; static or dynamic)."""
    shape = _dims(draw, draw(st.integers(1, 3)))
    chain, cur = [], list(shape)
    for _ in range(draw(st.integers(1, 3))):
        offs, sizes, strides = [], [], []
        for n in cur:
            stride = draw(st.integers(1, 3))
            size = draw(st.integers(1, (n - 1) // stride + 1))
            off = draw(st.integers(0, n - 1 - (size - 1) * stride))
            offs.append(off)
            sizes.append(size)
            strides.append(stride)
        dynamic = draw(st.lists(st.booleans(), min_size=len(cur) * 3, max_size=len(cur) * 3))
        chain.append((offs, sizes, strides, dynamic))
        cur = sizes
    return shape, chain


def _chain_program(shape, chain) -> str:
    """@main(%x, %out): %out = zeros; through the chain of subviews of %x, copy into a fresh
    buffer %r (read); through the same chain of subviews of %out, fill 1 (write)."""
    def ty(sizes, strided: bool, dynamic=()) -> str:
        dims = "x".join("?" if k < len(dynamic) and dynamic[k] else str(n) for k, n in enumerate(sizes))
        layout = f", strided<[{', '.join(['?'] * len(sizes))}], offset: ?>" if strided else ""
        return f"memref<{dims}xf32{layout}>"

    lines = ["  %zero = arith.constant 0.0 : f32", "  %one = arith.constant 1.0 : f32",
             f"  linalg.fill ins(%zero : f32) outs(%out : {ty(shape, False)})"]
    for base in ("x", "out"):
        cur, cur_ty = f"%{base}", ty(shape, False)
        for k, (offs, sizes, strides, dynamic) in enumerate(chain):
            parts, j = [], 0
            for values in (offs, sizes, strides):
                items = []
                for v in values:
                    if dynamic[j]:
                        lines.append(f"  %{base}{k}_{j} = arith.constant {v} : index")
                        items.append(f"%{base}{k}_{j}")
                    else:
                        items.append(str(v))
                    j += 1
                parts.append("[" + ", ".join(items) + "]")
            new_ty = ty(sizes, True, dynamic[len(sizes): 2 * len(sizes)])
            lines.append(f"  %{base}{k} = memref.subview {cur}{parts[0]} {parts[1]} {parts[2]} : {cur_ty} to {new_ty}")
            static_ty = ty(sizes, True)
            if static_ty != new_ty:
                lines.append(f"  %{base}{k}s = memref.cast %{base}{k} : {new_ty} to {static_ty}")
            cur, cur_ty = (f"%{base}{k}s" if static_ty != new_ty else f"%{base}{k}"), static_ty
        if base == "x":
            last = chain[-1][1]
            lines.append(f"  %r = memref.alloc() : {ty(last, False)}")
            lines.append(f"  memref.copy {cur}, %r : {cur_ty} to {ty(last, False)}")
            lines.append(f"  memref.copy %r, %got : {ty(last, False)} to {ty(last, False)}")
        else:
            lines.append(f"  linalg.fill ins(%one : f32) outs({cur} : {cur_ty})")
    last = chain[-1][1]
    return (f"func.func @main(%x: {ty(shape, False)}, %out: {ty(shape, False)}, %got: {ty(last, False)}) {{\n"
            + "\n".join(lines) + "\n  return\n}\n")


def _numpy_chain(a: np.ndarray, chain) -> np.ndarray:
    for offs, sizes, strides, _ in chain:
        a = a[tuple(slice(o, o + (s - 1) * st + 1, st) for o, s, st in zip(offs, sizes, strides))]
    return a


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(subview_chains())
def test_strided_subview_chains_touch_the_elements_numpy_does(case):
    shape, chain = case
    m = module_of(_chain_program(shape, chain))
    _, (x, out, got) = run_memref_function(m, function(m))
    x_values = x.values()
    assert np.array_equal(got.values(), _numpy_chain(x_values, chain))
    want = np.zeros(shape, np.float32)
    _numpy_chain(want, chain)[...] = 1.0
    assert np.array_equal(out.values(), want)


# ---------------------------------------------------------------------- the check

PLANNED = """
func.func @main(%x: memref<8xf32>, %y: memref<8xf32>) attributes {{memopt.arena_size = 64 : i64}} {{
  %arena = memref.alloc() alignment = 16 {{memopt.arena}} : memref<64xi8>
  %oa = arith.constant {a} : index
  %a = memref.view %arena[%oa][] : memref<64xi8> to memref<8xf32>
  %ob = arith.constant {b} : index
  %b = memref.view %arena[%ob][] : memref<64xi8> to memref<8xf32>
  %two = arith.constant 2.0 : f32
  linalg.map {{ arith.mulf }} ins(%x, %x : memref<8xf32>, memref<8xf32>) outs(%a : memref<8xf32>)
  linalg.fill ins(%two : f32) outs(%b : memref<8xf32>)
  linalg.map {{ arith.addf }} ins(%a, %b : memref<8xf32>, memref<8xf32>) outs(%y : memref<8xf32>)
  memref.dealloc %arena : memref<64xi8>
  return
}}
"""


def test_a_correct_plan_is_proven():
    m = module_of(PLANNED.format(a=0, b=32))
    r = check_memref_function(m, function(m))
    assert (r.productions, r.reads, r.arena_views) == (3, 4, 2)


@pytest.mark.parametrize("b", [0, 4, 28])
def test_two_live_views_at_overlapping_offsets_name_the_clobbered_buffer(b):
    m = module_of(PLANNED.format(a=0, b=b))
    with pytest.raises(MemoptError) as e:
        check_memref_function(m, function(m))
    assert e.value.message.startswith("buffer '%a' differs between planned and unplanned execution: its bytes "
                                      "were overwritten by '%b'")


def test_planned_and_unplanned_runs_compute_the_same_values():
    m = module_of(PLANNED.format(a=0, b=32))
    f = function(m)
    (_, (_, y1)), (_, (_, y2)) = (run_memref_function(m, f, planned=p) for p in (False, True))
    assert np.array_equal(y1.values(), y2.values())
    x = run_memref_function(m, f)[1][0].values()
    assert np.array_equal(y1.values(), x * x + np.float32(2))


def test_a_dealloc_of_a_planned_buffer_is_an_error():
    text = PLANNED.format(a=0, b=32).replace("  memref.dealloc %arena", "  memref.dealloc %a : memref<8xf32>\n"
                                             "  memref.dealloc %arena")
    m = module_of(text)
    with pytest.raises(MemoptError, match="frees '%a', a planned buffer"):
        check_memref_function(m, function(m))


def test_use_after_the_arena_is_freed_is_caught_in_planned_execution():
    text = PLANNED.format(a=0, b=32)
    text = text.replace("  memref.dealloc %arena : memref<64xi8>\n", "")
    text = text.replace("  linalg.fill ins", "  memref.dealloc %arena : memref<64xi8>\n  linalg.fill ins")
    m = module_of(text)
    with pytest.raises(MemoptError, match="after it was deallocated"):
        check_memref_function(m, function(m))


def test_dynamic_shapes_come_from_the_command_line():
    text = """
func.func @main(%x: memref<?x4xf32>) -> memref<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %y = memref.alloc(%n) : memref<?x4xf32>
  memref.copy %x, %y : memref<?x4xf32> to memref<?x4xf32>
  return %y : memref<?x4xf32>
}
"""
    m = module_of(text)
    with pytest.raises(MemoptError, match=r"argument %x of @main has a dynamic shape .* --input-shape x=Nx4"):
        check_memref_function(m, function(m))
    (y,), _ = run_memref_function(m, function(m), shapes={"#0": (3, 4)})
    assert y.sizes == (3, 4)


def test_op_limits_stop_a_long_loop_before_it_runs():
    text = """
func.func @main(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 20000 : index
  %t = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.copy %x, %t : memref<4xf32> to memref<4xf32>
  }
  return
}
"""
    m = module_of(text)
    with pytest.raises(MemoptError, match=r"this loop \(20000 trips of about 3 ops\) runs more than 1000 ops"):
        check_memref_function(m, function(m), limits=Limits(1 << 30, 1000))
    assert check_memref_function(m, function(m), limits=Limits(1 << 30, 100_000)).productions == 20_000


def test_a_forced_branch_the_program_cannot_take_is_skipped():
    text = """
func.func @main(%x: memref<4xf32>) {
  %t = memref.alloc() : memref<4xf32>
  memref.copy %x, %t : memref<4xf32> to memref<4xf32>
  %no = arith.constant false
  scf.if %no {
    %c9 = arith.constant 9 : index
    %v = memref.load %t[%c9] : memref<4xf32>
    scf.yield
  }
  return
}
"""
    m = module_of(text)
    assert check_memref_function(m, function(m)).paths == 1  # the natural path; the forced one is skipped


TWO_IFS = """
func.func @main(%x: memref<8xf32>, %y: memref<8xf32>) attributes {memopt.arena_size = 64 : i64} {
  %arena = memref.alloc() alignment = 16 {memopt.arena} : memref<64xi8>
  %oa = arith.constant 0 : index
  %a = memref.view %arena[%oa][] : memref<64xi8> to memref<8xf32>
  %ob = arith.constant OFFB : index
  %b = memref.view %arena[%ob][] : memref<64xi8> to memref<8xf32>
  %two = arith.constant 2.0 : f32
  %p = arith.constant false
  %q = arith.constant true
  linalg.map { arith.mulf } ins(%x, %x : memref<8xf32>, memref<8xf32>) outs(%a : memref<8xf32>)
  linalg.fill ins(%two : f32) outs(%y : memref<8xf32>)
  scf.if %p {
    linalg.fill ins(%two : f32) outs(%b : memref<8xf32>)
  }
  scf.if %q {
  } else {
    linalg.map { arith.addf } ins(%a, %a : memref<8xf32>, memref<8xf32>) outs(%y : memref<8xf32>)
  }
  memref.dealloc %arena : memref<64xi8>
  return
}
"""


def test_each_branch_is_forced_both_ways_on_its_own():
    """%b clobbers %a only when the first if takes its then branch and the second its else
    branch: a path neither the inputs nor forcing every branch alike selects."""
    m = module_of(TWO_IFS.replace("OFFB", "32"))
    assert check_memref_function(m, function(m)).paths == 4
    m = module_of(TWO_IFS.replace("OFFB", "0"))
    assert check_memref_function(m, function(m), max_paths=3).paths == 3  # (then, else) not reached
    with pytest.raises(MemoptError, match="buffer '%a' differs between planned and unplanned execution: its bytes "
                                          "were overwritten by '%b'"):
        check_memref_function(m, function(m))


# ---------------------------------------------------------------------- loop nests

NEST = """
#in = affine_map<(d0, d1) -> (d0 * 2 + d1)>
func.func @main(%x: memref<13xf32>, %w: memref<3xf32>, %y: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<8xf32>)
  scf.for %i = %c1 to %c6 step %c1 {
    scf.for %k = %c0 to %c3 step %c1 {
      %j = affine.apply #in(%i, %k)
      %a = memref.load %x[%j] : memref<13xf32>
      %b = memref.load %w[%k] : memref<3xf32>
      %acc = memref.load %y[%i] : memref<8xf32>
      %p = arith.mulf %a, %b : f32
      %ii = arith.index_cast %i : index to i32
      %fi = arith.sitofp %ii : i32 to f32
      %q = arith.addf %p, %fi : f32
      %s = arith.addf %acc, %q : f32
      memref.store %s, %y[%i] : memref<8xf32>
    }
  }
  return
}
"""


def _nest_outputs(text: str, vectorised: bool) -> list[np.ndarray]:
    from memopt.executor import memref_nest

    memref_nest.ENABLED = vectorised
    try:
        _, params = run(text)
    finally:
        memref_nest.ENABLED = True
    return [p.values() for p in params]


def test_a_loop_nest_runs_vectorised_with_the_values_of_the_sequential_nest():
    fast, slow = _nest_outputs(NEST, True), _nest_outputs(NEST, False)
    for a, b in zip(fast, slow):
        assert a.tobytes() == b.tobytes()
    x, w, y = fast
    want = np.zeros(8, np.float32)
    for i in range(1, 6):
        for k in range(3):
            want[i] = want[i] + (x[2 * i + k] * w[k] + np.float32(i))
    assert y.tobytes() == want.tobytes()


RECURRENCE = """
func.func @main(%a: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  scf.for %i = %c1 to %c8 step %c1 {
    %j = arith.subi %i, %c1 : index
    %v = memref.load %a[%j] : memref<8xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %a[%i] : memref<8xf32>
  }
  return
}
"""


def test_a_nest_carrying_values_through_memory_runs_element_by_element():
    (a,) = _nest_outputs(RECURRENCE, True)
    assert a.tolist() == [float(a[0] * 2 ** i) for i in range(8)]
    aliased = RECURRENCE.replace("%v = memref.load %a[%j]", "%v = memref.load %s[%j]").replace(
        "  scf.for", "  %s = memref.subview %a[0] [8] [1] : memref<8xf32> to memref<8xf32, strided<[1]>>\n  scf.for").replace(
        "%v = memref.load %s[%j] : memref<8xf32>", "%v = memref.load %s[%j] : memref<8xf32, strided<[1]>>")
    (b,) = _nest_outputs(aliased, True)
    assert b.tobytes() == a.tobytes()  # a loaded alias of the stored buffer: not vectorised
