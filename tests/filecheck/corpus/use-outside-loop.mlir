// A value defined in a loop body is not visible after the loop.
// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}use-outside-loop.mlir:14:1: values used but not defined: [%n]
// CHECK-NOT: {{.}}

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %l = memopt.loop 2 iter_args(%a = %x) : tensor<4xf32> {
    %n = memopt.compute "relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    memopt.yield %n : tensor<4xf32>
  }
  func.return %n : tensor<4xf32>
}
