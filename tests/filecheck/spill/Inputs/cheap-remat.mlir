builtin.module {
  func.func @main(%x: tensor<256xf32>) -> tensor<256xf32> {
    %a = memopt.compute "expand"(%x) : (tensor<256xf32>) -> tensor<1024xf32>
    %b = memopt.compute "conv"(%a) {cost = 500000 : i64} : (tensor<1024xf32>) -> tensor<1024xf32>
    %c = memopt.compute "conv"(%b) {cost = 500000 : i64} : (tensor<1024xf32>) -> tensor<1024xf32>
    %d = memopt.compute "conv"(%c) {cost = 500000 : i64} : (tensor<1024xf32>) -> tensor<1024xf32>
    %e = memopt.compute "add"(%d, %a, %x) : (tensor<1024xf32>, tensor<1024xf32>, tensor<256xf32>) -> tensor<256xf32>
    func.return %e : tensor<256xf32>
  }
}
