// verify-plan rejects an offset on a value that takes no arena space (an off-chip weight).
// RUN: not memopt-opt %s --verify-plan 2>&1 | filecheck %s
builtin.module {
  memopt.global @w : tensor<4xf32>
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {memopt.arg_offsets = array<i64: 0>, memopt.plan = #memopt.plan<arena_size = 32, lower_bound = 32, strategy = "hand">} {
    %w = memopt.get_global @w : tensor<4xf32> {memopt.offsets = array<i64: 0>}
    %y = memopt.compute "add"(%x, %w) {memopt.offsets = array<i64: 16>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    func.return %y : tensor<4xf32>
  }
}
// CHECK: memopt-opt: error: {{.*}}verify-plan-stray-offset.mlir:6:5: offset 0 given for a value that takes no arena space
