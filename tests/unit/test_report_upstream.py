"""memopt-report and memopt-pool on upstream (func/memref) plans: what they show is what the one
reader of upstream plans reads back, and they refuse exactly the plans verify-plan refuses.

The program (tests/filecheck/report/upstream-summary.test, MLIR after its comments) has a call
to a planned callee, an scf.if whose branches share bytes, a buffer carried through scf.for
iter_args, and weights insert-dma streams into staging buffers.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.parser import Parser
from xdsl.printer import Printer

from memopt.api import context
from memopt.diagnostics import MemoptError
from memopt.passes.insert_dma import InsertDmaPass
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.passes.upstream_plan_io import read_upstream_plan
from memopt.passes.upstream_replay import serial_problem, upstream_allocations
from memopt.passes.verify_plan import verify_upstream_function
from memopt.planning.latency import load_target
from memopt.report.from_ir import plan_view
from memopt.report.summary import summary_text

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "tests/filecheck/report/upstream-summary.test"
CORPUS = Path.home() / ".cache/memopt-flows/seed0"


def parse(text: str):
    return Parser(context(), text).parse_module()


def printed(m) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(m)
    return out.getvalue()


def planned(text: str, dma: bool = True):
    m = parse(text)
    PlanMemoryPass().apply(context(), m)
    if dma:
        InsertDmaPass(mode="always").apply(context(), m)  # every weight streamed
    return parse(printed(m))


def function(m, name: str) -> func.FuncOp:
    return next(f for f in m.body.block.ops if isinstance(f, func.FuncOp) and f.sym_name.data == name)


PLANNED = printed(planned(PROGRAM.read_text()))


def test_report_shows_what_the_reader_reads() -> None:
    m = parse(PLANNED)
    view = plan_view(m, "p.mlir", load_target(None))
    fv = next(v for v in view.functions if v.name == "main")
    (p,) = read_upstream_plan(function(m, "main")).arenas
    rows = {(b.id, off, b.size, b.start, b.end) for b, off in zip(p.problem.buffers, p.offsets)}
    drawn = {(t.name, t.offset, t.size, t.start, t.end) for t in fv.tensors}
    staged = {(s.name, s.offset, s.size) for s in fv.staging}
    assert drawn | {r for r in rows if (r[0], r[1], r[2]) in staged} == rows
    assert {s[0] for s in staged} == {"alloc0", "tags"}
    assert all(s.offset >= fv.arena_size for s in fv.staging)  # placed after the planned bytes
    kinds = {t.name: t.kind for t in fv.tensors}
    assert kinds == {"in": "input", "h": "intermediate", "step_arena": "scratch", "k": "intermediate",
                     "p": "intermediate", "q": "intermediate", "n#0": "loop-carried", "n#1": "loop-carried",
                     "o": "output"}
    assert [(b.if_id, b.branch) for b in fv.branches] == [(0, 0), (0, 1)]
    assert [r.name for r in fv.timelines] == ["@main/0", "@main/if0/else/0", "@main/loop1/body/0", "@main/2"]
    streamed = next(r for r in fv.timelines if r.name == "@main/if0/else/0")
    assert [e.label for e in streamed.events if e.lane == "dma"] == ["load @w"]


def _moved(text: str, name: str, offset: int):
    """The planned program with view ``name`` moved to ``offset`` (a fresh constant)."""
    m = parse(text)
    view = next(op for op in function(m, "main").body.walk()
                if isinstance(op, memref.ViewOp) and op.results[0].name_hint == name)
    c = arith.ConstantOp(IntegerAttr(offset, IndexType()))
    view.parent_block().insert_op_before(c, view)
    view.operands[1] = c.result
    return m, view


def _refusal(check) -> str | None:
    try:
        check()
    except MemoptError as e:
        return e.message
    return None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["in", "h", "k", "p", "q", "o", "step_arena", "alloc0"]),
       offset=st.integers(-32, 1300).map(lambda o: o // 16 * 16))
def test_report_refuses_exactly_what_verify_plan_refuses(name: str, offset: int) -> None:
    """Any offset of any buffer: the report draws it iff verify-plan accepts it; a refusal is
    located at the moved view, or at the function for an arena it no longer fits."""
    m, view = _moved(PLANNED, name, offset)
    f = function(m, "main")
    verified = _refusal(lambda: verify_upstream_function(f))
    reported = _refusal(lambda: plan_view(m, "p.mlir", load_target(None), func_name="main"))
    past_recorded = name != "alloc0" and offset + 512 > 1024  # planned bytes end at memopt.arena_size
    if verified is None and not past_recorded:
        assert reported is None
    if verified is not None:
        assert reported is not None and reported.startswith("invalid plan")


def test_report_refuses_a_planned_buffer_past_the_recorded_arena() -> None:
    """memopt.arena_size shrunk below the planned bytes while the staging buffers keep the
    arena's own size (memopt.onchip_size): the arena holds every view, but the plan says its
    planned bytes end before some (the picture would draw them past the arena line)."""
    m = parse(PLANNED.replace("memopt.arena_size = 1024 : i64", "memopt.arena_size = 768 : i64"))
    with pytest.raises(MemoptError, match=r"buffer 'o' \[768, 1024\) lies past the end of the 768-byte arena") as e:
        plan_view(m, "p.mlir", load_target(None), func_name="main")
    assert isinstance(e.value.op, memref.ViewOp) and e.value.op.results[0].name_hint == "o"


def test_replay_of_a_program_without_branches_keeps_the_planners_steps() -> None:
    """The serial numbering is the planner's where no branch is overlaid."""
    m = planned((ROOT / "examples/mlp.mlir").read_text(), dma=False)
    f = function(m, "mlp")
    (p,) = read_upstream_plan(f).arenas
    assert serial_problem(f, list(p.sites), p.problem) == p.problem
    got = upstream_allocations(f)
    assert got.replayed == p.problem and got.planned == p.problem and got.plan is not None


def test_replay_runs_branches_one_after_the_other() -> None:
    m = parse(PROGRAM.read_text())
    f = function(m, "main")
    got = upstream_allocations(f)
    joint = {b.id: b for b in got.planned.buffers}
    serial = {b.id: b for b in got.replayed.buffers}
    assert joint["p"].path != joint["q"].path and joint["p"].start < joint["q"].end  # overlaid, exclusive
    assert serial["p"].end <= serial["q"].start  # one after the other
    assert all(not b.path for b in got.replayed.buffers)


SMALL = ["mlp.osb.mlir", "cond_if.osb-dealloc.mlir", "gru.loops.mlir", "residual.generalized.mlir",
         "concat_slice.stack.mlir"]


@pytest.mark.skipif(not CORPUS.is_dir(), reason="no upstream corpus (python bench/flows.py generate)")
@pytest.mark.parametrize("name", SMALL)
def test_corpus_plans_are_reported_and_replayed(name: str) -> None:
    path = CORPUS / name
    if not path.exists():
        pytest.skip(f"{name} not in the corpus")
    m = planned(path.read_text(), dma=True)
    view = plan_view(m, name, load_target(None))
    assert view.functions and summary_text(view)
    for f in (o for o in m.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks):
        if any(len(p.problem) for p in read_upstream_plan(f).arenas if p.space == 0):
            got = upstream_allocations(f)
            assert len(got.replayed) == len(got.planned)


def test_a_plan_read_in_the_serial_numbering_is_the_plan_re_timed_as_a_pool_sees_it() -> None:
    """The plan reader's serial numbering gives the replay's buffers: the same buffers and
    offsets as the planner's reading, each timed as serial_problem re-times them (branches one
    after the other, no branch exclusive)."""
    f = function(parse(PLANNED), "main")
    joint = read_upstream_plan(f)
    serial = read_upstream_plan(f, numbering="serial")
    assert serial.numbering == "serial" and joint.numbering == "joint"
    assert len(serial.arenas) == len(joint.arenas) >= 1
    for a, s in zip(joint.arenas, serial.arenas):
        assert s.offsets == a.offsets and s.sites == a.sites and s.staging == a.staging
        assert s.problem == serial_problem(f, list(a.sites), a.problem)
    assert serial.arenas[0].problem != joint.arenas[0].problem  # the branches' buffers re-timed
    assert all(not b.path for b in serial.arenas[0].problem.buffers)
