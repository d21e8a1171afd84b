// A value of the wrong kind names the option and its valid values (as --help states them),
// in every way of writing a pass: -p pipeline, --name=opts flag, --name{opts} (a pipeline element as a flag).
// RUN: not memopt-opt %s -p 'plan-memory{capacity=abc}' 2>&1 | filecheck %s --check-prefix=CAP
// RUN: not memopt-opt %s --plan-memory=capacity=abc 2>&1 | filecheck %s --check-prefix=CAP
// RUN: not memopt-opt %s '--plan-memory{capacity=abc}' 2>&1 | filecheck %s --check-prefix=CAP
// CAP-NOT: Traceback
// CAP: {{^}}memopt-opt: error: invalid options for pass 'plan-memory': option 'capacity' does not take 'abc' (values: integer >= 0){{$}}
// CAP-NOT: {{.}}

// RUN: not memopt-opt %s --plan-memory=inplace=3 2>&1 | filecheck %s --check-prefix=BOOL
// BOOL: {{^}}memopt-opt: error: invalid options for pass 'plan-memory': option 'inplace' does not take '3' (values: true | false){{$}}

// RUN: not memopt-opt %s --plan-memory=capacity=true 2>&1 | filecheck %s --check-prefix=INTBOOL
// INTBOOL: option 'capacity' does not take 'true' (values: integer >= 0){{$}}

// RUN: not memopt-opt %s --plan-memory=alignment=16,32 2>&1 | filecheck %s --check-prefix=TWO
// TWO: {{^}}memopt-opt: error: invalid options for pass 'plan-memory': option 'alignment' takes one value, got 2 (values: power of two >= 1){{$}}

// RUN: not memopt-opt %s --insert-dma=ring=1.5 2>&1 | filecheck %s --check-prefix=RING
// RING: option 'ring' does not take '1.5' (values: BYTES (integer > 0) | auto){{$}}

// An unclosed --name{ is a pipeline syntax error, not an unknown option '--name{k'.
// RUN: not memopt-opt %s '--plan-memory{strategy=best' 2>&1 | filecheck %s --check-prefix=OPEN
// OPEN: {{^}}memopt-opt: error: invalid pass pipeline 'plan-memory{strategy=best': {{.+}}

// Well-typed values still pass, in the --name{opts} form too; a number is a float's value.
// RUN: memopt-opt %s '--plan-memory{strategy=large-first budget=2}' | filecheck %s --check-prefix=OK
// OK: memopt.arena_size = 16 : i64, {{.*}}memopt.strategy = "large-first"

func.func @f(%a: memref<4xf32>) {
  %0 = memref.alloc() : memref<4xf32>
  memref.copy %a, %0 : memref<4xf32> to memref<4xf32>
  func.return
}
