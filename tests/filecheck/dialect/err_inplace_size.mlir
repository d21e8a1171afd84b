// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_inplace_size.mlir:7:3: 'memopt.compute' op result #0 (32 bytes) cannot overwrite operand #0 (16 bytes)
// CHECK-NOT: {{.}}

func.func @f(%a: tensor<4xf32>) -> tensor<8xf32> {
  %b = memopt.compute "Pad"(%a) {inplace = array<i64: 0>} : (tensor<4xf32>) -> tensor<8xf32>
  func.return %b : tensor<8xf32>
}
