// Each strategy's offsets on a hand-checked graph (alignment 1, no in-place).
// Buffers: x [0,1) 3072 B, c1 [0,2), r1 [1,4), c2 [2,4), sum [3,5), out [4,6), 8192 B each
// (the get_globals take no step).
// RUN: memopt-opt %s --plan-memory="strategy=sequential alignment=1 inplace=false" | filecheck %s --check-prefix=SEQ
// RUN: memopt-opt %s --plan-memory="strategy=large-first alignment=1 inplace=false" | filecheck %s --check-prefix=LARGE
// RUN: memopt-opt %s --plan-memory="strategy=short-first alignment=1 inplace=false" | filecheck %s --check-prefix=SHORT
// RUN: memopt-opt %s --plan-memory="alignment=1 inplace=false" --verify-plan | filecheck %s --check-prefix=BEST
// Default alignment is 16 bytes: every offset is a multiple of 16.
// RUN: memopt-opt %s --plan-memory=inplace=false | filecheck %s --check-prefix=ALIGN

builtin.module {
  memopt.global @w1 : tensor<8x3x3x3xf32>
  memopt.global @w2 : tensor<8x8x3x3xf32>
  func.func @main(%x: tensor<1x3x16x16xf32>) -> tensor<1x8x16x16xf32> {
    %c1w = memopt.get_global @w1 : tensor<8x3x3x3xf32>
    %c1 = memopt.compute "conv2d"(%x, %c1w) : (tensor<1x3x16x16xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x16x16xf32>
    %r1 = memopt.compute "relu"(%c1) {inplace = array<i64: 0>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %c2w = memopt.get_global @w2 : tensor<8x8x3x3xf32>
    %c2 = memopt.compute "conv2d"(%r1, %c2w) : (tensor<1x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x16x16xf32>
    %sum = memopt.compute "add"(%c2, %r1) : (tensor<1x8x16x16xf32>, tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    %out = memopt.compute "relu"(%sum) {inplace = array<i64: 0>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
    func.return %out : tensor<1x8x16x16xf32>
  }
}

// SEQ: func.func @main{{.*}}memopt.arg_offsets = array<i64: 0>, memopt.plan = #memopt.plan<arena_size = 27648, lower_bound = 24576, strategy = "sequential">
// SEQ: %c1w = memopt.get_global @w1 : tensor<8x3x3x3xf32>{{$}}
// SEQ: %c1 = {{.*}}memopt.offsets = array<i64: 3072>
// SEQ: %r1 = {{.*}}memopt.offsets = array<i64: 11264>
// SEQ: %c2 = {{.*}}memopt.offsets = array<i64: 0>
// SEQ: %sum = {{.*}}memopt.offsets = array<i64: 19456>
// SEQ: %out = {{.*}}memopt.offsets = array<i64: 0>

// LARGE: memopt.arg_offsets = array<i64: 8192>, memopt.plan = #memopt.plan<arena_size = 24576, lower_bound = 24576, strategy = "large-first">
// LARGE: %c1 = {{.*}}memopt.offsets = array<i64: 0>
// LARGE: %r1 = {{.*}}memopt.offsets = array<i64: 8192>
// LARGE: %c2 = {{.*}}memopt.offsets = array<i64: 0>
// LARGE: %sum = {{.*}}memopt.offsets = array<i64: 16384>
// LARGE: %out = {{.*}}memopt.offsets = array<i64: 0>

// SHORT: memopt.arg_offsets = array<i64: 0>, memopt.plan = #memopt.plan<arena_size = 24576, lower_bound = 24576, strategy = "short-first">
// SHORT: %c1 = {{.*}}memopt.offsets = array<i64: 3072>
// SHORT: %r1 = {{.*}}memopt.offsets = array<i64: 16384>
// SHORT: %c2 = {{.*}}memopt.offsets = array<i64: 0>
// SHORT: %sum = {{.*}}memopt.offsets = array<i64: 8192>
// SHORT: %out = {{.*}}memopt.offsets = array<i64: 0>

// BEST: memopt.plan = #memopt.plan<arena_size = 24576, lower_bound = 24576, strategy = "large-first">

// ALIGN-NOT: memopt.offsets = array<i64: {{[0-9]*[1-9]}}>
// ALIGN: memopt.plan = #memopt.plan<arena_size = 24576
