// A planned function's staging buffers and transfer tags go after the bytes its plan uses
// (weights off-chip in space 1: the staging buffers are arena bytes), never over a buffer
// the plan placed; a recorded memopt.arena_size that does not describe the arena is refused,
// located, rather than trusted.
// RUN: memopt-opt %s --insert-dma=mode=always -o %t.mlir
// RUN: filecheck %s < %t.mlir
// RUN: iree-opt %t.mlir > /dev/null
// RUN: memopt-opt %t.mlir --verify-plan > /dev/null
// CHECK:      memopt.arena_size = 128 : i64
// CHECK-SAME: memopt.onchip_size = 264 : i64
// CHECK:      %arena = memref.alloc() alignment = 16 {memopt.arena} : memref<264xi8>
// CHECK-NEXT: %[[O0:[0-9]+]] = arith.constant 128 : index
// CHECK-NEXT: %alloc0 = memref.view %arena[%[[O0]]][] {memopt.staging} : memref<264xi8> to memref<64xi8>
// CHECK-NEXT: %[[O1:[0-9]+]] = arith.constant 192 : index
// CHECK-NEXT: %alloc1 = memref.view %arena[%[[O1]]][] {memopt.staging} : memref<264xi8> to memref<64xi8>
// CHECK-NEXT: %[[OT:[0-9]+]] = arith.constant 256 : index
// CHECK-NEXT: %tags = memref.view %arena[%[[OT]]][] {memopt.staging} : memref<264xi8> to memref<2xi32>
//
// A recorded size below the bytes the views use: the view past it is named.
// RUN: sed -e 's/memopt.arena_size = 128/memopt.arena_size = 64/' %s | not memopt-opt --insert-dma=mode=always 2>&1 | filecheck %s --check-prefix=SHORT
// SHORT: {{^}}memopt-opt: error: <stdin>:[[# @LINE + 12]]:3: insert-dma: '@main' records memopt.arena_size = 64 but this view of its arena ends at byte 128: the plan does not hold (plan the unplanned program again){{$}}
// A recorded size above the arena itself.
// RUN: sed -e 's/memopt.arena_size = 128/memopt.arena_size = 4096/' %s | not memopt-opt --insert-dma=mode=always 2>&1 | filecheck %s --check-prefix=LONG
// LONG: {{^}}memopt-opt: error: <stdin>:[[# @LINE + 4]]:1: insert-dma: '@main' records memopt.arena_size = 4096, more than its 128-byte arena: the plan does not hold (plan the unplanned program again){{$}}
memref.global "private" constant @w : memref<64xi8, 1> = dense<1>
memref.global "private" constant @b : memref<64xi8, 1> = dense<2>
func.func private @k(memref<16xf32>, memref<16xf32, 1>, memref<16xf32>)
func.func @main(%x: memref<16xf32>) attributes {memopt.arena_size = 128 : i64} {
  %arena = memref.alloc() alignment = 16 {memopt.arena} : memref<128xi8>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %a = memref.view %arena[%c0][] : memref<128xi8> to memref<16xf32>
  %b = memref.view %arena[%c64][] : memref<128xi8> to memref<16xf32>
  %g = memref.get_global @w : memref<64xi8, 1>
  %w = memref.view %g[%c0][] : memref<64xi8, 1> to memref<16xf32, 1>
  %h = memref.get_global @b : memref<64xi8, 1>
  %hw = memref.view %h[%c0][] : memref<64xi8, 1> to memref<16xf32, 1>
  func.call @k(%x, %w, %a) : (memref<16xf32>, memref<16xf32, 1>, memref<16xf32>) -> ()
  func.call @k(%a, %hw, %b) : (memref<16xf32>, memref<16xf32, 1>, memref<16xf32>) -> ()
  memref.dealloc %arena : memref<128xi8>
  return
}
