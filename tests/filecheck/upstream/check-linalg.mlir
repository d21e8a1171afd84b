// memopt-run executes linalg with upstream's semantics: a named op (matmul accumulates into its
// output, so the output is read: it must be filled first) and a generic whose body uses
// linalg.index; its values are the real ones, in planned and unplanned execution alike.
// RUN: memopt-opt %s --plan-memory -o %t.mlir 2>/dev/null
// RUN: memopt-run %t.mlir --check | filecheck %s
// CHECK: @main: planned execution matches unplanned (7 buffer writes, 6 reads, 3 arena views)
// A[i, k] = i + k, B = 2: C[i, j] = sum_k 2 (i + k) = 6 i + 6; then the maximum of each row (linalg.reduce).
// RUN: memopt-run %t.mlir | filecheck %s --check-prefix=VALUES
// VALUES: @main argument #0 : memref<2x2xf32> = [6.0, 6.0, 12.0, 12.0]
// VALUES: @main argument #1 : memref<2xf32> = [6.0, 12.0]
// RUN: memopt-run %t.mlir --planned | filecheck %s --check-prefix=VALUES
// Forgetting the fill leaves matmul reading an output nothing wrote: refused.
// RUN: sed -e '/fill ins(%%zero/d' %t.mlir | not memopt-run - --check 2>&1 | filecheck %s --check-prefix=UNDEF
// UNDEF: memopt-run: error: <stdin>:{{[0-9]+}}:{{[0-9]+}}: buffer '%c' is read before anything is written to it (its bytes are undefined)
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%out: memref<2x2xf32>, %rowmax: memref<2xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %ninf = arith.constant -1.0e30 : f32
  %a = memref.alloc() : memref<2x3xf32>
  linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%a : memref<2x3xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %s = arith.addi %i, %k : index
    %si = arith.index_cast %s : index to i64
    %f = arith.sitofp %si : i64 to f32
    linalg.yield %f : f32
  }
  %b = memref.alloc() : memref<3x2xf32>
  linalg.fill ins(%two : f32) outs(%b : memref<3x2xf32>)
  %c = memref.alloc() : memref<2x2xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<2x2xf32>)
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x2xf32>) outs(%c : memref<2x2xf32>)
  memref.copy %c, %out : memref<2x2xf32> to memref<2x2xf32>
  linalg.fill ins(%ninf : f32) outs(%rowmax : memref<2xf32>)
  linalg.reduce ins(%c : memref<2x2xf32>) outs(%rowmax : memref<2xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %mx = arith.maximumf %in, %acc : f32
      linalg.yield %mx : f32
    }
  return
}
