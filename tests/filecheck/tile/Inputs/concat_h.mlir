// Two convolutions' outputs joined along H: not a concatenation of channels.
memopt.global @w : tensor<4x3x3x3xf32>
func.func @main(%x: tensor<1x8x8x3xf32>) -> tensor<1x16x8x4xf32> {
  %w = memopt.get_global @w : tensor<4x3x3x3xf32>
  %a = memopt.compute "CONV_2D"(%x, %w) {cost = 6912 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
  %cat = memopt.compute "CONCATENATION"(%a, %a) {cost = 512 : i64} : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x16x8x4xf32>
  func.return %cat : tensor<1x16x8x4xf32>
}
