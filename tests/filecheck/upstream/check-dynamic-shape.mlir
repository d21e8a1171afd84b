// A dynamically shaped argument needs its shape on the command line (--input-shape NAME=AxB,
// NAME its SSA name or #K its position); its allocs take their sizes from the executed values.
// RUN: memopt-opt %s --plan-memory -o %t.mlir 2>/dev/null
// RUN: not memopt-run %t.mlir --check 2>&1 | filecheck %s --check-prefix=REFUSED
// REFUSED: {{^}}memopt-run: error: {{.*}}.mlir:{{[0-9]+}}:{{[0-9]+}}: argument %x of @main has a dynamic shape (memref<?x4xf32>): give it with --input-shape x=Nx4{{$}}
// RUN: memopt-run %t.mlir --check --input-shape x=3x4 | filecheck %s
// RUN: memopt-run %t.mlir --check --input-shape '#0=3x4' | filecheck %s
// CHECK: @main: planned execution matches unplanned (2 buffer writes, 2 reads, 1 arena views)
// RUN: memopt-run %t.mlir --input-shape x=3x4 | filecheck %s --check-prefix=VALUES
// VALUES: @main result #0 : memref<3x4xf32> =
// RUN: not memopt-run %t.mlir --check --input-shape x=3x5 2>&1 | filecheck %s --check-prefix=WRONG
// WRONG: memopt-run: error: {{.*}}: --input-shape x=3x5 does not fit argument %x of type memref<?x4xf32>
// RUN: not memopt-run %t.mlir --check --input-shape x=3by4 2>&1 | filecheck %s --check-prefix=SYNTAX
// SYNTAX: memopt-run: error: --input-shape expects NAME=AxB (e.g. arg0=4x64 or #0=4x64), got 'x=3by4'
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: memref<?x4xf32>) -> memref<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %t = memref.alloc() : memref<4xf32>
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%t : memref<4xf32>)
  %y = memref.alloc(%n) : memref<?x4xf32>
  linalg.generic {indexing_maps = [#map, affine_map<(d0, d1) -> (d1)>, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x, %t : memref<?x4xf32>, memref<4xf32>) outs(%y : memref<?x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return %y : memref<?x4xf32>
}
