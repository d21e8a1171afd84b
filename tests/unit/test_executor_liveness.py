"""The interpreter drops each value after its last read, and the byte limit is checked against
what is alive at once (memopt.executor.liveness), so a long program runs in the bytes its live
values take, not the sum of all it ever wrote — with the same results."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func

from memopt.diagnostics import MemoptError
from memopt.dialects.plan_attr_names import PLAN_ATTR
from memopt.executor import Interpreter, Unplanned, check_module, run_function
from memopt.executor.liveness import unplanned_peak
from memopt.executor.resources import Limits
from memopt.fuzz import _CTX, parse
from memopt.passes.plan_memory import PlanMemoryPass

TENSOR = 4000  # bytes of a tensor<1000xf32>


def chain(n: int) -> str:
    ops = [f'    %t{i} = memopt.compute "relu"(%t{i - 1}) : (tensor<1000xf32>) -> tensor<1000xf32>'
           for i in range(1, n + 1)]
    return ("builtin.module {\n  func.func @main(%t0: tensor<1000xf32>) -> tensor<1000xf32> {\n"
            + "\n".join(ops) + f"\n    func.return %t{n} : tensor<1000xf32>\n  }}\n}}\n")


PROGRAM = """
builtin.module {
  memopt.global @w : tensor<256xf32>
  func.func @main(%x: tensor<256xf32>, %c: tensor<i1>, %unread: tensor<256xf32>) -> (tensor<64xf32>, tensor<256xf32>, tensor<256xf32>) {
    %a = memopt.compute "relu"(%x) : (tensor<256xf32>) -> tensor<256xf32>
    %v = memopt.view %a[offset 256] : tensor<256xf32> -> tensor<64xf32>
    %w = memopt.get_global @w : tensor<256xf32>
    %b = memopt.compute "add"(%a, %w) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
    %n = memopt.loop 3 iter_args(%acc = %b) : tensor<256xf32> {
      %s = memopt.compute "add"(%acc, %x) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
      %dead = memopt.compute "neg"(%s) : (tensor<256xf32>) -> tensor<256xf32>
      memopt.yield %s : tensor<256xf32>
    }
    %r = memopt.if %c : tensor<i1> -> (tensor<256xf32>) {
      %t = memopt.compute "relu"(%n) : (tensor<256xf32>) -> tensor<256xf32>
      memopt.yield %t : tensor<256xf32>
    } else {
      memopt.yield %b : tensor<256xf32>
    }
    %u = memopt.compute "relu"(%v) : (tensor<64xf32>) -> tensor<64xf32>
    func.return %u, %r, %n : tensor<64xf32>, tensor<256xf32>, tensor<256xf32>
  }
}
"""
"""A view read after its source's last read, an outer value read in every trip of a loop, a
value nothing reads (in a loop body, and an argument), an ``if`` yielding an outer value."""


class Measured(Interpreter):
    """Records the most bytes of storage the run's bound values hold at once (views count
    their base once), measured whenever values are about to be dropped (the most is held just
    before a drop); ``keep`` disables dropping (every value held to the end)."""

    def __init__(self, *args, keep: bool = False, **kw):
        super().__init__(*args, **kw)
        self.keep, self.peak = keep, 0

    def release(self, frame, slots) -> None:
        self.measure(frame)
        if not self.keep:
            super().release(frame, slots)

    def measure(self, frame) -> None:
        bases = {}
        for v in frame:
            if isinstance(v, np.ndarray):
                while isinstance(v.base, np.ndarray):
                    v = v.base
                if v.flags.writeable:  # the global store is not the run's storage
                    bases[id(v)] = v.nbytes
        self.peak = max(self.peak, sum(bases.values()))


def main(module):
    return next(op for op in module.body.block.ops if isinstance(op, func.FuncOp))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_dropping_dead_values_keeps_every_result_and_the_peak_under_the_estimate(seed):
    m = parse(PROGRAM)
    f = main(m)
    dropping = Measured(m, Unplanned(), seed=seed)
    keeping = Measured(m, Unplanned(), seed=seed, keep=True)
    got, want = dropping.run(f).outputs, keeping.run(f).outputs
    assert [o.tobytes() for o in got] == [o.tobytes() for o in want]
    assert dropping.peak < keeping.peak  # something was dropped
    assert dropping.peak <= unplanned_peak(f)  # the estimate bounds what the run holds


def test_a_chain_runs_in_the_bytes_of_its_live_tensors():
    m = parse(chain(8))  # nine tensors written, two alive at once
    f = main(m)
    assert unplanned_peak(f) == 3 * TENSOR  # operand, result, the kernel's output before it is stored
    probe = Measured(m, Unplanned())
    probe.run(f)
    assert probe.peak == 2 * TENSOR  # an op's operand and result, before the operand is dropped
    want = run_function(m).outputs[0].tobytes()
    assert run_function(m, limits=Limits(max_bytes=3 * TENSOR)).outputs[0].tobytes() == want
    with pytest.raises(MemoptError, match=r"needs about 12000 bytes .* over the limit of 11999 \(--max-bytes\)"):
        run_function(m, limits=Limits(max_bytes=3 * TENSOR - 1))


def test_check_counts_the_live_tensors_and_the_arena():
    m = parse(chain(8))
    PlanMemoryPass().apply(_CTX, m)
    arena = main(m).attributes[PLAN_ATTR].arena_size.data
    assert arena < 3 * TENSOR  # two tensors: the sum of all nine would not fit below
    check_module(m, limits=Limits(max_bytes=3 * TENSOR + arena))
    with pytest.raises(MemoptError, match="--max-bytes"):
        check_module(m, limits=Limits(max_bytes=3 * TENSOR + arena - 1))
