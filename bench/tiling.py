#!/usr/bin/env python3
"""Patch-based tiling (``tile``, issue 34) on the vision models of ``bench/models.py``'s cache.

Per model: the in-place lower bound (LB) of the untiled program; then runs that start at the
first convolution and end at an op of the second resolution stage, each in 2 and 4 stripes and
2x2, 4x4 patches — the lower bound each gives and its extra MACs; the smallest bound
within ``--max-extra`` % extra MACs is planned (``plan-memory``) and proven bit-exact against the
untiled model (``memopt-run --check --against``). Columns:

  LB          lower bound of the untiled program (in-place reuse counted), bytes
  run         the tiled run(s), first..last, and the grid
  LB tiled    its lower bound after tiling; x: LB / LB tiled
  arena       plan-memory's arena of the tiled program
  MACs        extra MACs recomputed in the halos, % of the model's MACs
  proof       memopt-run --check --against the untiled model

    python bench/tiling.py [--cache DIR] [--only SUBSTR] [--max-extra 15] [--no-proof]
"""

from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys
import tempfile
import time

GRIDS = ((2, 1), (4, 1), (2, 2), (4, 4))


def _tool(name: str) -> str:
    return str(pathlib.Path(sys.executable).parent / name)


def stage_ends(f, layout_axes=(1, 2), stages: int = 1) -> list[str]:
    """Names of the ops writing the activations of the ``stages`` spatial resolutions after the
    first (the ends a run from the first convolution may have)."""
    from memopt.dialects.memopt import ComputeOp
    from memopt.passes.tile_rewrite import op_name as _name

    ends: list[tuple[tuple[int, int], list[str]]] = []
    block = f.body.blocks[0]
    active = set(block.args)  # activations: what the inputs flow into (not the weights' dequantize)
    for op in block.ops:
        if any(v in active for v in op.operands):
            active.update(op.results)
        if not isinstance(op, ComputeOp) or len(op.outputs) != 1 or op.outputs[0] not in active:
            continue
        shape = list(op.outputs[0].type.get_shape())
        if len(shape) != 4:
            continue
        hw = (shape[layout_axes[0]], shape[layout_axes[1]])
        if ends and ends[-1][0] == hw:
            ends[-1][1].append(_name(op.outputs[0]))
        elif not ends or hw < ends[-1][0]:
            ends.append((hw, [_name(op.outputs[0])]))
    return [name for _, names in ends[1: stages + 1] for name in names]


def first_conv(f) -> str | None:
    from memopt.dialects.memopt import ComputeOp
    from memopt.executor.kernels import normalize_kind
    from memopt.executor.window import CONV_KINDS
    from memopt.passes.tile_rewrite import op_name as _name

    for op in f.body.blocks[0].ops:
        if isinstance(op, ComputeOp) and normalize_kind(op.kind.data) in CONV_KINDS:
            return _name(op.outputs[0])
    return None


def lower_bound(f) -> int:
    from memopt.passes.lifetime import analyze_function
    from memopt.planning.bounds import lower_bound_inplace

    return lower_bound_inplace(analyze_function(f, mode="joint").problem)


def total_macs(f) -> int:
    from memopt.dialects.memopt import ComputeOp

    return sum(op.cost.value.data for op in f.body.walk() if isinstance(op, ComputeOp) and op.cost is not None)


def best_tiling(f, max_extra: float):
    """(lb, first, last, grid, extra MACs) of the smallest bound within max_extra % MACs."""
    from memopt.diagnostics import MemoptError
    from memopt.passes.tile_rewrite import tile_run

    first = first_conv(f)
    if first is None:
        return None
    macs = total_macs(f)
    best = None
    for last in stage_ends(f):
        for grid in GRIDS:
            g = f.clone()
            try:
                _, _, extra = tile_run(g, first, last, grid)
            except MemoptError:
                continue
            if macs and 100.0 * extra / macs > max_extra:
                continue
            lb = lower_bound(g)
            if best is None or lb < best[0]:
                best = (lb, first, last, grid, extra)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", default=str(pathlib.Path.home() / ".cache" / "memopt-models"))
    ap.add_argument("--only", default="")
    ap.add_argument("--max-extra", type=float, default=15.0, help="extra MACs allowed, %% of the model's")
    ap.add_argument("--no-proof", action="store_true")
    args = ap.parse_args(argv)
    from memopt.executor.interpreter import find_function
    from memopt.importers import import_model

    models = sorted(pathlib.Path(args.cache, "models", "mediapipe").rglob("*.tflite"))
    models = [m for m in models if args.only in m.name]
    if not models:
        print(f"no mediapipe model under {args.cache} (run bench/models.py once to fetch them)", file=sys.stderr)
        return 1
    print(f"{'model':40} {'LB':>9} {'run':44} {'LB tiled':>9} {'x':>5} {'arena':>9} {'MACs':>7} {'s':>5} proof")
    for path in models:
        t0 = time.time()
        try:
            module = import_model(str(path)).module
        except Exception as e:  # noqa: BLE001 - a model the importer refuses is a row, not a crash
            print(f"{path.name:40} import failed: {e}")
            continue
        f = find_function(module)
        lb = lower_bound(f)
        best = best_tiling(f, args.max_extra)
        if best is None:
            print(f"{path.name:40} {lb:>9} {'(no run within the MAC budget)':44}")
            continue
        tlb, first, last, grid, extra = best
        pct = 100.0 * extra / max(1, total_macs(f))
        run = f"{first}..{last} {grid[0]}x{grid[1]}"
        arena, proof = "-", "-"
        with tempfile.TemporaryDirectory() as tmp:
            orig, tiled = pathlib.Path(tmp, "orig.mlir"), pathlib.Path(tmp, "tiled.mlir")
            subprocess.run([_tool("memopt-import"), str(path), "-o", str(orig)], check=True)
            r = subprocess.run([_tool("memopt-opt"), str(orig), "-p",
                                f"tile{{first={first} last={last} grid={grid[0]}x{grid[1]}}},plan-memory,verify-plan",
                                "-o", str(tiled)], capture_output=True, text=True)
            if r.returncode == 0:
                import re

                arena = re.search(r"arena_size = (\d+)", tiled.read_text()).group(1)  # type: ignore[union-attr]
                if not args.no_proof:
                    p = subprocess.run([_tool("memopt-run"), str(tiled), "--check", "--against", str(orig)],
                                       capture_output=True, text=True)
                    proof = "bit-exact" if p.returncode == 0 and "bit-exact" in p.stdout else "FAILED"
            else:
                arena = "error"
        print(f"{path.name:40} {lb:>9} {run:44} {tlb:>9} {lb / tlb:>5.2f} {arena:>9} {pct:>6.1f}% "
              f"{time.time() - t0:>5.0f} {proof}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
