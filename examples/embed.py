#!/usr/bin/env python3
"""Embedding memopt in an xDSL compiler flow (see ``memopt.api``).

A flow holds a bufferized upstream module (``func``/``memref``/``scf``/``linalg``); it runs its
own passes and memopt's in one xDSL ``PassPipeline`` — ``canonicalize``, then ``plan-memory``
(one arena per function, handed to the caller as an argument here), then ``insert-dma``
(weights streamed from off-chip globals with ``memref.dma_start``) — and asks ``memopt.api``
for the plan: the scratch size the caller must provide and where every buffer lives.

    python examples/embed.py [INPUT.mlir]      # default: examples/mlp.mlir, a small bufferized MLP
"""

from __future__ import annotations

import sys
from pathlib import Path

from xdsl.parser import Parser
from xdsl.passes import PassPipeline
from xdsl.printer import Printer
from xdsl.transforms.canonicalize import CanonicalizePass

from memopt.api import InsertDmaPass, PlanMemoryPass, context, summarize



def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else Path(__file__).with_name("mlp.mlir")
    text = path.read_text(encoding="utf-8")
    ctx = context()
    module = Parser(ctx, text).parse_module()
    pipeline = PassPipeline((
        CanonicalizePass(),
        PlanMemoryPass(strategy="best", arena="arg"),
        InsertDmaPass(mode="always"),
    ))
    pipeline.apply(ctx, module)
    Printer().print_op(module)
    print()
    for f in summarize(module).functions:
        print(f"// @{f.name}: caller provides {f.onchip_size} scratch bytes "
              f"(arena {f.arena_size}, lower bound {f.lower_bound}, strategy {f.strategy})")
        for b in f.buffers:
            print(f"//   {b.name or '?'}: [{b.offset}, {b.offset + b.size})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
