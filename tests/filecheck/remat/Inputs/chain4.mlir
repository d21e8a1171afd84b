// A four-layer forward chain and its backward pass: every activation is read again by the backward op.
func.func @main(%x: tensor<256xf32>) -> tensor<256xf32> {
  %a = memopt.compute "f"(%x) {cost = 10 : i64} : (tensor<256xf32>) -> tensor<256xf32>
  %b = memopt.compute "f"(%a) {cost = 10 : i64} : (tensor<256xf32>) -> tensor<256xf32>
  %c = memopt.compute "f"(%b) {cost = 10 : i64} : (tensor<256xf32>) -> tensor<256xf32>
  %d = memopt.compute "f"(%c) {cost = 10 : i64} : (tensor<256xf32>) -> tensor<256xf32>
  %gd = memopt.compute "g"(%d, %c) {cost = 20 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
  %gc = memopt.compute "g"(%gd, %b) {cost = 20 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
  %gb = memopt.compute "g"(%gc, %a) {cost = 20 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
  %ga = memopt.compute "g"(%gb, %x) {cost = 20 : i64} : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
  func.return %ga : tensor<256xf32>
}
