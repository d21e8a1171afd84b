"""memopt.api and plan-memory's export on upstream (func/memref) plans: both say what the one
reader of upstream plans reads back from the IR.

The program (tests/filecheck/report/upstream-summary.test, which is MLIR after its comments)
has a call to a planned callee (its arena passed as a slice of the caller's), an scf.if whose
branches share bytes, a buffer carried through scf.for iter_args (two buffers by parity), and
weights insert-dma can stream.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.parser import Parser
from xdsl.printer import Printer

from memopt.api import PlannedBuffer, context, plan, summarize
from memopt.diagnostics import MemoptError
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.dialects.plan_attr_names import STAGING_ATTR
from memopt.passes.upstream_plan_io import read_upstream_plan

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = ROOT / "tests/filecheck/report/upstream-summary.test"


def parse(text: str):
    return Parser(context(), text).parse_module()


def printed(m) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(m)
    return out.getvalue()


def funcs(m) -> dict[str, func.FuncOp]:
    return {f.sym_name.data: f for f in m.body.block.ops if isinstance(f, func.FuncOp) and f.body.blocks}


def read_back(f: func.FuncOp) -> list[PlannedBuffer]:
    """What the reader reads: every non-staging buffer of every arena."""
    return sorted((PlannedBuffer(b.id, off, b.size, p.space) for p in read_upstream_plan(f).arenas
                   for b, off, v in zip(p.problem.buffers, p.offsets, p.sites) if STAGING_ATTR not in v.attributes),
                  key=lambda b: (b.space, b.offset, b.name))


@pytest.mark.parametrize("dma", [False, True])
def test_summary_is_what_the_reader_reads(dma: bool) -> None:
    m = parse(PROGRAM.read_text())
    s = plan(m, dma={"mode": "always"} if dma else False)  # every weight streamed
    again = parse(printed(m))  # what the next tool of the flow reads
    assert summarize(again) == s
    for name, f in funcs(again).items():
        assert list(s[name].buffers) == read_back(f)
    main = s["main"]
    names = {b.name for b in main.buffers}
    assert {"n#0", "n#1", "p", "q", "step_arena"} <= names  # carried pair, branches, callee arena
    assert not {"alloc0", "tags"} & names  # staging buffers are in onchip_size, not buffers
    assert main.onchip_size == (1288 if dma else main.arena_size)
    assert all(b.offset + b.size <= main.arena_size for b in main.buffers)


def test_summary_reads_every_memory_space() -> None:
    m = parse(PROGRAM.read_text())
    from memopt.passes.insert_dma import InsertDmaPass

    InsertDmaPass(mode="always", staging_space=2).apply(context(), m)
    PlanMemoryPass().apply(context(), m)
    s = summarize(parse(printed(m)))["main"]
    assert s.space_arena_sizes == ((2, 264),)
    staged = [b for b in s.buffers if b.space == 2]
    assert {b.name for b in staged} == {"alloc0", "tags"}  # planned allocs of space 2, not views of the default arena
    assert all(b.offset + b.size <= 264 for b in staged)


def test_summary_of_an_unstated_offset_is_the_readers_error() -> None:
    """An offset the reader cannot tell (not a constant) is its located error, not a guess."""
    from xdsl.dialects import arith, memref

    m = parse(PROGRAM.read_text())
    plan(m)
    m = parse(printed(m))
    view = next(op for op in funcs(m)["main"].body.walk()
                if isinstance(op, memref.ViewOp) and op.results[0].name_hint == "h")
    twice = arith.AddiOp(view.byte_shift, view.byte_shift)
    view.parent_block().insert_op_before(twice, view)
    view.operands[1] = twice.result
    with pytest.raises(MemoptError, match="not a constant") as e:
        summarize(m)
    assert e.value.op is view


def _rows(path: Path) -> list[dict]:
    return list(csv.DictReader(path.open()))


def _overlaps(rows: list[tuple[str, int, int]]) -> set[frozenset]:
    """Pairs of buffers whose live intervals meet (the relation a plan must respect)."""
    return {frozenset((a[0], b[0])) for i, a in enumerate(rows) for b in rows[i + 1:] if a[1] < b[2] and b[1] < a[2]}


def test_export_rows_are_what_the_reader_reads_back(tmp_path: Path) -> None:
    """plan-memory{export} writes the plan it writes in the IR: per function the same buffers
    with the same sizes and offsets, and the same pairs live together. Steps differ (the export
    numbers the input; the planned IR has the arena views and offset constants in between), and
    a callee's arena is exported as '<callee>.arena@<step>' where the IR names its view
    '<callee>_arena'."""
    m = parse(PROGRAM.read_text())
    out = tmp_path / "plan.csv"
    PlanMemoryPass(export=str(out)).apply(context(), m)
    exported: dict[str, list[tuple]] = {}
    for r in _rows(out):
        fn, name = r["id"].split("::")
        name = name.split(".arena@")[0] + "_arena" if ".arena@" in name else name
        exported.setdefault(fn, []).append((name, int(r["lower"]), int(r["upper"]), int(r["size"]), int(r["offset"])))
    for fn, f in funcs(parse(printed(m))).items():
        (p,) = read_upstream_plan(f).arenas
        back = [(b.id, b.start, b.end, b.size, off) for b, off in zip(p.problem.buffers, p.offsets)]
        assert sorted((r[0], r[3], r[4]) for r in exported[fn]) == sorted((r[0], r[3], r[4]) for r in back)
        assert _overlaps([r[:3] for r in exported[fn]]) == _overlaps([r[:3] for r in back])


def test_export_without_calls_or_branches_matches_on_mlp(tmp_path: Path) -> None:
    """Without calls, ids match exactly."""
    m = parse((ROOT / "examples/mlp.mlir").read_text())
    out = tmp_path / "mlp.csv"
    PlanMemoryPass(export=str(out)).apply(context(), m)
    (p,) = read_upstream_plan(funcs(parse(printed(m)))["mlp"]).arenas
    rows = _rows(out)
    assert {r["id"]: (int(r["size"]), int(r["offset"])) for r in rows} == \
        {b.id: (b.size, off) for b, off in zip(p.problem.buffers, p.offsets)}
    assert len(rows) == len(p.problem)
    assert _overlaps([(r["id"], int(r["lower"]), int(r["upper"])) for r in rows]) == \
        _overlaps([(b.id, b.start, b.end) for b in p.problem.buffers])
