// RUN: memopt-opt %s --print-op-generic | filecheck %s
// RUN: memopt-opt %s --print-op-generic | memopt-opt --print-op-generic | filecheck %s

// CHECK: "memopt.global"() <{sym_name = "w", type = tensor<4xf32>}> : () -> ()
// CHECK: "memopt.dma_buffer"() <{sym_name = "buf", size = 16 : i64}> : () -> ()
// CHECK: "memopt.get_global"() <{name = @w}> : () -> tensor<4xf32>
// CHECK: "memopt.dma_start"() <{src = @w, dst = @buf, offset = 0 : i64}> : () -> !memopt.token
// CHECK: "memopt.dma_wait"(%{{.*}}) : (!memopt.token) -> tensor<4xf32>
// CHECK: "memopt.compute"(%{{.*}}) <{kind = "Relu", cost = 3 : i64, inplace = array<i64: 0>}> {memopt.offsets = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: "memopt.view"(%{{.*}}) <{offset = 8 : i64}> : (tensor<4xf32>) -> tensor<2xf32>
// CHECK: "memopt.if"(%{{.*}}) ({
// CHECK:   "memopt.yield"(%{{.*}}) : (tensor<2xf32>) -> ()
// CHECK: }, {
// CHECK:   "memopt.yield"(%{{.*}}) : (tensor<2xf32>) -> ()
// CHECK: }) : (tensor<i1>) -> tensor<2xf32>
// CHECK: "memopt.loop"(%{{.*}}) <{trip_count = 3 : i64}> ({
// CHECK: ^bb0(%{{.*}}: tensor<4xf32>):
// CHECK:   "memopt.yield"(%{{.*}}) : (tensor<4xf32>) -> ()
// CHECK: }) : (tensor<4xf32>) -> tensor<4xf32>
memopt.global @w : tensor<4xf32>
memopt.dma_buffer @buf size 16
func.func @f(%c: tensor<i1>) -> tensor<4xf32> {
  %g = memopt.get_global @w : tensor<4xf32>
  %t = memopt.dma_start @w into @buf[offset 0] : !memopt.token
  %w = memopt.dma_wait %t : tensor<4xf32>
  %y = memopt.compute "Relu"(%w) {cost = 3 : i64, inplace = array<i64: 0>, "memopt.offsets" = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  %v = memopt.view %y[offset 8] : tensor<4xf32> -> tensor<2xf32>
  %r = memopt.if %c : tensor<i1> -> (tensor<2xf32>) {
    memopt.yield %v : tensor<2xf32>
  } else {
    memopt.yield %v : tensor<2xf32>
  }
  %l = memopt.loop 3 iter_args(%a = %y) : tensor<4xf32> {
    memopt.yield %a : tensor<4xf32>
  }
  func.return %l : tensor<4xf32>
}
