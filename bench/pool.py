#!/usr/bin/env python3
"""Eager pools vs the static plan: every real model of ``bench/models.py``, the generated training
graphs of ``memopt.planning.training`` and the idealloc traces.

Per program (side by side in one run): peak live, each allocator's peak reserved (and
fragmentation ``1 - allocated/reserved`` at peak allocated), memopt's static plan (``best``)
and the lower bound; then a MindSpore block-size sweep on the real models. Models are replayed
as ``memopt-pool`` does (serial execution order, in-place results reusing their operand,
arguments/results persistent); traces as they are.

    python bench/pool.py [--cache DIR] [--only SUBSTR] [--no-models] [--no-traces] [--no-training]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent


def model_trace(path):
    import models  # bench/models.py
    from xdsl.dialects import func
    from xdsl.ir import BlockArgument

    from memopt.importers.api import import_model
    from memopt.passes.lifetime import analyze_function
    from memopt.planning.inplace import fold_overwrites

    r = import_model(str(path), models.input_shapes_for(path))
    f = next(op for op in r.module.walk() if isinstance(op, func.FuncOp) and op.body.blocks)
    lt = analyze_function(f, mode="serial", inplace=True, alignment=1)
    problem, root_of, _ = fold_overwrites(lt.problem)
    persistent = {root_of[i] for i, v in enumerate(lt.owner) if isinstance(v, BlockArgument) and v.block.parent_op() is f}
    return problem, frozenset(persistent)


def training_trace(name: str):
    """A generated training graph (forward + backward, ``memopt.planning.training``) as the
    same kind of trace: its memopt-dialect program, analysed in serial order."""
    from xdsl.dialects import func
    from xdsl.ir import BlockArgument
    from xdsl.parser import Parser

    from memopt.api import context
    from memopt.passes.lifetime import analyze_function
    from memopt.planning.inplace import fold_overwrites
    from memopt.planning.training import TRAINING_GRAPHS, to_mlir

    module = Parser(context(), to_mlir(TRAINING_GRAPHS[name]())).parse_module()
    f = next(op for op in module.walk() if isinstance(op, func.FuncOp) and op.body.blocks)
    lt = analyze_function(f, mode="serial", inplace=True, alignment=1)
    problem, root_of, _ = fold_overwrites(lt.problem)
    persistent = {root_of[i] for i, v in enumerate(lt.owner) if isinstance(v, BlockArgument)}
    return problem, frozenset(persistent)


def row(label, problem, persistent, table):
    from memopt.planning import lower_bound, make_strategy, validate
    from memopt.planning.pool import ALLOCATORS, replay, replay_solution

    if not len(problem):
        return
    t0 = time.perf_counter()
    reports = [replay(problem, a, persistent=persistent) for a in ALLOCATORS]
    dt = time.perf_counter() - t0
    for r in reports:
        validate(problem, replay_solution(problem, r))
    static = make_strategy("best").plan(problem).height
    lb = lower_bound(problem)
    live = reports[0].peak_live
    cells = [f"{r.peak_reserved} ({r.fragmentation:.2f})" for r in reports]
    ok = all(static <= r.peak_reserved for r in reports)
    table["ok"] += ok
    table["n"] += 1
    print(f"| {label} | {len(problem)} | {live} | " + " | ".join(cells) + f" | {static} | {lb} | {'yes' if ok else 'NO'} | {dt:.2f} |")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/memopt-models"))
    ap.add_argument("--only", default=None)
    ap.add_argument("--no-models", action="store_true")
    ap.add_argument("--no-traces", action="store_true")
    ap.add_argument("--no-training", action="store_true", help="skip the generated training graphs")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(HERE))
    from memopt.planning.csvio import read_problem
    from memopt.planning.pool import ALLOCATORS, GiB, MiB, replay

    print("| program | tensors | peak live | " + " | ".join(f"{a} reserved (frag)" for a in ALLOCATORS)
          + " | static plan | LB | static <= every pool | replay s |")
    print("|---|---:|---:|" + "---:|" * len(ALLOCATORS) + "---:|---:|---|---:|")
    table = {"ok": 0, "n": 0}
    sweep = []
    if not args.no_models:
        import models

        for path in models.fetch(pathlib.Path(args.cache)):
            if args.only and args.only not in str(path):
                continue
            try:
                problem, persistent = model_trace(path)
            except Exception as e:  # noqa: BLE001 - report, keep going
                print(f"| {path.name} | error: {type(e).__name__}: {str(e)[:100]} |")
                continue
            row(path.name, problem, persistent, table)
            if len(sweep) < 6 and len(problem) > 50:
                sweep.append((path.name, problem, persistent))
    if not args.no_training:
        from memopt.planning.training import TRAINING_GRAPHS

        for name in TRAINING_GRAPHS:
            problem, persistent = training_trace(name)
            row(f"training/{name}", problem, persistent, table)
            sweep.append((f"training/{name}", problem, persistent))
    if not args.no_traces:
        for csv in sorted((HERE / "data" / "idealloc").glob("*.csv")):
            problem, _ = read_problem(csv.read_text(), str(csv))
            row(f"idealloc/{csv.name}", problem, frozenset(), table)
    print(f"\n# static plan <= every pool's peak reserved on {table['ok']} of {table['n']} programs")
    from memopt.planning.synthetic import nn_like

    big = nn_like(100_000, 7, 16)
    print("\n| replay of 100,000 buffers (200,000 events, planning.synthetic.nn_like) | seconds |")
    print("|---|---:|")
    for a in ALLOCATORS:
        t0 = time.perf_counter()
        replay(big, a)
        print(f"| {a} | {time.perf_counter() - t0:.2f} |")
    if sweep:
        sizes = [64 * 1024, MiB, 16 * MiB, GiB]
        print("\n| model (mindspore block size sweep: peak reserved) | " + " | ".join(f"{s // 1024} KiB" for s in sizes) + " |")
        print("|---|" + "---:|" * len(sizes))
        for name, problem, persistent in sweep:
            cells = [str(replay(problem, "mindspore", persistent=persistent, block_size=s).peak_reserved) for s in sizes]
            print(f"| {name} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
