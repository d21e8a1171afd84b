// rematerialize after plan-memory: the rewrite would leave the plan stale (clones carry copied
// offsets, the recorded lower bound no longer holds), so a planned function is refused, located;
// the other order plans the rewritten function.
// RUN: not memopt-opt %S/Inputs/chain4.mlir --plan-memory --rematerialize=budget=4096 2>&1 | filecheck %s --check-prefix=STALE
// STALE: {{^}}memopt-opt: error: {{.*}}chain4.mlir:2:1: rematerialize: '@main' is already planned (memopt.plan): run rematerialize before plan-memory (rewriting it would leave its plan stale){{$}}
// RUN: memopt-opt %S/Inputs/chain4.mlir --rematerialize=budget=4096 --plan-memory --verify-plan 2>&1 | filecheck %s --check-prefix=FRESH
// FRESH: remat: @main: 3 ops cloned
// FRESH: arena_size = 4096
//
// A memref program is refused by either order (the memopt dialect is where remat works):
// RUN: memopt-opt %S/Inputs/chain4.mlir --lower-to-memref -o %t.memref.mlir
// RUN: not memopt-opt %t.memref.mlir --plan-memory --rematerialize=budget=4096 2>&1 | filecheck %s --check-prefix=MEMREF
// MEMREF: rematerialize: rematerialization is not supported on memref programs yet ('@main' is bufferized func/memref IR)
