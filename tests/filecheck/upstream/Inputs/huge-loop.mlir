// Programs too big to run (used by ../check-limits.test). RUN: not memopt-run %s --check
// @main: a loop of 10^18 trips; @spin: an scf.while that never ends; @big: a 4 TB buffer.
func.func private @k(memref<16xf32>, memref<16xf32>)
func.func @spin(%x: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  %z = arith.constant 0 : index
  %r = scf.while (%i = %z) : (index) -> index {
    %go = arith.constant true
    scf.condition(%go) %i : index
  } do {
  ^bb0(%i: index):
    scf.yield %i : index
  }
  return
}
func.func @main(%x: memref<16xf32>, %y: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000000000000000000 : index
  %t = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    func.call @k(%x, %t) : (memref<16xf32>, memref<16xf32>) -> ()
  }
  return
}
func.func @big(%x: memref<16xf32>) {
  %t = memref.alloc() : memref<1000000000000xf32>
  return
}
func.func @small(%x: memref<16xf32>) {
  %t = memref.alloc() : memref<16xf32>
  return
}
