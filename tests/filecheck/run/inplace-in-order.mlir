// In-place results are executed as real kernels write them: element by element, in order, while
// still reading the input. An element-wise op (relu, an unknown element-wise kind like Exp) is
// exact in place, and so is a kind memopt-run only has a stand-in for (here "LRN"): its inplace
// hint is the IR's promise, which the stand-in keeps. An op with real semantics whose output
// element reads its whole row (Softmax) is not: --check catches the wrong in-place hint.
// RUN: memopt-opt %s -p 'plan-memory{strategy=large-first}' -o %t.mlir
// RUN: filecheck %s --check-prefix=PLAN < %t.mlir
// RUN: not memopt-run %t.mlir --check 2>&1 | filecheck %s --check-prefix=CHECK
// PLAN: %s = memopt.compute "Softmax"(%n) {inplace = array<i64: 0>, memopt.offsets = array<i64: [[OFF:[0-9]+]]>}
// CHECK: {{^}}memopt-run: error: {{.*}}: tensor '%s' differs between planned and unplanned execution
// Without the Softmax hint the same program (LRN still in place) is proven.
// RUN: sed -e 's/"Softmax"(%%n) {inplace = array<i64: 0>}/"Softmax"(%%n)/' %s | memopt-opt -p 'plan-memory{strategy=large-first}' > %t.ok.mlir
// RUN: filecheck %s --check-prefix=LRN < %t.ok.mlir
// RUN: memopt-run %t.ok.mlir --check | filecheck %s --check-prefix=OK
// LRN: %e = memopt.compute "Exp"(%r) {inplace = array<i64: 0>, memopt.offsets = array<i64: [[E:[0-9]+]]>}
// LRN-NEXT: %n = memopt.compute "LRN"(%e) {inplace = array<i64: 0>, memopt.offsets = array<i64: [[E]]>}
// LRN-NEXT: %s = memopt.compute "Softmax"(%n) {memopt.offsets
// OK: @main: planned execution matches unplanned

builtin.module {
  func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
    %r = memopt.compute "relu"(%x) : (tensor<64xf32>) -> tensor<64xf32>
    %e = memopt.compute "Exp"(%r) {inplace = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>
    %n = memopt.compute "LRN"(%e) {inplace = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>
    %s = memopt.compute "Softmax"(%n) {inplace = array<i64: 0>} : (tensor<64xf32>) -> tensor<64xf32>
    %o = memopt.compute "neg"(%s) : (tensor<64xf32>) -> tensor<64xf32>
    func.return %o : tensor<64xf32>
  }
}
