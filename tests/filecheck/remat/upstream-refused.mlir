// rematerialize and plan-memory{spill=auto} rewrite memopt-dialect tensors: on a memref program
// (bufferized func/memref IR) they refuse, located at the function, instead of reporting a fit
// that did not happen; and no pipeline leaves a stale plan behind with exit 0.
//
// rematerialize on a memref program, alone or after plan-memory:
// RUN: not memopt-opt %s --rematerialize=budget=100 2>&1 | filecheck %s --check-prefix=REMAT
// RUN: not memopt-opt %s --plan-memory --rematerialize=budget=100 2>&1 | filecheck %s --check-prefix=REMAT
// RUN: not memopt-opt %s --rematerialize=budget=1000000 2>&1 | filecheck %s --check-prefix=REMAT
// REMAT: {{^}}memopt-opt: error: {{.*}}upstream-refused.mlir:21:1: rematerialize: rematerialization is not supported on memref programs yet ('@mlp' is bufferized func/memref IR): apply it to the memopt dialect before lower-to-memref{{$}}
// REMAT-NOT: remat:
//
// spill=auto, whether or not the arena fits the capacity (it would be silently not applied):
// RUN: not memopt-opt %s '--plan-memory=capacity=100 spill=auto' 2>&1 | filecheck %s --check-prefix=SPILL
// RUN: not memopt-opt %s '--plan-memory=capacity=100000 spill=auto policy=remat' 2>&1 | filecheck %s --check-prefix=SPILL
// SPILL: {{^}}memopt-opt: error: {{.*}}upstream-refused.mlir:21:1: plan-memory: spill=auto is not supported on memref programs yet ('@mlp' is bufferized func/memref IR): apply it to the memopt dialect before lower-to-memref{{$}}
//
// Without spill=auto the capacity is checked as before: over it, a located error.
// RUN: not memopt-opt %s --plan-memory=capacity=100 2>&1 | filecheck %s --check-prefix=CAP
// CAP: {{^}}memopt-opt: error: {{.*}}: arena of '@mlp' needs 256 bytes, over capacity 100 (lower bound 256){{$}}
func.func private @relu(memref<1x32xf32>, memref<1x32xf32>)
func.func @mlp(%x: memref<1x32xf32>, %y: memref<1x32xf32>) {
  %h = memref.alloc() : memref<1x32xf32>
  func.call @relu(%x, %h) : (memref<1x32xf32>, memref<1x32xf32>) -> ()
  %a = memref.alloc() : memref<1x32xf32>
  func.call @relu(%h, %a) : (memref<1x32xf32>, memref<1x32xf32>) -> ()
  memref.dealloc %h : memref<1x32xf32>
  "memref.copy"(%a, %y) : (memref<1x32xf32>, memref<1x32xf32>) -> ()
  memref.dealloc %a : memref<1x32xf32>
  func.return
}
