#!/usr/bin/env python3
"""Long fuzz profile: random programs x every strategy / control-flow mode / DMA / alignment.

    bench/fuzz.py --cases 10000 --seed 0 [--per-program 4] [--max-ops 14] [--max-depth 3]
                  [--save-failures DIR] [--stop-after N]

A *case* is one generated program (``memopt.executor.graphgen``) planned under one
configuration (``memopt.fuzz.configurations()``: strategies, control-flow modes and the
``insert-dma`` pass are discovered at run time); each case runs plan-memory (which validates),
verify-plan, and the executor's planned-vs-unplanned proof. Program ``i`` is generated from seed
``(S, i)`` and gets ``--per-program`` configurations drawn from the same seed, so every run with
the same arguments does the same work. Prints the cases, seconds, failures, and how many cases
each strategy / mode / DMA setting got; failing programs are printed (the first few) and saved
to ``--save-failures`` as ``.mlir`` reproducers with the configuration in a comment.
Exit status 1 when any case failed.

The fast profile of the same harness runs in CI (``tests/unit/test_fuzz.py``).
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import time
from pathlib import Path

from memopt.fuzz import FuzzFailure, configurations, parse, run_case
from memopt.executor.graphgen import GenConfig, generate


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=10000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--per-program", type=int, default=4, help="configurations per generated program")
    p.add_argument("--max-ops", type=int, default=14)
    p.add_argument("--max-depth", type=int, default=3)
    p.add_argument("--save-failures", type=Path, default=None)
    p.add_argument("--stop-after", type=int, default=20, help="stop after this many failures")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)

    configs = configurations()
    per = max(1, min(args.per_program, len(configs)))
    counts: dict[str, collections.Counter] = {k: collections.Counter() for k in ("strategy", "mode", "dma")}
    failures: list[FuzzFailure] = []
    cases = programs = 0
    t0 = time.perf_counter()
    while cases < args.cases and len(failures) < args.stop_after:
        rng = random.Random(args.seed * 1_000_003 + programs)
        cfg = GenConfig(max_ops=rng.randint(3, args.max_ops), max_depth=rng.randint(0, args.max_depth),
                        dma=rng.random() < 0.5)
        text = generate(rng, cfg)
        programs += 1
        try:
            module = parse(text)
        except Exception as e:  # noqa: BLE001 - a generator bug is a failure too
            print(f"program {programs - 1}: does not parse: {e}\n{text}")
            failures.append(FuzzFailure(text, configs[0], "parse", str(e)))
            continue
        for config in rng.sample(configs, per):
            if cases >= args.cases:
                break
            cases += 1
            counts["strategy"][config.strategy] += 1
            counts["mode"][config.control_flow] += 1
            counts["dma"][config.dma or "no-dma"] += 1
            try:
                run_case(text, config, module)
            except FuzzFailure as e:
                failures.append(e)
                if len(failures) <= 3:
                    print(f"FAILURE (program {programs - 1}, case {cases - 1}):\n{e.report()}")
                else:
                    print(f"FAILURE (program {programs - 1}, case {cases - 1}): {e}")
                if args.save_failures:
                    args.save_failures.mkdir(parents=True, exist_ok=True)
                    path = args.save_failures / f"fail-{args.seed}-{programs - 1}-{len(failures)}.mlir"
                    path.write_text(f"// {e}\n{e.text}")
        if not args.quiet and programs % 500 == 0:
            print(f"... {cases} cases, {time.perf_counter() - t0:.1f} s, {len(failures)} failures", flush=True)
    seconds = time.perf_counter() - t0
    print(f"cases={cases} programs={programs} seconds={seconds:.1f} failures={len(failures)} "
          f"(seed {args.seed}, {len(configs)} configurations)")
    for key, c in counts.items():
        print(f"  {key}: " + ", ".join(f"{k}={v}" for k, v in sorted(c.items())))
    if failures:
        stages = collections.Counter(f.stage for f in failures)
        print("  failures by stage: " + ", ".join(f"{k}={v}" for k, v in sorted(stages.items())))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
