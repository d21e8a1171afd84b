// A plan over the capacity limit is an error located at the function.
// RUN: not memopt-opt %s --plan-memory="capacity=100 alignment=1" 2>&1 | filecheck %s
// RUN: memopt-opt %s --plan-memory="capacity=128 alignment=1" | filecheck %s --check-prefix=FITS
builtin.module {
  func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
    %a = memopt.compute "relu"(%x) : (tensor<16xf32>) -> tensor<16xf32>
    func.return %a : tensor<16xf32>
  }
}
// CHECK: memopt-opt: error: {{.*}}over-capacity.mlir:5:3: arena of '@main' needs 128 bytes, over capacity 100 (lower bound 128; spill=auto moves tensors off chip)
// FITS: arena_size = 128
