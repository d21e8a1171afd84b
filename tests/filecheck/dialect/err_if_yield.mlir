// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_if_yield.mlir:7:3: 'memopt.if' op else region yields (tensor<8xf32>) but (tensor<4xf32>) is expected
// CHECK-NOT: {{.}}

func.func @f(%c: tensor<i1>, %a: tensor<4xf32>, %b: tensor<8xf32>) {
  %r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {
    memopt.yield %a : tensor<4xf32>
  } else {
    memopt.yield %b : tensor<8xf32>
  }
  func.return
}
