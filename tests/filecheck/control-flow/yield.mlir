// Where yielded values live. A value computed in a branch and yielded is computed straight into
// the if's result (same offset, no copy). An outer value, a function argument, a view, or the
// second result of a yield that names one value twice cannot be: that yield is a copy, the
// value keeps its own storage. An if without results may have an empty else.
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 control-flow=joint export="%t.csv"},verify-plan' | filecheck %s
// RUN: filecheck %s --check-prefix=CSV < %t.csv
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 control-flow=serial},verify-plan' | filecheck %s
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 control-flow=merge},verify-plan' | filecheck %s
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 control-flow=flat},verify-plan' | filecheck %s

builtin.module {
  func.func @main(%c: tensor<i1>, %x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
    %a = memopt.compute "a"(%x) : (tensor<16xf32>) -> tensor<16xf32>
    %r:2 = memopt.if %c : tensor<i1> -> (tensor<16xf32>, tensor<16xf32>) {
      %t = memopt.compute "t"(%a) : (tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %t, %t : tensor<16xf32>, tensor<16xf32>
    } else {
      %v = memopt.view %a : tensor<16xf32> -> tensor<16xf32>
      memopt.yield %x, %v : tensor<16xf32>, tensor<16xf32>
    }
    memopt.if %c : tensor<i1> {
      %s = memopt.compute "side"(%r#0) : (tensor<16xf32>) -> tensor<64xf32>
      memopt.yield
    }
    %o = memopt.compute "o"(%r#1, %a) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    func.return %r#0, %o : tensor<16xf32>, tensor<16xf32>
  }
}

// CHECK:      func.func @main{{.*}}memopt.arg_offsets = array<i64:
// CHECK:      %a = {{.*}}memopt.offsets = array<i64: [[A:[0-9]+]]>
// CHECK:      %t = {{.*}}memopt.offsets = array<i64: [[R0:[0-9]+]]>
// CHECK:      %v = {{.*}}memopt.offsets = array<i64: [[A]]>
// CHECK:      } attributes {memopt.offsets = array<i64: [[R0]], [[R1:[0-9]+]]>}
// CHECK:      memopt.if %c : tensor<i1> {
// CHECK-NEXT:   %s = {{.*}}memopt.offsets = array<i64: {{[0-9]+}}>
// CHECK-NEXT:   memopt.yield
// CHECK-NEXT: }
// CHECK:      %o = memopt.compute

// One buffer per storage: %t has none (it is %r#0), %v is %a; %x, %r#0 and %r#1 are distinct.
// Joint steps: 0 a, 1 if-begin, 2 t | 2 view, 3 yield | 3 yield, 4 if-end. An if result
// starts at its earliest write: %r#0 where %t is computed into it (2), %r#1 at the yields,
// which copy into it in both branches (3).
// CSV:      id,lower,upper,size,offset
// CSV-NEXT: c,0,
// CSV-NEXT: x,0,
// CSV-NEXT: a,0,
// CSV-NEXT: r,2,
// CSV-NEXT: r_1,3,
// CSV-NEXT: s,
// CSV-NEXT: o,{{.*$}}
// CSV-NOT:  {{.}}
