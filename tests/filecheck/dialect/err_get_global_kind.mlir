// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_get_global_kind.mlir:8:3: 'memopt.get_global' op symbol @buf refers to 'memopt.dma_buffer', expected 'memopt.global'
// CHECK-NOT: {{.}}

memopt.dma_buffer @buf size 16
func.func @f() {
  %g = memopt.get_global @buf : tensor<4xf32>
  func.return
}
