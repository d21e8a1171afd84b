#!/usr/bin/env python3
"""The placement core against its previous implementation, side by side in one run.

The previous time-blocked pure-Python first fit lives on as the reference of the placement
property test (``tests/unit/test_planning_core.py``); this script times it, the current core
placing one buffer at a time, and the current core as dispatched (runs of time-disjoint buffers
placed together on large problems) on the same size-descending order (``large-first``) for
``nn_like`` and ``dense`` problems, and checks that all three give identical offsets.

    python bench/firstfit.py [--sizes 10000,100000]
"""

from __future__ import annotations

import argparse
import importlib.util
import pathlib
import time

from memopt.planning import firstfit
from memopt.planning.firstfit import first_fit
from memopt.planning.synthetic import dense, nn_like

ROOT = pathlib.Path(__file__).resolve().parent.parent


def reference():
    spec = importlib.util.spec_from_file_location("core_tests", ROOT / "tests" / "unit" / "test_planning_core.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.reference_first_fit


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    args = ap.parse_args()
    ref = reference()
    print(f"{'problem':<9}{'n':>8}{'previous s':>12}{'one-by-one s':>14}{'now s':>8}{'speed-up':>10}  identical")
    for name, gen in (("nn_like", nn_like), ("dense", dense)):
        for n in (int(x) for x in args.sizes.split(",")):
            p = gen(n, seed=1)
            order = sorted(range(len(p)), key=lambda i: (-p.buffers[i].size, p.buffers[i].start, i))
            t0 = time.perf_counter()
            old = ref(p, order)
            t1 = time.perf_counter()
            saved, firstfit.BATCH_MIN = firstfit.BATCH_MIN, 1 << 62
            try:
                single = first_fit(p, order)
            finally:
                firstfit.BATCH_MIN = saved
            t2 = time.perf_counter()
            new = first_fit(p, order)
            t3 = time.perf_counter()
            same = old == new == single
            print(f"{name:<9}{n:>8}{t1 - t0:>12.2f}{t2 - t1:>14.2f}{t3 - t2:>8.2f}{(t1 - t0) / (t3 - t2):>10.2f}"
                  f"  {'yes' if same else 'NO'}", flush=True)


if __name__ == "__main__":
    main()
