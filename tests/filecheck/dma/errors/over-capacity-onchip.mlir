// plan-memory's capacity covers the whole on-chip footprint: arena plus DMA staging buffers.
// The arena alone (2 x 64 B) fits in 160 bytes; with the 64-byte staging buffer it does not.
// RUN: memopt-opt %s --insert-dma --plan-memory="alignment=1 capacity=256" | filecheck %s --check-prefix=FITS
// RUN: not memopt-opt %s --insert-dma --plan-memory="alignment=1 capacity=160" 2>&1 | filecheck %s
builtin.module {
  memopt.global @w : tensor<16xf32>
  func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
    %w = memopt.get_global @w : tensor<16xf32>
    %y = memopt.compute "mul"(%x, %w) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    func.return %y : tensor<16xf32>
  }
}
// FITS: memopt.onchip_size = {{[0-9]+}}
// CHECK: memopt-opt: error: {{.*}}over-capacity-onchip.mlir:5:1: on-chip memory needs {{[0-9]+}} bytes (arena plus DMA buffers), over capacity 160
