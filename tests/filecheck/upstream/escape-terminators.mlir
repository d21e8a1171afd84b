// A buffer handed on by any terminator — affine.yield into the next iteration's iter_args and
// the loop's result, or an unregistered op that ends a nested block (it may be a terminator) —
// outlives its last use in the block: left unplanned with a located remark, as with scf.yield.
// Buffers that only live inside the body are planned.
// RUN: memopt-opt %s --plan-memory="export=%t.csv" -o /dev/null 2> %t.remarks
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: filecheck %s --check-prefix=PLAN < %t.csv
// REMARK: plan-memory: remark: {{.*}}:31:5: 'memref.alloc' in '@carry' not planned: it is passed out of a region by 'affine.yield'
// REMARK-NOT: remark
// PLAN:      id,lower,upper,size,offset
// PLAN-NEXT: n,{{.*}}
// PLAN-NOT:  {{.}}
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
