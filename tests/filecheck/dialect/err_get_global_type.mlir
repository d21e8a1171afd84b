// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_get_global_type.mlir:8:3: 'memopt.get_global' op result type tensor<8xf32> does not match type tensor<4xf32> of global @w
// CHECK-NOT: {{.}}

memopt.global @w : tensor<4xf32>
func.func @f() {
  %g = memopt.get_global @w : tensor<8xf32>
  func.return
}
