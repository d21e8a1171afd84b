// Hand-corrupted plans (beyond tests/filecheck/passes/errors/verify-plan-corrupt.mlir): verify-plan
// rejects each at the op that carries it; memopt-run --check executes the plan as written and
// names the tensor it corrupts, or rejects attributes it cannot execute.
builtin.module {
  memopt.global @w : tensor<4xf32>
  func.func @main(%x: tensor<4xf32>, %c: tensor<i1>) -> tensor<4xf32> attributes {memopt.arg_offsets = array<i64: 0, 16>, memopt.plan = #memopt.plan<arena_size = ARENA, lower_bound = 49, strategy = "hand">} {
    %w = memopt.get_global @w : tensor<4xf32>
    %a = memopt.compute "relu"(%x) {memopt.offsets = array<i64: AOFF>} : (tensor<4xf32>) -> tensor<4xf32>
    %v = memopt.view %a[offset 8] {memopt.offsets = array<i64: VOFF>} : tensor<4xf32> -> tensor<2xf32>
    %l = memopt.loop 3 iter_args(%s = %a) : tensor<4xf32> {
      %n = memopt.compute "add"(%s, %w) {memopt.offsets = array<i64: NOFF>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      memopt.yield %n : tensor<4xf32>
    } attributes {memopt.offsets = array<i64: 0>}
    %r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {
      %t = memopt.compute "mix"(%l, %v) {memopt.offsets = array<i64: TOFF>} : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
      memopt.yield %t : tensor<4xf32>
    } else {
      memopt.yield %l : tensor<4xf32>
    } attributes {memopt.offsets = array<i64: ROFF>}
    %y = memopt.compute "add"(%r, %a) {memopt.offsets = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    func.return %y : tensor<4xf32>
  }
}

// RUN: sed -e 's/AOFF/17/' -e 's/NOFF/33/' -e 's/TOFF/33/' -e 's/ROFF/33/' -e 's/VOFF/25/' -e 's/ARENA/49/' %s > %t.ok.mlir
// RUN: memopt-opt --verify-plan %t.ok.mlir > /dev/null
// RUN: memopt-run --check %t.ok.mlir | filecheck %s --check-prefix=OK
// Both branches of the if are proven (forced), not only the one the inputs select.
// OK: @main: planned execution matches unplanned (29 values, 36 reads, 1 results, arena 49 bytes, paths 2/2)
//
// A loop-body tensor placed over a tensor that is live across the loop (%v, a view of %a, is
// the first clobbered value read).
// RUN: sed -e 's/AOFF/17/' -e 's/NOFF/17/' -e 's/TOFF/33/' -e 's/ROFF/33/' -e 's/VOFF/25/' -e 's/ARENA/49/' %s > %t.loop.mlir
// RUN: not memopt-opt --verify-plan %t.loop.mlir 2>&1 | filecheck %s --check-prefix=LOOP
// RUN: not memopt-run --check %t.loop.mlir 2>&1 | filecheck %s --check-prefix=LOOPX
// LOOP-NOT: Traceback
// LOOP: {{^}}memopt-opt: error: {{.*}}.loop.mlir:11:7: invalid plan: buffers 'a' [17, 33) live [0, 11) and 'n' [17, 33) live [3, 5) overlap
// LOOP-NOT: {{.}}
// LOOPX-NOT: Traceback
// LOOPX: {{^}}memopt-run: error: {{.*}}.loop.mlir:9:5: tensor '%v' differs between planned and unplanned execution: its bytes were overwritten by '%n' (written at line 11) before its use by 'memopt.compute' at 15:7
// LOOPX-NOT: {{.}}
//
// The if result (and the branch value yielded into it) placed over a tensor live across the if.
// RUN: sed -e 's/AOFF/17/' -e 's/NOFF/33/' -e 's/TOFF/17/' -e 's/ROFF/17/' -e 's/VOFF/25/' -e 's/ARENA/49/' %s > %t.if.mlir
// RUN: not memopt-opt --verify-plan %t.if.mlir 2>&1 | filecheck %s --check-prefix=IF
// RUN: not memopt-run --check %t.if.mlir 2>&1 | filecheck %s --check-prefix=IFX
// IF-NOT: Traceback
// IF: {{^}}memopt-opt: error: {{.*}}.if.mlir:14:5: invalid plan: buffers 'a' [17, 33) live [0, 11) and 'r' [17, 33) live [7, 11) overlap
// IF-NOT: {{.}}
// IFX-NOT: Traceback
// (%t is written over %v, a view of %a that %t itself reads and does not take in place: caught at %t.)
// IFX: {{^}}memopt-run: error: {{.*}}.if.mlir:15:7: result '%t' is planned over input '%v', which 'mix' does not take in place (no inplace hint for it): a kernel may write its result before it reads that input{{$}}
// IFX-NOT: {{.}}
//
// A view whose recorded offset disagrees with its source (the executor aliases the source).
// RUN: sed -e 's/AOFF/17/' -e 's/NOFF/33/' -e 's/TOFF/33/' -e 's/ROFF/33/' -e 's/VOFF/26/' -e 's/ARENA/49/' %s > %t.view.mlir
// RUN: not memopt-opt --verify-plan %t.view.mlir 2>&1 | filecheck %s --check-prefix=VIEW
// VIEW-NOT: Traceback
// VIEW: {{^}}memopt-opt: error: {{.*}}.view.mlir:9:5: offset 26 disagrees with the storage it aliases (expected 25)
// VIEW-NOT: {{.}}
//
// An arena too small for the offsets.
// RUN: sed -e 's/AOFF/17/' -e 's/NOFF/33/' -e 's/TOFF/33/' -e 's/ROFF/33/' -e 's/VOFF/25/' -e 's/ARENA/40/' %s > %t.arena.mlir
// RUN: not memopt-run --check %t.arena.mlir 2>&1 | filecheck %s --check-prefix=ARENA
// ARENA-NOT: Traceback
// ARENA: {{^}}memopt-run: error: {{.*}}.arena.mlir:11:7: tensor '%n' at [33, 49) exceeds the arena size 40
// ARENA-NOT: {{.}}
//
// Missing argument offsets; a negative arena size.
// RUN: sed -e 's/AOFF/17/' -e 's/NOFF/33/' -e 's/TOFF/33/' -e 's/ROFF/33/' -e 's/VOFF/25/' -e 's/ARENA/49/' -e 's/memopt.arg_offsets = array<i64: 0, 16>, //' %s > %t.args.mlir
// RUN: not memopt-opt --verify-plan %t.args.mlir 2>&1 | filecheck %s --check-prefix=ARGS
// RUN: not memopt-run --check %t.args.mlir 2>&1 | filecheck %s --check-prefix=ARGSX
// ARGS: {{^}}memopt-opt: error: {{.*}}.args.mlir:6:3: missing 'memopt.arg_offsets' attribute on a planned op
// ARGS-NOT: {{.}}
// ARGSX: {{^}}memopt-run: error: {{.*}}.args.mlir:6:3: missing 'memopt.arg_offsets' attribute on a planned op
// ARGSX-NOT: {{.}}
// RUN: sed -e 's/AOFF/17/' -e 's/NOFF/33/' -e 's/TOFF/33/' -e 's/ROFF/33/' -e 's/VOFF/25/' -e 's/ARENA/-5/' %s > %t.neg.mlir
// RUN: not memopt-opt --verify-plan %t.neg.mlir 2>&1 | filecheck %s --check-prefix=NEG
// RUN: not memopt-run --check %t.neg.mlir 2>&1 | filecheck %s --check-prefix=NEGX
// NEG: {{^}}memopt-opt: error: {{.*}}.neg.mlir:6:{{[0-9]+}}: memopt.plan sizes must be non-negative
// NEG-NOT: {{.}}
// NEGX: {{^}}memopt-run: error: {{.*}}.neg.mlir:6:{{[0-9]+}}: memopt.plan sizes must be non-negative
// NEGX-NOT: {{.}}
