#!/usr/bin/env python3
"""Embedding memopt in an xDSL compiler flow (see ``memopt.api``).

A flow holds a bufferized upstream module (``func``/``memref``/``scf``/``linalg``); it runs its
own passes and memopt's in one xDSL ``PassPipeline`` — ``canonicalize``, then ``plan-memory``
(one arena per function, handed to the caller as an argument here), then ``insert-dma``
(weights streamed from off-chip globals with ``memref.dma_start``) — and asks ``memopt.api``
for the plan: the scratch size the caller must provide and where every buffer lives.

    python examples/embed.py [INPUT.mlir]      # default: a small bufferized MLP below
"""

from __future__ import annotations

import sys

from xdsl.parser import Parser
from xdsl.passes import PassPipeline
from xdsl.printer import Printer
from xdsl.transforms.canonicalize import CanonicalizePass

from memopt.api import InsertDmaPass, PlanMemoryPass, context, summarize

MLP = """
"memref.global"() <{sym_name = "w1", type = memref<4096xi8, 1>, initial_value, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "w2", type = memref<4096xi8, 1>, initial_value, sym_visibility = "private", constant}> : () -> ()
func.func private @matmul(memref<1x32xf32>, memref<32x32xf32, 1>, memref<1x32xf32>)
func.func private @relu(memref<1x32xf32>, memref<1x32xf32>)
func.func @mlp(%x: memref<1x32xf32>, %y: memref<1x32xf32>) {
  %c0 = arith.constant 0 : index
  %g1 = memref.get_global @w1 : memref<4096xi8, 1>
  %w1 = memref.view %g1[%c0][] : memref<4096xi8, 1> to memref<32x32xf32, 1>
  %g2 = memref.get_global @w2 : memref<4096xi8, 1>
  %w2 = memref.view %g2[%c0][] : memref<4096xi8, 1> to memref<32x32xf32, 1>
  %h = memref.alloc() : memref<1x32xf32>
  func.call @matmul(%x, %w1, %h) {cost = 1024 : i64} : (memref<1x32xf32>, memref<32x32xf32, 1>, memref<1x32xf32>) -> ()
  %a = memref.alloc() : memref<1x32xf32>
  func.call @relu(%h, %a) : (memref<1x32xf32>, memref<1x32xf32>) -> ()
  memref.dealloc %h : memref<1x32xf32>
  %o = memref.alloc() : memref<1x32xf32>
  func.call @matmul(%a, %w2, %o) {cost = 1024 : i64} : (memref<1x32xf32>, memref<32x32xf32, 1>, memref<1x32xf32>) -> ()
  memref.dealloc %a : memref<1x32xf32>
  "memref.copy"(%o, %y) : (memref<1x32xf32>, memref<1x32xf32>) -> ()
  memref.dealloc %o : memref<1x32xf32>
  func.return
}
"""


def main(argv: list[str]) -> int:
    text = open(argv[0], encoding="utf-8").read() if argv else MLP
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
