// Cost-aware insertion. mode=auto keeps, per Region, the cheapest of "all", "none" and a local
// search under the latency model; what it leaves unpipelined gets a memopt.dma_skipped
// attribute and a remark on stderr. mode=always pipelines every weight load.
// @main/0: three convs (3907 cycles of compute, 712 cycles of DMA each) win: 12529 < 13857.
// @main/if0/then/0: one op alone cannot overlap anything; the issue overhead makes it lose.
// @main/1: two tiny ops whose loads (202 cycles) dwarf their compute (1 cycle) lose: 469 > 406.
// RUN: memopt-opt %S/Inputs/mixed.mlir --insert-dma=mode=auto 2>%t.remarks | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: memopt-opt %S/Inputs/mixed.mlir -p 'insert-dma{mode=auto},report-latency' 2>&1 >/dev/null | filecheck %s --check-prefix=AUTO
// RUN: memopt-opt %S/Inputs/mixed.mlir -p 'insert-dma{mode=always},report-latency' 2>&1 >/dev/null | filecheck %s --check-prefix=ALWAYS
// With no issue overhead pipelining never loses under the model; a lone op gains nothing either
// and stays unpipelined (a tie keeps the on-chip memory free).
// RUN: memopt-opt %S/Inputs/mixed.mlir -p 'insert-dma{mode=auto dma-issue=0}' 2>&1 | filecheck %s --check-prefix=FREE

// CHECK:      func.func @main
// CHECK-NEXT:   memopt.dma_start @k0 into @alloc0
// The off-chip reads the loads replace are gone (they take no step of the arena plan).
// CHECK-NEXT:   memopt.dma_wait
// CHECK-NEXT:   memopt.dma_start @k1 into @alloc1
// CHECK-NEXT:   %a = memopt.compute "conv"
// CHECK-NEXT:   memopt.dma_wait
// CHECK-NEXT:   memopt.dma_start @k2 into @alloc0
// CHECK-NEXT:   %b = memopt.compute "conv"
// CHECK-NEXT:   memopt.dma_wait
// CHECK-NEXT:   %d = memopt.compute "conv"
// CHECK-NEXT:   %r = memopt.if %c
// CHECK-NEXT:     %h = memopt.get_global @s0
// CHECK-NEXT:     %e = memopt.compute "scale"(%d, %h) {cost = 256 : i64, memopt.dma_skipped}
// CHECK:        %f = memopt.compute "scale"(%r, %h1) {cost = 256 : i64, memopt.dma_skipped}
// CHECK-NEXT:   %z = memopt.compute "scale"(%f, %h2) {cost = 256 : i64, memopt.dma_skipped}

// REMARK:      insert-dma: remark: @main/if0/then/0: left 1 of 1 weight loads unpipelined (model: 203 cycles, 235 if all pipelined)
// REMARK-NEXT: insert-dma: remark: @main/1: left 2 of 2 weight loads unpipelined (model: 406 cycles, 469 if all pipelined)
// REMARK-NOT:  remark

// AUTO:      region                   runs   ops loads     T_serial   T_pingpong         T_lb    eta
// AUTO-NEXT: @main/0                     1     3     3        13857        12529        12433   0.93
// AUTO-NEXT: @main/if0/then/0            1     1     0          203          203          203      -
// AUTO-NEXT: @main/1                     1     2     0          406          406          405   0.00
// AUTO-NEXT: total @main                       6     3        14466        13138        13041   0.93

// ALWAYS:      @main/0                     1     3     3        13857        12529        12433   0.93
// ALWAYS-NEXT: @main/if0/then/0            1     1     1          203          235          203      -
// ALWAYS-NEXT: @main/1                     1     2     2          406          469          405 -63.00
// ALWAYS-NEXT: total @main 6 6 14466 13233 13041 0.87

// FREE:      insert-dma: remark: @main/if0/then/0: left 1 of 1 weight loads unpipelined (model: 203 cycles, 203 if all pipelined)
// FREE-NOT:  remark
// FREE:      %e = memopt.compute "scale"(%d, %h) {cost = 256 : i64, memopt.dma_skipped}
// FREE-NOT:  memopt.dma_skipped
