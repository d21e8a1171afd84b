#!/usr/bin/env python3
"""Benchmark the planning core on minimalloc CSV traces and on synthetic scaling problems.

For every CSV under bench/data/ (minimalloc's and idealloc's traces, see bench/data/NOTICE) it prints buffers, LB, the height of every registered
strategy and of ``best``, height/LB, and the seconds each took (all measured side by side in one
run). Then it plans synthetic problems of 1k / 10k / 100k buffers of two shapes — ``nn_like``
(short lifetimes, a few live at once) and ``dense`` (about 150 live at once) — with
``large-first`` and the default ``best``, and prints the live-set size, seconds and the growth
ratio against n log n; then training-like traces of 5k / 10k / 30k buffers (``training``: nested
long lifetimes, thousands live at once); last, ``memopt-opt --plan-memory`` end to end on a
1,000-op program (``--only-e2e`` for that alone).

    python bench/pack.py [--data bench/data] [--skip-scaling] [--sizes 1000,10000,100000] [--training-sizes 5000,10000,30000]

Every plan is validated before its height is reported.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import sys
import time

from memopt.planning import lower_bound, make_strategy, strategy_names, validate
from memopt.planning.csvio import read_problem
from memopt.planning.synthetic import dense, nn_like, training

REPO = pathlib.Path(__file__).resolve().parent.parent


def timed_plan(problem, name):
    t0 = time.perf_counter()
    sol = make_strategy(name).plan(problem)
    dt = time.perf_counter() - t0
    validate(problem, sol)
    return sol, dt


def csv_table(data: pathlib.Path, names: list[str]) -> None:
    files = sorted(data.glob("*/*.csv"))
    if not files:
        sys.exit(f"bench/pack.py: error: no CSV files under {data}")
    head = f"{'trace':<34}{'buffers':>8}{'LB':>14}" + "".join(f"{n:>14}" for n in names) + f"{'best/LB':>9}{'ff-desc/LB':>11}{'best s':>8}"
    print(head)
    print("-" * len(head))
    for path in files:
        problem, _ = read_problem(path.read_text(), str(path))
        lb = lower_bound(problem)
        heights, secs = {}, {}
        for n in names:
            sol, dt = timed_plan(problem, n)
            heights[n], secs[n] = sol.height, dt
        best = heights["best"]
        assert best <= heights["large-first"], "best must never lose to size-descending first fit"
        row = f"{path.parent.name + '/' + path.name:<34}{len(problem):>8}{lb:>14}" + "".join(f"{heights[n]:>14}" for n in names)
        row += f"{best / lb:>9.4f}{heights['large-first'] / lb:>11.4f}{secs['best']:>8.2f}"
        print(row)


def live_count(problem) -> float:
    """Mean number of buffers live when a buffer starts (what a placement looks at)."""
    import numpy as np

    starts, ends = np.sort(problem.starts), np.sort(problem.ends)
    live = np.searchsorted(starts, problem.starts, side="right") - np.searchsorted(ends, problem.starts, side="right")
    return float(live.mean())


def scaling(sizes: list[int], training_sizes: list[int]) -> None:
    """``large-first`` and the default ``best`` on the synthetic shapes: ``nn_like`` (lifetimes
    of a few ops, a handful live at once), ``dense`` (lifetimes ~300 steps, ~150 live) and
    ``training`` (a forward/backward step: nested long lifetimes, a third of the buffers live)."""
    print()
    print(f"{'problem':<10}{'n':>8}{'live':>7}{'large-first s':>15}{'best s':>8}{'best':>18}{'validate s':>12}"
          f"{'height/LB':>11}{'s / (n log2 n) x1e6':>22}")
    shapes = (("nn_like", nn_like, sizes), ("dense", dense, sizes), ("training", training, training_sizes))
    for gen_name, gen, ns in shapes:
        for n in ns:
            problem = gen(n, seed=1)
            t0 = time.perf_counter()
            sol = make_strategy("large-first").plan(problem)
            dt = time.perf_counter() - t0
            t1 = time.perf_counter()
            validate(problem, sol)
            dv = time.perf_counter() - t1
            t2 = time.perf_counter()
            best = make_strategy("best").plan(problem)
            db = time.perf_counter() - t2
            print(f"{gen_name:<10}{n:>8}{live_count(problem):>7.0f}{dt:>15.2f}{db:>8.2f}{best.strategy:>18}{dv:>12.2f}"
                  f"{best.height / lower_bound(problem):>11.4f}{dt / (n * math.log2(n)) * 1e6:>22.3f}")
            sys.stdout.flush()


def end_to_end(ops: int = 1000, runs: int = 5) -> None:
    """``memopt-opt --plan-memory`` on an ``ops``-op program as a user runs it (a process: start-up,
    parse, verify, plan, verify, print), median of ``runs``; then with ``--insert-dma --verify-plan``."""
    import statistics
    import subprocess
    import tempfile

    sys.path.insert(0, str(REPO / "bench"))
    from parse_scaling import chain

    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp) / "chain.mlir"
        src.write_text(chain(ops))
        opt = [sys.executable, "-m", "memopt.tools.opt"]
        print()
        for extra in ([], ["--insert-dma", "--verify-plan"]):
            cmd = opt + ["--plan-memory", *extra, str(src), "-o", str(pathlib.Path(tmp) / "out.mlir")]
            subprocess.run(cmd, check=True)  # warm the byte-code cache
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                subprocess.run(cmd, check=True)
                times.append(time.perf_counter() - t0)
            print(f"end to end: memopt-opt --plan-memory {' '.join(extra)} on {ops} ops: "
                  f"median {statistics.median(times):.2f} s of {runs} (min {min(times):.2f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(REPO / "bench" / "data"), help="folder of <suite>/<trace>.csv files")
    ap.add_argument("--skip-scaling", action="store_true")
    ap.add_argument("--only-e2e", action="store_true", help="only the 1,000-op end-to-end timing")
    ap.add_argument("--sizes", default="1000,10000,100000", help="nn_like and dense sizes")
    ap.add_argument("--training-sizes", default="5000,10000,30000", help="training-trace sizes")
    args = ap.parse_args()
    if args.only_e2e:
        end_to_end()
        return
    names = [n for n in strategy_names() if n not in ("search",)]
    csv_table(pathlib.Path(args.data), names)
    if not args.skip_scaling:
        scaling([int(s) for s in args.sizes.split(",")], [int(s) for s in args.training_sizes.split(",")])
    end_to_end()


if __name__ == "__main__":
    main()
