// A value defined in a branch is not visible after the if: one located line from every tool.
// RUN: not memopt-opt %s --plan-memory 2>&1 | filecheck %s
// RUN: not memopt-run %s 2>&1 | filecheck %s --check-prefix=EXEC
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}use-outside-if.mlir:21:1: values used but not defined: [%t]
// CHECK-NOT: {{.}}
// EXEC-NOT: Traceback
// EXEC: {{^}}memopt-run: error: {{.*}}use-outside-if.mlir:21:1: values used but not defined: [%t]
// EXEC-NOT: {{.}}

func.func @main(%x: tensor<4xf32>, %c: tensor<i1>) -> tensor<4xf32> {
  memopt.if %c : tensor<i1> {
    %t = memopt.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    memopt.yield
  } else {
    memopt.yield
  }
  %y = memopt.compute "add"(%t, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
