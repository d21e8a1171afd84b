// Every linalg op is read in the form upstream prints it and printed back the same way: named
// ops with their attribute dictionaries, keyword clauses (permutation, dimensions, dimension(),
// indexing_maps, <kind>), map/reduce short bodies (printed in the long form upstream also
// reads), generic with attrs =, and an op read in generic form stays generic. Real MLIR reads the
// output back.
// RUN: memopt-opt %s | filecheck %s
// RUN: memopt-opt %s | memopt-opt | filecheck %s
// CHECK: linalg.transpose ins(%a : memref<4x8xf32>) outs(%b : memref<8x4xf32>) permutation = [1, 0] {foo = 1 : i32}
// CHECK: linalg.broadcast ins(%v : memref<8xf32>) outs(%a : memref<4x8xf32>) dimensions = [0]
// CHECK: linalg.reduce ins(%a : memref<4x8xf32>) outs(%s : memref<4xf32>) dimensions = [1] (%{{.*}}: f32, %{{.*}}: f32) {
// CHECK-NEXT: arith.addf
// CHECK: linalg.map ins(%a, %a : memref<4x8xf32>, memref<4x8xf32>) outs(%a : memref<4x8xf32>) {foo = 1 : i32} (%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32) {
// CHECK-NEXT: arith.mulf
// CHECK: linalg.matmul {foo = 1 : i32} ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : memref<1x9x9x3xf32>, memref<3x3x3xf32>) outs(%y : memref<1x4x4x3xf32>)
// CHECK: linalg.softmax dimension(1) ins(%a : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32>) outs(%a : memref<4x8xf32>) attrs = {foo = 1 : i32} {
// CHECK-NEXT: ^{{.*}}(%{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.index 0 : index
// CHECK: linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%b, %b
// CHECK: linalg.elementwise <exp> ins(%a : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
// CHECK: "linalg.copy"(%a, %a) <{operandSegmentSizes = array<i32: 1, 1>}> ({
// REQUIRES: iree-opt
// RUN: memopt-opt %s | iree-opt -o /dev/null

func.func @f(%a: memref<4x8xf32>, %b: memref<8x4xf32>, %c: memref<4x4xf32>, %v: memref<8xf32>, %s: memref<4xf32>, %x: memref<1x9x9x3xf32>, %w: memref<3x3x3xf32>, %y: memref<1x4x4x3xf32>) {
  linalg.transpose ins(%a : memref<4x8xf32>) outs(%b : memref<8x4xf32>) permutation = [1, 0]  {foo = 1 : i32}
  linalg.broadcast ins(%v : memref<8xf32>) outs(%a : memref<4x8xf32>) dimensions = [0]
  linalg.reduce { arith.addf } ins(%a : memref<4x8xf32>) outs(%s : memref<4xf32>) dimensions = [1]
  linalg.map { arith.mulf } ins(%a, %a : memref<4x8xf32>, memref<4x8xf32>) outs(%a : memref<4x8xf32>) {foo = 1 : i32}
  linalg.matmul {foo = 1 : i32} ins(%a, %b : memref<4x8xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : memref<1x9x9x3xf32>, memref<3x3x3xf32>) outs(%y : memref<1x4x4x3xf32>)
  linalg.softmax dimension(1) ins(%a : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x8xf32>) outs(%a : memref<4x8xf32>) attrs =  {foo = 1 : i32} {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    linalg.yield %in : f32
  }
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%b, %b : memref<8x4xf32>, memref<8x4xf32>) outs(%c : memref<4x4xf32>)
  linalg.elementwise <exp> ins(%a : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
  "linalg.copy"(%a, %a) <{operandSegmentSizes = array<i32: 1, 1>}> ({
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  return
}
