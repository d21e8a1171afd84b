// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_dma_overflow.mlir:9:3: 'memopt.dma_start' op dma of @w (64 bytes) at offset 8 does not fit in @buf (64 bytes)
// CHECK-NOT: {{.}}

memopt.global @w : tensor<16xf32>
memopt.dma_buffer @buf size 64
func.func @f() {
  %t = memopt.dma_start @w into @buf[offset 8] : !memopt.token
  func.return
}
