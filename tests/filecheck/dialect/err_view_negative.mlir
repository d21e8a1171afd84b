// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_view_negative.mlir:7:3: 'memopt.view' op view offset must be non-negative, got -4
// CHECK-NOT: {{.}}

func.func @f(%a: tensor<4x4xf32>) {
  %v = memopt.view %a[offset -4] : tensor<4x4xf32> -> tensor<2xf32>
  func.return
}
