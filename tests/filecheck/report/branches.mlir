// Branches in the report: tensors of the two branches of an if share bytes in the joint plan,
// and the peak lists only the heaviest branch's tensors (the tensors a path really holds).
// RUN: memopt-opt %s -p 'plan-memory{strategy=large-first control-flow=joint alignment=16}' -o %t.mlir
// RUN: memopt-report %t.mlir | filecheck %s
// The then branch holds t1 + t2 (128 B) at once, the else branch e1 (128 B): LB = a + r + 128.
// CHECK:      lower bound          208 B
// CHECK:      peak                 step {{[0-9]+}}: 208 B live on the heaviest path
// CHECK-NEXT: live at the peak     a (64 B), {{.*}} (64 B), {{.*}} (64 B), r (16 B)
// The branches' first tensors share offset 0 (they never live on one path).
// CHECK-DAG:  e1     128  [2, 4)         0  intermediate
// CHECK-DAG:  t1      64  [2, 5)         0  intermediate
// Pictures of it render, with the branch spans.
// RUN: memopt-report %t.mlir -o %t.svg && filecheck %s --check-prefix=SVG < %t.svg
// SVG: <g id="t0">
// SVG: if0.then
// SVG: if0.else

builtin.module {
  func.func @main(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
    %a = memopt.compute "relu"(%x) : (tensor<4xf32>) -> tensor<16xf32>
    %r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {
      %t1 = memopt.compute "exp"(%a) : (tensor<16xf32>) -> tensor<16xf32>
      %t2 = memopt.compute "neg"(%a) : (tensor<16xf32>) -> tensor<16xf32>
      %t3 = memopt.compute "add"(%t1, %t2) : (tensor<16xf32>, tensor<16xf32>) -> tensor<4xf32>
      memopt.yield %t3 : tensor<4xf32>
    } else {
      %e1 = memopt.compute "abs"(%a) : (tensor<16xf32>) -> tensor<32xf32>
      %e2 = memopt.compute "sum"(%e1) : (tensor<32xf32>) -> tensor<4xf32>
      memopt.yield %e2 : tensor<4xf32>
    }
    %o = memopt.compute "mul"(%r, %a) : (tensor<4xf32>, tensor<16xf32>) -> tensor<4xf32>
    func.return %o : tensor<4xf32>
  }
}
