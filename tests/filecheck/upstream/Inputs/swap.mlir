// A loop whose yield swaps its carried values, and an if whose condition is f32 and whose
// branch yields the same value twice.
func.func @main(%c: tensor<2xf32>, %a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %l:2 = memopt.loop 3 iter_args(%p = %a, %q = %b) : tensor<8xf32>, tensor<8xf32> {
    memopt.yield %q, %p : tensor<8xf32>, tensor<8xf32>
  }
  %r:2 = memopt.if %c : tensor<2xf32> -> (tensor<8xf32>, tensor<8xf32>) {
    %m = memopt.compute "mix"(%l#0, %l#1) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    memopt.yield %m, %m : tensor<8xf32>, tensor<8xf32>
  } else {
    memopt.yield %l#1, %l#0 : tensor<8xf32>, tensor<8xf32>
  }
  func.return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}
