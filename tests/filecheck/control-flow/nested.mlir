// Nesting depth 3 (if in if in if) planned in every mode; merge follows Algorithm 2 level by
// level. Values yielded out of a branch are computed into the if's result (%d2 into %r3; %b2,
// %f and %r2 into %r2, whose storage is %r1's since %r2 is itself yielded); %x, an outer
// value yielded by the innermost else, is copied.
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=sequential control-flow=merge export="%t.merge.csv"},verify-plan' | filecheck %s --check-prefix=MERGE
// RUN: filecheck %s --check-prefix=CSV < %t.merge.csv
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=sequential control-flow=joint},verify-plan' | filecheck %s --check-prefix=JOINT
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=sequential control-flow=serial},verify-plan' | filecheck %s --check-prefix=SERIAL
// RUN: memopt-opt %s -p 'plan-memory{alignment=16 strategy=sequential control-flow=flat},verify-plan' | filecheck %s --check-prefix=FLAT

builtin.module {
  func.func @main(%c: tensor<i1>, %x: tensor<16xf32>) -> tensor<16xf32> {
    %r1 = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
      %a = memopt.compute "a"(%x) : (tensor<16xf32>) -> tensor<32xf32>
      %r2 = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
        %b = memopt.compute "b"(%a) : (tensor<32xf32>) -> tensor<64xf32>
        %r3 = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
          %d = memopt.compute "d"(%b) : (tensor<64xf32>) -> tensor<128xf32>
          %d2 = memopt.compute "d2"(%d) : (tensor<128xf32>) -> tensor<16xf32>
          memopt.yield %d2 : tensor<16xf32>
        } else {
          memopt.yield %x : tensor<16xf32>
        }
        %b2 = memopt.compute "b2"(%r3, %b) : (tensor<16xf32>, tensor<64xf32>) -> tensor<16xf32>
        memopt.yield %b2 : tensor<16xf32>
      } else {
        %f = memopt.compute "f"(%a) : (tensor<32xf32>) -> tensor<16xf32>
        memopt.yield %f : tensor<16xf32>
      }
      memopt.yield %r2 : tensor<16xf32>
    } else {
      %g = memopt.compute "g"(%x) : (tensor<16xf32>) -> tensor<256xf32>
      %g2 = memopt.compute "g2"(%g) : (tensor<256xf32>) -> tensor<16xf32>
      memopt.yield %g2 : tensor<16xf32>
    }
    func.return %r1 : tensor<16xf32>
  }
}

// Joint steps: 0 if1; then1: 1 a, 2 if2; then2: 3 b, 4 if3; then3: 5 d, 6 d2, 7 yield |
// else3: 5 yield; 8 if3 end, 9 b2, 10 yield | else2: 3 f, 4 yield; 11 if2 end, 12 yield |
// else1: 1 g, 2 g2, 3 yield; 13 if1 end, 14 return.
// Reads inside branches count at their own step: %c dies after if3 reads it (4), %x after the
// innermost else copies it (5), %a after b and f read it (3). %r1 starts at its earliest
// write, the else branch's g2 (2; the then branch writes it first at f, 3); %r3 at the else
// copy (5).
// LB_nest (joint): step 2 of the else branch, c + x + g + r1 = 1 + 64 + 1024 + 64 = 1153. In
// serial numbering %c is dead before the else branch, so its max-live is 1152, the reported
// bound (the else path really needs only x, g and r1 there).
// Merge, innermost first: if3 region = max(512 (d), 0) = 512; if2's then level holds b (256),
// r3 (64) and the if3 region: b@0, r3@256, region@320 -> 832; if2 region = max(832, 0) (%f
// lives in %r2 = %r1); if1's then level: a (128) + if2 region -> 960, else: g -> 1024; top:
// c@0, x@16, if1 region (1024, over steps 1..12) @80, r1 (live from 2) above it @1104.
// Branch tensors sit at region base + local offset.
// MERGE: memopt.plan = #memopt.plan<arena_size = 1168, lower_bound = 1152, strategy = "sequential/merge">
// CSV:      id,lower,upper,size,offset
// CSV-NEXT: c,0,5,1,0
// CSV-NEXT: x,0,6,64,16
// CSV-NEXT: r1,2,15,64,1104
// CSV-NEXT: a,1,4,128,80
// CSV-NEXT: b,3,10,256,208
// CSV-NEXT: r3,5,10,64,464
// CSV-NEXT: d,5,7,512,528
// CSV-NEXT: g,1,3,1024,80
// CSV-NOT: {{.}}

// Joint: sequential order and merge's layout both reach 1168; above LB_nest, so the joint
// polish (a short hill climb over the first-fit order) runs and finds 1153 = LB_nest.
// JOINT: memopt.plan = #memopt.plan<arena_size = 1153, lower_bound = 1152, strategy = "sequential+climb/joint">
// serial: %r1 is first written in the then branch (b2, serial step 10), so it spans the whole
// else branch (steps 16..18); sequential order put %r1 at 464 (d's bytes, free by step 10),
// and g (1024) has to go above it: 528 + 1024 = 1552. Serial is the baseline, not a bound.
// SERIAL: memopt.plan = #memopt.plan<arena_size = 1552, lower_bound = 1152, strategy = "sequential/serial">
// flat: g cannot share with a (both "live" at step 1): g goes above a (80 + 128).
// FLAT: memopt.plan = #memopt.plan<arena_size = 1296, lower_bound = 1152, strategy = "sequential/flat">
// FLAT: %g = {{.*}}memopt.offsets = array<i64: 208>
