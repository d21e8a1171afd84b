// Lifetimes over region ops: nested ops are numbered inside their parent's span, values read
// inside a loop live until the loop ends, reads inside an if branch count at their own step,
// loop-carried slots live across the loop.
// %t2 and %e2 are yielded out of their branch: they are computed straight into %r's storage and
// have no buffer (no row) of their own; %r starts at its earliest write over the branches.
// RUN: memopt-opt %s -p 'plan-memory{alignment=1 strategy=sequential control-flow=serial export="%t.csv"}' > /dev/null
// RUN: filecheck %s --check-prefix=SERIAL < %t.csv
// RUN: memopt-opt %s -p 'plan-memory{alignment=1 strategy=sequential control-flow=joint export="%t.joint.csv"}' > /dev/null
// RUN: filecheck %s --check-prefix=JOINT < %t.joint.csv
// RUN: memopt-opt %s -p 'plan-memory{alignment=1 control-flow=flat},verify-plan' | filecheck %s --check-prefix=FLAT

builtin.module {
  func.func @main(%x: tensor<16xf32>, %c: tensor<i1>) -> tensor<16xf32> {
    %a = memopt.compute "relu"(%x) : (tensor<16xf32>) -> tensor<16xf32>
    %r = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
      %t1 = memopt.compute "exp"(%a) : (tensor<16xf32>) -> tensor<16xf32>
      %t2 = memopt.compute "neg"(%t1) : (tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %t2 : tensor<16xf32>
    } else {
      %e1 = memopt.compute "abs"(%a) : (tensor<16xf32>) -> tensor<32xf32>
      %e2 = memopt.compute "sum"(%e1) : (tensor<32xf32>) -> tensor<16xf32>
      memopt.yield %e2 : tensor<16xf32>
    }
    %l = memopt.loop 3 iter_args(%acc = %r) : tensor<16xf32> {
      %n = memopt.compute "add"(%acc, %a) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %n : tensor<16xf32>
    }
    func.return %l : tensor<16xf32>
  }
}

// Steps (serial): 0 relu, 1 if-begin, 2 exp, 3 neg, 4 yield, 5 abs, 6 sum, 7 yield, 8 if-end,
// 9 loop-begin, 10 add, 11 yield, 12 loop-end, 13 return. %r: first written by neg (3; sum
// writes it at 6); %a: read by exp, abs and inside the loop (until its end, 12).
// SERIAL:      id,lower,upper,size,offset
// SERIAL-NEXT: x,0,1,64,
// SERIAL-NEXT: c,0,2,1,
// SERIAL-NEXT: a,0,13,64,
// SERIAL-NEXT: r,3,10,64,
// SERIAL-NEXT: t1,2,4,64,
// SERIAL-NEXT: e1,5,7,128,
// SERIAL-NEXT: l,9,14,64,
// SERIAL-NEXT: n,10,12,64,

// Joint: both branches overlaid on steps 2..4; the if ends at 5; neg and sum both write %r
// at step 3.
// JOINT:      a,0,10,64,
// JOINT-NEXT: r,3,7,64,
// JOINT-NEXT: t1,2,4,64,
// JOINT-NEXT: e1,2,4,128,
// JOINT-NEXT: l,6,11,64,

// FLAT: func.func @main
// FLAT-SAME: memopt.plan = #memopt.plan<arena_size = {{[0-9]+}}, lower_bound = {{[0-9]+}}, strategy = "{{.*}}">
