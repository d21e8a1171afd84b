// A small conv chain with a skip connection: the example the README runs.
builtin.module {
  memopt.global @w1 : tensor<8x3x3x3xf32>
  memopt.global @w2 : tensor<8x8x3x3xf32>
  func.func @main(%x: tensor<1x3x16x16xf32>) -> tensor<1x8x16x16xf32> {
    %c1w = memopt.get_global @w1 : tensor<8x3x3x3xf32>
    %c1 = memopt.compute "conv2d"(%x, %c1w) {cost = 55296 : i64} : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x16x16xf32>
    %r1 = memopt.compute "relu"(%c1) {inplace = array<i64: 0>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %c2w = memopt.get_global @w2 : tensor<8x8x3x3xf32>
    %c2 = memopt.compute "conv2d"(%r1, %c2w) {cost = 147456 : i64} : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
    %sum = memopt.compute "add"(%c2, %r1) : (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %out = memopt.compute "relu"(%sum) {inplace = array<i64: 0>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    func.return %out : tensor<1x8x16x16xf32>
  }
}
