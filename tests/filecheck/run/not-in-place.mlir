// A result planned over an input its op does not take in place is refused by --check, located,
// whatever the kernel computes: without an `inplace` hint a kernel may write its result before it
// reads that input (here a two-input add whose output sits on its first input, which an
// element-wise stand-in would compute right). verify-plan refuses the same plan.
// RUN: not memopt-run %s --check 2>&1 | filecheck %s
// CHECK: memopt-run: error: {{.*}}not-in-place.mlir:19:5: result '%s' is planned over input '%a', which 'add' does not take in place (no inplace hint for it): a kernel may write its result before it reads that input
// RUN: not memopt-opt %s --verify-plan 2>&1 | filecheck %s --check-prefix=VERIFY
// VERIFY: error: {{.*}}invalid plan: buffers 'a' [512, 768) live [0, 3) and 's' [512, 768) live [2, 4) overlap
// The same placement with the hint on that input is the IR's promise, and is proven; a hint on the
// other input does not cover it.
// RUN: sed -e 's/"add"(%%a, %%b) {memopt/"add"(%%a, %%b) {inplace = array<i64: 0>, memopt/' %s | memopt-run - --check | filecheck %s --check-prefix=HINT
// HINT: @main: planned execution matches unplanned
// RUN: sed -e 's/"add"(%%a, %%b) {memopt/"add"(%%a, %%b) {inplace = array<i64: 1>, memopt/' %s | not memopt-run - --check 2>&1 | filecheck %s --check-prefix=OTHER
// OTHER: memopt-run: error: {{.*}}result '%s' is planned over input '%a', which 'add' does not take in place
builtin.module {
  func.func @main(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> attributes {memopt.arg_offsets = array<i64: 0, 256>, memopt.plan = #memopt.plan<arena_size = 768, lower_bound = 768, strategy = "sequential">, memopt.numbering = "joint"} {
    %a = memopt.compute "relu"(%x) {memopt.offsets = array<i64: 512>} : (tensor<64xf32>) -> tensor<64xf32>
    %b = memopt.compute "neg"(%y) {memopt.offsets = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>
    %s = memopt.compute "add"(%a, %b) {memopt.offsets = array<i64: 512>} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
    %o = memopt.compute "neg"(%s) {memopt.offsets = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>
    func.return %o : tensor<64xf32>
  }
}
