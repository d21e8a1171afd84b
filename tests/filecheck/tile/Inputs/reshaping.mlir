// NHWC, every kind a run may hold beside convolutions: PRELU with a per-cell alpha (3-D, cut
// with the patch) and a per-channel one (read whole), a concatenation of channels, a local
// response normalization, a bilinear resize by 2.5 (half-pixel centers), space-to-depth and
// depth-to-space, a nearest resize down to 7x7.
memopt.global @w1 : tensor<4x3x3x3xf32>
memopt.global @alpha : tensor<8x8x4xf32>
memopt.global @slope : tensor<1x1x4xf32>
func.func @main(%x: tensor<1x16x16x3xf32>) -> tensor<1x7x7x8xf32> {
  %w1 = memopt.get_global @w1 : tensor<4x3x3x3xf32>
  %c = memopt.compute "CONV_2D"(%x, %w1) {cost = 6912 : i64, layout = "NHWC", strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 1, 1>} : (tensor<1x16x16x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x8x8x4xf32>
  %alpha = memopt.get_global @alpha : tensor<8x8x4xf32>
  %p1 = memopt.compute "PRELU"(%c, %alpha) {cost = 256 : i64} : (tensor<1x8x8x4xf32>, tensor<8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %slope = memopt.get_global @slope : tensor<1x1x4xf32>
  %p2 = memopt.compute "PRELU"(%c, %slope) {cost = 256 : i64} : (tensor<1x8x8x4xf32>, tensor<1x1x4xf32>) -> tensor<1x8x8x4xf32>
  %cat = memopt.compute "CONCATENATION"(%p1, %p2) {cost = 512 : i64} : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32>
  %n = memopt.compute "LOCAL_RESPONSE_NORMALIZATION"(%cat) {cost = 2560 : i64, layout = "NHWC", lrn = array<i64: 2, 2>, alpha = 1.0e-01 : f64, beta = 7.5e-01 : f64, bias = 1.0 : f64} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %u = memopt.compute "RESIZE_BILINEAR"(%n) {cost = 12800 : i64, layout = "NHWC", mode = "linear", coordinates = "half_pixel"} : (tensor<1x8x8x8xf32>) -> tensor<1x20x20x8xf32>
  %s = memopt.compute "SPACE_TO_DEPTH"(%u) {cost = 3200 : i64, layout = "NHWC", block_size = 2 : i64} : (tensor<1x20x20x8xf32>) -> tensor<1x10x10x32xf32>
  %d = memopt.compute "DEPTH_TO_SPACE"(%s) {cost = 3200 : i64, layout = "NHWC", block_size = 2 : i64} : (tensor<1x10x10x32xf32>) -> tensor<1x20x20x8xf32>
  %m = memopt.compute "RESIZE_NEAREST_NEIGHBOR"(%d) {cost = 392 : i64, layout = "NHWC", mode = "nearest", coordinates = "asymmetric", rounding = "floor"} : (tensor<1x20x20x8xf32>) -> tensor<1x7x7x8xf32>
  func.return %m : tensor<1x7x7x8xf32>
}
