// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}non-tensor-operand.mlir:7:3: 'memopt.compute' op operand #0 must be a builtin tensor type, got memref<4xf32>
// CHECK-NOT: {{.}}

func.func @main(%x: memref<4xf32>) -> tensor<4xf32> {
  %y = memopt.compute "relu"(%x) : (memref<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
