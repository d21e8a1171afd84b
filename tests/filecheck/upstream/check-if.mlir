// memopt-run --check on scf.if with results: the buffer each branch yields is bound to the if's
// result and read after it; both branches are run against the plan (each forced in turn).
// RUN: memopt-opt %s --plan-memory -o %t.mlir 2>/dev/null
// RUN: memopt-run %t.mlir --check | filecheck %s
// CHECK: @main: planned execution matches unplanned ({{[0-9]+}} buffer writes, {{[0-9]+}} reads, 3 arena views, 2 paths)
// The planned and unplanned runs compute the same values.
// RUN: memopt-run %t.mlir > %t.unplanned
// RUN: memopt-run %t.mlir --planned | diff %t.unplanned -
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: memref<16xf32>, %out: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<16xf32>) outs(%t : memref<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  }
  %c0 = arith.constant 0 : index
  %first = memref.load %t[%c0] : memref<16xf32>
  %pos = arith.cmpf ogt, %first, %zero : f32
  %r = scf.if %pos -> (memref<16xf32>) {
    %a = memref.alloc() : memref<16xf32>
    linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%t : memref<16xf32>) outs(%a : memref<16xf32>)
    scf.yield %a : memref<16xf32>
  } else {
    %b = memref.alloc() : memref<16xf32>
    linalg.elementwise kind=#linalg.elementwise_kind<mul> ins(%t, %t : memref<16xf32>, memref<16xf32>) outs(%b : memref<16xf32>)
    scf.yield %b : memref<16xf32>
  }
  memref.copy %r, %out : memref<16xf32> to memref<16xf32>
  return
}
