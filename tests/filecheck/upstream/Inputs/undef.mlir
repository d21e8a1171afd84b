// Reads a buffer nothing wrote (used by ../check.test). RUN: not memopt-run %s --check
func.func private @k(memref<4xf32>, memref<4xf32>)
func.func @f(%y: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  func.call @k(%a, %y) : (memref<4xf32>, memref<4xf32>) -> ()
  func.return
}
