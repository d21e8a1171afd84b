// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_inplace_len.mlir:7:3: 'memopt.compute' op inplace has 2 entries but the op has 1 results
// CHECK-NOT: {{.}}

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = memopt.compute "Relu"(%a) {inplace = array<i64: 0, 0>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}
