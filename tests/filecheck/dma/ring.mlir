// insert-dma{ring=BYTES|auto}: one staging buffer @ring used as a FIFO of variable-size slots.
// Op j's weight set takes the next aligned free bytes (wrapping to offset 0 when it does not fit
// before the end), its dma_starts are issued as early as possible (at the Region's start, after
// op j-1's, after the last op reading the bytes it overwrites), its dma_waits stay right before it.
//
// chain.mlir, ring=1280: %a's @w0 [0,128), %b's @w1 + @b1 [128,768) (several weights of one op
// at aligned offsets), %c's @w2 [768,1280): all three load at the Region's start. %r reads no
// weight: no slot. %d's @w3 does not fit after 1280: it wraps to [0,128), over %a's weights, and
// is issued right after %a has run.
// RUN: memopt-opt %S/Inputs/chain.mlir -p 'insert-dma{mode=always ring=1280}' | filecheck %s --check-prefix=WRAP
// ring=1024: %c's @w2 wraps to [0,512), over %a's and %b's weights: issued after %b; %d's @w3
// [512,640) follows it (one channel: issue order = op order).
// RUN: memopt-opt %S/Inputs/chain.mlir -p 'insert-dma{mode=always ring=1024}' | filecheck %s --check-prefix=SMALL
// Both pass orders verify and agree; the ring is placed on-chip after the arena.
// RUN: memopt-opt %S/Inputs/chain.mlir -p 'insert-dma{mode=always ring=1280},plan-memory,verify-plan' > %t.dma-first
// RUN: memopt-opt %S/Inputs/chain.mlir -p 'plan-memory,insert-dma{mode=always ring=1280},verify-plan' > %t.plan-first
// RUN: diff %t.dma-first %t.plan-first
// RUN: filecheck %s --check-prefix=PLACED < %t.plan-first
// RUN: memopt-opt %t.plan-first --report-latency 2>&1 >/dev/null | filecheck %s --check-prefix=LAT
// verify-plan catches a ring dma_start hoisted above the last reader of the bytes it overwrites:
// @w3 into @ring[0,128) moved above %a, which still reads @w0 there.
// RUN: sed -e '/%w3_t = memopt.dma_start/d' -e 's/^\(  *\)\(%a = memopt.compute.*\)$/\1%w3_t = memopt.dma_start @w3 into @ring[offset 0] : !memopt.token\n\1\2/' %t.plan-first | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=UNSAFE
//
// ring=auto: the smallest ring (bisection) whose model eta is within 0.01 of no wrap-around's;
// here the schedule of ring=1280 (no wrap-around needs 1408). With a capacity the ring is capped
// by what the arena leaves: the largest ring that fits, cut to the bytes its schedule uses.
// RUN: memopt-opt %S/Inputs/chain.mlir -p 'insert-dma{mode=always ring=auto}' 2>%t.remark | filecheck %s --check-prefix=AUTO
// RUN: filecheck %s --check-prefix=AUTO-REMARK < %t.remark
// RUN: memopt-opt %S/Inputs/chain.mlir -p 'plan-memory,insert-dma{mode=always ring=auto capacity=1088},verify-plan' 2>&1 | filecheck %s --check-prefix=CAPPED
// ring-loss trades eta for bytes: no wrap-around reaches eta 0.93 here, rings of 768..1152
// bytes 0.45, 640 bytes 0.21 (report-latency). ring-loss=0.5 accepts eta >= 0.43: 768 bytes.
// RUN: memopt-opt %S/Inputs/chain.mlir -p 'insert-dma{mode=always ring=auto ring-loss=0.5},plan-memory,verify-plan' 2>&1 | filecheck %s --check-prefix=LOSS
// RUN: not memopt-opt %S/Inputs/chain.mlir -p 'insert-dma{mode=always ring=1024 ring-loss=0.5}' 2>&1 | filecheck %s --check-prefix=LOSS-FIXED
// RUN: not memopt-opt %S/Inputs/chain.mlir -p 'insert-dma{mode=always ring=auto ring-loss=1.5}' 2>&1 | filecheck %s --check-prefix=LOSS-RANGE
//
// Regions: the ring is empty at the start of every Region (branches, nested ifs, loop bodies,
// after a loop all start at offset 0); in a loop body the loads repeat every iteration.
// RUN: memopt-opt %S/Inputs/control.mlir -p 'insert-dma{mode=always ring=256}' | filecheck %s --check-prefix=CF
// RUN: memopt-opt %S/Inputs/control.mlir -p 'insert-dma{mode=always ring=256},plan-memory,verify-plan' > %t.cf
// RUN: memopt-opt %S/Inputs/control.mlir -p 'plan-memory,insert-dma{mode=always ring=256},verify-plan' | diff %t.cf -
//
// A weight set larger than the ring: a located error with mode=always; mode=auto reads it
// directly off-chip (memopt.dma_skipped) and rings the others.
// RUN: not memopt-opt %S/large-weight.mlir -p 'insert-dma{mode=always ring=1024}' 2>&1 | filecheck %s --check-prefix=TOOBIG
// RUN: memopt-opt %S/large-weight.mlir -p 'insert-dma{ring=1024 mode=auto},plan-memory,verify-plan' 2>&1 | filecheck %s --check-prefix=SKIP
//
// Bad options: one located line, non-zero exit.
// RUN: not memopt-opt %S/Inputs/chain.mlir -p 'insert-dma{mode=always ring=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not memopt-opt %S/Inputs/chain.mlir -p 'insert-dma{mode=always ring=abc}' 2>&1 | filecheck %s --check-prefix=ABC
// RUN: not memopt-opt %S/Inputs/chain.mlir -p 'insert-dma{mode=always ring=1024 buffers=2}' 2>&1 | filecheck %s --check-prefix=BOTH
// RUN: not memopt-opt %S/Inputs/chain.mlir -p 'plan-memory,insert-dma{mode=always ring=2000 capacity=1088}' 2>&1 | filecheck %s --check-prefix=OVER

// WRAP:      memopt.dma_buffer @ring size 1280
// WRAP:      func.func @main
// WRAP-NEXT:   %[[T0:.*]] = memopt.dma_start @w0 into @ring[offset 0] : !memopt.token
// WRAP-NEXT:   %[[T1:.*]] = memopt.dma_start @w1 into @ring[offset 128] : !memopt.token
// WRAP-NEXT:   %[[TB:.*]] = memopt.dma_start @b1 into @ring[offset 640] : !memopt.token
// WRAP-NEXT:   %[[T2:.*]] = memopt.dma_start @w2 into @ring[offset 768] : !memopt.token
// WRAP:        %[[W0:.*]] = memopt.dma_wait %[[T0]] : tensor<16x8xi8>
// WRAP-NEXT:   %a = memopt.compute "fc"(%x, %[[W0]])
// WRAP-NEXT:   %[[T3:.*]] = memopt.dma_start @w3 into @ring[offset 0] : !memopt.token
// WRAP-NEXT:   %[[W1:.*]] = memopt.dma_wait %[[T1]] : tensor<32x16xi8>
// WRAP-NEXT:   %[[B1:.*]] = memopt.dma_wait %[[TB]] : tensor<32xi32>
// WRAP-NEXT:   %b = memopt.compute "fc"(%a, %[[W1]], %[[B1]])
// WRAP-NEXT:   %r = memopt.compute "relu"(%b)
// WRAP-NEXT:   %[[W2:.*]] = memopt.dma_wait %[[T2]] : tensor<16x32xi8>
// WRAP-NEXT:   %c = memopt.compute "fc"(%r, %[[W2]])
// WRAP-NEXT:   %[[W3:.*]] = memopt.dma_wait %[[T3]] : tensor<8x16xi8>
// WRAP-NEXT:   %d = memopt.compute "fc"(%c, %[[W3]])
// WRAP-NEXT:   func.return %d

// SMALL:      memopt.dma_buffer @ring size 1024
// SMALL:      func.func @main
// SMALL-NEXT:   memopt.dma_start @w0 into @ring[offset 0]
// SMALL-NEXT:   memopt.dma_start @w1 into @ring[offset 128]
// SMALL-NEXT:   memopt.dma_start @b1 into @ring[offset 640]
// SMALL-NOT:    memopt.dma_start
// SMALL:        %b = memopt.compute "fc"
// SMALL-NEXT:   memopt.dma_start @w2 into @ring[offset 0]
// SMALL-NEXT:   memopt.dma_start @w3 into @ring[offset 512]
// SMALL-NEXT:   %r = memopt.compute "relu"

// PLACED:      builtin.module attributes {memopt.onchip_size = 1344 : i64}
// PLACED:      memopt.dma_buffer @ring size 1280 {memopt.onchip_offset = 64 : i64}

// LAT: total @main            5     4         1727         1287         1255   0.93

// UNSAFE: memopt-opt: error: <stdin>:{{[0-9]+}}:5: reads @ring[0, 128) while the dma_start of @w3 into it is in flight (between dma_start and dma_wait)

// AUTO:      memopt.dma_buffer @ring size 1280
// AUTO:      memopt.dma_start @w3 into @ring[offset 0]
// AUTO-REMARK: insert-dma: remark: ring=auto: 1280 bytes (no wrap-around: 1408; goal: eta within 0.01 of no wrap-around's)

// LOSS:      insert-dma: remark: ring=auto: 768 bytes (no wrap-around: 1408; goal: eta within 0.5 of no wrap-around's)
// LOSS:      memopt.dma_buffer @ring size 768
// LOSS-FIXED: memopt-opt: error: invalid options for pass 'insert-dma': ring-loss applies to ring=auto only
// LOSS-RANGE: memopt-opt: error: invalid options for pass 'insert-dma': ring-loss must be in [0, 1] (an eta difference), got 1.5

// CAPPED:      insert-dma: remark: ring=auto: 768 bytes (no wrap-around: 1408; goal: eta within 0.01 of no wrap-around's, at most 1024 on-chip bytes)
// CAPPED:      builtin.module attributes {memopt.capacity = 1088 : i64, memopt.onchip_size = 832 : i64}
// CAPPED:      memopt.dma_buffer @ring size 768 {memopt.onchip_offset = 64 : i64}
// CAPPED:      memopt.dma_start @w2 into @ring[offset 0]

// CF:      memopt.dma_buffer @ring size 256
// CF:      memopt.dma_start @wa into @ring[offset 0]
// CF:      memopt.if %c
// CF-NEXT:   memopt.dma_start @wt0 into @ring[offset 0]
// CF:        %t0 = memopt.compute
// CF-NEXT:   memopt.dma_start @wt1 into @ring[offset 0]
// CF:        memopt.if %c2
// CF-NEXT:     memopt.dma_start @wn0 into @ring[offset 0]
// CF-NEXT:     memopt.dma_start @wn1 into @ring[offset 16]
// CF:        memopt.yield %n :
// CF-NEXT: } else {
// CF-NEXT:   memopt.dma_start @we0 into @ring[offset 0]
// CF:        memopt.loop 3
// CF-NEXT:     memopt.dma_start @wl0 into @ring[offset 0]
// CF-NEXT:     memopt.dma_start @wl1 into @ring[offset 80]
// CF:        memopt.yield %l1
// CF-NEXT: }
// CF-NEXT: memopt.dma_start @wz into @ring[offset 0]

// TOOBIG: memopt-opt: error: {{.*}}large-weight.mlir:20:5: insert-dma: the weight set of this op (65536 bytes) does not fit in the ring (1024 bytes) (try mode=auto)
// TOOBIG-NOT: Traceback

// SKIP:      insert-dma: remark: @main/0: left 1 of 4 weight loads unpipelined (model: {{[0-9]+}} cycles, not all fit in the ring)
// SKIP:      memopt.dma_buffer @ring size 1024
// SKIP:      memopt.dma_start @w0 into @ring[offset 0]
// SKIP-NEXT:  memopt.dma_start @w2 into @ring[offset 256]
// SKIP-NEXT:  memopt.dma_start @w3 into @ring[offset 768]
// SKIP:      %b = memopt.compute "fc"(%a, %gb) {cost = 3000000 : i64, memopt.dma_skipped

// ZERO: memopt-opt: error: invalid options for pass 'insert-dma': ring must be a byte count >= 1 or 'auto', got '0'
// ZERO-NOT: Traceback
// ABC: memopt-opt: error: invalid options for pass 'insert-dma': ring must be a byte count >= 1 or 'auto', got 'abc'
// BOTH: memopt-opt: error: invalid options for pass 'insert-dma': ring and buffers exclude each other (the ring is the one staging buffer)
// OVER: memopt-opt: error: {{.*}}chain.mlir:1:1: insert-dma: arena (64 bytes) and ring (2000 bytes) need 2064 bytes, over capacity 1088 (try ring=auto)
