// RUN: memopt-opt %s | filecheck %s
// RUN: memopt-opt %s | memopt-opt | filecheck %s
// RUN: memopt-opt %s --print-op-generic | memopt-opt | filecheck %s

// CHECK:      memopt.global @conv1_w : tensor<16x3x3x3xf32>
// CHECK-NEXT: memopt.global @b : tensor<2xf32> = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: memopt.dma_buffer @alloc0 size 4096
// CHECK-NEXT: memopt.dma_buffer @alloc1 size 64 {offset = 4096 : i64}
memopt.global @conv1_w : tensor<16x3x3x3xf32>
memopt.global @b : tensor<2xf32> = dense<[1.0, 2.0]> : tensor<2xf32>
memopt.dma_buffer @alloc0 size 4096
memopt.dma_buffer @alloc1 size 64 {offset = 4096 : i64}

// CHECK: func.func @main(%x: tensor<1x3x8x8xf32>, %c: tensor<i1>) -> tensor<1x16x8x8xf32>
func.func @main(%x: tensor<1x3x8x8xf32>, %c: tensor<i1>) -> tensor<1x16x8x8xf32> {
  // CHECK-NEXT: %w = memopt.get_global @conv1_w : tensor<16x3x3x3xf32>
  %w = memopt.get_global @conv1_w : tensor<16x3x3x3xf32>
  // CHECK-NEXT: %t = memopt.dma_start @conv1_w into @alloc0[offset 0] : !memopt.token
  %t = memopt.dma_start @conv1_w into @alloc0[offset 0] : !memopt.token
  // CHECK-NEXT: %w2 = memopt.dma_wait %t : tensor<16x3x3x3xf32>
  %w2 = memopt.dma_wait %t : tensor<16x3x3x3xf32>
  // CHECK-NEXT: %y = memopt.compute "conv2d"(%x, %w2) {cost = 1000 : i64} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
  %y = memopt.compute "conv2d"(%x, %w2) {cost = 1000 : i64} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
  // CHECK-NEXT: %z = memopt.compute "Relu"(%y) {cost = 7 : i64, inplace = array<i64: 0>, note = "x"} : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %z = memopt.compute "Relu"(%y) {note = "x", inplace = array<i64: 0>, cost = 7 : i64} : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  // CHECK-NEXT: %v = memopt.view %z[offset 64] : tensor<1x16x8x8xf32> -> tensor<8xf32>
  %v = memopt.view %z[offset 64] : tensor<1x16x8x8xf32> -> tensor<8xf32>
  // CHECK-NEXT: %v0 = memopt.view %z : tensor<1x16x8x8xf32> -> tensor<16x64xf32>
  %v0 = memopt.view %z[offset 0] : tensor<1x16x8x8xf32> -> tensor<16x64xf32>
  // CHECK-NEXT: %r = memopt.if %c : tensor<i1> -> (tensor<1x16x8x8xf32>) {
  // CHECK-NEXT:   memopt.yield %z : tensor<1x16x8x8xf32>
  // CHECK-NEXT: } else {
  // CHECK-NEXT:   %q = memopt.compute "Neg"(%z) : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  // CHECK-NEXT:   memopt.yield %q : tensor<1x16x8x8xf32>
  // CHECK-NEXT: }
  %r = memopt.if %c : tensor<i1> -> (tensor<1x16x8x8xf32>) {
    memopt.yield %z : tensor<1x16x8x8xf32>
  } else {
    %q = memopt.compute "Neg"(%z) : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
    memopt.yield %q : tensor<1x16x8x8xf32>
  }
  // CHECK-NEXT: memopt.if %c : tensor<i1> {
  // CHECK-NEXT:   %e = memopt.compute "noop"() : () -> tensor<2xi8>
  // CHECK-NEXT:   memopt.yield
  // CHECK-NEXT: }
  memopt.if %c : tensor<i1> {
    %e = memopt.compute "noop"() : () -> tensor<2xi8>
  }
  // CHECK-NEXT: %l, %l_1 = memopt.loop 4 iter_args(%a = %r, %b = %v) : tensor<1x16x8x8xf32>, tensor<8xf32> {
  // CHECK-NEXT:   %a2 = memopt.compute "Relu"(%a) : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  // CHECK-NEXT:   memopt.yield %a2, %b : tensor<1x16x8x8xf32>, tensor<8xf32>
  // CHECK-NEXT: }
  %l:2 = memopt.loop 4 iter_args(%a = %r, %b = %v) : tensor<1x16x8x8xf32>, tensor<8xf32> {
    %a2 = memopt.compute "Relu"(%a) : (tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
    memopt.yield %a2, %b : tensor<1x16x8x8xf32>, tensor<8xf32>
  }
  // CHECK-NEXT: memopt.loop 0 {
  // CHECK-NEXT:   memopt.yield
  // CHECK-NEXT: }
  memopt.loop 0 {
  }
  // CHECK-NEXT: %m, %m_1 = memopt.compute "split"(%x) {inplace = array<i64: -1, 0>} : (tensor<1x3x8x8xf32>) -> (tensor<2xf32>, tensor<2xi1>)
  %m:2 = memopt.compute "split"(%x) {inplace = array<i64: -1, 0>} : (tensor<1x3x8x8xf32>) -> (tensor<2xf32>, tensor<2xi1>)
  // CHECK-NEXT: func.return %l : tensor<1x16x8x8xf32>
  func.return %l#0 : tensor<1x16x8x8xf32>
}
