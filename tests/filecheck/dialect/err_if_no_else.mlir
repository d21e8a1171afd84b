// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_if_no_else.mlir:7:3: 'memopt.if' op else region may only be empty when memopt.if has no results
// CHECK-NOT: {{.}}

func.func @f(%c: tensor<i1>, %a: tensor<4xf32>) {
  %r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {
    memopt.yield %a : tensor<4xf32>
  }
  func.return
}
