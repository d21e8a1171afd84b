// Straight-line graph: one Region; ops with an even sequence number load into @alloc0, odd ones
// into @alloc1; op k+1's dma_start sits between op k and op k's dma_wait; an op with several
// weights (@w1 + @b1) packs them into one buffer at aligned offsets; an op without weights
// (relu) gets nothing and op k+1's dma_wait waits right before it needs its weights.
// RUN: memopt-opt %S/Inputs/chain.mlir --insert-dma | filecheck %s
// Either pass order gives the same, verified result (dma_wait results take no arena space).
// RUN: memopt-opt %S/Inputs/chain.mlir --insert-dma --plan-memory --verify-plan > %t.dma-first
// RUN: memopt-opt %S/Inputs/chain.mlir --plan-memory --insert-dma --verify-plan > %t.plan-first
// RUN: diff %t.dma-first %t.plan-first
// RUN: filecheck %s --check-prefix=PLACED < %t.plan-first
// Idempotent: a second run finds no off-chip weight left.
// RUN: memopt-opt %t.plan-first --insert-dma --verify-plan | diff %t.plan-first -
// The get_globals the loads replace are erased (off-chip reads take no step of the arena
// numbering, so a plan made before insert-dma still holds); dce has nothing left to drop.
// RUN: memopt-opt %S/Inputs/chain.mlir --insert-dma | filecheck %s --check-prefix=GONE
// GONE-NOT: memopt.get_global
// RUN: memopt-opt %S/Inputs/chain.mlir --insert-dma --dce --plan-memory --verify-plan | diff %t.dma-first -

// CHECK:      memopt.dma_buffer @alloc0 size 512
// CHECK-NEXT: memopt.dma_buffer @alloc1 size 640
// CHECK:      func.func @main
// CHECK-NEXT:   %[[T0:.*]] = memopt.dma_start @w0 into @alloc0[offset 0] : !memopt.token
// CHECK-NEXT:   %[[W0:.*]] = memopt.dma_wait %[[T0]] : tensor<16x8xi8>
// CHECK-NEXT:   %[[T1:.*]] = memopt.dma_start @w1 into @alloc1[offset 0] : !memopt.token
// CHECK-NEXT:   %[[TB:.*]] = memopt.dma_start @b1 into @alloc1[offset 512] : !memopt.token
// CHECK-NEXT:   %a = memopt.compute "fc"(%x, %[[W0]])
// CHECK-NEXT:   %[[W1:.*]] = memopt.dma_wait %[[T1]] : tensor<32x16xi8>
// CHECK-NEXT:   %[[B1:.*]] = memopt.dma_wait %[[TB]] : tensor<32xi32>
// CHECK-NEXT:   %[[T2:.*]] = memopt.dma_start @w2 into @alloc0[offset 0] : !memopt.token
// CHECK-NEXT:   %b = memopt.compute "fc"(%a, %[[W1]], %[[B1]])
// CHECK-NEXT:   %r = memopt.compute "relu"(%b)
// CHECK-NEXT:   %[[W2:.*]] = memopt.dma_wait %[[T2]] : tensor<16x32xi8>
// CHECK-NEXT:   %[[T3:.*]] = memopt.dma_start @w3 into @alloc1[offset 0] : !memopt.token
// CHECK-NEXT:   %c = memopt.compute "fc"(%r, %[[W2]])
// CHECK-NEXT:   %[[W3:.*]] = memopt.dma_wait %[[T3]] : tensor<8x16xi8>
// CHECK-NEXT:   %d = memopt.compute "fc"(%c, %[[W3]])
// CHECK-NEXT:   func.return %d

// The buffers sit right after the 64-byte arena; the module records arena + buffers.
// PLACED:      builtin.module attributes {memopt.onchip_size = 1216 : i64}
// PLACED:      memopt.dma_buffer @alloc0 size 512 {memopt.onchip_offset = 64 : i64}
// PLACED-NEXT: memopt.dma_buffer @alloc1 size 640 {memopt.onchip_offset = 576 : i64}
// PLACED:      memopt.plan = #memopt.plan<arena_size = 64,
