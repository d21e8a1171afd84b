// In-place results are executed as real kernels write them: element by element, in order, while
// still reading the input. An element-wise op (relu, an unknown element-wise kind like Exp) is
// exact in place; an op whose output element reads neighbouring input elements (LRN) is not,
// and --check catches the wrong in-place hint instead of trusting it.
// RUN: memopt-opt %s -p 'plan-memory{strategy=large-first}' -o %t.mlir
// RUN: filecheck %s --check-prefix=PLAN < %t.mlir
// RUN: not memopt-run %t.mlir --check 2>&1 | filecheck %s --check-prefix=CHECK
// PLAN: %n = memopt.compute "LRN"(%e) {inplace = array<i64: 0>, memopt.offsets = array<i64: [[OFF:[0-9]+]]>}
// CHECK: {{^}}memopt-run: error: {{.*}}: tensor '%n' differs between planned and unplanned execution
// Without the LRN hint the same program is proven.
// RUN: sed -e 's/"LRN"(%%e) {inplace = array<i64: 0>}/"LRN"(%%e)/' %s | memopt-opt -p 'plan-memory{strategy=large-first}' | memopt-run - --check | filecheck %s --check-prefix=OK
// OK: @main: planned execution matches unplanned

builtin.module {
  func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
    %r = memopt.compute "relu"(%x) : (tensor<64xf32>) -> tensor<64xf32>
    %e = memopt.compute "Exp"(%r) {inplace = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>
    %n = memopt.compute "LRN"(%e) {inplace = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>
    %o = memopt.compute "neg"(%n) : (tensor<64xf32>) -> tensor<64xf32>
    func.return %o : tensor<64xf32>
  }
}
