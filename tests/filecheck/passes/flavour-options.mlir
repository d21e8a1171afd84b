// An option that acts on upstream memref IR only has no effect on the memopt dialect, and says
// so in a located remark; the output is the one without it. (Where they act: plan-memory's
// arena=arg in upstream/arena-arg.test, insert-dma's staging-space in upstream/dma-arena.mlir.)
// RUN: memopt-opt %s -p 'plan-memory{arena=arg}' -o %t.arg.mlir 2>&1 | filecheck %s --check-prefix=ARENA
// ARENA: {{^}}plan-memory: remark: {{.*}}flavour-options.mlir:[[# @LINE + 17]]:1: arena=arg has no effect on memopt-dialect IR ('@main': its plan is offsets into the arena its runtime provides){{$}}
// ARENA-EMPTY:
// RUN: memopt-opt %s -p 'plan-memory{arena=alloc}' -o %t.alloc.mlir 2>&1 | filecheck %s --check-prefix=QUIET --allow-empty
// RUN: diff %t.arg.mlir %t.alloc.mlir
// QUIET-NOT: remark

// RUN: memopt-opt %s -p 'plan-memory,insert-dma{mode=always staging-space=2}' -o %t.space.mlir 2>&1 | filecheck %s --check-prefix=SPACE
// SPACE: {{^}}insert-dma: remark: {{.*}}flavour-options.mlir:[[# @LINE + 10]]:1: staging-space=2 has no effect on memopt-dialect IR (its staging buffers are memopt.dma_buffer ops placed on chip after the arena){{$}}
// RUN: memopt-opt %s -p 'plan-memory,insert-dma{mode=always}' -o %t.dma.mlir 2>&1 | filecheck %s --check-prefix=QUIET --allow-empty
// RUN: diff %t.space.mlir %t.dma.mlir
// RUN: filecheck %s --check-prefix=DMA < %t.space.mlir
// DMA: memopt.dma_buffer @alloc0

memopt.global @w0 : tensor<16x8xi8>
memopt.global @w1 : tensor<32x16xi8>
memopt.global @w2 : tensor<16x32xi8>
memopt.global @w3 : tensor<8x16xi8>
func.func @main(%x: tensor<1x8xi8>) -> tensor<1x8xi8> {
  %g0 = memopt.get_global @w0 : tensor<16x8xi8>
  %g1 = memopt.get_global @w1 : tensor<32x16xi8>
  %g2 = memopt.get_global @w2 : tensor<16x32xi8>
  %g3 = memopt.get_global @w3 : tensor<8x16xi8>
  %a = memopt.compute "fc"(%x, %g0) {cost = 20000 : i64} : (tensor<1x8xi8>, tensor<16x8xi8>) -> tensor<1x16xi8>
  %b = memopt.compute "fc"(%a, %g1) {cost = 50000 : i64} : (tensor<1x16xi8>, tensor<32x16xi8>) -> tensor<1x32xi8>
  %c = memopt.compute "fc"(%b, %g2) {cost = 50000 : i64} : (tensor<1x32xi8>, tensor<16x32xi8>) -> tensor<1x16xi8>
  %d = memopt.compute "fc"(%c, %g3) {cost = 20000 : i64} : (tensor<1x16xi8>, tensor<8x16xi8>) -> tensor<1x8xi8>
  func.return %d : tensor<1x8xi8>
}
