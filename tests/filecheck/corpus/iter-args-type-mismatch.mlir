// A loop-carried value's type must be its initial value's type.
// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}iter-args-type-mismatch.mlir:8:37: operand is used with type tensor<8xf32>, but has been previously used or defined with type tensor<4xf32>
// CHECK-NOT: {{.}}

func.func @main(%x: tensor<4xf32>) -> tensor<8xf32> {
  %l = memopt.loop 2 iter_args(%a = %x) : tensor<8xf32> {
    memopt.yield %a : tensor<8xf32>
  }
  func.return %l : tensor<8xf32>
}
