// An elementwise chain whose ops may overwrite their dying input (one 64-byte storage in place).
builtin.module {
  func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
    %a = memopt.compute "relu"(%x) {inplace = array<i64: 0>} : (tensor<16xf32>) -> tensor<16xf32>
    %b = memopt.compute "exp"(%a) {inplace = array<i64: 0>} : (tensor<16xf32>) -> tensor<16xf32>
    %c = memopt.compute "neg"(%b) {inplace = array<i64: 0>} : (tensor<16xf32>) -> tensor<16xf32>
    func.return %c : tensor<16xf32>
  }
}
