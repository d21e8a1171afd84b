// The operand types written on an op must be the types of its operands.
// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}operand-type-mismatch.mlir:8:30: operand is used with type tensor<8xf32>, but has been previously used or defined with type tensor<4xf32>
// CHECK-NOT: {{.}}

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = memopt.compute "relu"(%x) : (tensor<8xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
