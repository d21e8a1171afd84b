#!/usr/bin/env python3
"""memopt's plan-memory vs upstream MLIR's static-memory-planner-analysis, on upstream IR.

Inputs are generated bufferized programs (``func`` + ``memref`` + ``scf``, external kernels
called in destination-passing style): chains with skip connections, some ``scf.for`` loops
reading outer buffers, some ``scf.if`` blocks. Deallocs are placed two ways, as bufferization
pipelines do: ``late`` (all at the end of the function, e.g. ownership-based deallocation before
its simplification) and ``tight`` (right after the last use). Per program, side by side in one
run: memopt's arena (``memopt.arena_size``), upstream's arena with ``best-fit`` and ``trivial``
(the ``memref<Nxi8>`` it allocates, plus any allocation it leaves unplanned), the lower bound,
whether ``iree-opt`` parses and verifies memopt's output, and whether ``memopt-run --check``
proves memopt's plan and upstream best-fit's (planned vs unplanned execution).

    python bench/upstream.py [--programs 12] [--seed 0] [--ops 40] [--models] [--cache DIR]

With ``--models``, every real model of ``bench/models.py`` is also imported, lowered with
``lower-to-memref`` (control flow becomes ``scf.if``/``scf.for``) and compared the same way; the
table says which models have control flow (upstream's planner leaves every allocation nested in
an ``scf`` region unplanned).

Needs ``iree-opt`` (PyPI ``iree-base-compiler``, in the test extra) on PATH or beside Python.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile


def program(rng: random.Random, n_ops: int, dealloc: str) -> str:
    sizes = [rng.choice((64, 256, 1024, 4096)) for _ in range(n_ops)]
    ty = lambda k: f"memref<{sizes[k]}xi8>"  # noqa: E731
    decls = sorted({(a, b) for a in set(sizes) for b in set(sizes)})
    lines = [f"func.func private @k_{a}_{b}(memref<{a}xi8>, memref<{b}xi8>)" for a, b in decls]
    lines.append(f"func.func @main(%x: memref<{sizes[0]}xi8>, %c: i1) {{")
    lines += ["  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index", "  %c3 = arith.constant 3 : index"]
    last_use: dict[int, int] = {}
    body: list[str] = []
    prev = "%x"
    prev_size = sizes[0]
    for k in range(1, n_ops):
        body.append(f"  %v{k} = memref.alloc() : {ty(k)}")
        src = prev
        src_size = prev_size
        if k > 4 and rng.random() < 0.2:  # a skip connection
            j = rng.randrange(max(1, k - 12), k - 1)
            src, src_size = f"%v{j}", sizes[j]
            last_use[j] = k
        call = f"func.call @k_{src_size}_{sizes[k]}({src}, %v{k}) : (memref<{src_size}xi8>, {ty(k)}) -> ()"
        r = rng.random()
        if r < 0.1:
            body.append(f"  scf.for %i{k} = %c0 to %c3 step %c1 {{\n    {call}\n  }}")
        elif r < 0.2:
            body.append(f"  scf.if %c {{\n    {call}\n  }} else {{\n    {call}\n  }}")  # written either way
        else:
            body.append(f"  {call}")
        if prev != "%x":
            last_use[int(prev[2:])] = k
        if src != prev and src != "%x":
            last_use[int(src[2:])] = k
        prev, prev_size = f"%v{k}", sizes[k]
        if dealloc == "tight":
            for j, u in sorted(last_use.items()):
                if u == k and j != k:
                    body.append(f"  memref.dealloc %v{j} : {ty(j)}")
                    last_use[j] = -1
    if dealloc == "late":
        body += [f"  memref.dealloc %v{j} : {ty(j)}" for j in range(1, n_ops)]
    else:
        body += [f"  memref.dealloc %v{j} : {ty(j)}" for j, u in sorted(last_use.items()) if u != -1]
        body.append(f"  memref.dealloc {prev} : {ty(int(prev[2:]))}")
    lines += body + ["  func.return", "}"]
    return "\n".join(lines) + "\n"


def upstream_bytes(text: str) -> int:
    """Upstream's arena (the memref<Nxi8> it allocates) plus every static alloc it left alone."""
    total = 0
    for m in re.finditer(r"memref\.alloc\(\)[^:]*: memref<(\d+)xi8>", text):
        total += int(m.group(1))
    return total


def compare(src: str, opt: str, iree: str, run: str):
    """Plan ``src`` (upstream IR) with memopt and with upstream's planner, side by side:
    ``(arena, lb, verifies, [best-fit bytes, trivial bytes], [memopt proven, best-fit proven])``."""
    ours = subprocess.run([opt, src, "--plan-memory"], capture_output=True, text=True, check=True).stdout
    arena = max(int(x) for x in re.findall(r"memopt.arena_size = (\d+)", ours))
    lb = max(int(x) for x in re.findall(r"memopt.lower_bound = (\d+)", ours))
    ok = subprocess.run([iree], input=ours, capture_output=True, text=True).returncode == 0
    checks = [subprocess.run([run, "-", "--check"], input=ours, capture_output=True, text=True).returncode == 0]
    peers = []
    for algo in ("best-fit", "trivial"):
        up = subprocess.run(
            [iree, f"--pass-pipeline=builtin.module(func.func(static-memory-planner-analysis{{algorithm={algo}}}))", src],
            capture_output=True, text=True, check=True).stdout
        peers.append(upstream_bytes(up))
        if algo == "best-fit":  # xDSL reads upstream's output in generic form
            generic = subprocess.run([iree, "--mlir-print-op-generic"], input=up, capture_output=True, text=True,
                                     check=True).stdout
            checks.append(subprocess.run([run, "-", "--check"], input=generic, capture_output=True, text=True).returncode == 0)
    return arena, lb, ok, peers, checks


def with_dma(src: str, opt: str, iree: str, run: str) -> str:
    """``--plan-memory --insert-dma`` on ``src``: does iree-opt verify it, does --check prove it."""
    r = subprocess.run([opt, src, "--plan-memory", "--insert-dma"], capture_output=True, text=True)
    if r.returncode != 0:
        return "error"
    starts = r.stdout.count('"memref.dma_start"')
    ok = subprocess.run([iree], input=r.stdout, capture_output=True, text=True).returncode == 0
    proven = subprocess.run([run, "-", "--check"], input=r.stdout, capture_output=True, text=True).returncode == 0
    return f"{starts} / {'yes' if ok else 'NO'} / {'ok' if proven else 'FAIL'}"


def compare_models(args, iree, opt, run):
    """The real models, lowered to upstream IR, planned by memopt and by upstream MLIR."""
    import pathlib

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import models

    from memopt.importers.api import import_model
    from xdsl.printer import Printer
    import io

    print("\n| model | control flow | LB | memopt | upstream best-fit | upstream trivial | best-fit / memopt | verifies | --check memopt / best-fit | insert-dma: transfers / verifies / --check |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|---|")
    wins = ties = losses = verified = proven = n = 0
    cf_n = cf_wins = dma_ok = 0
    with tempfile.TemporaryDirectory() as d:
        for path in models.fetch(pathlib.Path(args.cache)):
            try:
                r = import_model(str(path), models.input_shapes_for(path))
            except Exception as e:  # noqa: BLE001
                print(f"| {path.name} | import error: {str(e)[:80]} |")
                continue
            out = io.StringIO()
            Printer(stream=out).print_op(r.module)
            src = os.path.join(d, "m.mlir")
            with open(src, "w") as f:
                f.write(out.getvalue())
            low = subprocess.run([opt, src, "--lower-to-memref"], capture_output=True, text=True)
            if low.returncode != 0:
                print(f"| {path.name} | not lowered: {low.stderr.strip().split(': ')[-1][:70]} |")
                continue
            lowered = os.path.join(d, "l.mlir")
            with open(lowered, "w") as f:
                f.write(low.stdout)
            arena, lb, ok, peers, checks = compare(lowered, opt, iree, run)
            dma = with_dma(lowered, opt, iree, run)
            dma_ok += dma.endswith("yes / ok")
            cf = "scf." in low.stdout
            cf_n += cf
            cf_wins += cf and arena < peers[0]
            n += 1
            verified += ok
            proven += all(checks)
            wins += arena < peers[0]
            ties += arena == peers[0]
            losses += arena > peers[0]
            print(f"| {path.name} | {'yes' if cf else 'no'} | {lb} | {arena} | {peers[0]} | {peers[1]} | {peers[0] / max(arena, 1):.2f} | "
                  f"{'yes' if ok else 'NO'} | {' / '.join('ok' if c else 'FAIL' for c in checks)} | {dma} |")
            sys.stdout.flush()
    print(f"\n# --plan-memory --insert-dma output verified by iree-opt and proven by --check on {dma_ok}/{n}")
    print(f"\n# control-flow models: memopt strictly smaller than upstream best-fit on {cf_wins}/{cf_n}")
    return wins, ties, losses, verified, proven, n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ops", type=int, default=40)
    ap.add_argument("--models", action="store_true", help="also every real model of bench/models.py")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/memopt-models"))
    args = ap.parse_args(argv)
    bindir = os.path.dirname(sys.executable)
    iree = shutil.which("iree-opt", path=bindir + os.pathsep + os.environ.get("PATH", ""))
    if iree is None:
        print("iree-opt not found: pip install iree-base-compiler", file=sys.stderr)
        return 1
    opt = os.path.join(bindir, "memopt-opt")
    run = os.path.join(bindir, "memopt-run")
    print("| program | deallocs | LB | memopt | upstream best-fit | upstream trivial | best-fit / memopt "
          "| memopt output verifies | --check memopt / best-fit |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|")
    proven = 0
    wins = ties = losses = verified = 0
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as d:
        for p in range(args.programs):
            seed = rng.randrange(1 << 30)  # the same program with either dealloc placement
            for dealloc in ("late", "tight"):
                text = program(random.Random(seed), args.ops, dealloc)
                src = os.path.join(d, f"p{p}{dealloc}.mlir")
                with open(src, "w") as f:
                    f.write(text)
                arena, lb, ok, peers, checks = compare(src, opt, iree, run)
                verified += ok
                proven += all(checks)
                wins += arena < peers[0]
                ties += arena == peers[0]
                losses += arena > peers[0]
                print(f"| p{p} | {dealloc} | {lb} | {arena} | {peers[0]} | {peers[1]} | {peers[0] / max(arena, 1):.2f} | {'yes' if ok else 'NO'} | {' / '.join('ok' if c else 'FAIL' for c in checks)} |")
                sys.stdout.flush()
    n = 2 * args.programs
    summary = (f"\n# {n} programs: memopt smaller than upstream best-fit on {wins}, equal on {ties}, larger on {losses}; "
          f"memopt output verified by iree-opt: {verified}/{n}; both plans proven by memopt-run --check: {proven}/{n}")
    print(summary)
    if args.models:
        mw, mt, ml, mv, mp, mn = compare_models(args, iree, opt, run)
        print(f"\n# {mn} real models lowered: memopt smaller than upstream best-fit on {mw}, equal on {mt}, "
              f"larger on {ml}; verified by iree-opt {mv}/{mn}; both plans proven by --check {mp}/{mn}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
