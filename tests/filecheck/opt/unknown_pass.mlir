// RUN: not memopt-opt %s -p no-such-pass 2>&1 | filecheck %s --check-prefix=PIPE
// RUN: not memopt-opt %s -p 'cse,no-such-pass' 2>&1 | filecheck %s --check-prefix=PIPE
// RUN: not memopt-opt %s --no-such-pass 2>&1 | filecheck %s --check-prefix=FLAG
// RUN: not memopt-opt %s -p 'cse{' 2>&1 | filecheck %s --check-prefix=SYNTAX

// PIPE-NOT: Traceback
// PIPE: {{^}}memopt-opt: error: unknown pass 'no-such-pass' (available passes: {{.*}}cse{{.*}})
// PIPE-NOT: {{.}}

// FLAG-NOT: Traceback
// FLAG: {{^}}memopt-opt: error: unknown pass or option '--no-such-pass' (available passes: {{.*}})
// FLAG-NOT: {{.}}

// SYNTAX-NOT: Traceback
// SYNTAX: {{^}}memopt-opt: error: invalid pass pipeline 'cse{': {{.+}}
// SYNTAX-NOT: {{.}}

func.func @f() {
  func.return
}
