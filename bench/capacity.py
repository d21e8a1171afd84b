#!/usr/bin/env python3
"""When the activations do not fit on chip: spill, remat and ``auto`` side by side on real models.

For every real model of ``bench/models.py`` (downloaded into a cache outside the repository, as
``bench/models.py`` does) and on-chip capacities of 100 / 75 / 50 / 25 % of its lower bound,
``plan-memory{capacity=C spill=auto policy=P}`` runs for P = spill, remat, auto. Each cell is the
modelled time over the model's compute time (``+%``, the latency model of ``insert-dma``'s
target: DMA transfers for spills, recomputed MACs for remat), the bytes moved, the ops
recomputed, and whether the plan fits and passes ``memopt-run --check`` (the executor proves the
planned program over both arenas bit-exact against the unplanned one): ``X`` when the policy
cannot reach the capacity (one op's working set). The last lines count the capacities where
``auto`` is slower than either pure policy (it must be zero) and the checks that failed.

    python bench/capacity.py [--cache DIR] [--only NAME] [--fractions 1,0.75,0.5,0.25] [--no-check]
"""

from __future__ import annotations

import argparse
import io
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

POLICIES = ("spill", "remat", "auto")


def run_policy(module, cap: int, policy: str, check: bool):
    """Plan a copy of ``module`` under ``policy``; (extra cycles, bytes moved, ops recomputed,
    arena, checked) or None when the policy cannot fit ``cap``."""
    from xdsl.dialects import func

    from memopt.api import context
    from memopt.diagnostics import MemoptError
    from memopt.dialects.plan_attr_names import PLAN_ATTR
    from memopt.executor.check import check_function
    from memopt.passes.plan_memory import PlanMemoryPass
    from memopt.passes.verify_plan import VerifyPlanPass

    m = module.clone()
    err = io.StringIO()
    stderr, sys.stderr = sys.stderr, err
    try:
        PlanMemoryPass(capacity=cap, spill="auto", policy=policy).apply(context(), m)
        VerifyPlanPass().apply(context(), m)
    except MemoptError:
        return None
    finally:
        sys.stderr = stderr
    f = next(o for o in m.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks)
    arena = f.attributes[PLAN_ATTR].arena_size.data
    extra = moved = recomputed = 0
    for line in err.getvalue().splitlines():
        if "ops recomputed" in line:
            extra = int(line.split(" cycles")[0].rsplit("+", 1)[1])
            moved = int(line.split(" bytes moved")[0].rsplit("(", 1)[1])
            recomputed = int(line.split(" ops recomputed")[0].rsplit(" ", 1)[1])
    checked = None
    if check:
        from memopt.executor.resources import Limits

        try:
            check_function(m, f, max_paths=4, limits=Limits(max_bytes=4 << 30, max_ops=2_000_000))
            checked = True
        except MemoptError as e:
            # Beyond even these limits the proof is skipped (reported), not failed.
            checked = None if "--max-" in e.message else False
    return extra, moved, recomputed, arena, checked


def smallest_spill_capacity(module) -> int | None:
    """The smallest on-chip capacity spilling reaches (what the error for capacity 1 names)."""
    from memopt.api import context
    from memopt.diagnostics import MemoptError
    from memopt.passes.plan_memory import PlanMemoryPass

    stderr, sys.stderr = sys.stderr, io.StringIO()
    try:
        PlanMemoryPass(capacity=1, spill="auto", policy="spill").apply(context(), module.clone())
    except MemoptError as e:
        if "reaches is " in e.message:
            return int(e.message.split("reaches is ")[1].split()[0])
        return None
    finally:
        sys.stderr = stderr
    return 1


def main(argv: list[str] | None = None) -> int:
    import models
    from xdsl.dialects import func

    from memopt.importers.api import import_model
    from memopt.passes.fit_capacity import base_cycles
    from memopt.passes.plan_function import plan_function_memory
    from memopt.planning import make_strategy
    from memopt.planning.latency import Target

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/memopt-models"))
    ap.add_argument("--only", default=None, help="models whose file name contains this")
    ap.add_argument("--fractions", default="1,0.75,0.5,0.25")
    ap.add_argument("--no-check", action="store_true", help="skip the executor's proof (faster)")
    args = ap.parse_args(argv)
    fractions = [float(x) for x in args.fractions.split(",")]
    target = Target()
    print(f"target: {target.describe()}; cells: modelled time over compute (+%), bytes moved, ops recomputed")
    print("(reach: the smallest capacity spilling reaches, % of LB — one op's working set bounds it)")
    print(f"{'model':<34}{'LB':>10}{'reach':>7}{'cap':>5}" + "".join(f"{p:>30}" for p in POLICIES) + f"{'check':>7}")
    slower = cells = failed = 0
    t0 = time.perf_counter()
    for path in models.fetch(pathlib.Path(args.cache)):
        if args.only and args.only not in path.name:
            continue
        try:
            module = import_model(str(path), models.input_shapes_for(path)).module
        except Exception as e:  # noqa: BLE001 - a model the importer refuses is reported, not fatal
            print(f"{path.name[:33]:<34} import error: {str(e)[:60]}")
            continue
        f = next(o for o in module.body.block.ops if isinstance(o, func.FuncOp) and o.body.blocks)
        base = max(1, base_cycles(f, target))
        lb = plan_function_memory(f.clone(), make_strategy("best")).lower_bound_inplace  # in-place reuse counted
        reach = smallest_spill_capacity(module)
        reach_s = f"{100 * reach / lb:.0f}%" if reach else "?"
        for frac in fractions:
            cap = int(lb * frac)
            results = {p: run_policy(module, cap, p, not args.no_check) for p in POLICIES}
            row = f"{path.name[:33]:<34}{lb:>10,}{reach_s:>7}{int(frac * 100):>4}%"
            ok = True
            for p in POLICIES:
                r = results[p]
                if r is None:
                    row += f"{'X':>30}"
                    continue
                extra, moved, recomputed, arena, checked = r
                ok &= checked is not False and arena <= cap
                row += f"{f'+{100 * extra / base:.1f}% {moved:,}B {recomputed}op':>30}"
            cells += 1
            feasible = [results[p][0] for p in ("spill", "remat") if results[p] is not None]
            if feasible and (results["auto"] is None or results["auto"][0] > min(feasible)):
                slower += 1
            failed += not ok
            unchecked = any(results[p] is not None and results[p][4] is None for p in POLICIES) and not args.no_check
            print(row + f"{'ok' if ok and not unchecked else ('n/a' if ok else 'FAIL'):>7}", flush=True)
    print(f"# {cells} model x capacity cells in {time.perf_counter() - t0:.0f} s; auto slower than spill or remat: "
          f"{slower}; plans over capacity or failing --check: {failed}")
    return 0 if slower == 0 and failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
