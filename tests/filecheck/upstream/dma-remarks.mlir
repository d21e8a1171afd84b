// Nothing is left unstreamed silently: every read of a constant global insert-dma does not
// stream gets a located remark saying why, and the rest of the program is streamed as usual.
// RUN: memopt-opt %s --plan-memory --insert-dma=mode=always -o %t.mlir 2>%t.err
// RUN: filecheck %s --check-prefix=REMARK < %t.err
// RUN: filecheck %s < %t.mlir
// RUN: iree-opt %t.mlir > /dev/null
//
// A weight reached through an op that is not an alias (here the base buffer of
// extract_strided_metadata) cannot be given a staged copy.
// REMARK-DAG: {{^}}insert-dma: remark: {{.*}}dma-remarks.mlir:[[# @LINE + 40]]:3: operand 0 of 'linalg.copy' reads constant global @w, not streamed: it reaches it through 'memref.extract_strided_metadata', which a staged copy cannot be given{{$}}
// Elements that are not whole bytes cannot be copied into a view of staging bytes.
// REMARK-DAG: {{^}}insert-dma: remark: {{.*}}dma-remarks.mlir:[[# @LINE + 40]]:3: operand 0 of 'linalg.copy' reads constant global @mask, not streamed: its element type i1 is not a whole number of bytes{{$}}
// A global read by something other than a kernel (a load, a copy) is not streamed.
// REMARK-DAG: {{^}}insert-dma: remark: {{.*}}dma-remarks.mlir:[[# @LINE + 40]]:3: constant global @table is read by 'memref.load', which is not a kernel's input (a linalg op's ins or a func.call operand): not streamed{{$}}
// A Region that already holds DMA ops is left as it is (the pass is idempotent).
// REMARK-DAG: {{^}}insert-dma: remark: {{.*}}dma-remarks.mlir:[[# @LINE + 49]]:3: Region @pre/0 already holds DMA ops: its weights are left as they are{{$}}
// REMARK-DAG: {{^}}insert-dma: remark: weights in the default memory space (the arena's): staging buffers and transfer tags in memory space 1, an on-chip memory of their own (staging-space=N chooses another){{$}}
//
// @ok is streamed; the others are read where they are.
// CHECK:      func.func @main(
// CHECK:      "memref.dma_start"{{.*}} : (memref<16xf32>, index, memref<16xf32, 1 : i64>,
// CHECK:      linalg.copy ins(%ok : memref<16xf32, 1 : i64>)
// CHECK:      linalg.copy ins(%r : memref<16xf32>)
// CHECK:      linalg.copy ins(%m : memref<16xi1>)
// CHECK:      memref.load %t[
// CHECK:      func.func @pre(
// CHECK-COUNT-1: "memref.dma_start"
// CHECK-NOT:  "memref.dma_start"
// CHECK:      func.return
//
// Running the pass again changes nothing: @main has nothing left to stream, @pre says why not.
// RUN: memopt-opt %t.mlir --insert-dma=mode=always 2>%t.again.err | filecheck %s --check-prefix=AGAIN
// RUN: filecheck %s --check-prefix=AGAINREMARK < %t.again.err
// AGAIN-COUNT-2: "memref.dma_start"
// AGAIN-NOT:     "memref.dma_start"
// AGAINREMARK-NOT: @main/0
// AGAINREMARK: Region @pre/0 already holds DMA ops

memref.global "private" constant @ok : memref<16xf32> = dense<1.000000e+00>
memref.global "private" constant @w : memref<16xf32> = dense<2.000000e+00>
memref.global "private" constant @mask : memref<16xi1> = dense<true>
memref.global "private" constant @table : memref<16xf32> = dense<3.000000e+00>
func.func @main(%y: memref<16xf32>, %b: memref<16xi1>) -> f32 {
  %c0 = arith.constant 0 : index
  %ok = memref.get_global @ok : memref<16xf32>
  linalg.copy ins(%ok : memref<16xf32>) outs(%y : memref<16xf32>)
  %w = memref.get_global @w : memref<16xf32>
  %base, %off, %size, %stride = memref.extract_strided_metadata %w : memref<16xf32> -> memref<f32>, index, index, index
  %r = memref.reinterpret_cast %base to offset: [0], sizes: [16], strides: [1] : memref<f32> to memref<16xf32>
  linalg.copy ins(%r : memref<16xf32>) outs(%y : memref<16xf32>)
  %m = memref.get_global @mask : memref<16xi1>
  linalg.copy ins(%m : memref<16xi1>) outs(%b : memref<16xi1>)
  %t = memref.get_global @table : memref<16xf32>
  %v = memref.load %t[%c0] : memref<16xf32>
  return %v : f32
}
func.func @pre(%y: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %stage = memref.alloc() : memref<16xf32, 2>
  %tags = memref.alloc() : memref<1xi32>
  %g = memref.get_global @ok : memref<16xf32>
  memref.dma_start %g[%c0], %stage[%c0], %c16, %tags[%c0] : memref<16xf32>, memref<16xf32, 2>, memref<1xi32>
  memref.dma_wait %tags[%c0], %c16 : memref<1xi32>
  linalg.copy ins(%stage : memref<16xf32, 2>) outs(%y : memref<16xf32>)
  %w = memref.get_global @w : memref<16xf32>
  linalg.copy ins(%w : memref<16xf32>) outs(%y : memref<16xf32>)
  memref.dealloc %stage : memref<16xf32, 2>
  memref.dealloc %tags : memref<1xi32>
  return
}
