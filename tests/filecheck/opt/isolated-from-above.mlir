// A function that uses a value of the function around it is refused at the inner function,
// with the op that uses it (memopt checks isolation in one walk; the verdict is xDSL's).
// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK: {{^}}memopt-opt: error: {{.*}}isolated-from-above.mlir:[[# @LINE + 3]]:5: 'func.func' op Operation using value defined out of its IsolatedFromAbove parent: ReturnOp(func.return %x : tensor<4xf32>){{$}}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "test.op"() ({
    func.func @g() -> tensor<4xf32> {
      func.return %x : tensor<4xf32>
    }
    "test.end"() : () -> ()
  }) : () -> tensor<4xf32>
  func.return %x : tensor<4xf32>
}
