// The four control-flow modes on one if whose branches each need 128 bytes at once; %a (64 B)
// is read after the if, so it stays live across it; %r is the if's result.
// LB_nest = a + r + 128 (one branch) = 64 + 16 + 128 = 208, in every mode.
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=large-first control-flow=flat export="%t.flat.csv"},verify-plan' | filecheck %s --check-prefix=FLAT
// RUN: filecheck %s --check-prefix=FLATCSV < %t.flat.csv
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=large-first control-flow=serial export="%t.serial.csv"},verify-plan' | filecheck %s --check-prefix=SERIAL
// RUN: filecheck %s --check-prefix=SERIALCSV < %t.serial.csv
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=large-first control-flow=merge},verify-plan' | filecheck %s --check-prefix=MERGE
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=large-first control-flow=joint export="%t.joint.csv"},verify-plan' | filecheck %s --check-prefix=JOINT
// RUN: filecheck %s --check-prefix=JOINTCSV < %t.joint.csv
// joint is the default mode.
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=large-first}' | filecheck %s --check-prefix=JOINT

builtin.module {
  func.func @main(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
    %a = memopt.compute "relu"(%x) : (tensor<4xf32>) -> tensor<16xf32>
    %r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {
      %t1 = memopt.compute "exp"(%a) : (tensor<16xf32>) -> tensor<16xf32>
      %t2 = memopt.compute "neg"(%a) : (tensor<16xf32>) -> tensor<16xf32>
      %t3 = memopt.compute "add"(%t1, %t2) : (tensor<16xf32>, tensor<16xf32>) -> tensor<4xf32>
      memopt.yield %t3 : tensor<4xf32>
    } else {
      %e1 = memopt.compute "abs"(%a) : (tensor<16xf32>) -> tensor<32xf32>
      %e2 = memopt.compute "sum"(%e1) : (tensor<32xf32>) -> tensor<4xf32>
      memopt.yield %e2 : tensor<4xf32>
    }
    %o = memopt.compute "mul"(%r, %a) : (tensor<4xf32>, tensor<16xf32>) -> tensor<4xf32>
    func.return %o : tensor<4xf32>
  }
}

// Joint steps: 0 relu, 1 if-begin (reads %c), 2..5 then branch, 2..4 else branch, 6 if-end, 7 mul.
// flat: both branches could run together: t1, t2 and e1 need 256 bytes beside a and r.
// (large-first: e1@0, a@128, t1@192, t2@256, r@320.)
// FLAT: memopt.plan = #memopt.plan<arena_size = 336, lower_bound = 208, strategy = "large-first/flat">
// FLATCSV: t1,2,5,64,192
// FLATCSV: t2,3,5,64,256
// FLATCSV: e1,2,4,128,0

// serial: the else branch is numbered after the then branch (steps 6..7), so e1 reuses t1/t2.
// SERIAL: memopt.plan = #memopt.plan<arena_size = 208, lower_bound = 208, strategy = "large-first/serial">
// The numbering the plan is valid in is explicit (readers never parse the strategy string).
// SERIAL-SAME: memopt.numbering = "serial"
// SERIALCSV: t1,2,5,64,0
// SERIALCSV: e1,6,8,128,0

// merge: one 128-byte region over the branches' steps (2..5), both branches inside it; the
// 1-byte condition %c dies at the if's begin step (1), before the region, and shares it.
// MERGE: memopt.plan = #memopt.plan<arena_size = 208, lower_bound = 208, strategy = "large-first/merge">
// MERGE: %t3 = {{.*}}memopt.offsets = array<i64: [[R:[0-9]+]]>
// MERGE: %e2 = {{.*}}memopt.offsets = array<i64: [[R]]>
// MERGE: } attributes {memopt.offsets = array<i64: [[R]]>}

// joint: overlaid on the same steps and exclusive: e1 takes t1 and t2's place, and %c (dead
// before any branch tensor is made) shares addresses with them: the plan meets the bound.
// JOINT: memopt.plan = #memopt.plan<arena_size = 208, lower_bound = 208, strategy = "large-first/joint">
// JOINT: %t1 = {{.*}}memopt.offsets = array<i64: [[T1:[0-9]+]]>
// JOINT: %t3 = {{.*}}memopt.offsets = array<i64: [[R:[0-9]+]]>
// JOINT: %e1 = {{.*}}memopt.offsets = array<i64: [[T1]]>
// JOINT: %e2 = {{.*}}memopt.offsets = array<i64: [[R]]>
// JOINT: } attributes {memopt.offsets = array<i64: [[R]]>}
// JOINTCSV: t1,2,5,64,
// JOINTCSV: e1,2,4,128,
