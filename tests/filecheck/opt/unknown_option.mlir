// RUN: not memopt-opt %s -p 'cse{bogus=1}' 2>&1 | filecheck %s
// RUN: not memopt-opt %s --cse=bogus=1 2>&1 | filecheck %s
// RUN: not memopt-opt %s '--cse=bogus=1 other=2' 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK: {{^}}memopt-opt: error: unknown option 'bogus' for pass 'cse' (valid options: none)
// CHECK-NOT: {{.}}

func.func @f() {
  func.return
}
