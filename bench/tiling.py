#!/usr/bin/env python3
"""Patch-based tiling (``tile{capacity=...}``, issue 34) on every vision model of
``bench/models.py``: the cached MediaPipe ``.tflite`` models and the onnx wheel's ``light_*``.

Per model, all through the tools as a user runs them:

  LB          in-place lower bound of the untiled program, bytes
  spill       smallest capacity ``plan-memory{spill=auto}`` reaches alone (its error names it)
  tile min    smallest lower bound ``tile{capacity=min}`` reaches whatever the MACs; x, MACs as below
  tile<=P%    smallest lower bound ``tile{capacity=min max-extra=P}`` reaches; x: LB / it; MACs:
              the extra MACs recomputed, % of the model's
  tile+spill  smallest capacity of ``tile{capacity=min}`` followed by ``plan-memory{spill=auto}``
              (``t/o``: it took longer than ``--timeout``)
  @50%        ``tile{capacity=LB/2},plan-memory{capacity=LB/2 spill=auto},verify-plan``: the arena,
              the extra MACs, the seconds ``memopt-opt`` took, and the proof ``memopt-run --check
              --against`` the untiled model (``--no-proof`` skips it; when it did not fit, why: the
              capacity tiling or plan-memory after it reaches)

    python bench/tiling.py [--cache DIR] [--only SUBSTR] [--max-extra 15] [--no-proof] [--quick] [--timeout 600] [--max-bytes N]
"""

from __future__ import annotations

import argparse
import pathlib
import re
import subprocess
import sys
import tempfile
import time


def _tool(name: str) -> str:
    return str(pathlib.Path(sys.executable).parent / name)


def models(cache: pathlib.Path) -> list[pathlib.Path]:
    import onnx

    light = pathlib.Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
    return sorted((cache / "models" / "mediapipe").rglob("*.tflite")) + sorted(light.glob("light_*.onnx"))


TIMEOUT = [600.0]
"""Seconds one tool run may take (``--timeout``); past it the figure is ``t/o``."""


def opt(src: pathlib.Path, pipeline: str, out: pathlib.Path) -> tuple[subprocess.CompletedProcess, float]:
    t0 = time.time()
    cmd = [_tool("memopt-opt"), str(src), "-p", pipeline, "-o", str(out)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT[0])
    except subprocess.TimeoutExpired:
        r = subprocess.CompletedProcess(cmd, 124, "", f"t/o: over {TIMEOUT[0]:g} s")
    return r, time.time() - t0


def figure(text: str, pattern: str) -> int | None:
    m = re.search(pattern, text)
    return int(m.group(1)) if m else None


def extra_pct(text: str) -> str:
    m = re.search(r"\(([+-][0-9.]+) %\), lower bound", text)
    return f"{m.group(1)}%" if m else "-"


def why(text: str) -> str:
    """Why the fit at 50 % failed: which tool stopped, at what capacity."""
    tiled = figure(text, r"smallest capacity tiling reaches is (\d+)")
    if tiled is not None:
        return f"(tiling reaches {tiled})"
    spilled = figure(text, r"spilling reaches is (\d+)")
    if spilled is not None:
        return f"(tiled, plan-memory reaches {spilled})"
    return "(" + (text.strip().splitlines() or ["?"])[-1][:70] + ")"


def row(path: pathlib.Path, tmp: pathlib.Path, args) -> str:
    orig = tmp / "orig.mlir"
    r = subprocess.run([_tool("memopt-import"), str(path), "-o", str(orig)], capture_output=True, text=True)
    if r.returncode:
        return f"{path.name:38} import failed: {r.stderr.strip().splitlines()[-1][:80]}"
    out = tmp / "out.mlir"
    r, _ = opt(orig, "tile{capacity=min}", out)
    lb = figure(r.stderr, r"lower bound (\d+) →")
    best = figure(r.stderr, r"→ (\d+) \(capacity")
    best_macs = extra_pct(r.stderr)
    if lb is None or best is None:
        return f"{path.name:38} tile failed: {(r.stderr.strip().splitlines() or ['?'])[-1][:80]}"
    spill = both = None
    if not args.quick:
        r, _ = opt(orig, "plan-memory{capacity=1 spill=auto}", out)
        spill = figure(r.stderr, r"spilling reaches is (\d+)")
        r, _ = opt(orig, "tile{capacity=min},plan-memory{capacity=1 spill=auto}", out)
        both = "t/o" if r.stderr.startswith("t/o") else figure(r.stderr, r"spilling reaches is (\d+)")
    r, _ = opt(orig, f"tile{{capacity=min max-extra={args.max_extra:g}}}", out)
    budget = figure(r.stderr, r"→ (\d+) \(capacity")
    budget_macs = extra_pct(r.stderr)
    half = lb // 2
    r, secs = opt(orig, f"tile{{capacity={half}}},plan-memory{{capacity={half} spill=auto}},verify-plan", out)
    arena, proof, macs = "-", "-", extra_pct(r.stderr)
    if r.returncode == 0:
        arena = str(figure(out.read_text(), r"arena_size = (\d+)"))
        if not args.no_proof:
            try:
                p = subprocess.run([_tool("memopt-run"), str(out), "--check", "--against", str(orig),
                                    "--max-bytes", str(args.max_bytes)], capture_output=True, text=True, timeout=TIMEOUT[0])
                ok = p.returncode == 0 and "bit-exact" in p.stdout
                proof = "bit-exact" if ok else "FAILED (" + (p.stderr.strip().splitlines() or ["?"])[-1][-90:] + ")"
            except subprocess.TimeoutExpired:
                proof = "t/o"
    else:
        arena, proof = "no fit", why(r.stderr)
    x = f"{lb / budget:.2f}" if budget else "-"
    return (f"{path.name:38} {lb:>9} {spill or '-':>9} {best:>9} {lb / best:>5.2f} {best_macs:>7} "
            f"{budget or '-':>9} {x:>5} {budget_macs:>6} {both or '-':>10} "
            f"{arena:>9} {macs:>6} {secs:>5.1f} {proof}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", default=str(pathlib.Path.home() / ".cache" / "memopt-models"))
    ap.add_argument("--only", default="")
    ap.add_argument("--max-extra", type=float, default=15.0, help="extra MACs allowed, %% of the model's")
    ap.add_argument("--no-proof", action="store_true")
    ap.add_argument("--max-bytes", type=int, default=4 << 30,
                    help="memopt-run's storage limit for the proof (VGG's classifier weights alone pass 1 GiB)")
    ap.add_argument("--quick", action="store_true", help="skip the spill and tile+spill columns (the slowest)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds one tool run may take (t/o past it)")
    args = ap.parse_args(argv)
    TIMEOUT[0] = args.timeout
    paths = [m for m in models(pathlib.Path(args.cache)) if args.only in m.name]
    if not paths:
        print(f"no vision model under {args.cache} (run bench/models.py once to fetch them)", file=sys.stderr)
        return 1
    p = f"<={args.max_extra:g}%"
    print(f"{'model':38} {'LB':>9} {'spill':>9} {'tile min':>9} {'x':>5} {'MACs':>7} {'tile' + p:>9} {'x':>5} "
          f"{'MACs':>6} {'tile+spill':>10} "
          f"{'@50% arena':>9} {'MACs':>6} {'s':>5} proof")
    for path in paths:
        with tempfile.TemporaryDirectory() as tmp:
            print(row(path, pathlib.Path(tmp), args), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
