// memopt-run executes for real: hand-checkable values through weights with data, a loop, an if
// on a constant condition, views and a matmul; the planned run prints the same results.
// RUN: memopt-run %s | filecheck %s
// RUN: memopt-opt %s --plan-memory | memopt-run - --planned | filecheck %s
// RUN: memopt-opt %s --plan-memory="strategy=sequential control-flow=serial" | memopt-run - --planned | filecheck %s
// RUN: memopt-opt %s --plan-memory | memopt-run - --check | filecheck %s --check-prefix=CHECKED
// RUN: memopt-opt %s --insert-dma --plan-memory --verify-plan | memopt-run - --check | filecheck %s --check-prefix=CHECKED

builtin.module {
  memopt.global @k : tensor<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  memopt.global @three : tensor<4xf32> = dense<3.0> : tensor<4xf32>
  memopt.global @yes : tensor<i1> = dense<true> : tensor<i1>
  memopt.global @m : tensor<2x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<2xf32>) {
    %k = memopt.get_global @k : tensor<4xf32>
    %three = memopt.get_global @three : tensor<4xf32>
    %double = memopt.compute "add"(%k, %k) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %d = memopt.compute "sub"(%k, %three) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %r = memopt.compute "relu"(%d) {inplace = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
    %acc = memopt.loop 3 iter_args(%a = %k) : tensor<4xf32> {
      %n = memopt.compute "add"(%a, %k) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      memopt.yield %n : tensor<4xf32>
    }
    %c = memopt.get_global @yes : tensor<i1>
    %m = memopt.get_global @m : tensor<2x2xf32>
    %p = memopt.if %c : tensor<i1> -> (tensor<2x2xf32>) {
      %sq = memopt.compute "matmul"(%m, %m) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
      memopt.yield %sq : tensor<2x2xf32>
    } else {
      memopt.yield %m : tensor<2x2xf32>
    }
    %tail = memopt.view %acc[offset 8] : tensor<4xf32> -> tensor<2xf32>
    func.return %double, %r, %acc, %p, %tail : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<2xf32>
  }
}

// CHECK:      @main result #0 : tensor<4xf32> = [2.0, 4.0, 6.0, 8.0] digest={{[0-9a-f]+$}}
// CHECK-NEXT: @main result #1 : tensor<4xf32> = [0.0, 0.0, 0.0, 1.0] digest={{[0-9a-f]+$}}
// CHECK-NEXT: @main result #2 : tensor<4xf32> = [4.0, 8.0, 12.0, 16.0] digest={{[0-9a-f]+$}}
// CHECK-NEXT: @main result #3 : tensor<2x2xf32> = [7.0, 10.0, 15.0, 22.0] digest={{[0-9a-f]+$}}
// CHECK-NEXT: @main result #4 : tensor<2xf32> = [12.0, 16.0] digest={{[0-9a-f]+$}}
// CHECK-NOT: {{.}}

// CHECKED: @main: planned execution matches unplanned ({{[0-9]+}} values, {{[0-9]+}} reads, 5 results, arena {{[0-9]+}} bytes, paths {{[0-9]+}}/{{[0-9]+}})
