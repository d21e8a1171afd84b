// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}duplicate-name.mlir:8:3: SSA value %y is already defined
// CHECK-NOT: {{.}}

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = memopt.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %y = memopt.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
