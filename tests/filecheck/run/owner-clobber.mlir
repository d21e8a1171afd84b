// A plan that puts a tensor over another still to be read is wrong whatever the values written:
// here %c, computed exactly as %b is, is placed over %b before %d reads both. Comparing values
// cannot see it; memopt-run --check tracks which tensor wrote each byte, and names both, on
// every input seed. The plan as plan-memory makes it is proven.
// RUN: memopt-opt %s --plan-memory -o %t.ok.mlir
// RUN: memopt-run %t.ok.mlir --check | filecheck %s --check-prefix=OK
// RUN: sed -e 's/offsets = array<i64: 32>/offsets = array<i64: 16>/' %t.ok.mlir > %t.bad.mlir
// RUN: not memopt-run %t.bad.mlir --check 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not memopt-run %t.bad.mlir --check --seed 1 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not memopt-run %t.bad.mlir --check --seed 2 2>&1 | filecheck %s --check-prefix=BAD
// OK: @f: planned execution matches unplanned (4 values, 5 reads, 1 results, arena 48 bytes, paths 1/1)
// BAD: {{^}}memopt-run: error: {{.*}}.bad.mlir:3:5: tensor '%b' differs between planned and unplanned execution: its bytes were overwritten by '%c' (written at line 4) before its use by 'memopt.compute' at 5:5

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %b = memopt.compute "Relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %c = memopt.compute "Relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %d = memopt.compute "Add"(%b, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}
