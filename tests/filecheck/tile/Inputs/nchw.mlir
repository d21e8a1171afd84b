// NCHW as the ONNX importer writes it: a grouped convolution, a constant Pad, an average pooling
// (padding excluded from its count), a Relu.
memopt.global @w : tensor<4x2x3x3xf32>
func.func @main(%x: tensor<1x4x12x12xf32>) -> tensor<1x4x6x6xf32> {
  %w = memopt.get_global @w : tensor<4x2x3x3xf32>
  %c = memopt.compute "Conv"(%x, %w) {cost = 10368 : i64, layout = "NCHW", strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, groups = 2 : i64} : (tensor<1x4x12x12xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x12x12xf32>
  %pd = memopt.compute "Pad"(%c) {cost = 784 : i64, pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x4x12x12xf32>) -> tensor<1x4x14x14xf32>
  %a = memopt.compute "AveragePool"(%pd) {cost = 1296 : i64, layout = "NCHW", kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>} : (tensor<1x4x14x14xf32>) -> tensor<1x4x7x7xf32>
  %y = memopt.compute "Relu"(%a) {cost = 196 : i64} : (tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  %s = memopt.compute "Slice"(%y) {cost = 144 : i64} : (tensor<1x4x7x7xf32>) -> tensor<1x4x6x6xf32>
  func.return %s : tensor<1x4x6x6xf32>
}
