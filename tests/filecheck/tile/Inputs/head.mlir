// A regression head as MediaPipe stores it: float16 filter and bias dequantized just before a
// convolution whose dequantized filter (64x3x3x8 f32, 18 KiB) outweighs every feature map.
memopt.global @w : tensor<64x3x3x8xf16>
memopt.global @b : tensor<64xf16>
memopt.global @dw : tensor<1x3x3x8xf32>
func.func @main(%x: tensor<1x6x6x8xf32>) -> tensor<1x1x1x64xf32> {
  %dw = memopt.get_global @dw : tensor<1x3x3x8xf32>
  %d = memopt.compute "DEPTHWISE_CONV_2D"(%x, %dw) {cost = 648 : i64, layout = "NHWC", strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>} : (tensor<1x6x6x8xf32>, tensor<1x3x3x8xf32>) -> tensor<1x3x3x8xf32>
  %w16 = memopt.get_global @w : tensor<64x3x3x8xf16>
  %w = memopt.compute "DEQUANTIZE"(%w16) {cost = 4608 : i64} : (tensor<64x3x3x8xf16>) -> tensor<64x3x3x8xf32>
  %b16 = memopt.get_global @b : tensor<64xf16>
  %b = memopt.compute "DEQUANTIZE"(%b16) {cost = 64 : i64} : (tensor<64xf16>) -> tensor<64xf32>
  %y = memopt.compute "CONV_2D"(%d, %w, %b) {cost = 4608 : i64, layout = "NHWC", strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x3x3x8xf32>, tensor<64x3x3x8xf32>, tensor<64xf32>) -> tensor<1x1x1x64xf32>
  %s = memopt.compute "LOGISTIC"(%y) {cost = 64 : i64} : (tensor<1x1x1x64xf32>) -> tensor<1x1x1x64xf32>
  func.return %s : tensor<1x1x1x64xf32>
}
