// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}cond-not-tensor.mlir:7:3: 'memopt.if' op operand 'cond' at position 0 does not verify: i1 has the wrong kind (expected tensor)
// CHECK-NOT: {{.}}

func.func @main(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %r = memopt.if %c : i1 -> (tensor<4xf32>) {
    memopt.yield %x : tensor<4xf32>
  } else {
    memopt.yield %x : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}
