// Affine-lowered upstream IR (affine, math, vector, bufferization are registered): affine.load
// and affine.store are uses of the buffers they touch, and a buffer used inside an affine.for
// lives to the loop's end. %a dies after the second loop reads it, so %c takes its bytes; %b,
// live across both, does not share. memopt-run proves it (affine.for/load/store and scalar math
// execute; tests/unit/test_executor.py runs every FileCheck input).
// RUN: memopt-opt %s --plan-memory | memopt-run --check -
// RUN: memopt-opt %s --plan-memory="alignment=1 strategy=large-first export=%t.csv" | filecheck %s
// RUN: filecheck %s --check-prefix=PLAN < %t.csv
// CHECK:      func.func @f({{.*}}) attributes {memopt.arena_size = 512 : i64
// CHECK:      affine.for
// CHECK:      math.exp
// PLAN:      id,lower,upper,size,offset
// PLAN-NEXT: a,0,{{[0-9]+}},256,[[A:[0-9]+]]
// PLAN-NEXT: b,{{[0-9]+}},{{[0-9]+}},256,[[B:[0-9]+]]
// PLAN-NEXT: c,{{[0-9]+}},{{[0-9]+}},256,[[A]]

func.func @f(%x: memref<64xf32>, %y: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %x[%i] : memref<64xf32>
    %e = math.exp %v : f32
    affine.store %e, %a[%i] : memref<64xf32>
  }
  %b = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %a[%i] : memref<64xf32>
    affine.store %v, %b[%i] : memref<64xf32>
  }
  %c = memref.alloc() : memref<64xf32>
  affine.for %i = 0 to 64 {
    %v = affine.load %b[%i] : memref<64xf32>
    %s = math.tanh %v : f32
    affine.store %s, %c[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %v = affine.load %c[%i] : memref<64xf32>
    affine.store %v, %y[%i] : memref<64xf32>
  }
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %c : memref<64xf32>
  return
}
