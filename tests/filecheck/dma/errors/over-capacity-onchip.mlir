// plan-memory's capacity covers the whole on-chip footprint: arena plus DMA staging buffers.
// The arena alone (2 x 64 B) fits in 160 bytes; with the 64-byte staging buffer it does not.
// RUN: memopt-opt %s --insert-dma=mode=always --plan-memory="alignment=1 capacity=256" | filecheck %s --check-prefix=FITS
// RUN: not memopt-opt %s --insert-dma=mode=always --plan-memory="alignment=1 capacity=160" 2>&1 | filecheck %s
// A capacity given to insert-dma only, run first, binds plan-memory too (it is recorded on the
// module as memopt.capacity), as the reverse order does; a target file's capacity binds plan-memory.
// RUN: not memopt-opt %s --insert-dma="mode=always alignment=1 capacity=160" --plan-memory="alignment=1" 2>&1 | filecheck %s
// RUN: not memopt-opt %s --plan-memory="alignment=1" --insert-dma="mode=always alignment=1 capacity=160" 2>&1 | filecheck %s --check-prefix=REVERSE
// RUN: printf 'capacity = 160\n' > %t.target
// RUN: not memopt-opt %s --insert-dma="mode=always alignment=1" --plan-memory="alignment=1 target=%t.target" 2>&1 | filecheck %s
// RUN: memopt-opt %s --insert-dma="mode=always alignment=1 capacity=256" --plan-memory="alignment=1" | filecheck %s --check-prefix=RECORDED
// RECORDED: memopt.capacity = 256 : i64
// verify-plan holds a plan to the recorded capacity.
// RUN: memopt-opt %s --insert-dma="mode=always alignment=1 capacity=256" --plan-memory="alignment=1" | sed -e 's/memopt.capacity = 256/memopt.capacity = 100/' | not memopt-opt - --verify-plan 2>&1 | filecheck %s --check-prefix=VERIFY
// VERIFY: memopt-opt: error: {{.*}}invalid plan: on-chip memory needs {{[0-9]+}} bytes (arena plus DMA buffers), over the capacity 100 recorded by insert-dma
// REVERSE: memopt-opt: error: {{.*}}over-capacity-onchip.mlir:{{.*}}over capacity 160
builtin.module {
  memopt.global @w : tensor<16xf32>
  func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
    %w = memopt.get_global @w : tensor<16xf32>
    %y = memopt.compute "mul"(%x, %w) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    func.return %y : tensor<16xf32>
  }
}
// FITS: memopt.onchip_size = {{[0-9]+}}
// CHECK: memopt-opt: error: {{.*}}over-capacity-onchip.mlir:{{[0-9]+}}:1: on-chip memory needs {{[0-9]+}} bytes (arena plus DMA buffers), over capacity 160
