"""bench/search.py's peer run: MiniMalloc's output is read back and validated, never trusted;
bench/calibrate_packed.py's statistics on a known instance."""

from __future__ import annotations

import importlib.util
import os
import stat
import sys
from pathlib import Path

import numpy as np
import pytest

from memopt.planning import PlanningError
from memopt.planning.problem import Buffer, Problem

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _fake_solver(tmp_path: Path, body: str) -> str:
    """A stand-in for MiniMalloc's binary: same flags, a Python body that writes --output."""
    path = tmp_path / "fake_minimalloc"
    path.write_text(
        f"#!{sys.executable}\n"
        "import sys, csv, time\n"
        "args = dict(a[2:].split('=', 1) for a in sys.argv[1:])\n"
        "rows = list(csv.DictReader(open(args['input'])))\n"
        f"{body}\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


PROBLEM = Problem.of([Buffer("a", 600_000, 0, 10), Buffer("b", 400_000, 5, 15), Buffer("c", 600_000, 10, 20)])


def _write(offsets: str) -> str:
    return (
        "out = open(args['output'], 'w')\n"
        "out.write('id,lower,upper,size,offset\\n')\n"
        f"offs = {offsets}\n"
        "for r, o in zip(rows, offs):\n"
        "    out.write(f\"{r['id']},{r['lower']},{r['upper']},{r['size']},{o}\\n\")\n"
    )


@pytest.mark.skipif(os.name != "posix", reason="a script with a shebang stands in for the binary")
def test_a_peer_fit_is_validated_and_its_height_read_back(tmp_path):
    search = _load("search")
    height, seconds = search.minimalloc_run(_fake_solver(tmp_path, _write("[0, 600000, 0]")), PROBLEM, 30)
    assert height == 1_000_000 and seconds >= 0


@pytest.mark.skipif(os.name != "posix", reason="a script with a shebang stands in for the binary")
def test_an_overlapping_peer_plan_is_refused(tmp_path):
    search = _load("search")
    with pytest.raises(PlanningError):
        search.minimalloc_run(_fake_solver(tmp_path, _write("[0, 0, 0]")), PROBLEM, 30)


@pytest.mark.skipif(os.name != "posix", reason="a script with a shebang stands in for the binary")
def test_a_peer_that_runs_out_of_time_or_writes_nothing_has_no_fit(tmp_path):
    search = _load("search")
    assert search.minimalloc_run(_fake_solver(tmp_path, "time.sleep(30)"), PROBLEM, 0.5)[0] is None
    assert search.minimalloc_run(_fake_solver(tmp_path, "pass"), PROBLEM, 30)[0] is None


def test_calibration_statistics_of_a_known_instance():
    """Two buffers side by side in memory for the whole horizon, a third after: the statistics
    the generator is calibrated on, computed by hand."""
    cal = _load("calibrate_packed")
    unit, cap = 1024, 1 << 20
    p = Problem.of([
        Buffer("a", cap // 2, 0, 512 * unit),
        Buffer("b", cap // 2, 0, 512 * unit),
        Buffer("c", cap // 4, 512 * unit, 1024 * unit),
    ])
    s = cal.statistics(p)
    assert s["buffers"] == 3 and s["peak live"] == 2 and s["distinct sizes"] == 2
    assert s["peak load %"] == 100 and s["time at >=95 % load %"] == 50
    assert s["area %"] == pytest.approx(62.5)
    assert s["largest size %"] == 50 and s["median size %"] == 50
    assert s["large-first over %"] == 0
    # a and b share the largest size, both tall (>= half the capacity), live over half the horizon
    assert s["largest repeats"] == 2 and s["tall %"] == pytest.approx(200 / 3) and s["tall time %"] == 50
    # log10 areas (lifetime and size as shares of horizon and capacity): 1/4, 1/4, 1/8
    logs = np.log10([0.25, 0.25, 0.125])
    assert s["log area spread"] == pytest.approx(float(np.std(logs)))
    assert s["size-lifetime corr"] == 0  # every lifetime is half the horizon: undefined, read as 0
    q = Problem.of([Buffer("tall", cap // 2, 0, 256 * unit), Buffer("long", cap // 8, 0, 1024 * unit),
                    Buffer("mid", cap // 4, 256 * unit, 768 * unit)])
    sq = cal.statistics(q)
    assert sq["size-lifetime corr"] == pytest.approx(-1)  # the taller, the shorter
    assert sq["largest repeats"] == 1 and sq["tall time %"] == 25  # "tall" covers the first quarter


def test_generated_best_reports_per_family_and_against_large_first(capsys, monkeypatch):
    """``--generated-best``: per-family means of best's overshoot over the known capacity, and
    whether it ever lands above large-first — here with best replaced by a stand-in that lands
    one unit above large-first on one instance, which the line must report."""
    search = _load("search")
    calls = []

    def fake_best(problem):
        calls.append(problem)
        h = search.make_strategy("large-first").plan(problem).height
        return h + 1 if len(calls) == 2 else h

    monkeypatch.setattr(search, "greedy_of", fake_best)
    search.generated_best(3, 73001)
    out = capsys.readouterr().out
    assert "seeds 73001..73003" in out
    assert "never above large-first: False" in out
    assert len(calls) == 3
    families = out.splitlines()[1].split()
    assert sum(int(w.strip("()")) for w in families[2::3]) == 3  # counts per family add up


def test_joint_time_compares_one_polish_with_every_candidate_polished(capsys):
    """``bench/control_flow.py --joint-time``: both ways run on the same programs, the pass's
    own ``unpolished`` is restored afterwards, and the summary reports the ratio and whether
    the arenas agree."""
    import memopt.passes.plan_function as pm
    import memopt.planning.control_flow as cf

    bench = _load("control_flow")
    before = (cf.unpolished, pm.unpolished)
    bench.joint_time(2, 9100)
    out = capsys.readouterr().out
    assert (cf.unpolished, pm.unpolished) == before
    assert "polished once:" in out and "every candidate polished:" in out
    assert "of 2 programs (seeds 9100..9101)" in out and "same arena everywhere: True" in out
