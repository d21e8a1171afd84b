// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}malformed.mlir:8:33: ')' expected
// CHECK-NOT: {{.}}

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // The operand list is not closed.
  %b = memopt.compute "Relu"(%a : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}
