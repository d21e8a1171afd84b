#!/usr/bin/env python3
"""Benchmark the planning core on minimalloc CSV traces and on synthetic scaling problems.

For every CSV under bench/data/ (minimalloc's and idealloc's traces, see bench/data/NOTICE) it prints buffers, LB, the height of every registered
strategy and of ``best``, height/LB, and the seconds each took (all measured side by side in one
run). Then it plans synthetic NN-like problems of 1k / 10k / 100k buffers with ``large-first``
and prints seconds and the growth ratio against n log n.

    python bench/pack.py [--data bench/data] [--skip-scaling] [--sizes 1000,10000,100000]

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
from memopt.planning.synthetic import nn_like

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


def scaling(sizes: list[int]) -> None:
    print()
    print(f"{'n':>8}{'large-first s':>15}{'validate s':>12}{'height/LB':>11}{'s / (n log2 n) x1e6':>22}")
    for n in sizes:
        problem = nn_like(n, seed=1)
        t0 = time.perf_counter()
        sol = make_strategy("large-first").plan(problem)
        dt = time.perf_counter() - t0
        t1 = time.perf_counter()
        validate(problem, sol)
        dv = time.perf_counter() - t1
        print(f"{n:>8}{dt:>15.2f}{dv:>12.2f}{sol.height / lower_bound(problem):>11.4f}{dt / (n * math.log2(n)) * 1e6:>22.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(REPO / "bench" / "data"), help="folder of <suite>/<trace>.csv files")
    ap.add_argument("--skip-scaling", action="store_true")
    ap.add_argument("--sizes", default="1000,10000,100000")
    args = ap.parse_args()
    names = [n for n in strategy_names() if n not in ("search",)]
    csv_table(pathlib.Path(args.data), names)
    if not args.skip_scaling:
        scaling([int(s) for s in args.sizes.split(",")])


if __name__ == "__main__":
    main()
