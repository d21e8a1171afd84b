builtin.module {
  memopt.global @w0 : tensor<16x8xi8>
  memopt.global @w1 : tensor<32x16xi8>
  memopt.global @b1 : tensor<32xi32>
  memopt.global @w2 : tensor<16x32xi8>
  memopt.global @w3 : tensor<8x16xi8>
  func.func @main(%x: tensor<1x8xi8>) -> tensor<1x8xi8> {
    %g0 = memopt.get_global @w0 : tensor<16x8xi8>
    %g1 = memopt.get_global @w1 : tensor<32x16xi8>
    %gb = memopt.get_global @b1 : tensor<32xi32>
    %g2 = memopt.get_global @w2 : tensor<16x32xi8>
    %g3 = memopt.get_global @w3 : tensor<8x16xi8>
    %a = memopt.compute "fc"(%x, %g0) {cost = 20000 : i64} : (tensor<1x8xi8>, tensor<16x8xi8>) -> tensor<1x16xi8>
    %b = memopt.compute "fc"(%a, %g1, %gb) {cost = 50000 : i64} : (tensor<1x16xi8>, tensor<32x16xi8>, tensor<32xi32>) -> tensor<1x32xi8>
    %r = memopt.compute "relu"(%b) : (tensor<1x32xi8>) -> tensor<1x32xi8>
    %c = memopt.compute "fc"(%r, %g2) {cost = 50000 : i64} : (tensor<1x32xi8>, tensor<16x32xi8>) -> tensor<1x16xi8>
    %d = memopt.compute "fc"(%c, %g3) {cost = 20000 : i64} : (tensor<1x16xi8>, tensor<8x16xi8>) -> tensor<1x8xi8>
    func.return %d : tensor<1x8xi8>
  }
}
