// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}negative-trip-count.mlir:7:3: 'memopt.loop' op trip count must be non-negative, got -1
// CHECK-NOT: {{.}}

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %l = memopt.loop -1 iter_args(%a = %x) : tensor<4xf32> {
    memopt.yield %a : tensor<4xf32>
  }
  func.return %l : tensor<4xf32>
}
