// RUN: not memopt-opt %s 2>&1 | filecheck %s
// RUN: not memopt-opt %s --print-op-generic 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}unknown_dialect.mlir:8:3: unknown operation 'foo.bar': dialect 'foo' is not registered
// CHECK-NOT: {{.}}

func.func @f() {
  "foo.bar"() : () -> ()
  func.return
}
