// plan-memory{inplace=true|false}: an elementwise chain whose ops may overwrite their dying
// input folds into one 64-byte storage; without in-place every step holds two live tensors.
// RUN: memopt-opt %s --plan-memory="alignment=1" --verify-plan | filecheck %s --check-prefix=ON
// RUN: memopt-opt %s --plan-memory="alignment=1 inplace=false" --verify-plan | filecheck %s --check-prefix=OFF
// RUN: memopt-opt %s --plan-memory="alignment=1 strategy=megengine" --verify-plan | filecheck %s --check-prefix=MEG
// RUN: memopt-opt %s --plan-memory="alignment=1 strategy=nnvm" --verify-plan | filecheck %s --check-prefix=NNVM
// RUN: memopt-opt %s --plan-memory="alignment=1 strategy=sequential" --verify-plan | filecheck %s --check-prefix=SEQ
builtin.module {
  func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
    %a = memopt.compute "relu"(%x) {inplace = array<i64: 0>} : (tensor<16xf32>) -> tensor<16xf32>
    %b = memopt.compute "exp"(%a) {inplace = array<i64: 0>} : (tensor<16xf32>) -> tensor<16xf32>
    %c = memopt.compute "neg"(%b) {inplace = array<i64: 0>} : (tensor<16xf32>) -> tensor<16xf32>
    func.return %c : tensor<16xf32>
  }
}
// LB (no reuse in place) is 128; LB with in-place is 64, and the plans reach it.
// ON: memopt.plan = #memopt.plan<arena_size = 64, lower_bound = 128, strategy = "{{.*}}">, memopt.numbering = "joint", memopt.lower_bound_inplace = 64 : i64}
// ON: %a = {{.*}}memopt.offsets = array<i64: 0>
// ON: %b = {{.*}}memopt.offsets = array<i64: 0>
// ON: %c = {{.*}}memopt.offsets = array<i64: 0>
// OFF-NOT: lower_bound_inplace
// OFF: memopt.plan = #memopt.plan<arena_size = 128, lower_bound = 128,
// MEG: memopt.plan = #memopt.plan<arena_size = 64, lower_bound = 128, strategy = "megengine">
// NNVM: memopt.plan = #memopt.plan<arena_size = 64, lower_bound = 128, strategy = "nnvm(packed; 1 storages;
// SEQ: memopt.plan = #memopt.plan<arena_size = 64, lower_bound = 128, strategy = "sequential">
