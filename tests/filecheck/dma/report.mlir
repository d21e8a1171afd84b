// report-latency: per Region and per function, T_serial = sum(c_i + d_i), T_pingpong as
// scheduled, T_lb = max(sum c + d_first, sum d + c_last), eta = (T_serial - T)/(T_serial - T_lb).
// chain.mlir by hand (256 MACs/cycle, 8 B/cycle, latency 200, issue 32):
//   c = 79, 196, 1, 196, 79; d = 216, 264 + 216, 0, 264, 216
//   T_serial = 551 + 1176 = 1727, T_lb = max(551 + 216, 1176 + 79) = 1255.
// Before insert-dma the schedule is the serial one.
// RUN: memopt-opt %S/Inputs/chain.mlir --report-latency 2>&1 >/dev/null | filecheck %s --check-prefix=BEFORE
// RUN: memopt-opt %S/Inputs/chain.mlir -p 'insert-dma{mode=always},report-latency{output="%t.txt"}' > /dev/null
// RUN: filecheck %s --check-prefix=AFTER < %t.txt
// Control flow: a loop body counts trip-count times, an if its worst branch.
// RUN: memopt-opt %S/Inputs/control.mlir -p 'insert-dma{mode=always},report-latency' 2>&1 >/dev/null | filecheck %s --check-prefix=CF
// A target file, with an option overriding one of its fields.
// RUN: memopt-opt %S/Inputs/chain.mlir -p 'report-latency{target="%S/Inputs/slow-dma.target" macs-per-cycle=64}' 2>&1 >/dev/null | filecheck %s --check-prefix=FILE

// BEFORE:      report-latency: @main (256 MACs/cycle, DMA 8 B/cycle, latency 200, issue 32, on-chip unlimited)
// BEFORE-NEXT: region runs ops loads T_serial T_pingpong T_lb eta
// BEFORE-NEXT: @main/0 1 5 0 1727 1727 1255 0.00
// BEFORE-NEXT: total @main 5 0 1727 1727 1255 0.00

// AFTER:      @main/0 1 5 4 1727 1383 1255 0.73
// AFTER-NEXT: total @main 5 4 1727 1383 1255 0.73

// CF:      @main/0 1 1 1 224 256 224 -
// CF-NEXT: @main/if0/then/0 1 2 2 544 576 512 -1.00
// CF-NEXT: @main/if0/then/if0/then/0 1 2 2 440 488 424 -3.00
// CF-NEXT: @main/if0/else/0 1 1 1 220 252 220 -
// CF-NEXT: @main/loop1/body/0 3 2 2 486 518 454 -1.00
// CF-NEXT: @main/2 1 1 1 232 264 232 -
// 224 + max(544 + 440, 220) + 3 * 486 + 232 = 2898
// CF-NEXT: total @main 9 9 2898 3138 2754 -1.67

// FILE: report-latency: @main (64 MACs/cycle, DMA 2 B/cycle, latency 100, issue 32, on-chip unlimited)
