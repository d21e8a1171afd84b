// Reads a buffer nothing wrote (used by ../check.test). RUN: not memopt-run %s --check
func.func @f(%y: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%a : memref<4xf32>) outs(%y : memref<4xf32>)
  func.return
}
