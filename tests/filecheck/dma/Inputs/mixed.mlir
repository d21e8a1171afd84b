builtin.module {
  memopt.global @k0 : tensor<64x64xi8>
  memopt.global @k1 : tensor<64x64xi8>
  memopt.global @k2 : tensor<64x64xi8>
  memopt.global @s0 : tensor<16xi8>
  memopt.global @s1 : tensor<16xi8>
  memopt.global @s2 : tensor<16xi8>
  func.func @main(%x: tensor<1x64x8x8xi8>, %c: tensor<i1>) -> tensor<1x64x8x8xi8> {
    %g0 = memopt.get_global @k0 : tensor<64x64xi8>
    %g1 = memopt.get_global @k1 : tensor<64x64xi8>
    %g2 = memopt.get_global @k2 : tensor<64x64xi8>
    %a = memopt.compute "conv"(%x, %g0) {cost = 1000000 : i64} : (tensor<1x64x8x8xi8>, tensor<64x64xi8>) -> tensor<1x64x8x8xi8>
    %b = memopt.compute "conv"(%a, %g1) {cost = 1000000 : i64} : (tensor<1x64x8x8xi8>, tensor<64x64xi8>) -> tensor<1x64x8x8xi8>
    %d = memopt.compute "conv"(%b, %g2) {cost = 1000000 : i64} : (tensor<1x64x8x8xi8>, tensor<64x64xi8>) -> tensor<1x64x8x8xi8>
    %r = memopt.if %c : tensor<i1> -> (tensor<1x64x8x8xi8>) {
      %h = memopt.get_global @s0 : tensor<16xi8>
      %e = memopt.compute "scale"(%d, %h) {cost = 256 : i64} : (tensor<1x64x8x8xi8>, tensor<16xi8>) -> tensor<1x64x8x8xi8>
      memopt.yield %e : tensor<1x64x8x8xi8>
    } else {
      memopt.yield %d : tensor<1x64x8x8xi8>
    }
    %h1 = memopt.get_global @s1 : tensor<16xi8>
    %h2 = memopt.get_global @s2 : tensor<16xi8>
    %f = memopt.compute "scale"(%r, %h1) {cost = 256 : i64} : (tensor<1x64x8x8xi8>, tensor<16xi8>) -> tensor<1x64x8x8xi8>
    %z = memopt.compute "scale"(%f, %h2) {cost = 256 : i64} : (tensor<1x64x8x8xi8>, tensor<16xi8>) -> tensor<1x64x8x8xi8>
    func.return %z : tensor<1x64x8x8xi8>
  }
}
