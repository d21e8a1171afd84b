// A kernel reads its staging buffer before the transfer into it is waited for.
// (Used by ../dma.test.) RUN: not memopt-run %s --check
"memref.global"() <{sym_name = "w", type = memref<256xi8, 1>, initial_value, sym_visibility = "private", constant}> : () -> ()
func.func private @fc(memref<64xf32>, memref<64xf32>, memref<64xf32>)
func.func @main(%x: memref<64xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %stage = memref.alloc() : memref<256xi8>
  %tags = memref.alloc() : memref<1xi32>
  %g = memref.get_global @w : memref<256xi8, 1>
  "memref.dma_start"(%g, %c0, %stage, %c0, %c256, %tags, %c0) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1>} : (memref<256xi8, 1>, index, memref<256xi8>, index, index, memref<1xi32>, index) -> ()
  %wv = memref.view %stage[%c0][] : memref<256xi8> to memref<64xf32>
  func.call @fc(%x, %wv, %out) : (memref<64xf32>, memref<64xf32>, memref<64xf32>) -> ()
  "memref.dma_wait"(%tags, %c0, %c256) : (memref<1xi32>, index, index) -> ()
  memref.dealloc %stage : memref<256xi8>
  memref.dealloc %tags : memref<1xi32>
  func.return
}
