// The default insert-dma (mode=auto) never models slower than no DMA: per Region it keeps the
// cheapest of every load, none and a search between. Here the first Region's ops are compute-bound
// (their loads hide behind the previous op: the LUNA paper's ping-pong @alloc0/@alloc1 is kept);
// the ops of the second, after the if, compute almost nothing, so pipelining their loads costs
// more than it hides: they read their weights directly, said in a remark.
// RUN: memopt-opt %s --insert-dma --plan-memory --verify-plan 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=REMARK < %t.err
// CHECK:      memopt.dma_buffer @alloc0
// CHECK:      memopt.dma_buffer @alloc1
// CHECK:      memopt.dma_start @w0 into @alloc0
// CHECK:      memopt.dma_start @w1 into @alloc1
// CHECK:      %a = memopt.compute "fc"
// CHECK:      %b = memopt.compute "fc"
// CHECK:      memopt.if
// CHECK-NOT:  memopt.dma_start
// CHECK:      %c = memopt.compute "fc"(%r, %g2) {cost = 10 : i64, memopt.dma_skipped
// CHECK-NOT:  memopt.dma_start
// REMARK: insert-dma: remark: @main/1: left 2 of 2 weight loads unpipelined (model: {{[0-9]+}} cycles, {{[0-9]+}} if all pipelined)
// mode=always pipelines every load, and the latency model says what that costs.
// RUN: memopt-opt %s -p 'insert-dma{mode=always},report-latency' 2>&1 >/dev/null | filecheck %s --check-prefix=ALWAYS
// RUN: memopt-opt %s -p 'insert-dma,report-latency' 2>&1 >/dev/null | filecheck %s --check-prefix=AUTO
// (columns: region runs ops loads T_serial T_pingpong T_lb eta)
// ALWAYS: {{^}}@main/0 {{ +}}1 {{ +}}2 {{ +}}2 {{ +}}
// ALWAYS: {{^}}@main/1 {{ +}}1 {{ +}}2 {{ +}}2 {{ +}}{{[0-9]+ +[0-9]+ +[0-9]+}} -{{[0-9.]+$}}
// AUTO:   {{^}}@main/0 {{ +}}1 {{ +}}2 {{ +}}2 {{ +}}
// AUTO:   {{^}}@main/1 {{ +}}1 {{ +}}2 {{ +}}0 {{ +}}[[T:[0-9]+]] {{ +}}[[T]] {{ +}}{{[0-9]+}} {{ +}}0.00{{$}}
builtin.module {
  memopt.global @w0 : tensor<64x64xi8>
  memopt.global @w1 : tensor<64x64xi8>
  memopt.global @w2 : tensor<64x64xi8>
  memopt.global @w3 : tensor<64x64xi8>
  func.func @main(%x: tensor<1x64xi8>, %p: tensor<i1>) -> tensor<1x64xi8> {
    %g0 = memopt.get_global @w0 : tensor<64x64xi8>
    %g1 = memopt.get_global @w1 : tensor<64x64xi8>
    %g2 = memopt.get_global @w2 : tensor<64x64xi8>
    %g3 = memopt.get_global @w3 : tensor<64x64xi8>
    %a = memopt.compute "fc"(%x, %g0) {cost = 200000 : i64} : (tensor<1x64xi8>, tensor<64x64xi8>) -> tensor<1x64xi8>
    %b = memopt.compute "fc"(%a, %g1) {cost = 200000 : i64} : (tensor<1x64xi8>, tensor<64x64xi8>) -> tensor<1x64xi8>
    %r = memopt.if %p : tensor<i1> -> (tensor<1x64xi8>) {
      %n = memopt.compute "neg"(%b) : (tensor<1x64xi8>) -> tensor<1x64xi8>
      memopt.yield %n : tensor<1x64xi8>
    } else {
      memopt.yield %b : tensor<1x64xi8>
    }
    %c = memopt.compute "fc"(%r, %g2) {cost = 10 : i64} : (tensor<1x64xi8>, tensor<64x64xi8>) -> tensor<1x64xi8>
    %d = memopt.compute "fc"(%c, %g3) {cost = 10 : i64} : (tensor<1x64xi8>, tensor<64x64xi8>) -> tensor<1x64xi8>
    func.return %d : tensor<1x64xi8>
  }
}
