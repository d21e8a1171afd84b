// An op of a dialect memopt does not know is read (generic and custom form), said once per
// op name, and printed back as it was; an unknown op of memopt's own dialect stays an error.
// RUN: memopt-opt %s 2>&1 | filecheck %s
// RUN: memopt-opt %s --print-op-generic 2>&1 | filecheck %s --check-prefix=GENERIC
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: remark: {{.*}}unknown_dialect.mlir:13:3: 'foo.bar' is not known to memopt: every memref it takes is taken as read and written whole
// CHECK-NOT: remark
// CHECK: "foo.bar"() {k = 1 : i32} : () -> ()
// CHECK-NEXT: "foo.bar"() : () -> ()
// GENERIC: "foo.bar"() {k = 1 : i32} : () -> ()

func.func @f() {
  "foo.bar"() {k = 1 : i32} : () -> ()
  "foo.bar"() : () -> ()
  func.return
}
