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

// LB_nest: the else branch of the outer if (g, 1024 B) beside c, x and r1: 1 + 64 + 64 + 1024.
// Merge, innermost first: if3 region = max(512 (d), 0) = 512; if2's then level holds b (256),
// r3 (64) and the if3 region: b@0, r3@256, region@320 -> 832; if2 region = max(832, 0) (%f
// lives in %r2 = %r1); if1's then level: a (128) + if2 region -> 960, else: g -> 1024; top:
// c@0, x@16, r1@80, if1 region (1024) @144. Branch tensors sit at region base + local offset.
// MERGE: memopt.plan = #memopt.plan<arena_size = 1168, lower_bound = 1153, strategy = "sequential/merge">
// CSV:      id,lower,upper,size,offset
// CSV-NEXT: c,0,14,1,0
// CSV-NEXT: x,0,14,64,16
// CSV-NEXT: r1,0,15,64,80
// CSV-NEXT: a,1,12,128,144
// CSV-NEXT: b,3,10,256,272
// CSV-NEXT: r3,4,10,64,528
// CSV-NEXT: d,5,7,512,592
// CSV-NEXT: g,1,3,1024,144
// CSV-NOT: {{.}}

// JOINT: memopt.plan = #memopt.plan<arena_size = 1168, lower_bound = 1153, strategy = "sequential/joint">
// SERIAL: memopt.plan = #memopt.plan<arena_size = 1168, lower_bound = 1153, strategy = "sequential/serial">
// flat: g cannot share with a (both "live" over steps 1..2): g goes above a.
// FLAT: memopt.plan = #memopt.plan<arena_size = 1296, lower_bound = 1153, strategy = "sequential/flat">
// FLAT: %g = {{.*}}memopt.offsets = array<i64: 272>
