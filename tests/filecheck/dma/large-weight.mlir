// One weight much larger than the rest: it sets its parity's buffer alone (@alloc1 = 64 KiB,
// @alloc0 = the largest small weight). Under an on-chip capacity (a target field) mode=always
// fails with a located one-line error; mode=auto leaves the largest load unpipelined (read
// directly from off-chip) and re-plans until arena + buffers fit.
// RUN: memopt-opt %s --plan-memory --insert-dma=mode=always --verify-plan | filecheck %s
// RUN: not memopt-opt %s --plan-memory '--insert-dma=mode=always capacity=32768' 2>&1 | filecheck %s --check-prefix=OVER
// RUN: memopt-opt %s --plan-memory '--insert-dma=mode=auto capacity=32768' --verify-plan 2>&1 | filecheck %s --check-prefix=FIT

builtin.module {
  memopt.global @w0 : tensor<256xi8>
  memopt.global @big : tensor<256x256xi8>
  memopt.global @w2 : tensor<512xi8>
  memopt.global @w3 : tensor<128xi8>
  func.func @main(%x: tensor<256xi8>) -> tensor<256xi8> {
    %g0 = memopt.get_global @w0 : tensor<256xi8>
    %gb = memopt.get_global @big : tensor<256x256xi8>
    %g2 = memopt.get_global @w2 : tensor<512xi8>
    %g3 = memopt.get_global @w3 : tensor<128xi8>
    %a = memopt.compute "mul"(%x, %g0) {cost = 100000 : i64} : (tensor<256xi8>, tensor<256xi8>) -> tensor<256xi8>
    %b = memopt.compute "fc"(%a, %gb) {cost = 3000000 : i64} : (tensor<256xi8>, tensor<256x256xi8>) -> tensor<256xi8>
    %c = memopt.compute "fc"(%b, %g2) {cost = 100000 : i64} : (tensor<256xi8>, tensor<512xi8>) -> tensor<256xi8>
    %d = memopt.compute "fc"(%c, %g3) {cost = 100000 : i64} : (tensor<256xi8>, tensor<128xi8>) -> tensor<256xi8>
    func.return %d : tensor<256xi8>
  }
}

// CHECK:      builtin.module attributes {memopt.onchip_size = 66560 : i64}
// CHECK:      memopt.dma_buffer @alloc0 size 512 {memopt.onchip_offset = 512 : i64}
// CHECK-NEXT: memopt.dma_buffer @alloc1 size 65536 {memopt.onchip_offset = 1024 : i64}
// CHECK:      memopt.dma_start @big into @alloc1[offset 0]
// CHECK:      memopt.dma_start @w3 into @alloc1[offset 0]

// OVER: memopt-opt: error: {{.*}}large-weight.mlir:20:5: insert-dma: arena (512 bytes) and DMA buffers (512 + 65536 bytes) need 66560 bytes, over capacity 32768 (try mode=auto)
// OVER-NOT: Traceback

// FIT:      insert-dma: remark: @main/0: left 1 of 4 weight loads unpipelined
// FIT:      builtin.module attributes {memopt.capacity = 32768 : i64, memopt.onchip_size = 1280 : i64}
// FIT:      memopt.dma_buffer @alloc0 size 256 {memopt.onchip_offset = 512 : i64}
// FIT-NEXT: memopt.dma_buffer @alloc1 size 512 {memopt.onchip_offset = 768 : i64}
// FIT:      %b = memopt.compute "fc"(%a, %gb) {cost = 3000000 : i64, memopt.offsets = array<i64: {{[0-9]+}}>, memopt.dma_skipped}
