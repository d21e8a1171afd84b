// A function with unstructured control flow (cf branches between blocks) has no step order to
// bound lifetimes with: it is read (values used across blocks are accepted), left unplanned
// with a located remark, and the output verifies.
// RUN: memopt-opt %s --plan-memory --verify-plan -o %t.mlir 2> %t.err
// RUN: filecheck %s < %t.err
// CHECK: plan-memory: remark: {{.*}}unstructured.mlir:12:1: 'func.func' in '@f' not planned: it has unstructured control flow (a region of several blocks: cf branches), so its buffers are left as they are
// RUN: filecheck %s --check-prefix=IR < %t.mlir
// IR: %a = memref.alloc() : memref<64xf32>
// REQUIRES: iree-opt
// RUN: iree-opt %t.mlir -o /dev/null
func.func private @k(memref<64xf32>, memref<64xf32>)
func.func @f(%x: memref<64xf32>, %c: i1) {
  %a = memref.alloc() : memref<64xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  func.call @k(%x, %a) : (memref<64xf32>, memref<64xf32>) -> ()
  cf.br ^bb2
^bb2:
  memref.dealloc %a : memref<64xf32>
  return
}
