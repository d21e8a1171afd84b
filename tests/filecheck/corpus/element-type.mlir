// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}element-type.mlir:7:3: 'memopt.compute' op unsupported element type complex<f32> in tensor<4xcomplex<f32>>
// CHECK-NOT: {{.}}

func.func @main(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %y = memopt.compute "relu"(%x) : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  func.return %y : tensor<4xcomplex<f32>>
}
