// A buffer the function returns must outlive it: left unplanned, said in a located remark; the
// function still gets its (empty) plan attributes, and the output verifies in real MLIR.
// RUN: memopt-opt %s --plan-memory -o %t.mlir 2> %t.remarks
// RUN: filecheck %s < %t.mlir
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// CHECK: func.func @escape() -> memref<4xf32> attributes {memopt.arena_size = 0 : i64, memopt.lower_bound = 0 : i64
// CHECK-NEXT: %r = memref.alloc() : memref<4xf32>
// REMARK: plan-memory: remark: {{.*}}:12:3: 'memref.alloc' in '@escape' not planned: it is returned by the function

func.func private @fill(memref<4xf32>)
func.func @escape() -> memref<4xf32> {
  %r = memref.alloc() : memref<4xf32>
  func.call @fill(%r) : (memref<4xf32>) -> ()
  func.return %r : memref<4xf32>
}
