func.func @main(%in: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  %s1 = memref.alloc() : memref<128xf32, 1>
  %s2 = memref.alloc() : memref<64xf32, 1>
  %b = memref.alloc() : memref<64xf32>
  linalg.copy ins(%in : memref<64xf32>) outs(%a : memref<64xf32>)
  "memref.copy"(%a, %s2) : (memref<64xf32>, memref<64xf32, 1>) -> ()
  memref.dealloc %a : memref<64xf32>
  "memref.copy"(%s2, %b) : (memref<64xf32, 1>, memref<64xf32>) -> ()
  memref.dealloc %s2 : memref<64xf32, 1>
  %t = memref.alloc() : memref<64xf32, 1>
  "memref.copy"(%b, %t) : (memref<64xf32>, memref<64xf32, 1>) -> ()
  "memref.copy"(%t, %out) : (memref<64xf32, 1>, memref<64xf32>) -> ()
  memref.dealloc %t : memref<64xf32, 1>
  memref.dealloc %s1 : memref<128xf32, 1>
  memref.dealloc %b : memref<64xf32>
  func.return
}
