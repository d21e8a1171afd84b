// RUN: memopt-opt < %s | filecheck %s
// RUN: cat %s | memopt-opt - | filecheck %s
// RUN: memopt-opt %s | memopt-opt | filecheck %s
// RUN: sed -e 's/tensor<4xf32>) -> tensor<4xf32>$/tensor<4xf32>) ->/' %s | not memopt-opt 2>&1 | filecheck %s --check-prefix=ERR

// CHECK: func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %b = memopt.compute "Relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: func.return %b : tensor<4xf32>

// ERR-NOT: Traceback
// ERR: {{^}}memopt-opt: error: <stdin>:{{[0-9]+}}:{{[0-9]+}}: {{.+}}
// ERR-NOT: {{.}}

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = memopt.compute "Relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}
