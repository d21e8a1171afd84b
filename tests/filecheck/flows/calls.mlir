// Calls between planned functions: callees first; a callee's arena becomes its last argument
// (memopt.arena_arg, with a remark), and each call site passes a view of the caller's arena
// placed like a buffer live for the call. A recursive call is a located error.
// RUN: memopt-opt %s --plan-memory --verify-plan -o %t.mlir 2> %t.err
// RUN: filecheck %s < %t.mlir
// RUN: filecheck %s --check-prefix=REMARK < %t.err
// CHECK-LABEL: func.func @block(%x: memref<64xf32>, %y: memref<64xf32>, %arena: memref<256xi8>)
// CHECK-SAME: memopt.arena_size = 256 : i64
// CHECK-SAME: memopt.arena_arg = 2 : i64
// CHECK-LABEL: func.func @main
// CHECK-SAME: memopt.arena_size = 768 : i64
// CHECK: %block_arena = memref.view %arena[%{{.*}}][] : memref<768xi8> to memref<256xi8>
// CHECK-NEXT: func.call @block(%a, %b, %block_arena) : (memref<64xf32>, memref<64xf32>, memref<256xi8>) -> ()
// CHECK: %block_arena_1 = memref.view %arena[%{{.*}}][] : memref<768xi8> to memref<256xi8>
// CHECK-NEXT: func.call @block(%b, %a2, %block_arena_1)
// REMARK: plan-memory: remark: {{.*}}calls.mlir:23:1: '@block' is called by planned functions: its arena is now its last argument (memopt.arena_arg), which every caller passes
// REQUIRES: iree-opt
// RUN: iree-opt %t.mlir -o /dev/null
// RUN: sed -e 's/func.call @k(%%t, %%y)/func.call @block(%%t, %%y)/' %s | not memopt-opt --plan-memory 2>&1 | filecheck %s --check-prefix=RECURSIVE
// RECURSIVE: memopt-opt: error: <stdin>:26:3: '@block' is called recursively: a recursive call has no static memory plan (each activation needs its own buffers)

func.func private @k(memref<64xf32>, memref<64xf32>)
func.func @block(%x: memref<64xf32>, %y: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  func.call @k(%x, %t) : (memref<64xf32>, memref<64xf32>) -> ()
  func.call @k(%t, %y) : (memref<64xf32>, memref<64xf32>) -> ()
  memref.dealloc %t : memref<64xf32>
  return
}
func.func @main(%x: memref<64xf32>, %y: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  func.call @k(%x, %a) : (memref<64xf32>, memref<64xf32>) -> ()
  %b = memref.alloc() : memref<64xf32>
  func.call @block(%a, %b) : (memref<64xf32>, memref<64xf32>) -> ()
  %a2 = memref.alloc() : memref<64xf32>
  func.call @block(%b, %a2) : (memref<64xf32>, memref<64xf32>) -> ()
  func.call @k(%a2, %y) : (memref<64xf32>, memref<64xf32>) -> ()
  return
}
