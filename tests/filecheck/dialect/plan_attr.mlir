// RUN: memopt-opt %s | filecheck %s
// RUN: memopt-opt %s --print-op-generic | memopt-opt | filecheck %s

// CHECK: func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.plan = #memopt.plan<arena_size = 1024, lower_bound = 32, strategy = "large-first">, memopt.arg_offsets = array<i64: 0>}
// CHECK-NEXT: %b = memopt.compute "Relu"(%a) {memopt.offsets = array<i64: 16>} : (tensor<4xf32>) -> tensor<4xf32>
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> attributes {"memopt.plan" = #memopt.plan<arena_size = 1024, lower_bound = 32, strategy = "large-first">, "memopt.arg_offsets" = array<i64: 0>} {
  %b = memopt.compute "Relu"(%a) {"memopt.offsets" = array<i64: 16>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}
