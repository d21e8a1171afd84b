// Regions on linalg programs: a linalg op's body is scalar code, not control flow, so kernels
// with bodies (linalg.generic) stream like named ones in the Region they stand in; scf.if
// branches and scf.for bodies are Regions of their own (the ping-pong restarts in each, a loop
// body loads every iteration); a Region inside scf.parallel, whose iterations may overlap, is
// left unstreamed with a located remark.
// RUN: memopt-opt %s --plan-memory --insert-dma=mode=always -o %t.mlir 2>%t.err
// RUN: filecheck %s < %t.mlir
// RUN: filecheck %s --check-prefix=REMARK < %t.err
// RUN: iree-opt %t.mlir > /dev/null
// RUN: memopt-opt %s --insert-dma=mode=always --plan-memory 2>/dev/null | iree-opt > /dev/null
//
// Region @main/0: the matmul loads into alloc0, the generic (a body, no control flow) into alloc1.
// CHECK:      "memref.dma_start"{{.*}} : (memref<16x16xf32>, index, index, memref<16x16xf32, 1 : i64>,
// CHECK:      "memref.dma_start"{{.*}} : (memref<16xf32>, index, memref<16xf32, 1 : i64>,
// CHECK-NEXT: linalg.matmul ins(%x, %w0 : memref<4x16xf32>, memref<16x16xf32, 1 : i64>)
// CHECK:      "memref.dma_wait"
// CHECK-NEXT: %w2 = memref.view %alloc1[%{{[0-9]+}}][] : memref<1024xi8, 1 : i64> to memref<16xf32, 1 : i64>
// CHECK-NEXT: linalg.generic {{.*}} ins(%y, %w2 : memref<4x16xf32>, memref<16xf32, 1 : i64>)
// The branch is a Region of its own: its kernel loads and waits for its own weight, in alloc0.
// CHECK:      scf.if %c {
// CHECK:        %{{[0-9]+}} = memref.get_global @w1
// CHECK:        %{{[0-9]+}} = memref.view %alloc0
// CHECK:        "memref.dma_start"
// CHECK-NEXT:   "memref.dma_wait"
// CHECK:        linalg.matmul ins(%z, %w1{{.*}} : memref<4x16xf32>, memref<16x16xf32, 1 : i64>)
// CHECK:      }
// The loop body too, every iteration: alloc0, then alloc1 issued before the first matmul.
// CHECK:      scf.for %{{.*}} = %c0 to %c3 step %c1 {
// CHECK:        memref.get_global @w3
// CHECK:        memref.view %alloc0
// CHECK:        "memref.dma_start"
// CHECK:        memref.get_global @w0
// CHECK-NEXT:   memref.view %alloc1
// CHECK-NEXT:   "memref.dma_start"
// CHECK-NEXT:   linalg.matmul ins(%y, %w3 :
// CHECK:        "memref.dma_wait"
// CHECK:        linalg.matmul ins(%z, %w0{{.*}} :
// CHECK:      }
// Inside scf.parallel the weight is read in place.
// CHECK:      scf.parallel
// CHECK-NOT:  dma_start
// CHECK:      linalg.matmul ins(%x, %w1 : memref<4x16xf32>, memref<16x16xf32>)
// REMARK: {{^}}insert-dma: remark: {{.*}}dma-regions.mlir:[[# @LINE + 28]]:5: Region @main/op2/region0/0 runs inside 'scf.parallel', whose iterations may overlap and would share staging buffers: its weights are not streamed{{$}}

memref.global "private" constant @w0 : memref<16x16xf32> = dense<1.000000e+00>
memref.global "private" constant @w1 : memref<16x16xf32> = dense<2.000000e+00>
memref.global "private" constant @w2 : memref<16xf32> = dense<3.000000e+00>
memref.global "private" constant @w3 : memref<16x16xf32> = dense<4.000000e+00>
func.func @main(%c: i1, %x: memref<4x16xf32>, %y: memref<4x16xf32>, %z: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %w0 = memref.get_global @w0 : memref<16x16xf32>
  %w1 = memref.get_global @w1 : memref<16x16xf32>
  %w2 = memref.get_global @w2 : memref<16xf32>
  %w3 = memref.get_global @w3 : memref<16x16xf32>
  linalg.matmul ins(%x, %w0 : memref<4x16xf32>, memref<16x16xf32>) outs(%y : memref<4x16xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y, %w2 : memref<4x16xf32>, memref<16xf32>) outs(%z : memref<4x16xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    linalg.yield %s : f32
  }
  scf.if %c {
    linalg.matmul ins(%z, %w1 : memref<4x16xf32>, memref<16x16xf32>) outs(%y : memref<4x16xf32>)
  }
  scf.for %i = %c0 to %c3 step %c1 {
    linalg.matmul ins(%y, %w3 : memref<4x16xf32>, memref<16x16xf32>) outs(%z : memref<4x16xf32>)
    linalg.matmul ins(%z, %w0 : memref<4x16xf32>, memref<16x16xf32>) outs(%y : memref<4x16xf32>)
  }
  scf.parallel (%j) = (%c0) to (%c3) step (%c1) {
    linalg.matmul ins(%x, %w1 : memref<4x16xf32>, memref<16x16xf32>) outs(%z : memref<4x16xf32>)
    scf.reduce
  }
  return
}
// Unstructured control flow: every block is cut like any other (a block runs start to end).
// CHECK:      func.func @branches(
// CHECK:      cf.cond_br %c, ^bb1, ^bb2
// CHECK-NEXT: ^bb1:
// CHECK:        "memref.dma_start"
// CHECK-NEXT:   "memref.dma_wait"
// CHECK-NEXT:   %w = memref.view %alloc0
// CHECK-NEXT:   linalg.copy ins(%w : memref<16x16xf32, 1 : i64>)
func.func @branches(%c: i1, %y: memref<16x16xf32>) {
  %w = memref.get_global @w0 : memref<16x16xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  linalg.copy ins(%w : memref<16x16xf32>) outs(%y : memref<16x16xf32>)
  cf.br ^bb2
^bb2:
  return
}
