// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}unknown_op.mlir:7:8: unknown operation 'memopt.frobnicate'
// CHECK-NOT: {{.}}

func.func @f(%a: tensor<4xf32>) {
  %b = memopt.frobnicate %a : tensor<4xf32>
  func.return
}
