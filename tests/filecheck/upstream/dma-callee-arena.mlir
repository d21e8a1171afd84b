// A planned function that takes its arena as an argument from callers in the module (plan-memory
// plans over the call graph) keeps its signature: its staging buffers are allocs, said in a
// remark, and the program still verifies and runs; in the other order plan-memory places them.
// RUN: memopt-opt %s --plan-memory --insert-dma=mode=always -o %t.mlir 2>%t.err
// RUN: filecheck %s < %t.mlir
// RUN: filecheck %s --check-prefix=REMARK < %t.err
// RUN: iree-opt %t.mlir > /dev/null
// RUN: memopt-opt %t.mlir --verify-plan > /dev/null
// RUN: memopt-run %t.mlir --check | filecheck %s --check-prefix=EXEC
// RUN: memopt-opt %s --insert-dma=mode=always --plan-memory 2>/dev/null | iree-opt > /dev/null
// REMARK: {{^}}insert-dma: remark: {{.*}}dma-callee-arena.mlir:[[# @LINE + 10]]:1: '@sub' takes its arena as an argument from callers in this module: its staging buffers are allocs (growing the arena would change the callers' view){{$}}
// CHECK:      func.func @sub(%x: memref<16xf32>, %y: memref<16xf32>, %arena: memref<64xi8>)
// CHECK-NEXT: %alloc0 = memref.alloc() {memopt.staging} : memref<64xi8>
// CHECK:      func.call @k_onchip(%x, %w, %a)
// CHECK:      func.func @main(
// CHECK:      func.call @sub(%x, %t, %{{.*}}) : (memref<16xf32>, memref<16xf32>, memref<64xi8>) -> ()
// EXEC: @sub: planned execution matches unplanned
// EXEC: @main: planned execution matches unplanned
memref.global "private" constant @w : memref<64xi8, 1> = dense<1>
func.func private @k(memref<16xf32>, memref<16xf32, 1>, memref<16xf32>)
func.func @sub(%x: memref<16xf32>, %y: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<16xf32>
  %g = memref.get_global @w : memref<64xi8, 1>
  %w = memref.view %g[%c0][] : memref<64xi8, 1> to memref<16xf32, 1>
  func.call @k(%x, %w, %a) : (memref<16xf32>, memref<16xf32, 1>, memref<16xf32>) -> ()
  func.call @k(%a, %w, %y) : (memref<16xf32>, memref<16xf32, 1>, memref<16xf32>) -> ()
  memref.dealloc %a : memref<16xf32>
  return
}
func.func @main(%x: memref<16xf32>, %y: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  func.call @sub(%x, %t) : (memref<16xf32>, memref<16xf32>) -> ()
  func.call @sub(%t, %y) : (memref<16xf32>, memref<16xf32>) -> ()
  memref.dealloc %t : memref<16xf32>
  return
}
