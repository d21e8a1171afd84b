// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}undefined-value.mlir:10:1: values used but not defined: [%nope]
// CHECK-NOT: {{.}}

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = memopt.compute "relu"(%nope) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
