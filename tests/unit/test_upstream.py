"""memopt on upstream MLIR: lower-to-memref, plan-memory, insert-dma and the embedding API.

Generalisation is tested on random memopt-dialect programs (the executor's graph generator:
control flow, views, in-place hints, weights) lowered to upstream IR with a fresh seed per
example: every plan must be proven by executing it (planned against unplanned, both branches of
every ``scf.if``), and memopt's arena must never exceed the sum of the buffers nor undercut the
lower bound.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from xdsl.dialects import func, memref, scf
from xdsl.parser import Parser
from xdsl.printer import Printer
import io

from memopt.api import InsertDmaPass, LowerToMemrefPass, PlanMemoryPass, context, plan, summarize
from memopt.diagnostics import MemoptError
from memopt.executor.graphgen import GenConfig, generate
from memopt.executor.memref_exec import check_memref_function

ROOT = Path(__file__).resolve().parents[2]


def parse(text: str):
    ctx = context()
    return ctx, Parser(ctx, text).parse_module()


def lowered(text: str):
    ctx, m = parse(text)
    LowerToMemrefPass().apply(ctx, m)
    return ctx, m


def main_of(m) -> func.FuncOp:
    return next(o for o in m.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks and o.sym_name.data == "main")


def printed(m) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(m)
    return out.getvalue()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), dma=st.booleans())
def test_random_programs_lowered_planned_and_proven(seed: int, dma: bool) -> None:
    text = generate(random.Random(seed), GenConfig(max_ops=8, max_depth=2))
    ctx, m = lowered(text)
    assert not any(o.name.startswith("memopt.") for o in m.walk())
    s = plan(m, strategy="best", dma=dma)
    f = main_of(m)
    summary = s["main"]
    assert summary.lower_bound <= summary.arena_size <= sum(b.size for b in summary.buffers) + 16 * len(summary.buffers)
    assert summary.onchip_size >= summary.arena_size
    for b in summary.buffers:
        assert 0 <= b.offset and b.offset + b.size <= summary.arena_size
    # Printed and read back (what a user's next tool sees), the plan still proves.
    _, again = parse(printed(m))
    check_memref_function(again, main_of(again), seed=seed % 7)
    assert f is not None


def test_lowered_control_flow_is_scf() -> None:
    text = (ROOT / "tests/filecheck/control-flow/loops.mlir").read_text()
    _, m = lowered(text)
    ops = list(m.walk())
    assert any(isinstance(o, scf.IfOp) for o in ops) and any(isinstance(o, scf.ForOp) for o in ops)
    # Every alloc is freed exactly once, in its own block.
    for a in [o for o in ops if isinstance(o, memref.AllocOp)]:
        frees = [u.operation for u in a.results[0].uses if isinstance(u.operation, memref.DeallocOp)]
        assert len(frees) == 1 and frees[0].parent_block() is a.parent_block()


def test_upstream_branches_share_bytes() -> None:
    """The branch buffers of an scf.if are exclusive: the arena is below their sum."""
    text = (ROOT / "tests/filecheck/upstream/branches.mlir").read_text()
    _, m = parse(text)
    s = plan(m, strategy="large-first", alignment=1)
    f = s.functions[0]
    assert f.arena_size < sum(b.size for b in f.buffers)


def test_plan_api_memopt_dialect_matches_ir() -> None:
    ctx, m = parse((ROOT / "examples/chain.mlir").read_text())
    s = plan(m, dma=True)
    from memopt.dialects.plan_attr_names import PLAN_ATTR

    f = main_of(m)
    assert s["main"].arena_size == f.attributes[PLAN_ATTR].arena_size.data
    assert s["main"].onchip_size > s["main"].arena_size  # the ping-pong buffers follow the arena
    assert summarize(m) == s


def test_plan_api_refuses_bad_options() -> None:
    _, m = parse((ROOT / "examples/chain.mlir").read_text())
    with pytest.raises(MemoptError, match="invalid strategy 'fastest'"):
        plan(m, strategy="fastest")
    with pytest.raises(MemoptError, match="alignment"):
        plan(m, alignment=3)


def test_pass_classes_in_a_pipeline_are_deterministic() -> None:
    from xdsl.passes import PassPipeline

    outs = []
    for _ in range(2):
        ctx, m = lowered((ROOT / "examples/chain.mlir").read_text())
        PassPipeline((PlanMemoryPass(arena="arg"), InsertDmaPass(buffers=3))).apply(ctx, m)
        outs.append(printed(m))
    assert outs[0] == outs[1]
    assert "memopt.arena_arg" in outs[0] and '"memref.dma_start"' in outs[0]


def test_embed_example_runs_and_its_output_is_proven() -> None:
    r = subprocess.run([sys.executable, str(ROOT / "examples/embed.py")], capture_output=True, text=True, check=True)
    assert "caller provides" in r.stdout
    _, m = parse(r.stdout)
    f = next(o for o in m.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks)
    check_memref_function(m, f)
    s = summarize(m)
    assert f"caller provides {s.functions[0].onchip_size} scratch bytes" in r.stdout
