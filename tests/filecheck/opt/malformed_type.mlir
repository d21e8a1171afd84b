// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}malformed_type.mlir:7:31: Expected shape type.
// CHECK-NOT: {{.}}

func.func @f() {
  memopt.global @w : tensor<4xbogus>
  func.return
}
