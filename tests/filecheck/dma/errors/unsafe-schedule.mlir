// verify-plan checks the DMA schedule of hand-written IR: nothing reads a buffer's bytes while a
// dma_start into them is in flight, no dma_start overwrites weights an op still needs, every
// dma_start is waited for exactly once within its Region. One located line each, exit 1.
// Each RUN line activates one variant of the lines marked //@... below.
// RUN: sed -e 's|^//@OK ||' %s | memopt-opt --plan-memory --verify-plan | filecheck %s --check-prefix=OK
// RUN: sed -e 's|^//@READ ||' %s | not memopt-opt --plan-memory --verify-plan 2>&1 | filecheck %s --check-prefix=READ
// RUN: sed -e 's|^//@CLOBBER ||' %s | not memopt-opt --plan-memory --verify-plan 2>&1 | filecheck %s --check-prefix=CLOBBER
// RUN: sed -e 's|^//@OK ||' -e 's|^//@RACE ||' %s | not memopt-opt --plan-memory --verify-plan 2>&1 | filecheck %s --check-prefix=RACE
// RUN: sed -e 's|^//@OK ||' -e 's|^//@NOWAIT ||' %s | not memopt-opt --plan-memory --verify-plan 2>&1 | filecheck %s --check-prefix=NOWAIT
// RUN: sed -e 's|^//@CROSS ||' %s | not memopt-opt --plan-memory --verify-plan 2>&1 | filecheck %s --check-prefix=CROSS

builtin.module {
  memopt.global @w0 : tensor<64xi8>
  memopt.global @w1 : tensor<64xi8>
  memopt.global @w2 : tensor<64xi8>
  memopt.dma_buffer @alloc0 size 64
  memopt.dma_buffer @alloc1 size 64
  func.func @main(%x: tensor<64xi8>, %c: tensor<i1>) -> tensor<64xi8> {
    %t0 = memopt.dma_start @w0 into @alloc0[offset 0] : !memopt.token
    %w0 = memopt.dma_wait %t0 : tensor<64xi8>
    %t1 = memopt.dma_start @w1 into @alloc1[offset 0] : !memopt.token
//@READ %t2 = memopt.dma_start @w2 into @alloc0[offset 0] : !memopt.token
//@CLOBBER %t2 = memopt.dma_start @w2 into @alloc0[offset 0] : !memopt.token
//@CLOBBER %w2 = memopt.dma_wait %t2 : tensor<64xi8>
    %a = memopt.compute "mul"(%x, %w0) : (tensor<64xi8>, tensor<64xi8>) -> tensor<64xi8>
    %w1 = memopt.dma_wait %t1 : tensor<64xi8>
//@OK %t2 = memopt.dma_start @w2 into @alloc0[offset 0] : !memopt.token
//@RACE %t3 = memopt.dma_start @w0 into @alloc0[offset 0] : !memopt.token
//@RACE %w3 = memopt.dma_wait %t3 : tensor<64xi8>
//@NOWAIT %t4 = memopt.dma_start @w1 into @alloc1[offset 0] : !memopt.token
//@CROSS %t2 = memopt.dma_start @w2 into @alloc0[offset 0] : !memopt.token
    %b = memopt.compute "mul"(%a, %w1) : (tensor<64xi8>, tensor<64xi8>) -> tensor<64xi8>
//@CROSS %r = memopt.if %c : tensor<i1> -> (tensor<64xi8>) {
//@CROSS   %w2 = memopt.dma_wait %t2 : tensor<64xi8>
//@CROSS   %d = memopt.compute "mul"(%b, %w2) : (tensor<64xi8>, tensor<64xi8>) -> tensor<64xi8>
//@CROSS   memopt.yield %d : tensor<64xi8>
//@CROSS } else {
//@CROSS   memopt.yield %b : tensor<64xi8>
//@CROSS }
//@CROSS func.return %r : tensor<64xi8>
//@OK %w2 = memopt.dma_wait %t2 : tensor<64xi8>
//@READ %w2 = memopt.dma_wait %t2 : tensor<64xi8>
//@OK %d = memopt.compute "mul"(%b, %w2) : (tensor<64xi8>, tensor<64xi8>) -> tensor<64xi8>
//@READ %d = memopt.compute "mul"(%b, %w2) : (tensor<64xi8>, tensor<64xi8>) -> tensor<64xi8>
//@CLOBBER %d = memopt.compute "mul"(%b, %w2) : (tensor<64xi8>, tensor<64xi8>) -> tensor<64xi8>
//@OK func.return %d : tensor<64xi8>
//@READ func.return %d : tensor<64xi8>
//@CLOBBER func.return %d : tensor<64xi8>
  }
}

// OK: builtin.module attributes {memopt.onchip_size = {{[0-9]+}} : i64}

// A read between a dma_start and its dma_wait: %a reads @alloc0 while @w2 is loading into it.
// READ: memopt-opt: error: <stdin>:25:5: reads @alloc0[0, 64) while the dma_start of @w2 into it is in flight (between dma_start and dma_wait)
// READ-NOT: Traceback

// A misplaced dma_start: @w2 overwrites @w0 in @alloc0 before %a has read it.
// CLOBBER: memopt-opt: error: <stdin>:23:1: dma_start of @w2 into @alloc0[0, 64) overwrites data of @w0 that a later op still reads

// Two transfers into the same bytes in flight together.
// RACE: memopt-opt: error: <stdin>:28:1: dma_start of @w0 into @alloc0[0, 64) while the transfer of @w2 into the same bytes is still in flight

// NOWAIT: memopt-opt: error: <stdin>:30:1: dma_start of @w1 into @alloc1 is never waited for

// A transfer may not cross a Region boundary (the if starts a new Region).
// CROSS: memopt-opt: error: <stdin>:34:3: dma_wait is not in the Region of its dma_start (no transfer may cross a Region boundary)
