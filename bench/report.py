#!/usr/bin/env python3
"""How long ``memopt-report`` takes on large plans (the requirement: a 5,000-tensor plan renders
in under 10 s).

Two inputs per size, both planned first (planning is not timed here):

* ``csv``  — a network-shaped synthetic problem (:func:`memopt.planning.synthetic.nn_like`)
  planned by ``memopt-pack``'s default strategy and written as a plan CSV;
* ``mlir`` — a memopt-dialect chain with skip connections, one op per tensor, planned by
  ``memopt-opt --plan-memory``; this column includes parsing the MLIR (xDSL: about 1 ms per op).

Each cell is the wall time of the ``memopt-report`` process producing that format (seconds,
best of ``--repeat``), run side by side in one invocation.

    python bench/report.py [--sizes 1000,5000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

FORMATS = ("txt", "svg", "png", "html")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parse_scaling import chain  # noqa: E402  (the same generated chain with skip connections)


def timed(cmd: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,5000", help="comma-separated tensor counts (default 1000,5000)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per cell, best kept (default 1)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    bindir = os.path.dirname(sys.executable)
    tool = lambda name: os.path.join(bindir, name)  # noqa: E731
    print("| input | tensors | " + " | ".join(f"{f} s" for f in FORMATS) + " |")
    print("|---|---:|" + "---:|" * len(FORMATS))
    with tempfile.TemporaryDirectory() as d:
        for n in (int(s) for s in args.sizes.split(",")):
            from memopt.planning.synthetic import nn_like

            p = nn_like(n, args.seed, 16)
            raw = os.path.join(d, f"p{n}.csv")
            with open(raw, "w") as f:
                f.write("id,lower,upper,size\n" + "".join(f"{b.id},{b.start},{b.end},{b.size}\n" for b in p.buffers))
            plan = os.path.join(d, f"plan{n}.csv")
            subprocess.run([tool("memopt-pack"), raw, "-o", plan], check=True)
            src = os.path.join(d, f"chain{n}.mlir")
            with open(src, "w") as f:
                f.write(chain(n, args.seed))
            planned = os.path.join(d, f"chain{n}.planned.mlir")
            subprocess.run([tool("memopt-opt"), "--plan-memory=strategy=large-first", src, "-o", planned], check=True)
            for kind, path in (("csv", plan), ("mlir", planned)):
                cells = [timed([tool("memopt-report"), path, "-o", os.path.join(d, f"out.{fmt}")], args.repeat)
                         for fmt in FORMATS]
                print(f"| {kind} | {n} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")
                sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
