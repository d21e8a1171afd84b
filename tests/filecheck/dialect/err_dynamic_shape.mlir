// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_dynamic_shape.mlir:7:3: 'memopt.compute' op dynamic shape not supported: tensor<?x4xf32>
// CHECK-NOT: {{.}}

func.func @f(%a: tensor<?x4xf32>) {
  %b = memopt.compute "Relu"(%a) : (tensor<?x4xf32>) -> tensor<4xf32>
  func.return
}
