// A buffer allocated in an scf.for body and yielded to the next iteration (an RNN's state, as
// one-shot-bufferize{allow-return-allocs-from-loops} emits it) is double buffered: two buffers
// (h#0, h#1) live over the loop and until the loop's result dies, the view at one or the other
// by the iteration's parity, so iteration i+1 writes one while it reads the other.
// RUN: memopt-opt %s --plan-memory="export=%t.csv" -o %t.mlir
// RUN: filecheck %s --check-prefix=CSV < %t.csv
// RUN: filecheck %s --check-prefix=IR < %t.mlir
// RUN: memopt-opt %t.mlir --verify-plan -o /dev/null
// CSV:      id,lower,upper,size,offset
// CSV-NEXT: h#0,3,11,64,0
// CSV-NEXT: h#1,3,11,64,64
// CSV-NEXT: t,5,8,64,128
// IR: %[[EVEN:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// IR: %[[OFF:.*]] = arith.select %[[EVEN]], %{{.*}}, %{{.*}} : index
// IR-NEXT: %h = memref.view %arena[%[[OFF]]][] : memref<{{[0-9]+}}xi8> to memref<1x16xf32>
// verify-plan catches one offset for both parities (the carried state clobbered).
// RUN: sed -e 's/arith.select %\([0-9]*\), %\([0-9]*\), %[0-9]* : index/arith.select %\1, %\2, %\2 : index/' %t.mlir | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=CLOBBER
// CLOBBER: memopt-opt: error: <stdin>:{{[0-9]+}}:{{[0-9]+}}: invalid plan: buffers 'h#0' [{{.*}}) live [{{.*}}) and 'h#1' [0, 64) live [{{.*}}) overlap
// REQUIRES: iree-opt
// RUN: iree-opt %t.mlir -o /dev/null

func.func private @step(memref<1x16xf32>, memref<1x16xf32>, memref<1x16xf32>)
func.func private @emit(memref<1x16xf32>, memref<1x16xf32>)
func.func @rnn(%x: memref<1x16xf32>, %h0: memref<1x16xf32>, %out: memref<1x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%h_in = %h0) -> (memref<1x16xf32>) {
    %h = memref.alloc() : memref<1x16xf32>
    %t = memref.alloc() : memref<1x16xf32>
    func.call @step(%x, %h_in, %t) : (memref<1x16xf32>, memref<1x16xf32>, memref<1x16xf32>) -> ()
    func.call @emit(%t, %h) : (memref<1x16xf32>, memref<1x16xf32>) -> ()
    scf.yield %h : memref<1x16xf32>
  }
  func.call @emit(%r, %out) : (memref<1x16xf32>, memref<1x16xf32>) -> ()
  return
}
