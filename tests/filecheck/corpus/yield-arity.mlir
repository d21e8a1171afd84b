// An if that yields two values for one result.
// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}yield-arity.mlir:8:3: 'memopt.if' op then region yields (tensor<4xf32>, tensor<4xf32>) but (tensor<4xf32>) is expected
// CHECK-NOT: {{.}}

func.func @main(%x: tensor<4xf32>, %c: tensor<i1>) -> tensor<4xf32> {
  %r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {
    memopt.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  } else {
    memopt.yield %x : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}
