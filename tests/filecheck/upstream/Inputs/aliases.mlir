// Every aliasing op family, linalg, scf.index_switch, scf.while, alloca and a dynamic buffer, in
// upstream MLIR's generic form (what 'iree-opt --mlir-print-op-generic' prints for
// aliases.source.mlir; xDSL reads the generic form of ops it has no custom syntax for).
#map = affine_map<(d0) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<64xf32>, memref<64xf32>) -> (), sym_name = "k", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = (memref<32xf32, strided<[?], offset: ?>>, memref<64xf32, strided<[1]>>) -> (), sym_name = "use", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = (memref<8x8xf32>, memref<8x8xf32>) -> (), sym_name = "k2", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = (memref<64xf32>, memref<64xf32>, index) -> (), sym_name = "aliases"}> ({
  ^bb0(%arg0: memref<64xf32>, %arg1: memref<64xf32>, %arg2: index):
    %0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64xf32>
    "func.call"(%arg0, %0) <{callee = @k}> : (memref<64xf32>, memref<64xf32>) -> ()
    %1 = "memref.expand_shape"(%0) <{reassociation = [[0, 1]], static_output_shape = array<i64: 8, 8>}> : (memref<64xf32>) -> memref<8x8xf32>
    %2 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<8x8xf32>
    "func.call"(%1, %2) <{callee = @k2}> : (memref<8x8xf32>, memref<8x8xf32>) -> ()
    %3 = "memref.collapse_shape"(%2) <{reassociation = [[0, 1]]}> : (memref<8x8xf32>) -> memref<64xf32>
    %4 = "memref.subview"(%3) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: 32>, static_strides = array<i64: 1>}> : (memref<64xf32>) -> memref<32xf32, strided<[1]>>
    %5 = "memref.cast"(%4) : (memref<32xf32, strided<[1]>>) -> memref<32xf32, strided<[?], offset: ?>>
    %6 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64xf32>
    "linalg.generic"(%arg0, %6) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg6: f32, %arg7: f32):
      "linalg.yield"(%arg6) : (f32) -> ()
    }) : (memref<64xf32>, memref<64xf32>) -> ()
    %7 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64xf32>
    "linalg.copy"(%6, %7) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg4: f32, %arg5: f32):
      "linalg.yield"(%arg4) : (f32) -> ()
    }) : (memref<64xf32>, memref<64xf32>) -> ()
    %8 = "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64xf32>
    "func.call"(%7, %8) <{callee = @k}> : (memref<64xf32>, memref<64xf32>) -> ()
    %9 = "memref.alloc"(%arg2) <{operandSegmentSizes = array<i32: 1, 0>}> : (index) -> memref<?xf32>
    %10 = "memref.reinterpret_cast"(%8) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: 64>, static_strides = array<i64: 1>}> : (memref<64xf32>) -> memref<64xf32, strided<[1]>>
    "func.call"(%8, %arg1) <{callee = @k}> : (memref<64xf32>, memref<64xf32>) -> ()
    %11 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64xf32>
    "scf.index_switch"(%arg2) <{cases = array<i64: 0, 1>}> ({
      "func.call"(%arg0, %11) <{callee = @k}> : (memref<64xf32>, memref<64xf32>) -> ()
      "scf.yield"() : () -> ()
    }, {
      %16 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64xf32>
      "func.call"(%arg0, %16) <{callee = @k}> : (memref<64xf32>, memref<64xf32>) -> ()
      "func.call"(%16, %11) <{callee = @k}> : (memref<64xf32>, memref<64xf32>) -> ()
      "memref.dealloc"(%16) : (memref<64xf32>) -> ()
      "scf.yield"() : () -> ()
    }, {
      %15 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64xf32>
      "func.call"(%arg0, %15) <{callee = @k}> : (memref<64xf32>, memref<64xf32>) -> ()
      "func.call"(%15, %11) <{callee = @k}> : (memref<64xf32>, memref<64xf32>) -> ()
      "memref.dealloc"(%15) : (memref<64xf32>) -> ()
      "scf.yield"() : () -> ()
    }) : (index) -> ()
    %12 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64xf32>
    %13 = "arith.constant"() <{value = true}> : () -> i1
    "scf.while"(%13) ({
    ^bb0(%arg3: i1):
      "scf.condition"(%arg3) : (i1) -> ()
    }, {
      "func.call"(%11, %12) <{callee = @k}> : (memref<64xf32>, memref<64xf32>) -> ()
      %14 = "arith.constant"() <{value = false}> : () -> i1
      "scf.yield"(%14) : (i1) -> ()
    }) : (i1) -> ()
    "func.call"(%12, %arg1) <{callee = @k}> : (memref<64xf32>, memref<64xf32>) -> ()
    "func.call"(%5, %10) <{callee = @use}> : (memref<32xf32, strided<[?], offset: ?>>, memref<64xf32, strided<[1]>>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

