#!/usr/bin/env python3
"""The memopt checker with byte ownership against the value comparison alone, on generated plans.

    bench/ownership_mutants.py --programs 100 [--start 0] [--mutants 4] [--seeds 4] [--max-paths 4]

Program ``i`` (``memopt.executor.graphgen``; every third one with DMA, through ``insert-dma``) is
planned two ways (``sequential``/joint and ``best``/flat). Each correct plan is proven on every
input seed by both checkers — a failure is a false alarm. Then ``--mutants`` of its
``memopt.offsets`` entries (views' aside: the executor derives views from their source) are each
moved onto another value's offset, one at a time, and proven on every seed by both checkers: a
mutant is *caught* when every seed rejects it, *seed-dependent* when some seeds do. A mutant the
ownership checker leaves seed-dependent is proven again with 64 paths (path coverage, not values,
may decide it). The value-only checker is the same check without ownership (no ``ValueOwners``
for the planned run's values). Prints one line of counts and the mutants on which the two
disagree the other way (the value check catching what ownership misses).
"""

from __future__ import annotations

import argparse
import random
import re
import time

from memopt.diagnostics import MemoptError
from memopt.executor import check as check_mod
from memopt.executor.graphgen import GenConfig, generate
from memopt.fuzz import _CTX, parse
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.passes.registry import get_all_passes

PLANS = (("sequential", "joint"), ("best", "flat"))
OFFSETS = re.compile(r"memopt\.offsets = array<i64: (\d+)>")


class _Checkers:
    """Switches the check between ownership and the value comparison alone."""

    def __init__(self) -> None:
        self.owners = True
        real = check_mod.Dialect.value_owners
        switch = self

        def value_owners(dialect, memory):
            return real(dialect, memory) if switch.owners else None

        check_mod.Dialect.value_owners = value_owners  # type: ignore[method-assign]

    def verdicts(self, text: str, owners: bool, seeds: int, max_paths: int) -> list[bool]:
        """Per seed, whether the check rejects ``text``."""
        self.owners = owners
        out = []
        for seed in range(seeds):
            try:
                check_mod.check_module(parse(text), seed=seed, max_paths=max_paths)
                out.append(False)
            except MemoptError:
                out.append(True)
        return out


def planned(i: int, strategy: str, mode: str) -> str | None:
    module = parse(generate(random.Random(i), GenConfig(dma=(i % 3 == 0))))
    try:
        if i % 3 == 0:
            get_all_passes()["insert-dma"]()(mode="always").apply(_CTX, module)  # type: ignore[call-arg]
        PlanMemoryPass(strategy=strategy, control_flow=mode, budget=0.002 if strategy == "best" else None
                       ).apply(_CTX, module)  # type: ignore[arg-type]
    except MemoptError:
        return None
    return str(module)


def mutants(text: str, rng: random.Random, n: int) -> list[str]:
    """Up to ``n`` copies of ``text`` with one result offset moved onto another value's."""
    found = [(m.start(1), m.end(1), int(m.group(1))) for m in OFFSETS.finditer(text)
             if "memopt.view" not in text[text.rfind("\n", 0, m.start()):m.start()]]
    targets = sorted({o for _, _, o in found})
    moves = [(a, b, t) for a, b, o in found for t in targets if t != o]
    return [text[:a] + str(t) + text[b:] for a, b, t in rng.sample(moves, min(n, len(moves)))]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--programs", type=int, default=100)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--mutants", type=int, default=4, help="mutants per plan (0: correct plans only)")
    p.add_argument("--seeds", type=int, default=4)
    p.add_argument("--max-paths", type=int, default=4)
    args = p.parse_args()
    checkers, rng, t0 = _Checkers(), random.Random(7), time.time()
    counts = dict.fromkeys(["proofs", "false_alarms", "value_false_alarms", "mutants", "value_caught", "owner_caught",
                            "value_any", "owner_any", "value_seed_dependent", "owner_seed_dependent",
                            "owner_seed_dependent_at_64_paths", "disagree"], 0)
    worse = []
    for i in range(args.start, args.start + args.programs):
        for strategy, mode in PLANS:
            text = planned(i, strategy, mode)
            if text is None:
                continue
            counts["proofs"] += args.seeds
            counts["false_alarms"] += sum(checkers.verdicts(text, True, args.seeds, args.max_paths))
            counts["value_false_alarms"] += sum(checkers.verdicts(text, False, args.seeds, args.max_paths))
            for mutant in mutants(text, rng, args.mutants):
                value = checkers.verdicts(mutant, False, args.seeds, args.max_paths)
                owner = checkers.verdicts(mutant, True, args.seeds, args.max_paths)
                counts["mutants"] += 1
                counts["value_caught"] += all(value)
                counts["owner_caught"] += all(owner)
                counts["value_any"] += any(value)
                counts["owner_any"] += any(owner)
                counts["value_seed_dependent"] += any(value) and not all(value)
                counts["owner_seed_dependent"] += any(owner) and not all(owner)
                counts["disagree"] += value != owner
                if any(owner) and not all(owner):
                    wide = checkers.verdicts(mutant, True, args.seeds, 64)
                    counts["owner_seed_dependent_at_64_paths"] += any(wide) and not all(wide)
                if any(v and not o for v, o in zip(value, owner)):
                    worse.append((i, strategy, mutant))
    print(" ".join(f"{k}={v}" for k, v in counts.items()), f"seconds={time.time() - t0:.0f}")
    for i, strategy, mutant in worse[:5]:
        print(f"--- program {i} ({strategy}): the value check caught, ownership did not\n{mutant}")


if __name__ == "__main__":
    main()
