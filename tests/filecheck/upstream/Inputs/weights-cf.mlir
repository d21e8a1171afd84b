// Weights read in straight-line code, inside an if's branches and inside a loop body.
memopt.global @w0 : tensor<64xf32>
memopt.global @w1 : tensor<64xf32>
memopt.global @w2 : tensor<128xf32>
memopt.global @w3 : tensor<64xf32>
func.func @main(%c: tensor<i1>, %x: tensor<64xf32>) -> tensor<64xf32> {
  %g0 = memopt.get_global @w0 : tensor<64xf32>
  %g1 = memopt.get_global @w1 : tensor<64xf32>
  %a = memopt.compute "fc"(%x, %g0) {cost = 4096} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %b = memopt.compute "fc"(%a, %g1) {cost = 4096} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  %r = memopt.if %c : tensor<i1> -> (tensor<64xf32>) {
    %g2 = memopt.get_global @w2 : tensor<128xf32>
    %u = memopt.compute "fc2"(%b, %g2) {cost = 8192} : (tensor<64xf32>, tensor<128xf32>) -> tensor<64xf32>
    memopt.yield %u : tensor<64xf32>
  } else {
    memopt.yield %b : tensor<64xf32>
  }
  %l = memopt.loop 3 iter_args(%acc = %r) : tensor<64xf32> {
    %g3 = memopt.get_global @w3 : tensor<64xf32>
    %t = memopt.compute "fc"(%acc, %g3) {cost = 4096} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
    %t2 = memopt.compute "fc"(%t, %g3) {cost = 4096} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
    memopt.yield %t2 : tensor<64xf32>
  }
  func.return %l : tensor<64xf32>
}
