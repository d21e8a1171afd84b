#!/usr/bin/env python3
"""Rematerialization under a budget: every heuristic and the eager DTR simulator, side by side.

Graphs: the generated training graphs of ``memopt.planning.training`` (Checkmate's linear chain,
ResNet-20, U-Net, a transformer stack, forward + backward) and, with ``--models``, every real
model of ``bench/models.py`` (inference graphs: their activations die young, so remat helps only
around long skips). Budgets are 90/80/70/60/50/40/30 % of each graph's lower bound (max live
bytes). Per budget and heuristic: overhead = (base + recompute cost) / base cost, ``X`` when the
heuristic cannot fit, ``T`` when it thrashes (overhead > 2x, the DTR paper's limit); for
``lookahead`` also the ops cloned and the arena ``plan-memory`` packs after the
``rematerialize`` pass (the pipeline ``--rematerialize=budget=N --plan-memory``), which must fit.

Then the eager training logs of real architectures (``memopt.planning.training_logs``: ResNet,
DenseNet, Inception, U-Net, transformer, LSTM with in-place ops, batch-norm statistics, views and
arguments; ``--seed`` picks the log): per budget every heuristic, the eager DTR simulator with
MegEngine's score and with the paper's ``h_DTR^eq``, ``lookahead``'s seconds, with ``--prove`` the
pipeline ``--rematerialize=budget=N --plan-memory`` proven by ``memopt-run --check --against`` at
50 % and 30 %, and with ``--optimal`` the optimum (Checkmate's integer program, CP-SAT) at 50 % and
30 % on small logs and on the generated graphs, with lookahead's overhead and recompute cost over it. Then the linear chain against its known optimum
(Griewank's revolve, the first forward sweep free) at every budget, and the time of
``lookahead`` on a 5,000-op transformer at 50 %.

    python bench/remat.py [--models] [--cache DIR] [--chain-max 64] [--seed 0] [--prove] [--optimal]
                          [--optimal-only WORD,...] [--sections graphs,logs,chain,time]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from memopt.planning.remat import (
    HEURISTICS, RematError, live_peak, rematerialize, simulate_eager,
)
from memopt.planning.training import TRAINING_GRAPHS, linear_chain, revolve, to_mlir, transformer

FRACTIONS = (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3)


def cell(graph, budget: int, h: str) -> str:
    try:
        r = rematerialize(graph, budget, h)
    except RematError:
        return "X"
    return "T" if r.overhead > 2 else f"{r.overhead:.3f}"


def eager_cell(graph, budget: int, h: str = "dtr") -> str:
    try:
        e = simulate_eager(graph, budget, h)
    except RematError:
        return "X"
    return "T" if e.overhead > 2 else f"{e.overhead:.3f}"


def pipeline_arena(text: str, budget: int) -> tuple[str, int | None]:
    """``rematerialize{budget}`` then ``plan-memory`` on memopt IR: (ops cloned, arena)."""
    from xdsl.dialects import func
    from xdsl.parser import Parser

    from memopt.api import context
    from memopt.diagnostics import MemoptError
    from memopt.dialects.plan_attr_names import PLAN_ATTR
    from memopt.passes.plan_memory import PlanMemoryPass
    from memopt.passes.rematerialize import RematerializeMemoryPass

    ctx = context()
    m = Parser(ctx, text).parse_module()
    stderr = sys.stderr
    sys.stderr = open(os.devnull, "w")
    try:
        # alignment 1: the same byte sizes the core tables count
        RematerializeMemoryPass(budget=budget, alignment=1).apply(ctx, m)
        PlanMemoryPass(alignment=1).apply(ctx, m)
    except MemoptError:
        return "X", None
    finally:
        sys.stderr.close()
        sys.stderr = stderr
    f = next(o for o in m.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks)
    cloned = sum(1 for o in f.body.walk() if "memopt.remat" in o.attributes)
    return str(cloned), f.attributes[PLAN_ATTR].arena_size.data


def table(name: str, graph, text: str | None) -> dict[str, list[str]]:
    lb = live_peak(graph)
    print(f"\n### {name}: {len(graph.ops)} ops, lower bound {lb} bytes, base cost {graph.base_cost:g}\n")
    print("| budget | " + " | ".join(HEURISTICS) + " | eager DTR | lookahead clones | arena after plan-memory |")
    print("|---|" + "---:|" * (len(HEURISTICS) + 3))
    cells: dict[str, list[str]] = {h: [] for h in HEURISTICS}
    for frac in FRACTIONS:
        budget = int(lb * frac)
        row = [cell(graph, budget, h) for h in HEURISTICS]
        for h, c in zip(HEURISTICS, row):
            cells[h].append(c)
        clones, arena = pipeline_arena(text, budget) if text else ("-", None)
        fits = "" if arena is None else (" (fits)" if arena <= budget else " (OVER)")
        print(f"| {int(frac * 100)} % = {budget} | " + " | ".join(row) + f" | {eager_cell(graph, budget)} | "
              f"{clones} | {arena if arena is not None else '-'}{fits} |")
        sys.stdout.flush()
    return cells


def _timed_lookahead(graph, budget: int) -> tuple[str, float]:
    t = time.perf_counter()
    c = cell(graph, budget, "lookahead")
    return c, time.perf_counter() - t


MAX_BYTES = 6 << 30
"""Storage the proof's executions may use (the unplanned and planned runs of a log)."""


def _tool(name: str) -> str:
    """A memopt tool beside this Python (the venv's), else from PATH."""
    here = os.path.join(os.path.dirname(sys.executable), name)
    return here if os.path.exists(here) else name


def prove(text: str, budget: int) -> str:
    """The pipeline on ``text`` at ``budget``, proven against the original by ``memopt-run``."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "log.mlir"), os.path.join(d, "remat.mlir")
        with open(src, "w") as f:
            f.write(text)
        r = subprocess.run([_tool("memopt-opt"), src, f"--rematerialize=budget={budget}", "--plan-memory", "-o", out],
                           capture_output=True, text=True)
        if r.returncode:
            return "X"
        r = subprocess.run([_tool("memopt-run"), out, "--check", "--against", src, "--max-bytes", str(MAX_BYTES)],
                           capture_output=True, text=True)
        if r.returncode and "--max-bytes" in r.stderr:
            return "too large to run"
        return "proven" if r.returncode == 0 else "FAILED"


def real_logs(seed: int, with_proof: bool) -> tuple[int, int, int, int]:
    """The logs' tables; returns (budgets eager DTR meets, of them lookahead misses, budgets at
    50/30 % where both meet, of them lookahead's overhead at or below h_DTR^eq's)."""
    from memopt.planning.training_logs import LOGS, logs_to_mlir

    met = missed = compared = at_or_below = 0
    for name, make in LOGS.items():
        g = make(seed=seed)
        lb = live_peak(g)
        print(f"\n### {name} log (seed {seed}): {len(g.ops)} ops, lower bound {lb} bytes\n")
        print("| budget | " + " | ".join(HEURISTICS) + " | eager dtr | eager h_DTR^eq | lookahead s | proof |")
        print("|---|" + "---:|" * (len(HEURISTICS) + 4))
        text = logs_to_mlir(g) if with_proof else None
        for frac in FRACTIONS:
            budget = int(lb * frac)
            la, secs = _timed_lookahead(g, budget)
            row = [la] + [cell(g, budget, h) for h in HEURISTICS[1:]]
            eager = [eager_cell(g, budget, h) for h in ("dtr", "dtr-eq")]
            key = frac in (0.5, 0.3)
            proof = prove(text, budget) if text and key else "-"
            for e in eager:
                if e[0].isdigit():
                    met += 1
                    missed += not la[0].isdigit()
            if key and la[0].isdigit() and eager[1][0].isdigit():
                compared += 1
                at_or_below += float(la) <= float(eager[1])
            print(f"| {int(frac * 100)} % = {budget} | " + " | ".join(row) + f" | {' | '.join(eager)} | "
                  f"{secs:.1f} | {proof} |")
            sys.stdout.flush()
    return met, missed, compared, at_or_below


REFERENCE = {
    "densenet": dict(depth=16, growth=4, resolution=16, batch=8, classes=4),
    "inception": dict(modules4=0, width=8, resolution=32, batch=8, classes=4),
    "unet": dict(levels=2, width=4, resolution=64, batch=4, classes=2),
    "transformer": dict(layers=2, seq=32, dim=16, batch=8, vocab=16),
}
"""Knobs of small logs (115-286 ops) whose activations, not their pinned parameters, set the
working set, so that 50 % of the lower bound (30 % for DenseNet and U-Net) is above it — the
``SMALL`` logs, built to execute fast, are pinned-heavy: only DenseNet's reaches 50 %. ResNet's
and the LSTM's small logs never get under 50 % (a stem convolution's or a step's working set)."""


def optimum_table(only: tuple[str, ...] = ()) -> None:
    """The optimum (Checkmate's integer program on CP-SAT, default work) beside every heuristic
    at 50 % and 30 % of the lower bound: the small logs, the activation-heavy small logs
    (:data:`REFERENCE`) and the generated training graphs. ``over optimum``: lookahead's overhead
    over the optimum's, and its recompute cost over the optimum's (the stricter measure). ``only``:
    the graphs whose name contains one of these (empty: all)."""
    from memopt.planning.remat import working_set_bound
    from memopt.planning.remat_optimal import solve
    from memopt.planning.training_logs import LOGS, SMALL

    graphs = [(f"{name} (small)", make(seed=0, **SMALL[name])) for name, make in LOGS.items()]
    graphs += [(f"{name} (reference)", LOGS[name](seed=0, **kn)) for name, kn in REFERENCE.items()]
    graphs += [(name, TRAINING_GRAPHS[name]()) for name in ("resnet-20", "unet-4", "transformer-4")]
    graphs = [(name, g) for name, g in graphs if not only or any(w in name for w in only)]
    print("\n### Against the optimum (Checkmate's integer program, CP-SAT, default work)\n")
    print("| graph | ops | budget | optimum | proven (bound) | " + " | ".join(HEURISTICS)
          + " | lookahead over optimum: overhead / recompute cost | s |")
    print("|---|---:|---|---:|---|" + "---:|" * (len(HEURISTICS) + 2))
    for name, g in graphs:
        lb = live_peak(g)
        for frac in (0.5, 0.3):
            budget = int(lb * frac)
            head = f"| {name} | {len(g.ops)} | {int(frac * 100)} % |"
            if budget < working_set_bound(g)[0]:
                print(head + " below the working set |" + " |" * (len(HEURISTICS) + 3))
                continue
            t = time.perf_counter()
            try:
                run = solve(g, budget)
                o = run.result
                opt = f"{o.overhead:.4f}"
                proven = "yes" if run.proven else f"no ({(g.base_cost + run.lower_bound) / g.base_cost:.4f})"
            except RematError as e:  # X: none found within the work; infeasible: proven so
                o, opt, proven = None, "infeasible" if "infeasible" in str(e) else "X", "-"
            secs = time.perf_counter() - t
            results = {}
            for h in HEURISTICS:
                try:
                    results[h] = rematerialize(g, budget, h)
                except RematError:
                    pass
            row = [("T" if results[h].overhead > 2 else f"{results[h].overhead:.4f}") if h in results else "X"
                   for h in HEURISTICS]
            la = results.get("lookahead")
            if la is not None and o is not None:
                extra = (f"{100 * (la.extra_cost / o.extra_cost - 1):.1f} %" if o.extra_cost
                         else ("0.0 %" if not la.extra_cost else "inf"))
                gap = f"{100 * (la.overhead / o.overhead - 1):.1f} % / {extra}"
            else:
                gap = "-"
            print(head + f" {opt} | {proven} | " + " | ".join(row) + f" | {gap} | {secs:.0f} |")
            sys.stdout.flush()


def chain_vs_optimum(max_n: int) -> None:
    print("\n### Linear chain (unit costs and sizes) against the optimum\n")
    print("| layers | budgets | lookahead: worst excess over optimum | budgets within 10 % | dtr: worst excess |")
    print("|---:|---:|---:|---:|---:|")
    n = 8
    while n <= max_n:
        g = linear_chain(n)
        worst = worst_dtr = 0.0
        within = total = 0
        for budget in range(4, live_peak(g) + 1):
            opt = revolve(n, budget - 4)
            ours = rematerialize(g, budget, "lookahead").extra_cost
            try:
                theirs = rematerialize(g, budget, "dtr").extra_cost
                worst_dtr = max(worst_dtr, (theirs - opt) / max(opt, 1))
            except RematError:
                worst_dtr = float("inf")
            excess = (ours - opt) / max(opt, 1)
            worst = max(worst, excess)
            within += excess <= 0.10 + 1e-12
            total += 1
        print(f"| {n} | {total} | {100 * worst:.1f} % | {within}/{total} | {100 * worst_dtr:.1f} % |")
        sys.stdout.flush()
        n *= 2


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", action="store_true", help="also every real model of bench/models.py")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/memopt-models"))
    ap.add_argument("--chain-max", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0, help="which eager training log of each architecture")
    ap.add_argument("--prove", action="store_true", help="prove the logs' rewrites at 50 %% and 30 %% (slow)")
    ap.add_argument("--optimal", action="store_true",
                    help="the optimum on small logs and the generated graphs at 50/30 %% (slow: an hour)")
    ap.add_argument("--optimal-only", default="",
                    help="comma-separated words: the optimum only on graphs whose name contains one")
    ap.add_argument("--sections", default=",".join(SECTIONS),
                    help=f"comma-separated, of {', '.join(SECTIONS)} (default: all; --optimal adds its table)")
    args = ap.parse_args(argv)
    sections = set(args.sections.split(","))
    if sections - set(SECTIONS):
        ap.error(f"unknown section '{sorted(sections - set(SECTIONS))[0]}' (expected: {', '.join(SECTIONS)})")
    if "graphs" in sections:
        training_graph_tables()
    if "logs" in sections:
        met, missed, compared, below = real_logs(args.seed, args.prove)
        print(f"\n# real-architecture logs: of {met} (budget, eager DTR score) pairs the eager simulator meets, "
              f"lookahead misses {missed}; at 50 % and 30 % lookahead's overhead is at or below h_DTR^eq's on "
              f"{below} of {compared} budgets both meet")
    if args.optimal:
        optimum_table(tuple(w for w in args.optimal_only.split(",") if w))
    if "chain" in sections:
        chain_vs_optimum(args.chain_max)
    if "time" in sections:
        time_large()
    if args.models:
        model_tables(args.cache)
    return 0


SECTIONS = ("graphs", "logs", "chain", "time")
"""The parts of the run ``--sections`` selects, in the order they print."""


def training_graph_tables() -> None:
    """The generated training graphs' tables and lookahead's wins and losses against dtr."""
    wins = losses = compared = 0
    for name, make in TRAINING_GRAPHS.items():
        g = make()
        cells = table(name, g, to_mlir(g))
        for a, b in zip(cells["lookahead"], cells["dtr"]):
            if a[0].isdigit() and b[0].isdigit():
                compared += 1
                wins += float(a) < float(b)
                losses += float(a) > float(b)
            elif a[0].isdigit():
                compared += 1
                wins += 1
    print(f"\n# training graphs: lookahead vs dtr overhead at {compared} budgets either meets: "
          f"lower on {wins}, higher on {losses}")


def time_large() -> None:
    """``lookahead`` on a 5,000-op transformer at 50 %: wall and CPU seconds (the two differ on a
    loaded machine)."""
    g = transformer(layers=190, seq=64, dim=128)
    lb = live_peak(g)
    t, c = time.perf_counter(), time.process_time()
    r = rematerialize(g, lb // 2, "lookahead")
    print(f"\n# time: lookahead on a {len(g.ops)}-op transformer at 50 % of its lower bound: "
          f"{time.perf_counter() - t:.1f} s ({time.process_time() - c:.1f} s CPU; overhead {r.overhead:.3f}, "
          f"{r.cloned} ops cloned)")


def model_tables(cache: str) -> None:
    """Every real model of ``bench/models.py`` (inference graphs)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import io
    import pathlib

    import models
    from xdsl.dialects import func
    from xdsl.printer import Printer

    from memopt.importers.api import import_model
    from memopt.passes.remat_trace import remat_graph

    for path in models.fetch(pathlib.Path(cache)):
        try:
            r = import_model(str(path), models.input_shapes_for(path))
        except Exception as e:  # noqa: BLE001
            print(f"\n### {path.name}: import error {str(e)[:60]}")
            continue
        out = io.StringIO()
        Printer(stream=out).print_op(r.module)
        f = next(o for o in r.module.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks)
        table(path.name, remat_graph(f, 16).graph, out.getvalue())


if __name__ == "__main__":
    sys.exit(main())
