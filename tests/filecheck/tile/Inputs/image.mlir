// A camera image as large as the capacity: a stride-2 stem and a pointwise convolution after it.
memopt.global @w1 : tensor<4x3x3x3xf32>
memopt.global @w2 : tensor<4x1x1x4xf32>
func.func @main(%x: tensor<1x32x32x3xf32>) -> tensor<1x16x16x4xf32> {
  %w1 = memopt.get_global @w1 : tensor<4x3x3x3xf32>
  %c1 = memopt.compute "CONV_2D"(%x, %w1) {cost = 27648 : i64, layout = "NHWC", strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>, activation = "RELU"} : (tensor<1x32x32x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x16x16x4xf32>
  %w2 = memopt.get_global @w2 : tensor<4x1x1x4xf32>
  %c2 = memopt.compute "CONV_2D"(%c1, %w2) {cost = 4096 : i64, layout = "NHWC"} : (tensor<1x16x16x4xf32>, tensor<4x1x1x4xf32>) -> tensor<1x16x16x4xf32>
  func.return %c2 : tensor<1x16x16x4xf32>
}
