// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}return-type-mismatch.mlir:8:3: 'func.return' op Expected arguments to have the same types as the function output types: expected [tensor<8xf32>], got [tensor<4xf32>]
// CHECK-NOT: {{.}}

func.func @main(%x: tensor<4xf32>) -> tensor<8xf32> {
  %y = memopt.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
