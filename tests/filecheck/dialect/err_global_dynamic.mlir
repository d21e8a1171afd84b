// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_global_dynamic.mlir:6:1: 'memopt.global' op dynamic shape not supported: tensor<?xf32>
// CHECK-NOT: {{.}}

memopt.global @w : tensor<?xf32>
