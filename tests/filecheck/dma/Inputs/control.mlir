builtin.module {
  memopt.global @wa : tensor<64xi8>
  memopt.global @wt0 : tensor<128xi8>
  memopt.global @wt1 : tensor<256xi8>
  memopt.global @we0 : tensor<32xi8>
  memopt.global @wn0 : tensor<16xi8>
  memopt.global @wn1 : tensor<48xi8>
  memopt.global @wl0 : tensor<80xi8>
  memopt.global @wl1 : tensor<96xi8>
  memopt.global @wz : tensor<2x64xi8>
  func.func @main(%x: tensor<64xi8>, %c: tensor<i1>, %c2: tensor<i1>) -> tensor<64xi8> {
    %ga = memopt.get_global @wa : tensor<64xi8>
    %a = memopt.compute "mul"(%x, %ga) {cost = 4096 : i64} : (tensor<64xi8>, tensor<64xi8>) -> tensor<64xi8>
    %r = memopt.if %c : tensor<i1> -> (tensor<64xi8>) {
      %g0 = memopt.get_global @wt0 : tensor<128xi8>
      %g1 = memopt.get_global @wt1 : tensor<256xi8>
      %t0 = memopt.compute "fc"(%a, %g0) {cost = 8192 : i64} : (tensor<64xi8>, tensor<128xi8>) -> tensor<64xi8>
      %t1 = memopt.compute "fc"(%t0, %g1) {cost = 16384 : i64} : (tensor<64xi8>, tensor<256xi8>) -> tensor<64xi8>
      %n = memopt.if %c2 : tensor<i1> -> (tensor<64xi8>) {
        %h0 = memopt.get_global @wn0 : tensor<16xi8>
        %h1 = memopt.get_global @wn1 : tensor<48xi8>
        %n0 = memopt.compute "fc"(%t1, %h0) {cost = 4096 : i64} : (tensor<64xi8>, tensor<16xi8>) -> tensor<64xi8>
        %n1 = memopt.compute "fc"(%n0, %h1) {cost = 4096 : i64} : (tensor<64xi8>, tensor<48xi8>) -> tensor<64xi8>
        memopt.yield %n1 : tensor<64xi8>
      } else {
        memopt.yield %t1 : tensor<64xi8>
      }
      memopt.yield %n : tensor<64xi8>
    } else {
      %e0 = memopt.get_global @we0 : tensor<32xi8>
      %e = memopt.compute "fc"(%a, %e0) {cost = 4096 : i64} : (tensor<64xi8>, tensor<32xi8>) -> tensor<64xi8>
      memopt.yield %e : tensor<64xi8>
    }
    %gl0 = memopt.get_global @wl0 : tensor<80xi8>
    %gl1 = memopt.get_global @wl1 : tensor<96xi8>
    %l = memopt.loop 3 iter_args(%acc = %r) : tensor<64xi8> {
      %l0 = memopt.compute "fc"(%acc, %gl0) {cost = 8192 : i64} : (tensor<64xi8>, tensor<80xi8>) -> tensor<64xi8>
      %l1 = memopt.compute "fc"(%l0, %gl1) {cost = 8192 : i64} : (tensor<64xi8>, tensor<96xi8>) -> tensor<64xi8>
      memopt.yield %l1 : tensor<64xi8>
    }
    %gz = memopt.get_global @wz : tensor<2x64xi8>
    %zw = memopt.view %gz[offset 64] : tensor<2x64xi8> -> tensor<64xi8>
    %z = memopt.compute "mul"(%l, %zw) {cost = 4096 : i64} : (tensor<64xi8>, tensor<64xi8>) -> tensor<64xi8>
    func.return %z : tensor<64xi8>
  }
}
