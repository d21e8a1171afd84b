// ShuffleNet's channel shuffle as the ONNX importer writes it (reshape, transpose, reshape) between a
// grouped convolution and a strided depthwise one, NCHW.
builtin.module {
  memopt.global @w1 : tensor<8x2x3x3xf32> {names = ["w1"]}
  memopt.global @w2 : tensor<8x1x3x3xf32> {names = ["w2"]}
  memopt.global @s1 : tensor<5xi64> {names = ["s1"]}
  memopt.global @s2 : tensor<4xi64> {names = ["s2"]}
  func.func @main(%x: tensor<1x4x12x12xf32> {memopt.name = "x"}) -> (tensor<1x8x6x6xf32> {memopt.name = "y"}) {
    %w1 = memopt.get_global @w1 : tensor<8x2x3x3xf32>
    %c = memopt.compute "Conv"(%x, %w1) {cost = 20736 : i64, names = ["c"], layout = "NCHW", strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, groups = 2 : i64} : (tensor<1x4x12x12xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x12x12xf32>
    %r = memopt.compute "Relu"(%c) {cost = 1152 : i64, inplace = array<i64: 0>, names = ["r"]} : (tensor<1x8x12x12xf32>) -> tensor<1x8x12x12xf32>
    %r5 = memopt.view %r {names = ["r5"], kind = "Reshape"} : tensor<1x8x12x12xf32> -> tensor<1x2x4x12x12xf32>
    %t = memopt.compute "Transpose"(%r5) {cost = 1152 : i64, names = ["t"], perm = array<i64: 0, 2, 1, 3, 4>} : (tensor<1x2x4x12x12xf32>) -> tensor<1x4x2x12x12xf32>
    %sh = memopt.view %t {names = ["sh"], kind = "Reshape"} : tensor<1x4x2x12x12xf32> -> tensor<1x8x12x12xf32>
    %w2 = memopt.get_global @w2 : tensor<8x1x3x3xf32>
    %y = memopt.compute "Conv"(%sh, %w2) {cost = 2592 : i64, names = ["y"], layout = "NCHW", strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, groups = 8 : i64} : (tensor<1x8x12x12xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32>
    func.return %y : tensor<1x8x6x6xf32>
  }
}
