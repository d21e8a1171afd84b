// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_dma_wait_type.mlir:10:3: 'memopt.dma_wait' op result type tensor<8xf32> does not match type tensor<16xf32> of global @w
// CHECK-NOT: {{.}}

memopt.global @w : tensor<16xf32>
memopt.dma_buffer @buf size 64
func.func @f() {
  %t = memopt.dma_start @w into @buf[offset 0] : !memopt.token
  %x = memopt.dma_wait %t : tensor<8xf32>
  func.return
}
