builtin.module {
  func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
    %a = memopt.compute "relu"(%x) : (tensor<16xf32>) -> tensor<16xf32>
    %b = memopt.compute "exp"(%a) : (tensor<16xf32>) -> tensor<16xf32>
    %c = memopt.compute "add"(%a, %b) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    func.return %c : tensor<16xf32>
  }
}
