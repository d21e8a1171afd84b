// RUN: rm -f %t.out.mlir
// RUN: memopt-opt %s -o %t.out.mlir > %t.stdout
// RUN: test ! -s %t.stdout
// RUN: filecheck %s < %t.out.mlir
// RUN: memopt-opt %s --output-file=%t.out2.mlir
// RUN: diff %t.out.mlir %t.out2.mlir
// Determinism: the same input gives the same bytes.
// RUN: memopt-opt %s | memopt-opt -o %t.out3.mlir
// RUN: diff %t.out.mlir %t.out3.mlir

// CHECK: memopt.global @w : tensor<4xf32>
// CHECK: %g = memopt.get_global @w : tensor<4xf32>
memopt.global @w : tensor<4xf32>
func.func @f() -> tensor<4xf32> {
  %g = memopt.get_global @w : tensor<4xf32>
  func.return %g : tensor<4xf32>
}
