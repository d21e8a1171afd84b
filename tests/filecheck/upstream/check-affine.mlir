// memopt-run --check on affine loops: affine.for bounds from maps, affine.apply, affine.load and
// affine.store through their maps, affine.if; every element access checked against the plan (the
// first loop, a perfect nest of loads and stores, runs as one vectorised op).
// RUN: memopt-opt %s --plan-memory -o %t.mlir 2>/dev/null
// RUN: memopt-run %t.mlir --check | filecheck %s
// CHECK: @main: planned execution matches unplanned (27 buffer writes, 20 reads, 2 arena views, 3 paths)
// %t[i] = x[i] + x[i + 1] (i < 7), then out[i] = t[6 - i] where i is even, 0 elsewhere.
// RUN: memopt-run %t.mlir > %t.unplanned
// RUN: memopt-run %t.mlir --planned | diff %t.unplanned -
#shift = affine_map<(d0) -> (d0 + 1)>
#rev = affine_map<(d0) -> (6 - d0)>
#even = affine_set<(d0) : (d0 - (d0 floordiv 2) * 2 == 0)>
func.func @main(%x: memref<8xf32>, %out: memref<7xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<7xf32>
  affine.for %i = 0 to 7 {
    %a = affine.load %x[%i] : memref<8xf32>
    %j = affine.apply #shift(%i)
    %b = affine.load %x[%j] : memref<8xf32>
    %s = arith.addf %a, %b : f32
    affine.store %s, %t[%i] : memref<7xf32>
  }
  %u = memref.alloc() : memref<7xf32>
  affine.for %i = 0 to 7 {
    "affine.if"(%i) <{condition = #even}> ({
      %v = affine.load %t[6 - %i] : memref<7xf32>
      affine.store %v, %u[%i] : memref<7xf32>
      "affine.yield"() : () -> ()
    }, {
      affine.store %zero, %u[%i] : memref<7xf32>
      "affine.yield"() : () -> ()
    }) : (index) -> ()
  }
  memref.copy %u, %out : memref<7xf32> to memref<7xf32>
  return
}
