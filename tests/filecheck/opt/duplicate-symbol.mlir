// A symbol defined twice is located at its second definition, not at the module.
// RUN: not memopt-opt %s --plan-memory 2>&1 | filecheck %s
// CHECK: {{^}}memopt-opt: error: {{.*}}duplicate-symbol.mlir:[[# @LINE + 5]]:3: 'builtin.module' op Redefinition of symbol "main"{{$}}
builtin.module {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    func.return %x : tensor<4xf32>
  }
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    func.return %x : tensor<4xf32>
  }
}
