// memopt-report's text summary of a planned, DMA-scheduled module: every number comes from the
// plan in the IR (arena and bound from #memopt.plan, offsets from memopt.offsets, staging buffers
// from insert-dma's placement) and the DMA Region's figures from the latency model.
// RUN: memopt-opt %s -p 'plan-memory{strategy=large-first},insert-dma' -o %t.mlir
// RUN: memopt-report %t.mlir | filecheck %s
// RUN: memopt-report %t.mlir -o %t.txt && filecheck %s < %t.txt
// The plan attributes the summary must repeat:
// RUN: filecheck %s --check-prefix=PLAN < %t.mlir
// PLAN: memopt.onchip_size = 27744 : i64
// PLAN: #memopt.plan<arena_size = 24576, lower_bound = 24576, strategy = "large-first">

// CHECK:      memopt-report: {{.*}}.mlir
// CHECK:      function @main
// CHECK-NEXT:   arena size           24576 B
// CHECK-NEXT:   lower bound          24576 B (arena / bound = 1.000)
// CHECK:        strategy             large-first
// CHECK-NEXT:   tensors              6 in the arena
// CHECK-NEXT:   peak                 step 3: 24576 B live on the heaviest path
// CHECK-NEXT:   live at the peak     c2 (8192 B), r1 (8192 B), sum (8192 B)
// CHECK:        DMA regions
// CHECK-NEXT:     region   runs  T_serial  T_pingpong  T_lb   eta
// CHECK-NEXT:     @main/0     1      1612        1452  1124  0.33
// CHECK:        tensors
// CHECK-NEXT:     name  size  lifetime  offset  kind
// CHECK-NEXT:     c1    8192  [0, 2)         0  intermediate
// CHECK-NEXT:     x     3072  [0, 1)      8192  input
// CHECK-NEXT:     r1    8192  [1, 4)         0  inplace
// CHECK-NEXT:     c2    8192  [2, 4)      8192  intermediate
// CHECK-NEXT:     sum   8192  [3, 5)     16384  intermediate
// CHECK-NEXT:     out   8192  [4, 6)     16384  output
// CHECK:      staging buffers      alloc0 864 B @ 24576, alloc1 2304 B @ 25440
// CHECK-NEXT: on-chip total        27744 B (largest arena + staging buffers)

// A capacity is checked against the on-chip total.
// RUN: memopt-report %t.mlir --capacity 27000 --no-tensors | filecheck %s --check-prefix=CAP
// CAP-NOT: name  size
// CAP: capacity               27000 B (EXCEEDED: 27744 B used)

builtin.module {
  memopt.global @w1 : tensor<8x3x3x3xf32>
  memopt.global @w2 : tensor<8x8x3x3xf32>
  func.func @main(%x: tensor<1x3x16x16xf32>) -> tensor<1x8x16x16xf32> {
    %c1w = memopt.get_global @w1 : tensor<8x3x3x3xf32>
    %c1 = memopt.compute "conv2d"(%x, %c1w) {cost = 55296 : i64} : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x16x16xf32>
    %r1 = memopt.compute "relu"(%c1) {inplace = array<i64: 0>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %c2w = memopt.get_global @w2 : tensor<8x8x3x3xf32>
    %c2 = memopt.compute "conv2d"(%r1, %c2w) {cost = 147456 : i64} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
    %sum = memopt.compute "add"(%c2, %r1) : (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %out = memopt.compute "relu"(%sum) {inplace = array<i64: 0>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    func.return %out : tensor<1x8x16x16xf32>
  }
}
