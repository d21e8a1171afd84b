// A buffer stored into memory escapes (not planned); one holding stored scalars is planned.
// Not executable: memopt-run has no model of memrefs stored in memrefs. RUN: not memopt-run %s --check
"builtin.module"() ({
  "func.func"() <{function_type = (index) -> (), sym_name = "stored"}> ({
  ^bb0(%arg0: index):
    %0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4xf32>
    %1 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1xmemref<4xf32>>
    "memref.store"(%0, %1, %arg0) : (memref<4xf32>, memref<1xmemref<4xf32>>, index) -> ()
    %2 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4xf32>
    %3 = "arith.constant"() <{value = 1.000000e+00 : f32}> : () -> f32
    %4 = "arith.constant"() <{value = 0 : index}> : () -> index
    "memref.store"(%3, %2, %4) : (f32, memref<4xf32>, index) -> ()
    %5 = "memref.load"(%2, %4) : (memref<4xf32>, index) -> f32
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

