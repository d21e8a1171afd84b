// Pass flags and -p pipelines are appended in command-line order.
// RUN: memopt-opt --cse --dce --print-pipeline | filecheck %s --check-prefix=ORDER1
// RUN: memopt-opt --dce -p 'canonicalize,cse' --cse --print-pipeline | filecheck %s --check-prefix=ORDER2
// RUN: memopt-opt %s --cse --dce | filecheck %s
// RUN: memopt-opt %s -p 'cse,dce' --canonicalize | filecheck %s

// ORDER1: {{^}}cse,dce{{$}}
// ORDER2: {{^}}dce,canonicalize,cse,cse{{$}}

// CSE merges the two identical pure computes, DCE drops the unused one.
// CHECK:      func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:   %b = memopt.compute "Relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:   %{{.*}} = memopt.compute "Add"(%b, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:   func.return
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = memopt.compute "Relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %c = memopt.compute "Relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %unused = memopt.compute "Neg"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %d = memopt.compute "Add"(%b, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}
