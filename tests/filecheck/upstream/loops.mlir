// Upstream scf: a buffer used inside an scf.for it was allocated outside of lives until the loop
// ends (its bytes must survive every iteration); a buffer allocated and used inside the body
// lives inside it; scf.if branches are numbered one after the other (sound without exclusivity).
// A buffer carried in iter_args lives as its body argument and the loop's result do: to the
// loop's end at least (%s).
// RUN: memopt-opt %s -p 'plan-memory{strategy=large-first export="%t.csv"}' -o %t.mlir 2> %t.remarks
// RUN: filecheck %s --check-prefix=CSV < %t.csv
// RUN: filecheck %s --check-prefix=REMARK --allow-empty < %t.remarks
// RUN: memopt-run %t.mlir --check | filecheck %s --check-prefix=EXEC
// EXEC: @main: planned execution matches unplanned
// %w (allocated outside, read in the loop body at step 7) lives to the loop's end step (11), so
// %t, inside the body, never shares its bytes; %u, allocated after the loop, reuses them (their
// dealloc is later, but no use is).
// CSV:      id,lower,upper,size,offset
// CSV-NEXT: w,3,12,64,0
// CSV-NEXT: t,6,9,64,64
// CSV-NEXT: u,12,16,64,0
// CSV-NEXT: s,18,24,64,0
// REMARK-NOT: remark

func.func private @k(memref<16xf32>, memref<16xf32>)
func.func @main(%x: memref<16xf32>, %y: memref<16xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %w = memref.alloc() : memref<16xf32>
  func.call @k(%x, %w) : (memref<16xf32>, memref<16xf32>) -> ()
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() : memref<16xf32>
    func.call @k(%w, %t) : (memref<16xf32>, memref<16xf32>) -> ()
    func.call @k(%t, %y) : (memref<16xf32>, memref<16xf32>) -> ()
    memref.dealloc %t : memref<16xf32>
  }
  %u = memref.alloc() : memref<16xf32>
  func.call @k(%y, %u) : (memref<16xf32>, memref<16xf32>) -> ()
  scf.if %c {
    func.call @k(%u, %y) : (memref<16xf32>, memref<16xf32>) -> ()
  }
  %s = memref.alloc() : memref<16xf32>
  func.call @k(%x, %s) : (memref<16xf32>, memref<16xf32>) -> ()
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%b = %s) -> (memref<16xf32>) {
    func.call @k(%b, %y) : (memref<16xf32>, memref<16xf32>) -> ()
    scf.yield %b : memref<16xf32>
  }
  memref.dealloc %u : memref<16xf32>
  memref.dealloc %w : memref<16xf32>
  func.return
}
