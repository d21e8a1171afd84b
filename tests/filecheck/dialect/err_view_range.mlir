// RUN: not memopt-opt %s 2>&1 | filecheck %s
// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: {{.*}}err_view_range.mlir:7:3: 'memopt.view' op view out of range: offset 64 + 8 bytes exceeds source size 64 bytes
// CHECK-NOT: {{.}}

func.func @f(%a: tensor<4x4xf32>) {
  %v = memopt.view %a[offset 64] : tensor<4x4xf32> -> tensor<2xf32>
  func.return
}
