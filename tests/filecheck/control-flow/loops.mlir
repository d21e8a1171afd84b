// Loops with control flow: an if inside a loop body and a loop inside an if branch.
// RUN: memopt-opt %s -p 'plan-memory{alignment=1 strategy=large-first export="%t.joint.csv"},verify-plan' | filecheck %s --check-prefix=PLAN
// RUN: filecheck %s --check-prefix=JOINT < %t.joint.csv
// RUN: memopt-opt %s -p 'plan-memory{alignment=1 strategy=large-first control-flow=serial export="%t.serial.csv"},verify-plan' > /dev/null
// RUN: filecheck %s --check-prefix=SERIAL < %t.serial.csv
// RUN: memopt-opt %s -p 'plan-memory{alignment=1 strategy=large-first control-flow=merge},verify-plan' | filecheck %s --check-prefix=MERGE
// RUN: memopt-opt %s -p 'plan-memory{alignment=1 strategy=large-first control-flow=flat},verify-plan' | filecheck %s --check-prefix=FLAT

builtin.module {
  func.func @main(%c: tensor<i1>, %x: tensor<16xf32>) -> tensor<16xf32> {
    %w = memopt.compute "w"(%x) : (tensor<16xf32>) -> tensor<16xf32>
    %l = memopt.loop 4 iter_args(%acc = %x) : tensor<16xf32> {
      %t = memopt.compute "t"(%acc, %w) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
      %r = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
        %u = memopt.compute "u"(%t) : (tensor<16xf32>) -> tensor<64xf32>
        %u2 = memopt.compute "u2"(%u) : (tensor<64xf32>) -> tensor<16xf32>
        memopt.yield %u2 : tensor<16xf32>
      } else {
        memopt.yield %t : tensor<16xf32>
      }
      %s = memopt.compute "s"(%r, %t) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %s : tensor<16xf32>
    }
    %q = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
      %m = memopt.loop 2 iter_args(%k = %l) : tensor<16xf32> {
        %z = memopt.compute "z"(%k, %w) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
        memopt.yield %z : tensor<16xf32>
      }
      memopt.yield %m : tensor<16xf32>
    } else {
      memopt.yield %l : tensor<16xf32>
    }
    func.return %q : tensor<16xf32>
  }
}

// Joint steps: 0 w, 1 loop-begin, 2 t, 3 if-begin, 4 u, 5 u2, 6 yield | 4 yield, 7 if-end,
// 8 s, 9 yield, 10 loop-end, 11 if-begin, 12 loop-begin, 13 z, 14 yield, 15 loop-end,
// 16 yield | 12 yield, 17 if-end, 18 return.
// - %x only initialises the carried slot: dead once the loop has begun (step 1);
// - %w is read inside both loops, the second one inside an if: a read inside a loop counts at
//   that loop's end, so %w lives to the end of the inner loop (15), not of the if around it;
// - the carried slot (%l = %acc) lives across the loop and up to its last use: the inner
//   loop's begin and the else yield (12);
// - %t, %u, %s are local to one iteration: they die inside the body, so every iteration
//   reuses the same bytes (%s even takes %u's place within one iteration);
// - %r starts at its earliest write: the else branch copies %t into it at step 4 (the then
//   branch computes %u2 into it at 5); %q likewise at the else yield (12);
// - %c is read by the if in the loop body (live to the loop's end) and by the last if.
// JOINT:      id,lower,upper,size,offset
// JOINT-NEXT: c,0,12,1,
// JOINT-NEXT: x,0,2,64,
// JOINT-NEXT: w,0,16,64,
// JOINT-NEXT: l,1,13,64,
// JOINT-NEXT: t,2,9,64,
// JOINT-NEXT: r,4,9,64,
// JOINT-NEXT: u,4,6,256,[[U:[0-9]+]]
// JOINT-NEXT: s,8,10,64,[[U]]
// JOINT-NEXT: q,12,19,64,
// JOINT-NEXT: m,12,17,64,
// JOINT-NEXT: z,13,15,64,{{[0-9]+$}}
// JOINT-NOT:  {{.}}

// Serial: the body's if takes steps 3..8 (then 4..6, else 7), the last if 12..19 (then
// 13..17: loop 13..16, yield 17; else: yield 18). %r's earliest write is now the then
// branch's %u2 (5), %q's the then yield (17); %l is read last by the else yield (18).
// SERIAL:      c,0,13,1,
// SERIAL:      w,0,17,64,
// SERIAL-NEXT: l,1,19,64,
// SERIAL-NEXT: t,2,10,64,
// SERIAL-NEXT: r,5,10,64,
// SERIAL-NEXT: u,4,6,256,
// SERIAL-NEXT: s,9,11,64,
// SERIAL-NEXT: q,17,21,64,
// SERIAL-NEXT: m,13,18,64,

// Peak: in the body's then branch, c + w + l + t + r + u = 1 + 4 * 64 + 256 = 513.
// PLAN:  memopt.plan = #memopt.plan<arena_size = 513, lower_bound = 513, strategy = "large-first/joint">
// MERGE: memopt.plan = #memopt.plan<arena_size = 513, lower_bound = 513, strategy = "large-first/merge">
// FLAT:  memopt.plan = #memopt.plan<arena_size = 513, lower_bound = 513, strategy = "large-first/flat">
