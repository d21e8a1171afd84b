// Upstream's custom syntax, as mlir-opt / iree-opt print it, is read for the ops xDSL reads only
// in generic form (memref.global with its elided dense type and `alignment = N`, memref.copy,
// memref.cast, memref.dma_start / dma_wait, memref.rank) and scf.index_switch's elided empty
// scf.yield is put back; output stays generic, which upstream reads back (iree-verifies.test).
// RUN: memopt-opt %s --plan-memory="alignment=1 strategy=large-first export=%t.csv" | filecheck %s
// RUN: filecheck %s --check-prefix=PLAN < %t.csv
// CHECK:      "memref.global"() <{sym_name = "w", sym_visibility = "private", type = memref<64xi8, 1 : i64>, initial_value = dense<7> : tensor<64xi8>, constant, alignment = 64 : i64}>
// CHECK-NEXT: "memref.global"() <{sym_name = "scratch", sym_visibility = "public", type = memref<16xi8>, initial_value}>
// CHECK:      memopt.arena_size = 128 : i64
// CHECK:      "memref.dma_start"(%{{.*}}) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1>} : (memref<64xi8, 1 : i64>, index, memref<64xi8>, index, index, memref<1xi32>, index) -> ()
// CHECK-NEXT: "memref.dma_wait"
// CHECK:      "memref.copy"
// CHECK-NEXT: "memref.cast"({{.*}}) : (memref<64xi8>) -> memref<?xi8>
// CHECK-NEXT: "memref.rank"
// CHECK:      default {
// CHECK-NEXT:   "memref.copy"
// CHECK-NEXT:   scf.yield
// The case's buffer shares bytes with the DMA'd buffer, dead by then.
// PLAN:      id,lower,upper,size,offset
// PLAN-NEXT: tag,3,7,4,64
// PLAN-NEXT: buf,4,9,64,0
// PLAN-NEXT: a,7,14,64,64
// PLAN-NEXT: t,12,15,64,0

// Forms xDSL's op has no room for are refused, located.
// RUN: sed -n '/^\/\/ DECL-IN:/s/^\/\/ DECL-IN: //p' %s > %t.decl.mlir
// RUN: not memopt-opt %t.decl.mlir 2>&1 | filecheck %s --check-prefix=DECL
// DECL-IN: memref.global "private" @ext : memref<4xf32>
// DECL: {{^}}memopt-opt: error: {{.*}}decl.mlir:1:25: memref.global @ext has no initial value: external declarations are not supported (give it '= uninitialized' or '= dense<...>'){{$}}

memref.global "private" constant @w : memref<64xi8, 1> = dense<7> alignment = 64
memref.global @scratch : memref<16xi8> = uninitialized
func.func @f(%out: memref<64xi8>, %n: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %w = memref.get_global @w : memref<64xi8, 1>
  %tag = memref.alloc() : memref<1xi32>
  %buf = memref.alloc() : memref<64xi8>
  memref.dma_start %w[%c0], %buf[%c0], %c64, %tag[%c0] : memref<64xi8, 1>, memref<64xi8>, memref<1xi32>
  memref.dma_wait %tag[%c0], %c64 : memref<1xi32>
  %a = memref.alloc() : memref<64xi8>
  memref.copy %buf, %a : memref<64xi8> to memref<64xi8>
  %cast = memref.cast %a : memref<64xi8> to memref<?xi8>
  %r = memref.rank %a : memref<64xi8>
  scf.index_switch %n
  case 0 {
    %t = memref.alloc() : memref<64xi8>
    memref.copy %a, %t : memref<64xi8> to memref<64xi8>
    memref.copy %t, %out : memref<64xi8> to memref<64xi8>
    memref.dealloc %t : memref<64xi8>
    scf.yield
  }
  default {
    memref.copy %a, %out : memref<64xi8> to memref<64xi8>
  }
  memref.dealloc %a : memref<64xi8>
  memref.dealloc %buf : memref<64xi8>
  memref.dealloc %tag : memref<1xi32>
  return
}
