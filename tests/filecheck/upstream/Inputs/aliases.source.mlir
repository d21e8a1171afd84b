// The readable source of aliases.mlir (upstream MLIR custom syntax; memopt-opt reads it too).
func.func private @k(memref<64xf32>, memref<64xf32>)
func.func private @use(memref<32xf32, strided<[?], offset: ?>>, memref<64xf32, strided<[1]>>)
func.func private @k2(memref<8x8xf32>, memref<8x8xf32>)
func.func @aliases(%x: memref<64xf32>, %y: memref<64xf32>, %n: index) {
  %a = memref.alloc() : memref<64xf32>
  func.call @k(%x, %a) : (memref<64xf32>, memref<64xf32>) -> ()
  %e = memref.expand_shape %a [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  %b = memref.alloc() : memref<8x8xf32>
  func.call @k2(%e, %b) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
  %c = memref.collapse_shape %b [[0, 1]] : memref<8x8xf32> into memref<64xf32>
  %s = memref.subview %c[0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1]>>
  %u = memref.cast %s : memref<32xf32, strided<[1]>> to memref<32xf32, strided<[?], offset: ?>>
  %d = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : memref<64xf32>) outs(%d : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %z = memref.alloc() : memref<64xf32>
  linalg.copy ins(%d : memref<64xf32>) outs(%z : memref<64xf32>)
  %w = memref.alloca() : memref<64xf32>
  func.call @k(%z, %w) : (memref<64xf32>, memref<64xf32>) -> ()
  %dyn = memref.alloc(%n) : memref<?xf32>
  %r = memref.reinterpret_cast %w to offset: [0], sizes: [64], strides: [1] : memref<64xf32> to memref<64xf32, strided<[1]>>
  func.call @k(%w, %y) : (memref<64xf32>, memref<64xf32>) -> ()
  %sw = memref.alloc() : memref<64xf32>
  scf.index_switch %n
  case 0 {
    %c0buf = memref.alloc() : memref<64xf32>
    func.call @k(%x, %c0buf) : (memref<64xf32>, memref<64xf32>) -> ()
    func.call @k(%c0buf, %sw) : (memref<64xf32>, memref<64xf32>) -> ()
    memref.dealloc %c0buf : memref<64xf32>
    scf.yield
  }
  case 1 {
    %c1buf = memref.alloc() : memref<64xf32>
    func.call @k(%x, %c1buf) : (memref<64xf32>, memref<64xf32>) -> ()
    func.call @k(%c1buf, %sw) : (memref<64xf32>, memref<64xf32>) -> ()
    memref.dealloc %c1buf : memref<64xf32>
    scf.yield
  }
  default {
    func.call @k(%x, %sw) : (memref<64xf32>, memref<64xf32>) -> ()
  }
  %wl = memref.alloc() : memref<64xf32>
  %t = arith.constant true
  scf.while (%arg = %t) : (i1) -> () {
    scf.condition(%arg)
  } do {
    func.call @k(%sw, %wl) : (memref<64xf32>, memref<64xf32>) -> ()
    %f = arith.constant false
    scf.yield %f : i1
  }
  func.call @k(%wl, %y) : (memref<64xf32>, memref<64xf32>) -> ()
  func.call @use(%u, %r) : (memref<32xf32, strided<[?], offset: ?>>, memref<64xf32, strided<[1]>>) -> ()
  return
}
