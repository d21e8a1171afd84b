// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_inplace_index.mlir:7:3: 'memopt.compute' op inplace index 2 of result #0 is not a valid operand index (op has 1 operands)
// CHECK-NOT: {{.}}

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = memopt.compute "Relu"(%a) {inplace = array<i64: 2>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}
