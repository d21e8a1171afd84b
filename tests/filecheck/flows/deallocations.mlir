// Ownership bookkeeping is not a use: bufferization.dealloc (before lowering), and the pointer
// comparisons and guarded memref.deallocs bufferization-lower-deallocations turns it into. The
// plan is the same either way, and no deallocation of a view or of the arena is left.
// RUN: memopt-opt %s --plan-memory="export=%t.csv" -o %t.mlir
// RUN: filecheck %s --check-prefix=CSV < %t.csv
// RUN: filecheck %s --check-prefix=IR < %t.mlir
// RUN: memopt-opt %t.mlir --verify-plan -o /dev/null
// CSV:      id,lower,upper,size,offset
// CSV-NEXT: owned::a,1,5,256,0
// CSV-NEXT: owned::b,3,7,256,256
// CSV-NEXT: owned::c,5,8,256,0
// CSV-NEXT: lowered::a2,0,4,256,0
// CSV-NEXT: lowered::b2,2,6,256,256
// CSV-NEXT: lowered::c2,4,7,256,0
// IR-LABEL: func.func @owned
// IR-NOT: bufferization.dealloc (%a
// IR-NOT: bufferization.dealloc (%b
// IR: %{{.*}} = bufferization.dealloc (%y : memref<64xf32>) if (%keep) retain (%z : memref<64xf32>)
// IR-NOT: memref.dealloc %{{(a|b|c)}} :
// IR: memref.dealloc %arena
// IR-LABEL: func.func @lowered
// IR-NOT: memref.dealloc %{{(a2|b2|c2|base)}} :
// IR: memref.dealloc %arena
// REQUIRES: iree-opt
// RUN: iree-opt %t.mlir -o /dev/null

func.func private @k(memref<64xf32>, memref<64xf32>)
func.func @owned(%x: memref<64xf32>, %y: memref<64xf32>, %z: memref<64xf32>, %keep: i1) -> i1 {
  %true = arith.constant true
  %a = memref.alloc() : memref<64xf32>
  func.call @k(%x, %a) : (memref<64xf32>, memref<64xf32>) -> ()
  %b = memref.alloc() : memref<64xf32>
  func.call @k(%a, %b) : (memref<64xf32>, memref<64xf32>) -> ()
  %c = memref.alloc() : memref<64xf32>
  func.call @k(%b, %c) : (memref<64xf32>, memref<64xf32>) -> ()
  func.call @k(%c, %x) : (memref<64xf32>, memref<64xf32>) -> ()
  %base, %off, %size, %stride = memref.extract_strided_metadata %a : memref<64xf32> -> memref<f32>, index, index, index
  bufferization.dealloc (%base, %b : memref<f32>, memref<64xf32>) if (%true, %true)
  %r = bufferization.dealloc (%c, %y : memref<64xf32>, memref<64xf32>) if (%true, %keep) retain (%z : memref<64xf32>)
  return %r : i1
}
func.func @lowered(%x: memref<64xf32>, %y: memref<64xf32>, %keep: i1) {
  %a2 = memref.alloc() : memref<64xf32>
  func.call @k(%x, %a2) : (memref<64xf32>, memref<64xf32>) -> ()
  %b2 = memref.alloc() : memref<64xf32>
  func.call @k(%a2, %b2) : (memref<64xf32>, memref<64xf32>) -> ()
  %c2 = memref.alloc() : memref<64xf32>
  func.call @k(%b2, %c2) : (memref<64xf32>, memref<64xf32>) -> ()
  func.call @k(%c2, %x) : (memref<64xf32>, memref<64xf32>) -> ()
  %base, %off, %size, %stride = memref.extract_strided_metadata %a2 : memref<64xf32> -> memref<f32>, index, index, index
  %pa = memref.extract_aligned_pointer_as_index %base : memref<f32> -> index
  %py = memref.extract_aligned_pointer_as_index %y : memref<64xf32> -> index
  %ne = arith.cmpi ne, %pa, %py : index
  scf.if %ne {
    memref.dealloc %base : memref<f32>
  }
  scf.if %keep {
    memref.dealloc %b2 : memref<64xf32>
  }
  memref.dealloc %c2 : memref<64xf32>
  return
}
