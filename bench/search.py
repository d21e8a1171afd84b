"""Benchmark the ``search`` strategy (a script, not a test).

Prints, in one run:

* minimalloc's challenging suite A–K at capacity 1,048,576 (height, % over best known, % over
  LB, seconds), with the default ``best`` (no budget) beside it;
* every idealloc trace without a capacity (height, LB, % over LB, seconds);
* scaling on ``synthetic.nn_like(n)`` for n = 1k, 5k, 10k, 20k (seconds, height/LB, greedy/LB);
* with ``--generated K``: K fresh instances built from a known packing of the capacity, of the
  suite's joint statistics (``--family suite``, ``synthetic.suite_like``, the default) or the
  harder per-statistic ones (``--family stress``, ``synthetic.packed``); with ``--minimalloc
  BINARY`` MiniMalloc's own solver (built by the user from google/minimalloc) runs on each with
  the same limit, its plans validated here;
* with ``--generated-best K``: the default ``best`` alone on K fresh instances (no search), its
  mean over the capacity per family — the larger sample its mean needs;
* with ``--default K`` (alone): the default on the suite, K fresh look-alikes, the idealloc
  traces and generated training traces (``--traces`` per size of 5k, 10k, 30k buffers), beside
  the same default without its CP-SAT step (``planning/aim.py``) and its descent.

(the ``greedy``/``best`` columns are the portfolio ``best`` without a budget, for comparison;
``seconds`` is the search alone, which includes whatever part of the portfolio it runs itself)

MiniMalloc's binary is not part of memopt (nor built by it). On Debian 12, whose abseil predates
``absl/log``, it builds from google/minimalloc's ``src/`` with ``apt-get install libabsl-dev``, a
CMake file linking ``absl::flags absl::flags_parse absl::statusor absl::strings absl::time``,
three stand-in headers for ``absl/log/{log,initialize,globals}.h`` (``LOG`` writing to stderr,
no-op ``InitializeLog``/``SetStderrThreshold``/``EnableLogPrefix``) and ``absl::string_view``
for the ``std::string_view`` loop variable in ``converter.cc``'s ``FromCsv``.

Usage: ``python bench/search.py [--budget S] [--only NAME] [--bench-dir DIR] [--generated K
--seed S --family suite|stress --jobs J --minimalloc BINARY] [--generated-best K]``. ``--budget`` is the per-run
budget (default: 60 s for A–K and generated instances, 10 s for the others); ``--only`` keeps
the rows whose name contains NAME (``--only C.``, ``--only resnet``, ``--only nn_like``). Every
plan is validated.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from memopt.planning import lower_bound, make_strategy, validate
from memopt.planning.csvio import read_problem
from memopt.planning.search import SearchStrategy
from memopt.planning.synthetic import nn_like

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIR = os.path.join(HERE, "data")  # minimalloc and idealloc traces, see data/NOTICE
CAPACITY = 1_048_576
BEST_KNOWN = {"A": 1_048_576, "B": 1_048_576, "C": 1_039_360, "D": 1_038_336, "E": 1_048_576,
              "F": 1_048_576, "G": 1_048_576, "H": 1_048_576, "I": 1_048_576, "J": 1_032_192,
              "K": 1_048_576}
"""Lowest valid heights known: the lower bound where a plan reaches it (optimal), else the
lowest plan found — D and J by memopt's own search without a capacity (``memopt-pack --strategy
search --budget 90``, the plan checked by ``memopt-pack --check``), below the heights known
before (D 1,045,504, J the capacity)."""
DEVELOPED_ON = "ABCDEF"
"""The suite's instances the search was first developed on; G-K (published later in the same
repository) are reported apart. They were not held out throughout: I showed where the branch
and bound's preorder departed from MiniMalloc's own (a node-by-node trace against the C++
solver), and G-K were among the instances the default's polish schedule was chosen on."""


def greedy_of(problem) -> int:
    """Height of the default strategy (``best`` without a budget: the greedy portfolio and its
    polish), for comparison."""
    return make_strategy("best").plan(problem).height


def run(problem, budget, capacity=None):
    strategy = SearchStrategy(budget=budget, capacity=capacity)
    t0 = time.perf_counter()
    sol = strategy.plan(problem)
    seconds = time.perf_counter() - t0
    validate(problem, sol)
    return sol, seconds, strategy.stats


def _generate(family: str, seed: int):
    from memopt.planning.synthetic import packed, suite_like, suite_template

    if family == "suite":
        return suite_like(seed)[0], suite_template(seed)
    return packed(seed)[0], "stress"


def minimalloc_run(binary: str, problem, budget: float) -> tuple[int | None, float]:
    """Run MiniMalloc's own solver (a binary built from google/minimalloc, given by the user) on
    ``problem`` at ``CAPACITY`` with a wall-clock limit; its output is read back and validated
    here like any plan. Returns (height or None when no fit was reported in time, seconds)."""
    import subprocess
    import tempfile

    from memopt.planning import Solution

    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "in.csv"), os.path.join(tmp, "out.csv")
        with open(src, "w") as f:
            f.write("id,lower,upper,size\n")
            f.writelines(f"{b.id},{b.start},{b.end},{b.size}\n" for b in problem.buffers)
        t0 = time.perf_counter()
        try:
            subprocess.run([binary, f"--capacity={CAPACITY}", f"--input={src}", f"--output={out}"],
                           capture_output=True, timeout=budget, check=False)
        except subprocess.TimeoutExpired:
            return None, time.perf_counter() - t0
        seconds = time.perf_counter() - t0
        if not os.path.exists(out):
            return None, seconds
        _, offsets = read_problem(open(out).read(), out)
    if offsets is None or len(offsets) != len(problem):
        return None, seconds
    sol = Solution.of(problem, offsets, "minimalloc")
    validate(problem, sol)
    return sol.height, seconds


def _one_generated(job):
    family, seed, budget, binary = job
    problem, template = _generate(family, seed)
    t0 = time.perf_counter()
    greedy = greedy_of(problem)
    greedy_s = time.perf_counter() - t0
    sol, sec, stats = run(problem, budget, CAPACITY)
    mm = minimalloc_run(binary, problem, budget) if binary else None
    return seed, template, len(problem), lower_bound(problem), greedy, greedy_s, sol.height, sec, stats.get("source"), mm


def generated(k: int, seed: int, budget: float, jobs: int, family: str = "suite", binary: str | None = None) -> None:
    """``k`` fresh instances, each built from a packing of height ``CAPACITY`` (so a fit exists):
    does ``search`` find one within ``budget``? ``family`` "suite" follows the challenging suite's
    joint statistics (``synthetic.suite_like``, the column says which instance's family), "stress"
    draws each statistic alone (``synthetic.packed``: harder than the suite). With ``binary``,
    MiniMalloc's own solver runs on the same instance with the same limit, one after the other."""
    from concurrent.futures import ProcessPoolExecutor

    name = "suite_like" if family == "suite" else "packed"
    print(f"held-out instances (planning.synthetic.{name}, seeds {seed}..{seed + k - 1}), capacity {CAPACITY:,}, "
          f"budget {budget:g} s, {jobs} in parallel")
    print(f"{'seed':>6}{'family':>7}{'buffers':>8}{'LB':>11}{'best':>11}{'best %':>8}{'best s':>7}{'height':>11}{'fits':>6}"
          f"{'seconds':>9}" + (f"{'MiniMalloc s':>14}" if binary else "") + "  source")
    print("(best: the default strategy without a budget; % over the capacity, a height known to be reachable"
          + ("; MiniMalloc s: its solver's seconds to a fit, NO if none within the budget" if binary else "") + ")")
    fits = fast = greedy_fits = mm_fits = 0
    over = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        jobs_ = [(family, s, budget, binary) for s in range(seed, seed + k)]
        for sd, template, n, lb, greedy, greedy_s, height, sec, source, mm in pool.map(_one_generated, jobs_):
            ok = height <= CAPACITY
            fits += ok
            fast += ok and sec <= 10
            greedy_fits += greedy <= CAPACITY
            known = min(CAPACITY, height, greedy)  # a packing of CAPACITY exists by construction
            over.append(100 * (greedy - known) / known)
            mm_col = ""
            if binary:
                mm_ok = mm[0] is not None and mm[0] <= CAPACITY
                mm_fits += mm_ok
                mm_col = f"{(f'{mm[1]:.2f}' if mm_ok else 'NO'):>14}"
            print(f"{sd:>6}{template:>7}{n:>8}{lb:>11,}{greedy:>11,}{100 * (greedy - CAPACITY) / CAPACITY:>8.1f}{greedy_s:>7.2f}"
                  f"{height:>11,}{'yes' if ok else 'NO':>6}{sec:>9.2f}{mm_col}  {source}", flush=True)
    print(f"# {fits}/{k} fit capacity within {budget:g} s ({fast} within 10 s); default best fits {greedy_fits}, "
          f"mean {sum(over) / len(over):.1f} % over the best known height (min of capacity, search, best)"
          + (f"; MiniMalloc fits {mm_fits}/{k}" if binary else ""))
    print()


def generated_best(k: int, seed: int, family: str = "suite") -> None:
    """The default ``best`` alone on ``k`` fresh instances (cheap: no search), against the
    capacity each is known to fit: mean % over it per template family and overall, with
    ``large-first`` beside it, and ``best``'s slowest and median time. Why apart from
    :func:`generated`: a mean of ``best`` over 10-20 instances moves by several points with the
    family mix (C, E and K families sit at 13-18 %, D, F, H and J near 0), so the claim needs a larger
    sample than the minute-long searches allow."""
    import numpy as np

    over, greedy, secs, by = [], [], [], {}
    for s in range(seed, seed + k):
        problem, template = _generate(family, s)
        t0 = time.perf_counter()
        h = greedy_of(problem)
        secs.append(time.perf_counter() - t0)
        g = make_strategy("large-first").plan(problem).height
        known = min(CAPACITY, h, g)
        over.append(100 * (h - known) / known)
        greedy.append(100 * (g - known) / known)
        by.setdefault(template, []).append(over[-1])
    print(f"default best on {k} fresh instances (seeds {seed}..{seed + k - 1}, family {family}), % over the "
          f"capacity they are known to fit (or the lower plan found)")
    print("  " + "  ".join(f"{t}: {np.mean(v):.1f} ({len(v)})" for t, v in sorted(by.items())))
    print(f"# best: mean {np.mean(over):.1f} %, never above large-first: {all(o <= g for o, g in zip(over, greedy))}; "
          f"large-first: mean {np.mean(greedy):.1f} %; best's time: median {np.median(secs):.2f} s, max {max(secs):.2f} s")
    print()


def _default_row(label: str, problem, known: int | None) -> tuple[float, float, float, float]:
    """One row of :func:`default_table`: (% over the reference, the same before, seconds, CPU
    seconds)."""

    from memopt.planning import aim

    lb = lower_bound(problem)
    best = make_strategy("best")
    t0, c0 = time.perf_counter(), time.process_time()
    sol = best.plan(problem)
    sec, cpu = time.perf_counter() - t0, time.process_time() - c0
    validate(problem, sol)
    from memopt.planning import strategies

    saved = aim.MAX_BUFFERS, strategies.DESCENT_MAX, strategies.Best.MEDIUM_MEMBERS
    aim.MAX_BUFFERS, strategies.DESCENT_MAX = 0, strategies.EXACT_MAX
    strategies.Best.MEDIUM_MEMBERS = tuple(m for m in saved[2] if m != "peak-stack")
    try:
        before = make_strategy("best").plan(problem).height
    finally:
        aim.MAX_BUFFERS, strategies.DESCENT_MAX, strategies.Best.MEDIUM_MEMBERS = saved
    ref = min(x for x in (known, sol.height, before) if x is not None)
    over, over_before = 100 * (sol.height - ref) / ref, 100 * (before - ref) / ref
    print(f"{label:<22}{len(problem):>8}{lb:>17,}{sol.height:>17,}{over:>8.2f}{100 * (sol.height - lb) / lb:>9.3f}"
          f"{over_before:>9.2f}{sec:>7.2f}{cpu:>7.2f}  {sol.strategy} ({best.stats['polish']})", flush=True)
    return over, over_before, sec, cpu


def default_table(k: int, seed: int, bench_dir: str, traces: int = 2,
                  trace_list: list[tuple[int, int]] | None = None) -> None:
    """The default (``best``, no budget) on minimalloc's suite, ``k`` fresh look-alikes
    (``synthetic.suite_like``, seeds ``seed``..), the idealloc training traces and ``traces``
    generated training traces (``synthetic.training_like``, seeds ``seed``..) of 5k, 10k and 30k
    buffers: % over the best known height (the suite's table; for a look-alike the capacity it
    was cut from, or a lower plan found; for a trace its lower bound), % over the lower bound,
    the same default without its CP-SAT step, its descent and peak stacking (``before``: the
    default as it was before them), wall-clock and CPU seconds (every thread: CP-SAT runs in a
    second one). ``trace_list``, (buffers, seed) pairs, replaces the generated traces."""
    print(f"{'input':<22}{'buffers':>8}{'LB':>17}{'height':>17}{'% best':>8}{'% LB':>9}{'before':>9}{'s':>7}{'cpu s':>7}  strategy (polish)")
    groups: dict[str, list[tuple[float, float, float]]] = {}
    for name, known in BEST_KNOWN.items():
        path = os.path.join(bench_dir, "minimalloc", f"{name}.{CAPACITY}.csv")
        problem, _ = read_problem(open(path).read(), path)
        groups.setdefault("suite A-K", []).append(_default_row(f"suite {name}", problem, known))
    for sd in range(seed, seed + k):
        problem, template = _generate("suite", sd)
        groups.setdefault(f"look-alikes {seed}..{seed + k - 1}", []).append(
            _default_row(f"suite_like({sd}) {template}", problem, CAPACITY))
    ia_dir = os.path.join(bench_dir, "idealloc")
    for f in sorted(os.listdir(ia_dir)) if os.path.isdir(ia_dir) else []:
        path = os.path.join(ia_dir, f)
        problem, _ = read_problem(open(path).read(), path)
        lb = lower_bound(problem)
        groups.setdefault("idealloc traces (reference: LB)", []).append(_default_row(f[:22], problem, lb))
    from memopt.planning.synthetic import training_like

    pairs = trace_list or [(n, sd) for n in (5000, 10000, 30000) for sd in range(seed, seed + traces)]
    for n, sd in pairs:
        problem = training_like(n, sd)
        groups.setdefault("training_like traces (reference: LB)", []).append(
            _default_row(f"training_like({n},{sd})", problem, lower_bound(problem)))
    for label, rows in groups.items():
        over, before, secs, cpus = zip(*rows)
        worse = sum(o > b for o, b in zip(over, before))
        print(f"# {label}: default mean {sum(over) / len(over):.2f} % (before {sum(before) / len(before):.2f} %), "
              f"max {max(over):.2f} %; worse than before on {worse}; seconds max {max(secs):.2f} "
              f"(CPU {max(cpus):.2f}), over 3 s: {sum(s > 3 for s in secs)} of {len(secs)}")
    print()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=None, help="seconds per run")
    ap.add_argument("--only", default=None, help="only rows whose name contains this")
    ap.add_argument("--bench-dir", default=DEFAULT_DIR)
    ap.add_argument("--generated", type=int, default=0, metavar="K",
                    help="also K held-out instances built from a known packing of the capacity")
    ap.add_argument("--family", choices=("suite", "stress"), default="suite",
                    help="generated instances: suite = the suite's joint statistics (synthetic.suite_like), "
                         "stress = each statistic drawn alone (synthetic.packed, harder)")
    ap.add_argument("--minimalloc", default=None, metavar="BINARY",
                    help="also run MiniMalloc's solver (a binary built from google/minimalloc) on the generated instances")
    ap.add_argument("--generated-best", type=int, default=0, metavar="K",
                    help="the default best alone on K fresh instances (no search): mean %% over the capacity per family")
    ap.add_argument("--seed", type=int, default=2026, help="first seed of the generated instances")
    ap.add_argument("--jobs", type=int, default=1,
                    help="generated instances searched in parallel (each search also runs CP-SAT in a second thread)")
    ap.add_argument("--default", type=int, default=None, metavar="K",
                    help="the default strategy alone, side by side with itself before its CP-SAT step, on the "
                         "suite, K fresh look-alikes (from --seed), the idealloc traces and generated training "
                         "traces of 5k-30k buffers (--traces per size, from --seed)")
    ap.add_argument("--traces", type=int, default=2, help="with --default: generated training traces per size")
    ap.add_argument("--trace-list", default=None, metavar="N/SEED,...",
                    help="with --default: these generated training traces (buffers/seed, comma-separated) "
                         "instead of --traces per size")
    args = ap.parse_args(argv)
    if args.default is not None:
        pairs = None
        if args.trace_list:
            try:
                pairs = [(int(n), int(sd)) for n, sd in (item.split("/") for item in args.trace_list.split(","))]
            except ValueError:
                ap.error(f"--trace-list: expected buffers/seed pairs like 5000/10062, got '{args.trace_list}'")
        default_table(args.default, args.seed, args.bench_dir, args.traces, pairs)
        return 0
    if args.generated_best:
        generated_best(args.generated_best, args.seed, args.family)
        if args.only is None and not args.generated:
            return 0
    if args.generated:
        generated(args.generated, args.seed, args.budget if args.budget is not None else 60.0, args.jobs,
                  args.family, args.minimalloc)
        if args.only is None:
            return 0

    def wanted(name: str) -> bool:
        return args.only is None or args.only in name

    mm_dir = os.path.join(args.bench_dir, "minimalloc")
    rows = [n for n in BEST_KNOWN if wanted(f"{n}.{CAPACITY}.csv")]
    if rows:
        budget = args.budget if args.budget is not None else 60.0
        print(f"minimalloc suite, capacity {CAPACITY:,}, budget {budget:g} s")
        print(f"{'file':<6}{'best':>11}{'best %':>8}{'best s':>7}{'height':>11}{'fits':>6}{'over best %':>13}{'over LB %':>11}"
              f"{'seconds':>9}  source")
        print("(best: the default strategy without a budget, % over the best known; height: search at capacity)")
        over = []
        for name in rows:
            path = os.path.join(mm_dir, f"{name}.{CAPACITY}.csv")
            problem, _ = read_problem(open(path).read(), path)
            lb = lower_bound(problem)
            t0 = time.perf_counter()
            greedy = greedy_of(problem)
            greedy_s = time.perf_counter() - t0
            sol, sec, stats = run(problem, budget, CAPACITY)
            best = BEST_KNOWN[name]
            over.append(100 * (greedy - best) / best)
            print(f"{name:<6}{greedy:>11,}{over[-1]:>8.1f}{greedy_s:>7.2f}{sol.height:>11,}{'yes' if sol.height <= CAPACITY else 'NO':>6}"
                  f"{100 * (sol.height - best) / best:>13.2f}{100 * (sol.height - lb) / lb:>11.2f}"
                  f"{sec:>9.2f}  {stats.get('source')}", flush=True)
        for label, group in (("A-F", DEVELOPED_ON), ("G-K", "GHIJK")):
            vals = [o for n, o in zip(rows, over) if n in group]
            if vals:
                print(f"# default best on {label}: mean {sum(vals) / len(vals):.1f} % over the best known heights")
        print()

    ia_dir = os.path.join(args.bench_dir, "idealloc")
    files = sorted(f for f in os.listdir(ia_dir) if f.endswith(".csv") and wanted(f)) if os.path.isdir(ia_dir) else []
    if files:
        budget = args.budget if args.budget is not None else 10.0
        print(f"idealloc traces, no capacity, budget {budget:g} s")
        print(f"{'file':<26}{'buffers':>8}{'greedy':>15}{'height':>15}{'LB':>15}{'over LB %':>11}{'seconds':>9}")
        for f in files:
            path = os.path.join(ia_dir, f)
            problem, _ = read_problem(open(path).read(), path)
            lb = lower_bound(problem)
            sol, sec, stats = run(problem, budget)
            print(f"{f:<26}{len(problem):>8}{greedy_of(problem):>15,}{sol.height:>15,}{lb:>15,}"
                  f"{100 * (sol.height - lb) / lb:>11.3f}{sec:>9.2f}", flush=True)
        print()

    sizes = [n for n in (1000, 5000, 10000, 20000) if wanted(f"nn_like({n})")]
    if sizes:
        budget = args.budget if args.budget is not None else 10.0
        print(f"scaling on synthetic.nn_like(n), no capacity, budget {budget:g} s")
        print(f"{'n':>7}{'greedy/LB':>11}{'height/LB':>11}{'seconds':>9}  source")
        for n in sizes:
            problem = nn_like(n)
            lb = lower_bound(problem)
            sol, sec, stats = run(problem, budget)
            print(f"{n:>7}{greedy_of(problem) / lb:>11.4f}{sol.height / lb:>11.4f}{sec:>9.2f}  "
                  f"{stats.get('source')}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
