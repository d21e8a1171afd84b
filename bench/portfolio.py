"""Every greedy member of ``best``'s portfolio on large generated traces (a script, not a test).

Prints, per trace (``synthetic.training``, ``training_like``, ``nn_like``, ``dense`` at 5k, 10k
and 20k buffers, two seeds each), each member's height over the lower bound and CPU seconds, the
lowest of all members (``full``) and the lowest of ``Best.MEDIUM_MEMBERS`` (``medium``): the
evidence for running only those from ``Best.MEDIUM`` buffers on.

Usage: ``python bench/portfolio.py [--seed 7001] [--sizes 5000,10000,20000]``.
"""

from __future__ import annotations

import argparse
import time

from memopt.planning import lower_bound, make_strategy
from memopt.planning.portfolio import GREEDY
from memopt.planning.strategies import Best
from memopt.planning.synthetic import dense, nn_like, training, training_like

SHAPES = (training, training_like, nn_like, dense)


def row(name: str, problem) -> bool:
    """One trace's line; whether the medium members reach the whole portfolio's height."""
    lb = lower_bound(problem)
    heights: dict[str, int] = {}
    cells = []
    for member in (m.name for m in GREEDY):
        t = time.process_time()
        heights[member] = make_strategy(member).plan(problem).height
        cells.append(f"{member}:{100 * (heights[member] / lb - 1):.3f}%/{time.process_time() - t:.1f}s")
    full = min(heights.values())
    medium = min(heights[m] for m in Best.MEDIUM_MEMBERS)
    print(f"{name} full {100 * (full / lb - 1):.3f}% medium {100 * (medium / lb - 1):.3f}% | " + " ".join(cells),
          flush=True)
    return medium <= full


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=7001, help="first of the two seeds per trace")
    ap.add_argument("--sizes", default="5000,10000,20000", help="buffers per trace")
    args = ap.parse_args(argv)
    same = total = 0
    for shape in SHAPES:
        for n in (int(s) for s in args.sizes.split(",")):
            for seed in (args.seed, args.seed + 1):
                same += row(f"{shape.__name__}({n},{seed})", shape(n, seed))
                total += 1
    print(f"# medium members ({', '.join(Best.MEDIUM_MEMBERS)}) as low as the whole portfolio on {same} of {total}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
