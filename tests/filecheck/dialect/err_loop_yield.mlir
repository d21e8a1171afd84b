// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_loop_yield.mlir:7:3: 'memopt.loop' op loop body region yields (tensor<8xf32>) but (tensor<4xf32>) is expected
// CHECK-NOT: {{.}}

func.func @f(%a: tensor<4xf32>, %b: tensor<8xf32>) {
  %r = memopt.loop 2 iter_args(%x = %a) : tensor<4xf32> {
    memopt.yield %b : tensor<8xf32>
  }
  func.return
}
