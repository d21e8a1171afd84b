// The image is read again at the end (by MEAN, which tile cannot cut): held on chip, it crosses
// every run; it can wait in an off-chip home instead.
memopt.global @w0 : tensor<4x3x3x3xf32>
memopt.global @w1 : tensor<16x3x3x4xf32>
memopt.global @w2 : tensor<4x3x3x16xf32>
func.func @main(%x: tensor<1x16x16x3xf32>) -> (tensor<1x8x8x4xf32>, tensor<1x1x1x3xf32>) {
  %w0 = memopt.get_global @w0 : tensor<4x3x3x3xf32>
  %c0 = memopt.compute "CONV_2D"(%x, %w0) {cost = 27648 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x16x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x16x16x4xf32>
  %w1 = memopt.get_global @w1 : tensor<16x3x3x4xf32>
  %c1 = memopt.compute "CONV_2D"(%c0, %w1) {cost = 147456 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, activation = "RELU"} : (tensor<1x16x16x4xf32>, tensor<16x3x3x4xf32>) -> tensor<1x16x16x16xf32>
  %w2 = memopt.get_global @w2 : tensor<4x3x3x16xf32>
  %c2 = memopt.compute "CONV_2D"(%c1, %w2) {cost = 36864 : i64, layout = "NHWC", strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>} : (tensor<1x16x16x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x8x8x4xf32>
  %m = memopt.compute "MEAN"(%x) {cost = 1024 : i64} : (tensor<1x16x16x3xf32>) -> tensor<1x1x1x3xf32>
  func.return %c2, %m : tensor<1x8x8x4xf32>, tensor<1x1x1x3xf32>
}
