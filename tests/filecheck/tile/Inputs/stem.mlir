// A MobileNet-like stem, NHWC as the TFLite importer writes it: a stride-2 convolution with SAME
// padding and a fused RELU6, a dilated depthwise convolution, a pointwise convolution, a residual
// add, a 3x3/2 max pooling; then an op with a stand-in kernel (LOGISTIC) after the run.
memopt.global @w1 : tensor<8x3x3x3xf32>
memopt.global @b1 : tensor<8xf32>
memopt.global @dw : tensor<1x3x3x8xf32>
memopt.global @w3 : tensor<8x1x1x8xf32>
func.func @main(%x: tensor<1x16x16x3xf32>) -> tensor<1x4x4x8xf32> {
  %w1 = memopt.get_global @w1 : tensor<8x3x3x3xf32>
  %b1 = memopt.get_global @b1 : tensor<8xf32>
  %c1 = memopt.compute "CONV_2D"(%x, %w1, %b1) {cost = 13824 : i64, layout = "NHWC", strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 1, 1>, groups = 1 : i64, activation = "RELU6"} : (tensor<1x16x16x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %dw = memopt.get_global @dw : tensor<1x3x3x8xf32>
  %d2 = memopt.compute "DEPTHWISE_CONV_2D"(%c1, %dw) {cost = 4608 : i64, layout = "NHWC", strides = array<i64: 1, 1>, dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>, groups = 8 : i64} : (tensor<1x8x8x8xf32>, tensor<1x3x3x8xf32>) -> tensor<1x8x8x8xf32>
  %w3 = memopt.get_global @w3 : tensor<8x1x1x8xf32>
  %c3 = memopt.compute "CONV_2D"(%d2, %w3) {cost = 4096 : i64, layout = "NHWC", strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x8x8x8xf32>, tensor<8x1x1x8xf32>) -> tensor<1x8x8x8xf32>
  %r = memopt.compute "ADD"(%c1, %c3) {cost = 512 : i64, inplace = array<i64: 0>} : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %p = memopt.compute "MAX_POOL_2D"(%r) {cost = 1152 : i64, layout = "NHWC", kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>} : (tensor<1x8x8x8xf32>) -> tensor<1x4x4x8xf32>
  %y = memopt.compute "LOGISTIC"(%p) {cost = 128 : i64} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  func.return %y : tensor<1x4x4x8xf32>
}
