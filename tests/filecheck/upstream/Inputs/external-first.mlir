// An external kernel handed a buffer nothing wrote yet: the IR does not say it reads it, so it is
// taken as written by the kernel (used by ../check.test).
func.func private @k(memref<4xf32>, memref<4xf32>)
func.func @f(%y: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  func.call @k(%a, %y) : (memref<4xf32>, memref<4xf32>) -> ()
  func.return
}
