// verify-plan trusts nothing: hand-corrupted plans are rejected at the op that carries them.
// RUN: sed -e 's/OFFB/0/' -e 's/OFFC/128/' -e 's/ARENA/192/' %s | memopt-opt --verify-plan | filecheck %s --check-prefix=OK
// RUN: sed -e 's/OFFB/64/' -e 's/OFFC/128/' -e 's/ARENA/192/' %s | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=OVERLAP
// RUN: sed -e 's/OFFB/0/' -e 's/OFFC/128/' -e 's/ARENA/100/' %s | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=ARENA
// RUN: sed -e 's/OFFB/0/' -e 's/OFFC/128, 3/' -e 's/ARENA/192/' %s | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=COUNT
// RUN: sed -e 's/OFFB/-5/' -e 's/OFFC/128/' -e 's/ARENA/192/' %s | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=NEG
// RUN: sed -e 's/, memopt.plan = [^}]*}/}/' -e 's/OFFB/0/' -e 's/OFFC/128/' %s | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=NOPLAN
builtin.module {
  func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> attributes {memopt.arg_offsets = array<i64: 0>, memopt.plan = #memopt.plan<arena_size = ARENA, lower_bound = 192, strategy = "hand">} {
    %a = memopt.compute "relu"(%x) {memopt.offsets = array<i64: 64>} : (tensor<16xf32>) -> tensor<16xf32>
    %b = memopt.compute "exp"(%a) {memopt.offsets = array<i64: OFFB>} : (tensor<16xf32>) -> tensor<16xf32>
    %c = memopt.compute "add"(%a, %b) {memopt.offsets = array<i64: OFFC>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    func.return %c : tensor<16xf32>
  }
}
// OK: func.func @main
// OVERLAP: memopt-opt: error: <stdin>:11:5: invalid plan: buffers 'a' [64, 128) live [0, 3) and 'b' [64, 128) live [1, 3) overlap
// ARENA: memopt-opt: error: <stdin>:{{[0-9]+}}:{{[0-9]+}}: invalid plan: buffer '{{.*}}' [{{.*}}) exceeds the arena size 100
// COUNT: memopt-opt: error: <stdin>:12:5: 'memopt.offsets' has 2 entries, expected 1
// NEG: memopt-opt: error: <stdin>:11:5: arena value has invalid offset -5
// NOPLAN: memopt-opt: error: <stdin>:9:3: function '@main' is not planned: no 'memopt.plan' attribute (run memopt-opt --plan-memory first)
// RUN: sed -e 's/, memopt.plan = [^}]*}/, memopt.plan = 5 : i64}/' -e 's/OFFB/0/' -e 's/OFFC/128/' %s | not memopt-opt --verify-plan 2>&1 | filecheck %s --check-prefix=WRONGKIND
// WRONGKIND: memopt-opt: error: <stdin>:9:3: function '@main': its 'memopt.plan' attribute is 5 : i64, not a #memopt.plan<arena_size = N, lower_bound = N, strategy = "...">
