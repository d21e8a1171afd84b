// verify-plan on an upstream plan reads it back (the planner's tracer on the arena views) and
// trusts nothing the planner wrote: an overlap of two live views, a view past its arena, a
// recorded size that is not the arena's, and a function never planned are located errors.
// RUN: memopt-opt %s --plan-memory --verify-plan -o %t.mlir
// RUN: sed -e 's/arith.constant 256 : index/arith.constant 0 : index/' %t.mlir | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=OVERLAP
// OVERLAP: memopt-opt: error: <stdin>:{{[0-9]+}}:5: invalid plan: buffers 'a' [0, 256) live [2, 7) and 'b' [0, 256) live [5, 10) overlap
// RUN: sed -e 's/arith.constant 256 : index/arith.constant 400 : index/' %t.mlir | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=PAST
// PAST: invalid plan: buffer 'b' [400, 656) lies outside its 512-byte arena
// RUN: sed -e 's/memopt.arena_size = 512/memopt.arena_size = 256/' %t.mlir | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=SIZE
// SIZE: memopt-opt: error: <stdin>:{{[0-9]+}}:3: invalid plan: the recorded size 256 is not the arena's 512 bytes
// RUN: not memopt-opt %s --verify-plan 2>&1 | filecheck %s --check-prefix=NONE
// NONE: memopt-opt: error: {{.*}}verify.mlir:15:1: function '@f' has no plan (memopt.arena_size): run plan-memory first

func.func private @k(memref<64xf32>, memref<64xf32>)
func.func @f(%x: memref<64xf32>, %y: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  func.call @k(%x, %a) : (memref<64xf32>, memref<64xf32>) -> ()
  %b = memref.alloc() : memref<64xf32>
  func.call @k(%a, %b) : (memref<64xf32>, memref<64xf32>) -> ()
  %c = memref.alloc() : memref<64xf32>
  func.call @k(%b, %c) : (memref<64xf32>, memref<64xf32>) -> ()
  func.call @k(%c, %y) : (memref<64xf32>, memref<64xf32>) -> ()
  return
}
