#!/usr/bin/env python3
"""Parse and plan time of memopt-opt against program size (both must stay linear).

For each size, a program is generated and run through ``memopt-opt`` (parse, verify, print) and
``memopt-opt --plan-memory``, as processes, side by side in one invocation; the ratio column is
each time over the first size's, scaled by size (1.0 = perfectly linear). ``--shape chain``: a
chain of ``memopt.compute`` ops with skip connections; ``--shape nested``: ``memopt.if`` ops
nested N deep, the innermost computing from the function's arguments (the hostile class of
deep nesting: every use sits N regions below its definition).

    python bench/parse_scaling.py [--sizes 5000,10000,20000,40000,100000]
    python bench/parse_scaling.py --shape nested --sizes 250,500,1000,2000
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time


def chain(n: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    types = ["tensor<64xf32>"]
    lines = ["builtin.module {", "  func.func @main(%v0: tensor<64xf32>) -> tensor<64xf32> {"]
    for i in range(1, n + 1):
        args, arg_types = [f"%v{i - 1}"], [types[i - 1]]
        if i > 8 and rng.random() < 0.1:
            j = rng.randrange(max(1, i - 40), i - 1)
            args.append(f"%v{j}")
            arg_types.append(types[j])
        types.append(f"tensor<{rng.choice((16, 64, 256))}xf32>" if i < n else "tensor<64xf32>")
        lines.append(f'    %v{i} = memopt.compute "op"({", ".join(args)}) : ({", ".join(arg_types)}) -> {types[i]}')
    lines += [f"    func.return %v{n} : tensor<64xf32>", "  }", "}"]
    return "\n".join(lines) + "\n"


def nested(n: int) -> str:
    body = [f"%r{i} = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {{" for i in range(n)]
    body += ['%y = memopt.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>', "memopt.yield %y : tensor<4xf32>"]
    for i in reversed(range(n)):
        body += ["} else {", "memopt.yield %x : tensor<4xf32>", "}"]
        body.append(f"memopt.yield %r{i} : tensor<4xf32>" if i else "func.return %r0 : tensor<4xf32>")
    return ("builtin.module {\nfunc.func @main(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {\n"
            + "\n".join(body) + "\n}\n}\n")


SHAPES = {"chain": (chain, "--plan-memory=strategy=large-first"), "nested": (nested, "--plan-memory")}


def timed(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="5000,10000,20000,40000,100000")
    ap.add_argument("--shape", choices=sorted(SHAPES), default="chain", help="the generated program (default: chain)")
    args = ap.parse_args(argv)
    make, plan_flag = SHAPES[args.shape]
    opt = os.path.join(os.path.dirname(sys.executable), "memopt-opt")
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"| {'ops' if args.shape == 'chain' else 'depth'} | parse+print s | per-op ratio | {plan_flag} s | per-op ratio |")
    print("|---:|---:|---:|---:|---:|")
    base = None
    with tempfile.TemporaryDirectory() as d:
        for n in sizes:
            path = os.path.join(d, f"c{n}.mlir")
            with open(path, "w") as f:
                f.write(make(n))
            t_parse = timed([opt, path])
            t_plan = timed([opt, path, plan_flag])
            if base is None:
                base = (n, t_parse, t_plan)
            r1 = (t_parse / n) / (base[1] / base[0])
            r2 = (t_plan / n) / (base[2] / base[0])
            print(f"| {n} | {t_parse:.2f} | {r1:.2f} | {t_plan:.2f} | {r2:.2f} |")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
