// xDSL does not check dominance; the planner and the executor must not accept a use before the
// definition (its lifetime would be wrong).
// RUN: not memopt-opt %s --plan-memory 2>&1 | filecheck %s
// Plain parsing rejects it too: the driver checks dominance after verification.
// RUN: not memopt-opt %s 2>&1 | filecheck %s
// RUN: not memopt-run %s 2>&1 | filecheck %s --check-prefix=EXEC
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}use-before-def.mlir:16:5: value '%z' is used before it is defined
// CHECK-NOT: {{.}}
// EXEC-NOT: Traceback
// EXEC: {{^}}memopt-run: error: {{.*}}use-before-def.mlir:16:5: value '%z' is used before it is defined
// EXEC-NOT: {{.}}

builtin.module {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = memopt.compute "relu"(%z) : (tensor<4xf32>) -> tensor<4xf32>
    %z = memopt.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    func.return %y : tensor<4xf32>
  }
}
