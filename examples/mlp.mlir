// A small bufferized MLP in upstream MLIR (func + memref): weights in off-chip constant
// globals (memory space 1), kernels called in destination-passing style.
"memref.global"() <{sym_name = "w1", type = memref<4096xi8, 1>, initial_value, sym_visibility = "private", constant}> : () -> ()
"memref.global"() <{sym_name = "w2", type = memref<4096xi8, 1>, initial_value, sym_visibility = "private", constant}> : () -> ()
func.func private @matmul(memref<1x32xf32>, memref<32x32xf32, 1>, memref<1x32xf32>)
func.func private @relu(memref<1x32xf32>, memref<1x32xf32>)
func.func @mlp(%x: memref<1x32xf32>, %y: memref<1x32xf32>) {
  %c0 = arith.constant 0 : index
  %g1 = memref.get_global @w1 : memref<4096xi8, 1>
  %w1 = memref.view %g1[%c0][] : memref<4096xi8, 1> to memref<32x32xf32, 1>
  %g2 = memref.get_global @w2 : memref<4096xi8, 1>
  %w2 = memref.view %g2[%c0][] : memref<4096xi8, 1> to memref<32x32xf32, 1>
  %h = memref.alloc() : memref<1x32xf32>
  func.call @matmul(%x, %w1, %h) {cost = 1024 : i64} : (memref<1x32xf32>, memref<32x32xf32, 1>, memref<1x32xf32>) -> ()
  %a = memref.alloc() : memref<1x32xf32>
  func.call @relu(%h, %a) : (memref<1x32xf32>, memref<1x32xf32>) -> ()
  memref.dealloc %h : memref<1x32xf32>
  %o = memref.alloc() : memref<1x32xf32>
  func.call @matmul(%a, %w2, %o) {cost = 1024 : i64} : (memref<1x32xf32>, memref<32x32xf32, 1>, memref<1x32xf32>) -> ()
  memref.dealloc %a : memref<1x32xf32>
  "memref.copy"(%o, %y) : (memref<1x32xf32>, memref<1x32xf32>) -> ()
  memref.dealloc %o : memref<1x32xf32>
  func.return
}
