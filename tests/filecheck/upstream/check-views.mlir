// memopt-run --check through views: a strided (non-contiguous) subview, a rank-reducing subview
// at a dynamic offset inside a loop, expand_shape/collapse_shape and reinterpret_cast, all as
// numpy views over the buffers' bytes (planned: the arena's).
// RUN: memopt-opt %s --plan-memory -o %t.mlir 2>/dev/null
// RUN: memopt-run %t.mlir --check | filecheck %s
// CHECK: @main: planned execution matches unplanned (7 buffer writes, 6 reads, 3 arena views)
// RUN: memopt-run %t.mlir | filecheck %s --check-prefix=VALUES
// RUN: memopt-run %t.mlir > %t.unplanned
// RUN: memopt-run %t.mlir --planned | diff %t.unplanned -
// Every other column of %a (a[i, 2j] = 10 i + 2j) lands in %even; row i of %even, plus 100 i, in
// row i of %rows (through a dynamic subview); %out is %rows collapsed and expanded back.
// VALUES: @main argument #0 : memref<4x4xf32> = [0.0, 2.0, 4.0, 6.0, 110.0, 112.0, 114.0, 116.0, 220.0, 222.0, 224.0, 226.0, 330.0, 332.0, 334.0, 336.0]
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>
func.func @main(%out: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %hundred = arith.constant 100.0 : f32
  %a = memref.alloc() : memref<4x8xf32>
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%a : memref<4x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ten = arith.constant 10 : index
    %i10 = arith.muli %i, %ten : index
    %v = arith.addi %i10, %j : index
    %vi = arith.index_cast %v : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    linalg.yield %vf : f32
  }
  %strided = memref.subview %a[0, 0] [4, 4] [1, 2] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 2]>>
  %even = memref.alloc() : memref<4x4xf32>
  memref.copy %strided, %even : memref<4x4xf32, strided<[8, 2]>> to memref<4x4xf32>
  %rows = memref.alloc() : memref<4x4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %src = memref.subview %even[%i, 0] [1, 4] [1, 1] : memref<4x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    %dst = memref.subview %rows[%i, 0] [1, 4] [1, 1] : memref<4x4xf32> to memref<4xf32, strided<[1], offset: ?>>
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %add = arith.mulf %fi, %hundred : f32
    linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
        ins(%src : memref<4xf32, strided<[1], offset: ?>>) outs(%dst : memref<4xf32, strided<[1], offset: ?>>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.addf %x, %add : f32
      linalg.yield %y : f32
    }
  }
  %flat = memref.collapse_shape %rows [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  %back = memref.expand_shape %flat [[0, 1]] output_shape [4, 4] : memref<16xf32> into memref<4x4xf32>
  %same = memref.reinterpret_cast %back to offset: [0], sizes: [4, 4], strides: [4, 1] : memref<4x4xf32> to memref<4x4xf32>
  memref.copy %same, %out : memref<4x4xf32> to memref<4x4xf32>
  return
}
