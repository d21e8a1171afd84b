"""``memopt-run --check --against`` runs each execution it needs once: one planned run per path
when the function moves no weight by DMA (the two landing models are then the same run), and
the rewritten program's unplanned results come from the check's reference run."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.printer import Printer

import memopt.executor.check as check_mod
from memopt.executor import check_module
from memopt.fuzz import _CTX, parse
from memopt.passes.insert_dma import InsertDmaPass
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.executor import flavour
from memopt.tools import run as run_tool

CHAIN = (Path(__file__).resolve().parents[2] / "examples" / "chain.mlir").read_text()


def planned(text: str, dma: bool = False):
    m = parse(text)
    if dma:
        InsertDmaPass().apply(_CTX, m)
    PlanMemoryPass().apply(_CTX, m)
    return m


def landings_run(monkeypatch, module) -> list[str]:
    seen: list[str] = []
    real = check_mod.OwnedPlanned

    def counting(f, module, landing="start", *more):
        seen.append(landing)
        return real(f, module, landing, *more)

    monkeypatch.setattr(check_mod, "OwnedPlanned", counting)
    check_module(module)
    return seen


def test_one_planned_run_without_dma_both_landings_with_it(monkeypatch):
    assert landings_run(monkeypatch, planned(CHAIN)) == ["start"]
    assert landings_run(monkeypatch, planned(CHAIN, dma=True)) == ["start", "wait"]


def _write(module, path: Path) -> Path:
    with path.open("w") as fh:
        Printer(stream=fh).print_op(module)
    return path


@pytest.mark.parametrize("same", [True, False])
def test_against_reuses_the_checks_unplanned_results(monkeypatch, capsys, tmp_path, same):
    rewritten = _write(planned(CHAIN), tmp_path / "p.mlir")
    original = tmp_path / "o.mlir"
    original.write_text(CHAIN if same else CHAIN.replace('"add"(%c2, %r1)', '"add"(%c2, %c2)'))
    runs: list[str] = []
    real = flavour.run_function

    def counting(module, f=None, **kw):
        runs.append("unplanned" if not kw.get("planned") else "planned")
        return real(module, f, **kw)

    monkeypatch.setattr(flavour, "run_function", counting)
    code = run_tool.main([str(rewritten), "--check", "--against", str(original)])
    out, err = capsys.readouterr()
    assert runs == ["unplanned"]  # the original only: the rewritten program's results are the check's
    if same:
        assert code == 0 and f"@main: 1 results bit-exact with {original}" in out
    else:
        assert code == 1 and "@main result #0 (tensor<1x8x16x16xf32>) differs from" in err
