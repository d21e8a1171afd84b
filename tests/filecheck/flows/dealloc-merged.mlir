// A deallocation of an scf.if result (what the ownership-based deallocation passes leave after
// bufferization-lower-deallocations: the base buffer of the merged value freed) frees whichever
// branch's buffer ran. When every buffer it may be is planned, it goes with them (it would free
// arena bytes); when one of them is left unplanned (here a dynamic alloc), the deallocation must
// stay for that one, so the other branch's buffer is left unplanned too, with a remark.
// RUN: memopt-opt %s --plan-memory -o %t.mlir 2> %t.err
// RUN: filecheck %s --check-prefix=REMARK < %t.err
// RUN: filecheck %s --check-prefix=IR < %t.mlir
// RUN: memopt-opt %t.mlir --verify-plan -o /dev/null
// RUN: memopt-run --check %t.mlir --func merged | filecheck %s --check-prefix=PROOF
// RUN: memopt-run --check %t.mlir --func mixed | filecheck %s --check-prefix=PROOF
// REMARK: remark: {{.*}}dealloc-merged.mlir:[[# @LINE + 38]]:5: 'memref.alloc' in '@mixed' not planned: it has a dynamic shape
// REMARK: remark: {{.*}}dealloc-merged.mlir:[[# @LINE + 32]]:5: 'memref.alloc' in '@mixed' not planned: it is deallocated through a value that may also be '%d' (memref.alloc), which is not planned
// IR-LABEL: func.func @merged(
// IR-NOT: memref.dealloc %base_buffer
// IR: memref.dealloc %arena
// IR-LABEL: func.func @mixed(
// IR: %t = memref.alloc() : memref<64xf32>
// IR: memref.dealloc %base_buffer
// PROOF: {{^}}@{{merged|mixed}}: planned execution matches unplanned
// REQUIRES: iree-opt
// RUN: iree-opt %t.mlir -o /dev/null

func.func private @k(memref<64xf32>, memref<64xf32>)
func.func private @sink(memref<64xf32>, memref<?xf32, strided<[?], offset: ?>>)
func.func @merged(%x: memref<64xf32>, %y: memref<64xf32>, %c: i1) {
  %r = scf.if %c -> (memref<64xf32, strided<[?], offset: ?>>) {
    %t = memref.alloc() : memref<64xf32>
    func.call @k(%x, %t) : (memref<64xf32>, memref<64xf32>) -> ()
    %ct = memref.cast %t : memref<64xf32> to memref<64xf32, strided<[?], offset: ?>>
    scf.yield %ct : memref<64xf32, strided<[?], offset: ?>>
  } else {
    %e = memref.alloc() : memref<64xf32>
    func.call @k(%y, %e) : (memref<64xf32>, memref<64xf32>) -> ()
    %ce = memref.cast %e : memref<64xf32> to memref<64xf32, strided<[?], offset: ?>>
    scf.yield %ce : memref<64xf32, strided<[?], offset: ?>>
  }
  memref.copy %r, %y : memref<64xf32, strided<[?], offset: ?>> to memref<64xf32>
  %base_buffer, %offset, %sizes, %strides = memref.extract_strided_metadata %r : memref<64xf32, strided<[?], offset: ?>> -> memref<f32>, index, index, index
  memref.dealloc %base_buffer : memref<f32>
  return
}
func.func @mixed(%x: memref<64xf32>, %c: i1, %n: index) {
  %r = scf.if %c -> (memref<?xf32, strided<[?], offset: ?>>) {
    %t = memref.alloc() : memref<64xf32>
    func.call @k(%x, %t) : (memref<64xf32>, memref<64xf32>) -> ()
    %ct = memref.cast %t : memref<64xf32> to memref<?xf32, strided<[?], offset: ?>>
    scf.yield %ct : memref<?xf32, strided<[?], offset: ?>>
  } else {
    %d = memref.alloc(%n) : memref<?xf32>
    %f = arith.constant 1.0 : f32
    linalg.fill ins(%f : f32) outs(%d : memref<?xf32>)
    %cd = memref.cast %d : memref<?xf32> to memref<?xf32, strided<[?], offset: ?>>
    scf.yield %cd : memref<?xf32, strided<[?], offset: ?>>
  }
  func.call @sink(%x, %r) : (memref<64xf32>, memref<?xf32, strided<[?], offset: ?>>) -> ()
  %base_buffer, %offset, %sizes, %strides = memref.extract_strided_metadata %r : memref<?xf32, strided<[?], offset: ?>> -> memref<f32>, index, index, index
  memref.dealloc %base_buffer : memref<f32>
  return
}
