// An op memopt has no definition of is read in either form and printed back as written (its
// operands renamed, attribute aliases spelled out): every memref it takes counts as read and
// written whole at its step, and a memref it returns aliases them. One remark per op name.
// RUN: memopt-opt %s --plan-memory="export=%t.csv" -o %t.mlir 2> %t.err
// RUN: filecheck %s --check-prefix=REMARK < %t.err
// RUN: filecheck %s --check-prefix=CSV < %t.csv
// RUN: filecheck %s --check-prefix=IR < %t.mlir
// REMARK: memopt-opt: remark: {{.*}}unknown-ops.mlir:29:3: 'acme.fused' is not known to memopt: every memref it takes is taken as read and written whole
// REMARK-NEXT: memopt-opt: remark: {{.*}}unknown-ops.mlir:30:3: 'acme.generic' is not known to memopt
// REMARK-NEXT: memopt-opt: remark: {{.*}}unknown-ops.mlir:32:3: 'acme.reshape' is not known to memopt
// REMARK-NOT: remark
// %a is read through acme.reshape's result by the last call: it lives to the end.
// CSV:      id,lower,upper,size,offset
// CSV-NEXT: a,0,8,256,0
// CSV-NEXT: b,1,6,256,256
// IR: acme.fused %a, %b {mode = #acme.mode<fast>} : memref<64xf32>, memref<64xf32> map affine_map<(d0) -> ((d0 floordiv 2))>
// IR: "acme.generic"(%b) {k = 2 : i32} : (memref<64xf32>) -> ()
// IR: %r = acme.reshape %a : memref<64xf32> -> memref<8x8xf32>
// RUN: sed -e 's/%%r = acme.reshape %%a/%%r = acme.reshape %%zz/' %s | not memopt-opt 2>&1 | filecheck %s --check-prefix=UNDEF
// UNDEF: memopt-opt: error: <stdin>:32:21: '%zz' is used before it is defined in an op memopt reads only in generic form

#half = affine_map<(d0) -> (d0 floordiv 2)>
func.func private @k(memref<64xf32>, memref<64xf32>)
func.func private @k8(memref<8x8xf32>)
func.func @f(%x: memref<64xf32>, %y: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  func.call @k(%x, %a) : (memref<64xf32>, memref<64xf32>) -> ()
  acme.fused %a, %b {mode = #acme.mode<fast>} : memref<64xf32>, memref<64xf32> map #half
  "acme.generic"(%b) {k = 2 : i32} : (memref<64xf32>) -> ()
  func.call @k(%b, %y) : (memref<64xf32>, memref<64xf32>) -> ()
  %r = acme.reshape %a : memref<64xf32> -> memref<8x8xf32>
  func.call @k8(%r) : (memref<8x8xf32>) -> ()
  return
}
