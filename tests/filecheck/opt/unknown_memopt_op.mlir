// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}unknown_memopt_op.mlir:7:8: unknown operation 'memopt.nonesuch'
// CHECK-NOT: {{.}}

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = "memopt.nonesuch"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}
