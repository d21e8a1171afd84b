// A buffer handed on by a terminator outlives its last use in the block. Yielded by
// affine.yield into the next iteration's iter_args, it is double buffered: two buffers (m#0,
// m#1), both live over the loop, the view's offset chosen by the iteration's parity, so the
// carried one is read while the next is written. An unknown op that ends a nested block may be
// a terminator: what it hands on is left unplanned with a located remark.
// RUN: memopt-opt %s --plan-memory="export=%t.csv" -o %t.mlir 2> %t.remarks
// RUN: filecheck %s --check-prefix=REMARK --allow-empty < %t.remarks
// RUN: filecheck %s --check-prefix=PLAN < %t.csv
// RUN: filecheck %s --check-prefix=IR < %t.mlir
// REMARK-NOT: remark
// PLAN:      id,lower,upper,size,offset
// PLAN-NEXT: n,1,5,256,512
// PLAN-NEXT: m#0,0,8,256,0
// PLAN-NEXT: m#1,0,8,256,256
// PLAN-NOT:  {{.}}
// IR:      %[[EVEN:.*]] = arith.cmpi eq
// IR:      %[[OFF:.*]] = arith.select %[[EVEN]], %{{.*}}, %{{.*}} : index
// IR-NEXT: %m = memref.view %arena[%[[OFF]]][] : memref<768xi8> to memref<64xf32>
//
// RUN: sed -n '/^\/\/ UNREG-IN:/s/^\/\/ UNREG-IN: //p' %s > %t.unreg.mlir
// RUN: memopt-opt --allow-unregistered-dialect %t.unreg.mlir --plan-memory -o /dev/null 2>&1 | filecheck %s --check-prefix=UNREG
// UNREG-IN: func.func @f(%x: memref<64xf32>) {
// UNREG-IN:   "my.loop"() ({
// UNREG-IN:     %b = memref.alloc() : memref<64xf32>
// UNREG-IN:     "my.k"(%x, %b) : (memref<64xf32>, memref<64xf32>) -> ()
// UNREG-IN:     "my.yield"(%b) : (memref<64xf32>) -> ()
// UNREG-IN:   }) : () -> ()
// UNREG-IN:   func.return
// UNREG-IN: }
// UNREG: plan-memory: remark: {{.*}}unreg.mlir:3:5: 'memref.alloc' in '@f' not planned: it is passed out of a region by 'my.yield'
// The same without the flag: unknown ops are read, with a remark per op name.
// RUN: memopt-opt %t.unreg.mlir --plan-memory -o /dev/null 2>&1 | filecheck %s --check-prefix=UNREG

func.func private @k(memref<64xf32>, memref<64xf32>)
func.func @carry(%x: memref<64xf32>, %y: memref<64xf32>) {
  %r = affine.for %i = 0 to 4 iter_args(%acc = %x) -> (memref<64xf32>) {
    %n = memref.alloc() : memref<64xf32>
    func.call @k(%acc, %n) : (memref<64xf32>, memref<64xf32>) -> ()
    %m = memref.alloc() : memref<64xf32>
    func.call @k(%n, %m) : (memref<64xf32>, memref<64xf32>) -> ()
    affine.yield %m : memref<64xf32>
  }
  func.call @k(%r, %y) : (memref<64xf32>, memref<64xf32>) -> ()
  return
}
