// nnvm's options reach the strategy: match-range limits which free blocks a request may take,
// num-groups keeps blocks freed by one colour (buffer index mod groups) from another.
// RUN: memopt-opt %s --plan-memory="strategy=nnvm alignment=1 match-range=1" --verify-plan | filecheck %s --check-prefix=R1
// RUN: memopt-opt %s --plan-memory="strategy=nnvm alignment=1 match-range=0" --verify-plan | filecheck %s --check-prefix=R0
// RUN: memopt-opt %s --plan-memory="strategy=nnvm alignment=1 num-groups=3" --verify-plan | filecheck %s --check-prefix=G3
// RUN: memopt-opt %s --plan-memory="strategy=nnvm alignment=1 num-groups=2" | filecheck %s --check-prefix=G2
// RUN: not memopt-opt %s --plan-memory="strategy=nnvm match-range=zz" 2>&1 | filecheck %s --check-prefix=BADR
// RUN: not memopt-opt %s --plan-memory="strategy=nnvm match-range=-2" 2>&1 | filecheck %s --check-prefix=NEGR
// RUN: not memopt-opt %s --plan-memory="strategy=nnvm num-groups=0" 2>&1 | filecheck %s --check-prefix=BADG
builtin.module {
  func.func @main(%x: tensor<25xf32>) -> tensor<25xf32> {
    %a = memopt.compute "f"(%x) : (tensor<25xf32>) -> tensor<25xf32>
    %b = memopt.compute "g"(%a) : (tensor<25xf32>) -> tensor<25xf32>
    %c = memopt.compute "h"(%b) : (tensor<25xf32>) -> tensor<25xf32>
    %d = memopt.compute "k"(%c) : (tensor<25xf32>) -> tensor<25xf32>
    func.return %d : tensor<25xf32>
  }
}
// A chain of equal tensors needs two storages that alternate; no reuse at all needs five;
// three colours break the alternation (b cannot take x's block, x is colour 0, b colour 2).
// R1: memopt.plan = #memopt.plan<arena_size = 200, lower_bound = 200, strategy = "nnvm(packed; 2 storages; match-range 1)">
// R0: memopt.plan = #memopt.plan<arena_size = {{[0-9]+}}, lower_bound = 200, strategy = "nnvm({{packed|stacked}}; 5 storages; match-range 0)">
// G3: memopt.plan = #memopt.plan<arena_size = 300, lower_bound = 200, strategy = "nnvm(packed; 3 storages;
// G2: strategy = "nnvm(packed; 2 storages;
// BADR: memopt-opt: error: invalid options for pass 'plan-memory': match-range must be a number >= 0 or 'auto', got 'zz'
// NEGR: memopt-opt: error: {{.*}}'plan-memory': match-range must be a number >= 0 or 'auto', got '-2'
// BADG: memopt-opt: error: {{.*}}'plan-memory': num-groups must be an integer >= 1, got 0
