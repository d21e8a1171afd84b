// verify-plan re-checks a plan in the numbering it records (memopt.numbering). This hand-written
// layout puts %e2 on %v's bytes. In serial numbering the else branch runs after the then
// branch (steps 5..8) and %v's last read on the else path is e1 (5), so %e2 (from 6) may
// reuse it: sound on both paths, and execution agrees. In the overlaid joint numbering %v is
// read by t2 at step 3, when e2 already exists: the joint analysis rejects the layout -- so
// the checker must use the serial numbering for serial plans, and the joint one otherwise.
// RUN: sed -e 's|MODE|"large-first/serial">, memopt.numbering = "serial"|' %s > %t.serial.mlir
// RUN: memopt-opt --verify-plan %t.serial.mlir > /dev/null
// RUN: memopt-run --check --seed 0 %t.serial.mlir | filecheck %s --check-prefix=EXEC
// RUN: memopt-run --check --seed 1 %t.serial.mlir | filecheck %s --check-prefix=EXEC
// RUN: sed -e 's|MODE|"large-first/joint">, memopt.numbering = "joint"|' %s > %t.joint.mlir
// RUN: not memopt-opt --verify-plan %t.joint.mlir 2>&1 | filecheck %s --check-prefix=JOINT
// A plan that records no numbering is checked in the joint one: the strategy's name is a name,
// never read for a mode (a "/serial" suffix alone does not make the serial check).
// RUN: sed -e 's|MODE|"large-first/serial">|' %s > %t.name.mlir
// RUN: not memopt-opt --verify-plan %t.name.mlir 2>&1 | filecheck %s --check-prefix=JOINT

builtin.module {
  func.func @main(%c: tensor<i1>, %x: tensor<16xf32>) -> tensor<16xf32> attributes {memopt.arg_offsets = array<i64: 64, 0>, memopt.plan = #memopt.plan<arena_size = 320, lower_bound = 192, strategy = MODE} {
    %v = memopt.compute "v"(%x) {memopt.offsets = array<i64: 128>} : (tensor<16xf32>) -> tensor<16xf32>
    %r = memopt.if %c : tensor<i1> -> (tensor<16xf32>) {
      %t1 = memopt.compute "t1"(%x) {memopt.offsets = array<i64: 256>} : (tensor<16xf32>) -> tensor<16xf32>
      %t2 = memopt.compute "t2"(%t1, %v) {memopt.offsets = array<i64: 192>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %t2 : tensor<16xf32>
    } else {
      %e1 = memopt.compute "e1"(%v) {memopt.offsets = array<i64: 256>} : (tensor<16xf32>) -> tensor<16xf32>
      %e2 = memopt.compute "e2"(%e1) {memopt.offsets = array<i64: 128>} : (tensor<16xf32>) -> tensor<16xf32>
      %e3 = memopt.compute "e3"(%e2) {memopt.offsets = array<i64: 192>} : (tensor<16xf32>) -> tensor<16xf32>
      memopt.yield %e3 : tensor<16xf32>
    } attributes {memopt.offsets = array<i64: 192>}
    func.return %r : tensor<16xf32>
  }
}

// EXEC: @main: planned execution matches unplanned
// JOINT-NOT: Traceback
// JOINT: {{^}}memopt-opt: error: {{.*}}.mlir:27:7: invalid plan: buffers 'v' [128, 192) live [0, 4) and 'e2' [128, 192) live [3, 5) overlap
// JOINT-NOT: {{.}}
