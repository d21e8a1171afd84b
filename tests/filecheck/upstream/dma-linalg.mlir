// insert-dma on linalg kernels whose weights are constant globals in the default memory space
// (what bufferization emits for constants): every kernel is seen (a linalg op's body is not
// control flow), the staging buffers and tags go to an on-chip space of their own (said in a
// remark), and each transfer copies a whole global into a view of its own type, so the count —
// elements of the source's element type — is exact for f32, i32 and i8 globals alike.
// RUN: memopt-opt %s --plan-memory --insert-dma=mode=always -o %t.mlir 2>%t.err
// RUN: filecheck %s < %t.mlir
// RUN: filecheck %s --check-prefix=REMARK < %t.err
// REMARK: {{^}}insert-dma: remark: weights in the default memory space (the arena's): staging buffers and transfer tags in memory space 1, an on-chip memory of their own (staging-space=N chooses another){{$}}
// REMARK-NOT: remark
//
// Ping-pong over the four weight readers: alloc0 holds @w (512 B) then @bias (64 B); alloc1
// holds @big (2048 B) then @bytes (128 B). After plan-memory they are allocs of space 1.
// CHECK:      func.func @main(
// CHECK:      %alloc0 = memref.alloc() {memopt.staging} : memref<512xi8, 1 : i64>
// CHECK-NEXT: %alloc1 = memref.alloc() {memopt.staging} : memref<2048xi8, 1 : i64>
// CHECK-NEXT: %tags = memref.alloc() {memopt.staging} : memref<4xi32, 1 : i64>
// Each kernel reads its weight through the aliasing ops it had, applied again to the copy in
// space 1: the cast, the subview, the view of the byte global (one view of alloc1 at 64).
// CHECK:      %wd = "memref.cast"(%{{[0-9]+}}) : (memref<8x16xf32, 1 : i64>) -> memref<?x16xf32, 1 : i64>
// CHECK:      linalg.matmul ins(%x, %wd : memref<2x8xf32>, memref<?x16xf32, 1 : i64>)
// CHECK:      %slice = memref.subview %{{[0-9]+}}[1, 0, 0] [1, 8, 16] [1, 1, 1] : memref<4x8x16xf32, 1 : i64> to memref<8x16xf32, strided<[16, 1], offset: 128>, 1 : i64>
// CHECK:      linalg.matmul ins(%x, %slice :
// CHECK:      linalg.broadcast ins(%bias : memref<16xi32, 1 : i64>)
// CHECK:      %w2 = memref.view %alloc1[%{{[0-9]+}}][] : memref<2048xi8, 1 : i64> to memref<16xf32, 1 : i64>
// CHECK-NEXT: linalg.broadcast ins(%w2 : memref<16xf32, 1 : i64>)
// A mutable global is state, not a weight: read in place.
// CHECK:      %state = memref.get_global @state : memref<2x16xf32>
// CHECK-NEXT: linalg.copy ins(%state :
// The off-chip reads the copies replace are gone; the allocs are freed before the return.
// CHECK-NOT:  memref.get_global @w :
// CHECK:      memref.dealloc %tags
// CHECK-NEXT: func.return
//
// The transfers as upstream MLIR prints them (its index constants are named by value): each
// copies a whole global into a view of its own type, the count in its elements — 128, 512 and 16
// for the f32 and i32 globals; a byte global (128 x i8) goes straight into alloc1.
// RUN: iree-opt %t.mlir | filecheck %s --check-prefix=UP
// UP:      %[[A0:[a-z0-9_]+]] = memref.alloc() {memopt.staging} : memref<512xi8, 1>
// UP-NEXT: %[[A1:[a-z0-9_]+]] = memref.alloc() {memopt.staging} : memref<2048xi8, 1>
// UP-NEXT: %[[TAGS:[a-z0-9_]+]] = memref.alloc() {memopt.staging} : memref<4xi32, 1>
// UP:      %[[G:[0-9]+]] = memref.get_global @w : memref<8x16xf32>
// UP-NEXT: %[[V:[a-z0-9_]+]] = memref.view %[[A0]][%c0][] : memref<512xi8, 1> to memref<8x16xf32, 1>
// UP:      memref.dma_start %[[G]][%c0, %c0], %[[V]][%c0, %c0], %c128, %[[TAGS]][%c0] {{.*}}: memref<8x16xf32>, memref<8x16xf32, 1>, memref<4xi32, 1>
// UP:      memref.dma_wait %[[TAGS]][%c0], %c128 : memref<4xi32, 1>
// UP:      memref.dma_start %{{[0-9]+}}[%c0, %c0, %c0], %{{[a-z0-9_]+}}[%c0, %c0, %c0], %c512, %[[TAGS]][%c1] {{.*}}: memref<4x8x16xf32>, memref<4x8x16xf32, 1>, memref<4xi32, 1>
// UP:      linalg.matmul
// UP:      memref.dma_wait %[[TAGS]][%c1], %c512 : memref<4xi32, 1>
// UP:      memref.dma_start %{{[0-9]+}}[%c0], %{{[a-z0-9_]+}}[%c0], %c16, %[[TAGS]][%c2] {{.*}}: memref<16xi32>, memref<16xi32, 1>, memref<4xi32, 1>
// UP:      linalg.matmul
// UP:      memref.dma_wait %[[TAGS]][%c2], %c16 : memref<4xi32, 1>
// UP:      memref.dma_start %{{[0-9]+}}[%c0], %[[A1]][%c0], %c128, %[[TAGS]][%c3] {{.*}}: memref<128xi8>, memref<2048xi8, 1>, memref<4xi32, 1>
// UP:      memref.dma_wait %[[TAGS]][%c3], %c128 : memref<4xi32, 1>
// UP-NEXT: %[[W2:[a-z0-9_]+]] = memref.view %[[A1]][%c64][] : memref<2048xi8, 1> to memref<16xf32, 1>
// UP-NEXT: linalg.broadcast ins(%[[W2]] : memref<16xf32, 1>)
//
// The other order: insert-dma first, then plan-memory gives the staging space its own arena.
// RUN: memopt-opt %s --insert-dma=mode=always --plan-memory 2>/dev/null -o %t.first.mlir
// RUN: filecheck %s --check-prefix=FIRST < %t.first.mlir
// RUN: iree-opt %t.first.mlir > /dev/null
// FIRST: memopt.space_arena_sizes = {"1" = 2576 : i64}
// FIRST: %arena_space1 = memref.alloc() alignment = 16 {memopt.arena} : memref<2576xi8, 1 : i64>
// FIRST: %alloc0 = memref.view %arena_space1[%{{[0-9]+}}][] : memref<2576xi8, 1 : i64> to memref<512xi8, 1 : i64>
// RUN: memopt-opt %t.first.mlir --verify-plan > /dev/null
//
// staging-space=N chooses the space (no remark); N must hold no weight: 0, the default space
// where these weights are, is a located one-line error naming the first one.
// RUN: memopt-opt %s --plan-memory '--insert-dma=mode=always staging-space=3' 2>%t.three.err | filecheck %s --check-prefix=THREE
// RUN: not grep remark %t.three.err
// THREE: %alloc0 = memref.alloc() {memopt.staging} : memref<512xi8, 3 : i64>
// THREE: %tags = memref.alloc() {memopt.staging} : memref<4xi32, 3 : i64>
// RUN: memopt-opt %s --plan-memory '--insert-dma=mode=always staging-space=3' | iree-opt > /dev/null
// RUN: not memopt-opt %s '--insert-dma=mode=always staging-space=0' 2>&1 | filecheck %s --check-prefix=ZERO
// ZERO: {{^}}memopt-opt: error: {{.*}}dma-linalg.mlir:[[# @LINE + 21]]:3: insert-dma: staging-space=0 is the memory space of weight @w (memref.dma_start copies between memory spaces; choose another or leave it unset){{$}}
// RUN: not memopt-opt %s '--insert-dma=mode=always staging-space=x' 2>&1 | filecheck %s --check-prefix=WORD
// WORD: {{^}}memopt-opt: error: {{.*}}option 'staging-space' does not take 'x' (values: integer >= 0 (unset: auto {{.*}}){{$}}

memref.global "private" constant @w : memref<8x16xf32> = dense<1.000000e+00>
memref.global "private" constant @big : memref<4x8x16xf32> = dense<2.000000e+00>
memref.global "private" constant @bias : memref<16xi32> = dense<3>
memref.global "private" constant @bytes : memref<128xi8> = dense<4>
memref.global "private" @state : memref<2x16xf32> = dense<0.000000e+00>
func.func @main(%x: memref<2x8xf32>, %y: memref<2x16xf32>, %q: memref<2x16xi32>, %z: memref<2x16xf32>) {
  %c64 = arith.constant 64 : index
  %w = memref.get_global @w : memref<8x16xf32>
  %wd = memref.cast %w : memref<8x16xf32> to memref<?x16xf32>
  %big = memref.get_global @big : memref<4x8x16xf32>
  %slice = memref.subview %big[1, 0, 0] [1, 8, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<8x16xf32, strided<[16, 1], offset: 128>>
  %bias = memref.get_global @bias : memref<16xi32>
  %bytes = memref.get_global @bytes : memref<128xi8>
  %w2 = memref.view %bytes[%c64][] : memref<128xi8> to memref<16xf32>
  %t = memref.alloc() : memref<2x16xf32>
  %f0 = arith.constant 0.0 : f32
  linalg.fill ins(%f0 : f32) outs(%t : memref<2x16xf32>)
  linalg.matmul ins(%x, %wd : memref<2x8xf32>, memref<?x16xf32>) outs(%t : memref<2x16xf32>)
  linalg.matmul ins(%x, %slice : memref<2x8xf32>, memref<8x16xf32, strided<[16, 1], offset: 128>>) outs(%t : memref<2x16xf32>)
  linalg.broadcast ins(%bias : memref<16xi32>) outs(%q : memref<2x16xi32>) dimensions = [0]
  linalg.broadcast ins(%w2 : memref<16xf32>) outs(%y : memref<2x16xf32>) dimensions = [0]
  %state = memref.get_global @state : memref<2x16xf32>
  linalg.copy ins(%state : memref<2x16xf32>) outs(%z : memref<2x16xf32>)
  memref.dealloc %t : memref<2x16xf32>
  return
}
