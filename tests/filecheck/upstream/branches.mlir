// scf.if branches are exclusive: a buffer of the then branch and one of the else branch share
// bytes (only one branch runs); a buffer live across the if shares with neither. Upstream MLIR's
// planner (alloc -> dealloc, no branch exclusivity) keeps them apart.
// RUN: memopt-opt %s -p 'plan-memory{strategy=large-first export="%t.csv"}' -o %t.mlir
// RUN: filecheck %s --check-prefix=CSV < %t.csv
// CSV:      id,lower,upper,size,offset
// CSV-NEXT: a,0,10,1024,[[A:[0-9]+]]
// CSV-NEXT: t,3,5,4096,[[T:[0-9]+]]
// CSV-NEXT: e,3,6,4096,[[T]]
// Both branches are proven by execution (the condition comes from the seed's parity).
// RUN: memopt-run %t.mlir --check --seed 0 | filecheck %s --check-prefix=EXEC
// RUN: memopt-run %t.mlir --check --seed 1 | filecheck %s --check-prefix=EXEC
// EXEC: @main: planned execution matches unplanned
// Options of the memopt dialect's tracer have no effect here and say so in a located remark; the
// plan is the one the defaults make, and the default values say nothing.
// RUN: memopt-opt %s -p 'plan-memory{strategy=large-first control-flow=merge inplace=false}' -o %t.merge.mlir 2>&1 | filecheck %s --check-prefix=FLAVOUR
// FLAVOUR: {{^}}plan-memory: remark: {{.*}}branches.mlir:[[#LINE:]]:1: control-flow=merge has no effect on upstream memref IR ('@main': its branches are numbered jointly){{$}}
// FLAVOUR-NEXT: {{^}}plan-memory: remark: {{.*}}branches.mlir:[[#LINE]]:1: inplace=false has no effect on upstream memref IR ('@main': bufferization already chose its in-place reuse){{$}}
// FLAVOUR-EMPTY:
// RUN: diff %t.merge.mlir %t.mlir
// RUN: memopt-opt %s -p 'plan-memory{control-flow=joint inplace=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=DEFAULTS --allow-empty
// DEFAULTS-NOT: remark

// CHECK-LABEL: @main
// RUN: filecheck %s < %t.mlir
// CHECK: memopt.arena_size = 5120 : i64

func.func private @k(memref<256xf32>, memref<1024xf32>)
func.func private @j(memref<1024xf32>, memref<256xf32>)
func.func private @m(memref<256xf32>, memref<256xf32>)
func.func @main(%x: memref<256xf32>, %y: memref<256xf32>, %c: i1) {
  %a = memref.alloc() : memref<256xf32>
  func.call @m(%x, %a) : (memref<256xf32>, memref<256xf32>) -> ()
  scf.if %c {
    %t = memref.alloc() : memref<1024xf32>
    func.call @k(%a, %t) : (memref<256xf32>, memref<1024xf32>) -> ()
    memref.dealloc %t : memref<1024xf32>
  } else {
    %e = memref.alloc() : memref<1024xf32>
    func.call @k(%x, %e) : (memref<256xf32>, memref<1024xf32>) -> ()
    func.call @j(%e, %y) : (memref<1024xf32>, memref<256xf32>) -> ()
    memref.dealloc %e : memref<1024xf32>
  }
  func.call @m(%a, %y) : (memref<256xf32>, memref<256xf32>) -> ()
  memref.dealloc %a : memref<256xf32>
  func.return
}
