// What plan-memory leaves alone, each with a located remark, and the output still verifies in
// real MLIR (the allocs left are printed in upstream's form, `alignment = N` outside the
// dictionary). An alloc's own alignment is honoured by its offset (page: 4096 | 0; small, live
// with it, above it at the pass's 16), and the arena's base takes the largest; an alloc nothing reads or writes takes no bytes (it goes, with its dealloc).
// RUN: memopt-opt %s --plan-memory="export=%t.csv" -o %t.mlir 2> %t.err
// RUN: filecheck %s --check-prefix=REMARK < %t.err
// RUN: filecheck %s --check-prefix=CSV < %t.csv
// RUN: filecheck %s --check-prefix=IR < %t.mlir
// REMARK-DAG: remark: {{.*}}left-alone.mlir:33:3: 'memref.alloc' in '@left' not planned: it has a dynamic shape
// REMARK-DAG: remark: {{.*}}left-alone.mlir:35:3: 'memref.alloc' in '@left' not planned: its layout affine_map<(d0, d1) -> (d1, d0)> is not the identity (memref.view cannot express it)
// REMARK-DAG: remark: {{.*}}left-alone.mlir:37:3: 'memref.alloc' in '@left' not planned: its address is taken (memref.extract_aligned_pointer_as_index) for more than deallocation
// REMARK-DAG: remark: {{.*}}left-alone.mlir:41:5: 'memref.alloca' in '@left' not planned: it is allocated once per parallel iteration of 'scf.parallel'
// REMARK-DAG: remark: {{.*}}left-alone.mlir:45:3: 'memref.alloc' in '@left' not planned: it is returned by the function
// CSV:      id,lower,upper,size,offset
// CSV-NEXT: small,5,23,4,64
// CSV-NEXT: page,17,21,64,0
// CSV-NOT:  unused
// IR: %arena = memref.alloc() alignment = 4096 {memopt.arena} : memref<68xi8>
// IR: %dyn = memref.alloc(%n) alignment = 64 : memref<?xf32>
// IR: %ret = memref.alloc() alignment = 64 : memref<4xf32>
// IR-NOT: %unused
// REQUIRES: iree-opt
// RUN: iree-opt %t.mlir -o /dev/null

func.func private @k(memref<4xf32>, memref<4xf32>)
func.func private @k1(memref<1xf32>)
func.func private @use(memref<?xf32>, memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>, index)
func.func @left(%x: memref<4xf32>, %n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f0 = arith.constant 0.0 : f32
  %dyn = memref.alloc(%n) alignment = 64 : memref<?xf32>
  %small = memref.alloc() : memref<1xf32>
  %t = memref.alloc() : memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>
  linalg.fill ins(%f0 : f32) outs(%small : memref<1xf32>)
  %p = memref.alloc() : memref<4xf32>
  %ptr = memref.extract_aligned_pointer_as_index %p : memref<4xf32> -> index
  func.call @use(%dyn, %t, %ptr) : (memref<?xf32>, memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>, index) -> ()
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %a = memref.alloca() : memref<4xf32>
    func.call @k(%x, %a) : (memref<4xf32>, memref<4xf32>) -> ()
    scf.reduce
  }
  %ret = memref.alloc() alignment = 64 : memref<4xf32>
  %page = memref.alloc() alignment = 4096 : memref<4x4xf32>
  %unused = memref.alloc() : memref<1024xf32>
  func.call @k(%x, %ret) : (memref<4xf32>, memref<4xf32>) -> ()
  linalg.fill ins(%f0 : f32) outs(%page : memref<4x4xf32>)
  memref.dealloc %unused : memref<1024xf32>
  func.call @k1(%small) : (memref<1xf32>) -> ()
  return %ret : memref<4xf32>
}
