// A splat constant of any size is read as its one value and printed back the same (upstream's
// models hold splat weights of hundreds of millions of elements: expanding them took minutes).
// RUN: memopt-opt %s | filecheck %s
// RUN: memopt-opt %s --print-op-generic | memopt-opt | filecheck %s
// CHECK: initial_value = dense<2.000000e-02> : tensor<25088x4096xf32>
// CHECK: initial_value = dense<7> : tensor<4096x4096xi8>
// CHECK: initial_value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
memref.global "private" constant @w : memref<25088x4096xf32> = dense<2.000000e-02> alignment = 64
memref.global "private" constant @q : memref<4096x4096xi8> = dense<7>
memref.global "private" constant @v : memref<2xf32> = dense<[1.0, 2.0]>
