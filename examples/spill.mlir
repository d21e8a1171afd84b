builtin.module {
  func.func @main(%x: tensor<256xf32>) -> tensor<256xf32> {
    %a = memopt.compute "conv"(%x) {cost = 100000 : i64} : (tensor<256xf32>) -> tensor<1024xf32>
    %b = memopt.compute "relu"(%a) : (tensor<1024xf32>) -> tensor<1024xf32>
    %c = memopt.compute "relu"(%b) : (tensor<1024xf32>) -> tensor<1024xf32>
    %d = memopt.compute "relu"(%c) : (tensor<1024xf32>) -> tensor<1024xf32>
    %e = memopt.compute "add"(%d, %a) : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<256xf32>
    func.return %e : tensor<256xf32>
  }
}
