// verify-plan re-checks where the DMA buffers sit on-chip: after every arena, not overlapping
// each other, inside the recorded total, and present at all once the module is planned.
// RUN: sed -e 's/OFF0/128/' -e 's/OFF1/192/' -e 's/TOTAL/256/' %s | memopt-opt --verify-plan | filecheck %s --check-prefix=OK
// RUN: sed -e 's/OFF0/96/' -e 's/OFF1/192/' -e 's/TOTAL/256/' %s | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=ARENA
// RUN: sed -e 's/OFF0/128/' -e 's/OFF1/160/' -e 's/TOTAL/256/' %s | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=OVERLAP
// RUN: sed -e 's/OFF0/128/' -e 's/OFF1/192/' -e 's/TOTAL/220/' %s | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=TOTAL
// RUN: sed -e 's/ {memopt.onchip_offset = OFF0 : i64}//' -e 's/OFF1/192/' -e 's/TOTAL/256/' %s | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=MISSING
builtin.module attributes {memopt.onchip_size = TOTAL : i64} {
  memopt.global @w0 : tensor<64xi8>
  memopt.global @w1 : tensor<64xi8>
  memopt.dma_buffer @alloc0 size 64 {memopt.onchip_offset = OFF0 : i64}
  memopt.dma_buffer @alloc1 size 64 {memopt.onchip_offset = OFF1 : i64}
  func.func @main(%x: tensor<64xi8>) -> tensor<64xi8> attributes {memopt.arg_offsets = array<i64: 0>, memopt.plan = #memopt.plan<arena_size = 128, lower_bound = 128, strategy = "hand">} {
    %g = memopt.get_global @w0 : tensor<64xi8>
    %t1 = memopt.dma_start @w1 into @alloc1[offset 0] : !memopt.token
    %w1 = memopt.dma_wait %t1 : tensor<64xi8>
    %a = memopt.compute "mul"(%x, %w1) {memopt.offsets = array<i64: 64>} : (tensor<64xi8>, tensor<64xi8>) -> tensor<64xi8>
    %b = memopt.compute "mul"(%a, %g) {memopt.offsets = array<i64: 0>} : (tensor<64xi8>, tensor<64xi8>) -> tensor<64xi8>
    func.return %b : tensor<64xi8>
  }
}
// OK: memopt.dma_buffer @alloc0 size 64 {memopt.onchip_offset = 128 : i64}
// ARENA: memopt-opt: error: <stdin>:11:3: invalid plan: DMA buffer @alloc0 at on-chip offset 96 overlaps the arena of '@main' (128 bytes)
// OVERLAP: memopt-opt: error: <stdin>:12:3: invalid plan: DMA buffers @alloc0 [128, 192) and @alloc1 [160, 224) overlap
// TOTAL: memopt-opt: error: <stdin>:12:3: invalid plan: DMA buffer @alloc1 [192, 256) exceeds the on-chip size 220
// MISSING: memopt-opt: error: <stdin>:11:3: missing 'memopt.onchip_offset' attribute (run plan-memory after insert-dma)
// A negative offset is malformed, said as such (the plan attributes' decoder reads it).
// RUN: sed -e 's/OFF0/-8/' -e 's/OFF1/192/' -e 's/TOTAL/256/' %s | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=NEGATIVE
// NEGATIVE: memopt-opt: error: <stdin>:11:3: 'memopt.onchip_offset' must be a non-negative integer
