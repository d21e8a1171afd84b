// plan-memory on upstream MLIR (what a flow holds after bufferization): every static
// memref.alloc becomes a memref.view of one i8 arena, its dealloc goes, and the plan is in
// builtin attributes. Lifetimes end at the last use, not at the dealloc: here upstream MLIR's
// own planner (which runs alloc -> dealloc) needs 24576 bytes where memopt needs 16384.
// RUN: memopt-opt %s --plan-memory=strategy=large-first -o %t.mlir 2> %t.remarks
// RUN: filecheck %s < %t.mlir
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// CHECK:      func.func @main(%x: memref<1x8x16x16xf32>, %out: memref<1x8x16x16xf32>) attributes {memopt.arena_size = 16384 : i64, memopt.lower_bound = 16384 : i64, memopt.strategy = "large-first"} {
// CHECK-NEXT:   %arena = memref.alloc() alignment = 16 {memopt.arena} : memref<16384xi8>
// CHECK-NEXT:   %0 = arith.constant 0 : index
// CHECK-NEXT:   %a = memref.view %arena[%0][] : memref<16384xi8> to memref<1x8x16x16xf32>
// CHECK:        %b = memref.view %arena[%1][] : memref<16384xi8> to memref<1x8x16x16xf32>
// CHECK:        %2 = arith.constant 0 : index
// CHECK-NEXT:   %c = memref.view %arena[%2][] : memref<16384xi8> to memref<1x8x16x16xf32>
// CHECK-NOT:    memref.dealloc %{{[abc]}}
// The dynamic alloc is left alone, said in a located remark; so is a returned buffer.
// CHECK:        %d = memref.alloc(%c4) : memref<?xf32>
// CHECK-NEXT:   memref.dealloc %d : memref<?xf32>
// CHECK-NEXT:   memref.dealloc %arena : memref<16384xi8>
// CHECK-NEXT:   func.return
// REMARK: plan-memory: remark: {{.*}}:37:3: 'memref.alloc' in '@main' not planned: it has a dynamic shape

func.func private @conv(memref<1x8x16x16xf32>, memref<1x8x16x16xf32>)
func.func private @relu(memref<1x8x16x16xf32>, memref<1x8x16x16xf32>)
func.func @main(%x: memref<1x8x16x16xf32>, %out: memref<1x8x16x16xf32>) {
  %a = memref.alloc() : memref<1x8x16x16xf32>
  func.call @conv(%x, %a) : (memref<1x8x16x16xf32>, memref<1x8x16x16xf32>) -> ()
  %b = memref.alloc() : memref<1x8x16x16xf32>
  func.call @relu(%a, %b) : (memref<1x8x16x16xf32>, memref<1x8x16x16xf32>) -> ()
  %c = memref.alloc() : memref<1x8x16x16xf32>
  func.call @conv(%b, %c) : (memref<1x8x16x16xf32>, memref<1x8x16x16xf32>) -> ()
  memref.dealloc %b : memref<1x8x16x16xf32>
  memref.dealloc %a : memref<1x8x16x16xf32>
  func.call @relu(%c, %out) : (memref<1x8x16x16xf32>, memref<1x8x16x16xf32>) -> ()
  memref.dealloc %c : memref<1x8x16x16xf32>
  %c4 = arith.constant 4 : index
  %d = memref.alloc(%c4) : memref<?xf32>
  memref.dealloc %d : memref<?xf32>
  func.return
}
