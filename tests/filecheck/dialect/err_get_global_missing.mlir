// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_get_global_missing.mlir:8:3: 'memopt.get_global' op symbol @nope not found in the enclosing module
// CHECK-NOT: {{.}}

memopt.global @w : tensor<4xf32>
func.func @f() {
  %g = memopt.get_global @nope : tensor<4xf32>
  func.return
}
