// Regions under control flow: start -> first control-flow op, each branch and loop body on its
// own (recursively), after a control-flow op -> the next one. Parity restarts in every Region,
// the first op of a Region starts and waits for its own load, no transfer crosses a boundary,
// and inside a loop body the loads repeat every iteration. Branches of different sizes share
// the two buffers: each is as large as the largest weight set of its parity anywhere.
// RUN: memopt-opt %S/Inputs/control.mlir --insert-dma=mode=always | filecheck %s
// RUN: memopt-opt %S/Inputs/control.mlir --insert-dma=mode=always --plan-memory --verify-plan > %t.a
// RUN: memopt-opt %S/Inputs/control.mlir --plan-memory --insert-dma=mode=always --verify-plan | diff %t.a -

// CHECK:      memopt.dma_buffer @alloc0 size 128
// CHECK-NEXT: memopt.dma_buffer @alloc1 size 256
// CHECK:      func.func @main
// CHECK-NEXT:   %[[TA:.*]] = memopt.dma_start @wa into @alloc0[offset 0]
// CHECK-NEXT:   %[[WA:.*]] = memopt.dma_wait %[[TA]] : tensor<64xi8>
// CHECK-NEXT:   %a = memopt.compute "mul"(%x, %[[WA]])
// CHECK-NEXT:   %r = memopt.if %c
// CHECK-NEXT:     %[[T0:.*]] = memopt.dma_start @wt0 into @alloc0[offset 0]
// CHECK-NEXT:     %[[W0:.*]] = memopt.dma_wait %[[T0]] : tensor<128xi8>
// CHECK-NEXT:     %[[T1:.*]] = memopt.dma_start @wt1 into @alloc1[offset 0]
// CHECK-NEXT:     %t0 = memopt.compute "fc"(%a, %[[W0]])
// CHECK-NEXT:     %[[W1:.*]] = memopt.dma_wait %[[T1]] : tensor<256xi8>
// CHECK-NEXT:     %t1 = memopt.compute "fc"(%t0, %[[W1]])
// CHECK-NEXT:     %n = memopt.if %c2
// CHECK-NEXT:       %[[N0:.*]] = memopt.dma_start @wn0 into @alloc0[offset 0]
// CHECK-NEXT:       %[[V0:.*]] = memopt.dma_wait %[[N0]] : tensor<16xi8>
// CHECK-NEXT:       %[[N1:.*]] = memopt.dma_start @wn1 into @alloc1[offset 0]
// CHECK-NEXT:       %n0 = memopt.compute "fc"(%t1, %[[V0]])
// CHECK-NEXT:       %[[V1:.*]] = memopt.dma_wait %[[N1]] : tensor<48xi8>
// CHECK-NEXT:       %n1 = memopt.compute "fc"(%n0, %[[V1]])
// CHECK-NEXT:       memopt.yield %n1
// CHECK-NEXT:     } else {
// CHECK-NEXT:       memopt.yield %t1
// CHECK-NEXT:     }
// CHECK-NEXT:     memopt.yield %n
// CHECK-NEXT:   } else {
// CHECK-NEXT:     %[[E0:.*]] = memopt.dma_start @we0 into @alloc0[offset 0]
// CHECK-NEXT:     %[[WE:.*]] = memopt.dma_wait %[[E0]] : tensor<32xi8>
// CHECK-NEXT:     %e = memopt.compute "fc"(%a, %[[WE]])
// CHECK-NEXT:     memopt.yield %e
// CHECK-NEXT:   }
// The loop body is a Region: its loads are inside the body (the get_globals it used before,
// outside it, are erased: off-chip reads take no step of the arena numbering).
// CHECK-NEXT:   %l = memopt.loop 3 iter_args(%acc = %r)
// CHECK-NEXT:     %[[L0:.*]] = memopt.dma_start @wl0 into @alloc0[offset 0]
// CHECK-NEXT:     %[[X0:.*]] = memopt.dma_wait %[[L0]] : tensor<80xi8>
// CHECK-NEXT:     %[[L1:.*]] = memopt.dma_start @wl1 into @alloc1[offset 0]
// CHECK-NEXT:     %l0 = memopt.compute "fc"(%acc, %[[X0]])
// CHECK-NEXT:     %[[X1:.*]] = memopt.dma_wait %[[L1]] : tensor<96xi8>
// CHECK-NEXT:     %l1 = memopt.compute "fc"(%l0, %[[X1]])
// CHECK-NEXT:     memopt.yield %l1
// CHECK-NEXT:   }
// A weight reached through a view: the whole global is loaded, the view is re-applied on-chip.
// CHECK-NEXT:   %[[TZ:.*]] = memopt.dma_start @wz into @alloc0[offset 0]
// CHECK-NEXT:   %[[WZ:.*]] = memopt.dma_wait %[[TZ]] : tensor<2x64xi8>
// CHECK-NEXT:   %[[VZ:.*]] = memopt.view %[[WZ]][offset 64] : tensor<2x64xi8> -> tensor<64xi8>
// CHECK-NEXT:   %z = memopt.compute "mul"(%l, %[[VZ]])
// CHECK-NEXT:   func.return %z
