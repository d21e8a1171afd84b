// A call from one planned function to another: both arenas would start at offset 0, so the
// callee's tensors would overwrite the caller's live ones. Until calls are defined, every tool
// refuses it, located at the call (a call to a declaration is an ordinary use).
// RUN: not memopt-opt %s --plan-memory 2>&1 | filecheck %s
// RUN: not memopt-run --check %s 2>&1 | filecheck %s --check-prefix=EXEC
// RUN: sed -e 's/^  func.func @helper(%%a: tensor<4xf32>) -> tensor<4xf32> {$/  func.func private @helper(tensor<4xf32>) -> tensor<4xf32>\n  func.func @unused(%%a: tensor<4xf32>) -> tensor<4xf32> {/' %s | memopt-opt --plan-memory --verify-plan | filecheck %s --check-prefix=DECL
// CHECK: {{^}}memopt-opt: error: {{.*}}calls.mlir:19:5: '@main' calls '@helper', another function memopt plans: calls between planned functions are not supported (both arenas would start at offset 0); inline the callee first{{$}}
// EXEC-NOT: Traceback
// EXEC: {{^}}memopt-run: error: {{.*}}calls.mlir:19:5: '@main' calls '@helper'
// DECL: func.call @helper

builtin.module {
  func.func @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
    %b = memopt.compute "relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
    func.return %b : tensor<4xf32>
  }
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = memopt.compute "neg"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %z = func.call @helper(%y) : (tensor<4xf32>) -> tensor<4xf32>
    %o = memopt.compute "add"(%z, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    func.return %o : tensor<4xf32>
  }
}
