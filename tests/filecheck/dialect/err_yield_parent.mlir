// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_yield_parent.mlir:8:5: 'memopt.yield' op {{.*}}memopt.if{{.*}}
// CHECK-NOT: {{.}}

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = scf.execute_region -> (tensor<4xf32>) {
    memopt.yield %a : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}
