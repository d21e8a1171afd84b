// A string literal cut before its closing quote is refused at once, at the literal (xDSL's
// lexer took minutes: its pattern backtracked exponentially in the literal's length).
// RUN: not %timeout memopt-opt %s 2>&1 | filecheck %s
// RUN: not %timeout memopt-run --check %s 2>&1 | filecheck %s --check-prefix=EXEC
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}unclosed-string.mlir:[[# @LINE + 6]]:23: string literal not closed before the end of its line
// CHECK-NOT: {{.}}
// EXEC-NOT: Traceback
// EXEC: {{^}}memopt-run: error: {{.*}}unclosed-string.mlir:[[# @LINE + 3]]:23: string literal not closed before the end of its line

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = memopt.compute "Relnsor<4xf32>) -> tensor<4xf32> tensor<4xf32> tensor<4xf32> tensor<4xf32>
  func.return %b : tensor<4xf32>
}
