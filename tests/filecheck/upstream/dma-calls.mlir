// func.call kernels: a call's weight operands stream like a linalg op's. A declared kernel is
// called on its on-chip variant (a kernel library builds one per memory space); a function
// defined in the module keeps its signature, the staged copy cast back to its parameter's
// memory space.
// RUN: memopt-opt %s --plan-memory --insert-dma=mode=always -o %t.mlir 2>/dev/null
// RUN: filecheck %s < %t.mlir
// RUN: iree-opt %t.mlir > /dev/null
// RUN: memopt-opt %s --insert-dma=mode=always --plan-memory 2>/dev/null | iree-opt > /dev/null
// RUN: memopt-run %t.mlir --check | filecheck %s --check-prefix=EXEC
// EXEC: @main: planned execution matches unplanned
// CHECK:      func.func private @kernel_onchip(memref<4xf32, 1 : i64>, memref<2x4xf32>)
// CHECK-NOT:  func.func private @kernel(
// CHECK:      func.func private @proj(%x: memref<2x8xf32>, %w: memref<8x4xf32, strided<[?, ?], offset: ?>>, %y: memref<2x4xf32>)
// CHECK:      func.func @main(
// CHECK:      %[[C:[0-9a-z_]+]] = "memref.cast"(%{{[0-9]+}}) : (memref<8x4xf32, 1 : i64>) -> memref<8x4xf32, strided<[?, ?], offset: ?>, 1 : i64>
// CHECK-NEXT: %c = "memref.memory_space_cast"(%[[C]]) : (memref<8x4xf32, strided<[?, ?], offset: ?>, 1 : i64>) -> memref<8x4xf32, strided<[?, ?], offset: ?>>
// CHECK:      func.call @proj(%x, %c, %y)
// CHECK:      func.call @kernel_onchip(%wk, %y) : (memref<4xf32, 1 : i64>, memref<2x4xf32>) -> ()
memref.global "private" constant @wp : memref<8x4xf32> = dense<1.000000e+00>
memref.global "private" constant @wk : memref<4xf32> = dense<2.000000e+00>
func.func private @kernel(memref<4xf32>, memref<2x4xf32>)
func.func private @proj(%x: memref<2x8xf32>, %w: memref<8x4xf32, strided<[?, ?], offset: ?>>, %y: memref<2x4xf32>) {
  linalg.matmul ins(%x, %w : memref<2x8xf32>, memref<8x4xf32, strided<[?, ?], offset: ?>>) outs(%y : memref<2x4xf32>)
  return
}
func.func @main(%x: memref<2x8xf32>, %y: memref<2x4xf32>) {
  %wp = memref.get_global @wp : memref<8x4xf32>
  %c = memref.cast %wp : memref<8x4xf32> to memref<8x4xf32, strided<[?, ?], offset: ?>>
  call @proj(%x, %c, %y) : (memref<2x8xf32>, memref<8x4xf32, strided<[?, ?], offset: ?>>, memref<2x4xf32>) -> ()
  %wk = memref.get_global @wk : memref<4xf32>
  call @kernel(%wk, %y) : (memref<4xf32>, memref<2x4xf32>) -> ()
  return
}
