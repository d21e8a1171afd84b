"""insert-dma on upstream linalg programs: what is a kernel and a weight, where staging goes,
and what every transfer must be (exact element counts, matching element types, different memory
spaces, copies that do not overlap), on hand-written cases and on random programs."""

from __future__ import annotations

import io
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, NoneAttr
from xdsl.ir import OpResult
from xdsl.printer import Printer

from memopt.diagnostics import LocatedParser, MemoptError
from memopt.dialects.context import make_context
from memopt.passes.dma_regions import cut_function, regions
from memopt.passes.insert_dma import InsertDmaPass
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.dialects.plan_attr_names import STAGING_ATTR
from memopt.passes.upstream_dma_staging import ARENA, choose_space
from memopt.passes.upstream_dma_weights import UpstreamWeight, Unstreamable, kernel_weights, space_of, trace_weight
from memopt.passes.upstream_lifetime import byte_size, element_bytes


def parse(text: str):
    ctx = make_context()
    return ctx, LocatedParser(ctx, text).parse_module()


def run(text: str, *passes):
    ctx, m = parse(text)
    for p in passes:
        p.apply(ctx, m)
    m.verify()
    return m


def printed(m) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(m)
    return out.getvalue()


def main_of(m) -> func.FuncOp:
    return next(o for o in m.body.block.ops if isinstance(o, func.FuncOp) and o.sym_name.data == "main")


HEAD = """
memref.global "private" constant @w : memref<4x8xf32> = dense<1.0>
memref.global "private" constant @m : memref<8xi1> = dense<true>
memref.global "private" @state : memref<4x8xf32> = dense<0.0>
"""


def kernels(m):
    return [o for o in main_of(m).body.walk() if o.name.startswith("linalg.") and o.name != "linalg.yield"]


def test_a_linalg_body_is_not_control_flow():
    """Kernels with bodies stand in their Region: one Region holds the generic and the matmul."""
    _, m = parse(HEAD + """
func.func @main(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %z: memref<4x4xf32>) {
  %w = memref.get_global @w : memref<4x8xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  linalg.matmul ins(%x, %w : memref<4x8xf32>, memref<4x8xf32>) outs(%z : memref<4x4xf32>)
  return
}""")
    rs = [r for r in regions(cut_function(main_of(m), "@main")) if r.ops]
    assert [r.name for r in rs] == ["@main/0"]
    assert [o.name for o in rs[0].ops if o.name.startswith("linalg.")] == ["linalg.generic", "linalg.matmul"]


def test_a_weight_is_traced_through_aliases_and_a_mutable_global_is_not_one():
    _, m = parse(HEAD + """
func.func @main(%x: memref<2x8xf32>, %y: memref<2x8xf32>, %z: memref<4x8xf32>, %b: memref<8xi1>) {
  %w = memref.get_global @w : memref<4x8xf32>
  %s = memref.subview %w[1, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 8>>
  %c = memref.cast %s : memref<2x8xf32, strided<[8, 1], offset: 8>> to memref<?x8xf32, strided<[8, 1], offset: 8>>
  linalg.copy ins(%c : memref<?x8xf32, strided<[8, 1], offset: 8>>) outs(%y : memref<2x8xf32>)
  %st = memref.get_global @state : memref<4x8xf32>
  linalg.copy ins(%st : memref<4x8xf32>) outs(%z : memref<4x8xf32>)
  %mk = memref.get_global @m : memref<8xi1>
  linalg.copy ins(%mk : memref<8xi1>) outs(%b : memref<8xi1>)
  return
}""")
    streamed, state, mask = kernels(m)
    w = trace_weight(streamed.operands[0], 0)
    assert isinstance(w, UpstreamWeight)
    assert (w.symbol, w.elements, w.nbytes) == ("w", 32, 128)
    assert [op.name for op in w.chain] == ["memref.subview", "memref.cast"]
    assert trace_weight(state.operands[0], 0) is None
    u = trace_weight(mask.operands[0], 0)
    assert isinstance(u, Unstreamable) and "not a whole number of bytes" in u.why
    assert [x.symbol for x in kernel_weights(streamed)[0]] == ["w"]
    assert kernel_weights(mask) == ([], [u])


def test_an_output_is_never_a_weight():
    """A structured op's outs are written: only its ins are read operands."""
    _, m = parse(HEAD + """
func.func @main(%y: memref<4x8xf32>) {
  %w = memref.get_global @w : memref<4x8xf32>
  linalg.copy ins(%y : memref<4x8xf32>) outs(%w : memref<4x8xf32>)
  return
}""")
    (k,) = kernels(m)
    assert kernel_weights(k) == ([], [])


def weight(space) -> UpstreamWeight:
    t = MemRefType(IntegerAttr(0, 8).type, [4], NoneAttr(), space)
    return UpstreamWeight(0, "g", t, ())


def test_the_staging_space_differs_from_every_weight_space(capsys):
    one, none = IntegerAttr(1, 64), NoneAttr()
    assert choose_space([(weight(one), None)], None) is ARENA  # off-chip weights: the arena's bytes
    assert capsys.readouterr().err == ""
    assert choose_space([(weight(none), None)], None) == IntegerAttr(1, 64)
    assert "staging buffers and transfer tags in memory space 1" in capsys.readouterr().err
    assert choose_space([(weight(none), None), (weight(one), None)], None) == IntegerAttr(2, 64)
    assert choose_space([(weight(none), None)], 3) == IntegerAttr(3, 64)
    with pytest.raises(MemoptError, match="staging-space=1 is the memory space of weight @g"):
        choose_space([(weight(one), None)], 1)
    with pytest.raises(MemoptError, match="staging-space=0 is the memory space of weight @g"):
        choose_space([(weight(IntegerAttr(0, 64)), None)], 0)


# ---------------------------------------------------------------------- random programs

ELEMS = {"f32": "1.0", "f16": "1.0", "i32": "3", "i8": "2", "i64": "5"}


def program(rng: random.Random) -> str:
    """Kernels (linalg.copy) reading constant globals of random element types and shapes, some
    through a cast or a subview, some inside scf.for / scf.if, some weights read twice."""
    globals_, body, args = [], [], []
    n = rng.randint(1, 5)
    shapes = []
    for k in range(n):
        e = rng.choice(list(ELEMS))
        shape = [rng.randint(1, 6) for _ in range(rng.randint(1, 3))]
        t = f"memref<{'x'.join(map(str, shape))}x{e}>"
        shapes.append((e, shape, t))
        globals_.append(f'memref.global "private" constant @g{k} : {t} = dense<{ELEMS[e]}>')
    for k, (e, shape, t) in enumerate(shapes):
        args.append(f"%o{k}: {t}")
    lines = ["  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index", "  %c2 = arith.constant 2 : index"]
    for j in range(rng.randint(1, 6)):
        k = rng.randrange(n)
        e, shape, t = shapes[k]
        lines.append(f"  %g{j} = memref.get_global @g{k} : {t}")
        how = rng.choice(["plain", "cast", "subview"])
        src, st = f"%g{j}", t
        out, ot = f"%o{k}", t
        if how == "cast":
            dims = "x".join(["?"] + [str(d) for d in shape[1:]])
            st = f"memref<{dims}x{e}>"
            lines.append(f"  %a{j} = memref.cast %g{j} : {t} to {st}")
            src = f"%a{j}"
        elif how == "subview" and shape[0] > 1:
            inner = 1
            for d in shape[1:]:
                inner *= d
            strides = ", ".join(str(s) for s in _strides(shape))
            sizes = [1] + shape[1:]
            st = f"memref<{'x'.join(map(str, sizes))}x{e}, strided<[{strides}], offset: {inner}>>"
            offs = ", ".join(["1"] + ["0"] * (len(shape) - 1))
            lines.append(f"  %a{j} = memref.subview %g{j}[{offs}] [{', '.join(map(str, sizes))}] "
                         f"[{', '.join(['1'] * len(shape))}] : {t} to {st}")
            src = f"%a{j}"
            out, ot = f"%s{j}", st
            lines.append(f"  %s{j} = memref.subview %o{k}[{offs}] [{', '.join(map(str, sizes))}] "
                         f"[{', '.join(['1'] * len(shape))}] : {t} to {st}")
        kernel = f"linalg.copy ins({src} : {st}) outs({out} : {ot})"
        where = rng.choice(["top", "top", "for", "if"])
        if where == "for":
            lines.append(f"  scf.for %i{j} = %c0 to %c2 step %c1 {{\n    {kernel}\n  }}")
        elif where == "if":
            lines.append(f"  scf.if %cond {{\n    {kernel}\n  }}")
        else:
            lines.append(f"  {kernel}")
    return "\n".join(globals_) + f"\nfunc.func @main(%cond: i1, {', '.join(args)}) {{\n" + "\n".join(lines) + \
        "\n  return\n}\n"


def _strides(shape):
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return list(reversed(out))


def _const(v) -> int:
    assert isinstance(v, OpResult) and isinstance(v.op, arith.ConstantOp)
    return v.op.value.value.data


def staged_span(v) -> tuple[object, int, int]:
    """(staging buffer, first byte, end) of a dma_start destination."""
    if isinstance(v, OpResult) and isinstance(v.op, memref.ViewOp):
        off = _const(v.op.byte_shift)
        return v.op.source, off, off + byte_size(v.type)
    return v, 0, byte_size(v.type)


def check_transfers(m) -> int:
    """Every dma_start copies a whole global, counted in its elements, into a copy of the same
    element type in another memory space; tags are distinct and in range; copies in flight
    together never overlap."""
    starts = [o for o in m.walk() if isinstance(o, memref.DmaStartOp)]
    for s in starts:
        src, dst = s.src.type, s.dest.type
        assert isinstance(s.src.op, memref.GetGlobalOp)
        n = _const(s.num_elements)
        elements = 1
        for d in src.get_shape():
            elements *= d
        assert n == elements
        assert src.element_type == dst.element_type or (len(dst.get_shape()) == 1 and element_bytes(src) == 1)
        assert space_of(src) != space_of(dst)
        assert all(_const(i) == 0 for i in s.src_indices)
        buf, lo, hi = staged_span(s.dest)
        if s.dest_indices and buf is s.dest:
            lo = _const(s.dest_indices[0])
            hi = lo + n * element_bytes(src)
        assert 0 <= lo and hi <= byte_size(buf.type)
        assert 0 <= _const(s.tag_indices[0]) < s.tag.type.get_shape()[0]
    tags = [_const(s.tag_indices[0]) for s in starts]
    assert len(tags) == len(set(tags))
    return len(starts)


def check_weights_staged(m) -> None:
    """No kernel of a streamed Region reads a constant global off-chip any more."""
    for k in kernels(m):
        for i in range(len(k.inputs)):
            assert not isinstance(trace_weight(k.operands[i], i), UpstreamWeight), printed(m)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), first=st.booleans())
def test_random_linalg_programs_stream_every_weight_exactly(seed: int, first: bool) -> None:
    text = program(random.Random(seed))
    order = [InsertDmaPass(mode="always"), PlanMemoryPass()] if first else [PlanMemoryPass(), InsertDmaPass(mode="always")]
    m = run(text, *order)
    assert check_transfers(m) > 0
    check_weights_staged(m)
    dests = [o.dest for o in m.walk() if isinstance(o, memref.DmaStartOp)]
    assert all(space_of(d.type) == IntegerAttr(1, 64) for d in dests)  # on chip, apart from the weights


def test_staging_after_a_plan_lies_past_the_planned_bytes():
    """Weights off-chip (space 1): staging and tags are arena bytes after the planned ones."""
    text = """
memref.global "private" constant @w : memref<64xi8, 1> = dense<1>
func.func private @k(memref<16xf32>, memref<16xf32, 1>, memref<16xf32>)
func.func @main(%x: memref<16xf32>, %y: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<16xf32>
  %g = memref.get_global @w : memref<64xi8, 1>
  %w = memref.view %g[%c0][] : memref<64xi8, 1> to memref<16xf32, 1>
  func.call @k(%x, %w, %a) : (memref<16xf32>, memref<16xf32, 1>, memref<16xf32>) -> ()
  func.call @k(%a, %w, %y) : (memref<16xf32>, memref<16xf32, 1>, memref<16xf32>) -> ()
  memref.dealloc %a : memref<16xf32>
  return
}"""
    m = run(text, PlanMemoryPass(), InsertDmaPass(mode="always"))
    f = main_of(m)
    planned = f.attributes["memopt.arena_size"].value.data
    spans = [staged_span(o.results[0]) for o in f.body.walk() if STAGING_ATTR in o.attributes]
    assert len(spans) == 3  # alloc0, alloc1, tags
    assert all(lo >= planned for _, lo, _ in spans)
    assert all(b1 <= a2 for (_, _, b1), (_, a2, _) in zip(spans, spans[1:]))
    assert spans[-1][2] <= f.attributes["memopt.onchip_size"].value.data
    check_transfers(m)


IREE_OPT = shutil.which("iree-opt") or str(Path(sys.executable).with_name("iree-opt"))


@pytest.mark.skipif(not Path(IREE_OPT).exists(), reason="needs iree-opt (iree-base-compiler)")
def test_random_outputs_verify_in_upstream_mlir():
    for seed in range(6):
        text = program(random.Random(1000 + seed))
        for order in ([InsertDmaPass(mode="always"), PlanMemoryPass()], [PlanMemoryPass(), InsertDmaPass(mode="always")]):
            out = printed(run(text, *order))
            r = subprocess.run([IREE_OPT, "-o", "/dev/null"], input=out, capture_output=True, text=True)
            assert r.returncode == 0, r.stderr + out
