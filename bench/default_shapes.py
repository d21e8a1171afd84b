"""The default strategy (``best``) on generated traces of the shapes other than training-like
ones (a script, not a test): height over the lower bound and CPU seconds per trace.

Why: the default's planners are tuned on long-lived training traces (``bench/search.py``); this
shows what they cost and reach on the others — ``synthetic.training`` (a nested stack),
``nn_like`` and ``dense`` (whose lower bound is loose).

Usage: ``python bench/default_shapes.py [--sizes 5000,20000] [--seeds 5151,5152]``.
"""

from __future__ import annotations

import argparse
import time

from memopt.planning import lower_bound, make_strategy
from memopt.planning.synthetic import dense, nn_like, training

SHAPES = (training, nn_like, dense)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="5000,20000", help="buffers per trace, comma-separated")
    ap.add_argument("--seeds", default="5151,5152", help="seeds per shape and size, comma-separated")
    args = ap.parse_args(argv)
    for shape in SHAPES:
        for n in (int(v) for v in args.sizes.split(",")):
            for seed in (int(v) for v in args.seeds.split(",")):
                problem = shape(n, seed)
                lb = lower_bound(problem)
                t = time.process_time()
                sol = make_strategy("best").plan(problem)
                cpu = time.process_time() - t
                print(f"{shape.__name__}({n},{seed}) {100 * (sol.height / lb - 1):.4f} % over LB, "
                      f"{cpu:.2f} s CPU, {sol.strategy}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
