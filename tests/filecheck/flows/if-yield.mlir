// Buffers yielded out of an scf.if live on as its result: each branch's buffer from its alloc to
// the last use of the result, and the two branches' buffers share bytes (only one runs).
// RUN: memopt-opt %s --plan-memory="export=%t.csv" -o %t.mlir 2> %t.err
// RUN: filecheck %s --check-prefix=CSV < %t.csv
// RUN: filecheck %s --check-prefix=REMARK --allow-empty < %t.err
// RUN: memopt-opt %t.mlir --verify-plan -o /dev/null
// CSV:      id,lower,upper,size,offset
// CSV-NEXT: a,0,5,256,0
// CSV-NEXT: t,3,9,256,[[OFF:[0-9]+]]
// CSV-NEXT: e,3,9,256,[[OFF]]
// CSV-NEXT: b,7,10,256,0
// REMARK-NOT: remark
// RUN: filecheck %s --check-prefix=IR < %t.mlir
// The arena is two buffers: a/b and the branch buffers t/e.
// IR: %r = scf.if %c -> (memref<64xf32>) {
// IR-NEXT: %{{.*}} = arith.constant 256 : index
// IR-NEXT: %t = memref.view %arena[%{{.*}}][] : memref<512xi8> to memref<64xf32>

func.func private @k(memref<64xf32>, memref<64xf32>)
func.func @branchy(%x: memref<64xf32>, %y: memref<64xf32>, %c: i1) {
  %a = memref.alloc() : memref<64xf32>
  func.call @k(%x, %a) : (memref<64xf32>, memref<64xf32>) -> ()
  %r = scf.if %c -> (memref<64xf32>) {
    %t = memref.alloc() : memref<64xf32>
    func.call @k(%a, %t) : (memref<64xf32>, memref<64xf32>) -> ()
    scf.yield %t : memref<64xf32>
  } else {
    %e = memref.alloc() : memref<64xf32>
    func.call @k(%a, %e) : (memref<64xf32>, memref<64xf32>) -> ()
    scf.yield %e : memref<64xf32>
  }
  %b = memref.alloc() : memref<64xf32>
  func.call @k(%r, %b) : (memref<64xf32>, memref<64xf32>) -> ()
  func.call @k(%b, %y) : (memref<64xf32>, memref<64xf32>) -> ()
  return
}
