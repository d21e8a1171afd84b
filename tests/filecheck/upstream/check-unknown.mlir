// What memopt-run cannot execute it refuses, located and named, in one line: an op of a
// dialect it has no semantics for, a linalg op neither known nor with a body to evaluate.
// RUN: not memopt-run %s --check --func opaque 2>&1 | filecheck %s --check-prefix=OPAQUE
// OPAQUE: {{^}}memopt-run: error: {{.*}}check-unknown.mlir:13:3: cannot execute operation 'foo.bar' (no semantics for it in memopt-run){{$}}
// RUN: not memopt-run %s --check --func named 2>&1 | filecheck %s --check-prefix=NAMED
// NAMED: {{^}}memopt-run: error: {{.*}}check-unknown.mlir:18:3: cannot execute 'linalg.frobnicate': no semantics known for it and no body to evaluate{{$}}
// An op it cannot run on a path the run never takes does not stop it (forced there: skipped).
// RUN: memopt-run %s --check --func untaken | filecheck %s --check-prefix=UNTAKEN
// UNTAKEN: @untaken: planned execution matches unplanned (1 buffer writes, 1 reads, 0 arena views){{$}}
func.func @opaque(%x: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  memref.copy %x, %t : memref<16xf32> to memref<16xf32>
  "foo.bar"(%t) : (memref<16xf32>) -> ()
  return
}
func.func @named(%x: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  "linalg.frobnicate"(%x, %t) <{operandSegmentSizes = array<i32: 1, 1>}> : (memref<16xf32>, memref<16xf32>) -> ()
  return
}
func.func @untaken(%x: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  memref.copy %x, %t : memref<16xf32> to memref<16xf32>
  %no = arith.constant false
  scf.if %no {
    "foo.bar"(%t) : (memref<16xf32>) -> ()
    scf.yield
  }
  return
}
