// An if result starts at its earliest write over the branches, so tensors of *both* branches
// that die before it share its bytes in the overlaid (joint) numbering: joint is strictly below
// merge and serial. A value read early in one branch and never after the if ends there: the
// other branch's later tensors take its bytes.
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=large-first control-flow=flat},verify-plan' | filecheck %s --check-prefix=FLAT
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=large-first control-flow=serial},verify-plan' | filecheck %s --check-prefix=SERIAL
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=large-first control-flow=merge},verify-plan' | filecheck %s --check-prefix=MERGE
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=large-first control-flow=joint export="%t.csv"},verify-plan' | filecheck %s --check-prefix=JOINT
// RUN: filecheck %s --check-prefix=CSV < %t.csv
// The joint and serial plans are proved by execution too: planned vs unplanned, with seeds 0
// and 1, whose i1 inputs are complements (both branches run).
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=large-first control-flow=joint}' > %t.joint.mlir
// RUN: memopt-run --check --seed 0 %t.joint.mlir | filecheck %s --check-prefix=EXEC
// RUN: memopt-run --check --seed 1 %t.joint.mlir | filecheck %s --check-prefix=EXEC
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=large-first control-flow=serial}' > %t.serial.mlir
// RUN: memopt-run --check --seed 0 %t.serial.mlir | filecheck %s --check-prefix=EXEC
// RUN: memopt-run --check --seed 1 %t.serial.mlir | filecheck %s --check-prefix=EXEC

builtin.module {
  func.func @result_reuse(%c: tensor<i1>, %x: tensor<16xf32>) -> tensor<64xf32> {
    %r = memopt.if %c : tensor<i1> -> (tensor<64xf32>) {
      %t1 = memopt.compute "a"(%x) : (tensor<16xf32>) -> tensor<64xf32>
      %t2 = memopt.compute "b"(%t1) : (tensor<64xf32>) -> tensor<64xf32>
      %t3 = memopt.compute "c"(%t2) : (tensor<64xf32>) -> tensor<64xf32>
      memopt.yield %t3 : tensor<64xf32>
    } else {
      %e1 = memopt.compute "d"(%x) : (tensor<16xf32>) -> tensor<64xf32>
      %e2 = memopt.compute "e"(%e1) : (tensor<64xf32>) -> tensor<64xf32>
      %e3 = memopt.compute "f"(%e2) : (tensor<64xf32>) -> tensor<64xf32>
      memopt.yield %e3 : tensor<64xf32>
    }
    func.return %r : tensor<64xf32>
  }
  func.func @early_read(%c: tensor<i1>, %x: tensor<16xf32>) -> tensor<16xf32> {
    %a = memopt.compute "a"(%x) : (tensor<16xf32>) -> tensor<64xf32>
    %r = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
      %t1 = memopt.compute "t1"(%a) : (tensor<64xf32>) -> tensor<16xf32>
      %t2 = memopt.compute "t2"(%t1) : (tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %t2 : tensor<16xf32>
    } else {
      %e0 = memopt.compute "e0"(%x) : (tensor<16xf32>) -> tensor<16xf32>
      %e1 = memopt.compute "e1"(%e0) : (tensor<16xf32>) -> tensor<64xf32>
      %e2 = memopt.compute "e2"(%e1) : (tensor<64xf32>) -> tensor<16xf32>
      memopt.yield %e2 : tensor<16xf32>
    }
    func.return %r : tensor<16xf32>
  }
}

// @result_reuse. Joint steps: 0 if-begin (reads %c), then 1 a, 2 b, 3 c, 4 yield | else 1 d,
// 2 e, 3 f, 4 yield; 5 if-end; 6 return. %r (256 B) is first written at step 3 in both
// branches (c and f are computed into it), so it lives over [3, 7) and may take the bytes of
// %t1/%e1 ([1, 3)). Peak on either path: two 256-byte tensors, LB_nest = 512.
// * joint: t1/e1 and %r at one offset, t2/e2 at another: 512 = LB_nest.
// * merge (Algorithm 2): the branches' region (512) lives over the whole if, beside %r: 768.
// * serial: the then branch writes %r at step 3, the else branch runs at steps 5..8, so %r
//   is live across all of it and e1, e2 go beside it: 768.
// * flat: t1, t2, e1, e2 all "live" together at step 2: 1024.
// FLAT:   func.func @result_reuse{{.*}}memopt.plan = #memopt.plan<arena_size = 1024, lower_bound = 512, strategy = "large-first/flat">
// SERIAL: func.func @result_reuse{{.*}}memopt.plan = #memopt.plan<arena_size = 768, lower_bound = 512, strategy = "large-first/serial">
// MERGE:  func.func @result_reuse{{.*}}memopt.plan = #memopt.plan<arena_size = 768, lower_bound = 512, strategy = "large-first/merge">
// JOINT:  func.func @result_reuse{{.*}}memopt.plan = #memopt.plan<arena_size = 512, lower_bound = 512, strategy = "large-first/joint">
// JOINT:    %t1 = {{.*}}memopt.offsets = array<i64: [[T1:[0-9]+]]>
// JOINT:    %t3 = {{.*}}memopt.offsets = array<i64: [[T1]]>
// JOINT:    %e1 = {{.*}}memopt.offsets = array<i64: [[T1]]>
// JOINT:    %e3 = {{.*}}memopt.offsets = array<i64: [[T1]]>
// JOINT:    } attributes {memopt.offsets = array<i64: [[T1]]>}
// CSV:      result_reuse::r,3,7,256,[[R:[0-9]+]]
// CSV-NEXT: result_reuse::t1,1,3,256,[[R]]
// CSV-NEXT: result_reuse::t2,2,4,256,
// CSV-NEXT: result_reuse::e1,1,3,256,[[R]]

// @early_read. Joint steps: 0 a, 1 if-begin, then 2 t1, 3 t2, 4 yield | else 2 e0, 3 e1,
// 4 e2, 5 yield; 6 if-end. %a (256 B) is read only by t1 at step 2: it dies there on both
// paths, and e1 (256 B, from step 3) takes its bytes. LB_nest = 384 (x + a + t1 at step 2,
// r + e0 + e1 at step 3). Algorithm 2 cannot do it: %a overlaps the branches' region (320),
// 640 in all, above flat's 448, so the merge mode keeps flat's layout and names it. The
// serial figure is large-first's greedy order (its own max-live is 384 as well).
// FLAT:   func.func @early_read{{.*}}arena_size = 448, lower_bound = 384,
// SERIAL: func.func @early_read{{.*}}arena_size = 448, lower_bound = 384,
// MERGE:  func.func @early_read{{.*}}arena_size = 448, lower_bound = 384, strategy = "large-first/flat">
// JOINT:  func.func @early_read{{.*}}memopt.plan = #memopt.plan<arena_size = 384, lower_bound = 384, strategy = "large-first/joint">
// JOINT:    %a = {{.*}}memopt.offsets = array<i64: [[A:[0-9]+]]>
// JOINT:    %e1 = {{.*}}memopt.offsets = array<i64: [[A]]>
// CSV:      early_read::a,0,3,256,
// CSV:      early_read::e1,3,5,256,

// EXEC:      @result_reuse: planned execution matches unplanned
// EXEC-NEXT: @early_read: planned execution matches unplanned
