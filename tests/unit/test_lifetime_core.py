"""The lifetime rules both IR flavours share (passes/lifetime_core.py): numbering and use steps."""

from pathlib import Path

from xdsl.dialects import func
from xdsl.ir import Operation
from xdsl.parser import Parser

from memopt.api import context
from memopt.dialects.memopt import ComputeOp, IfOp, LoopOp
from memopt.dialects.walk import walk
from memopt.passes.lifetime import MEMOPT
from memopt.passes.lifetime_core import Flavour, UseSteps, if_spans, number_ops

LOOPS = Path(__file__).parents[1] / "filecheck" / "control-flow" / "loops.mlir"
"""A loop holding an if, then an if holding a loop; its comment numbers the joint steps by hand."""


def _main() -> func.FuncOp:
    module = Parser(context(), LOOPS.read_text()).parse_module()
    return next(o for o in module.body.block.ops if isinstance(o, func.FuncOp))


def _compute(f: func.FuncOp, kind: str) -> Operation:
    return next(o for o in walk(f.body) if isinstance(o, ComputeOp) and o.kind.data == kind)


def test_overlaid_branches_share_steps_and_serial_ones_follow_each_other():
    f = _main()
    body = f.body.blocks[0]
    joint = number_ops(body, MEMOPT, overlay=True, exclusive=True)
    assert [joint.begin[_compute(f, k)] for k in ("w", "t", "u", "u2", "s", "z")] == [0, 2, 4, 5, 8, 13]
    first_if = next(o for o in walk(f.body) if isinstance(o, IfOp))
    assert (joint.begin[first_if], joint.end[first_if]) == (3, 7)
    assert joint.last_step == 18
    assert joint.path[first_if.else_region.blocks[0]] == ((0, 1),)
    serial = number_ops(body, MEMOPT, overlay=False, exclusive=False)
    assert serial.end[first_if] == 8  # then: u, u2, yield; else: yield
    assert serial.path[first_if.else_region.blocks[0]] == ()
    assert [(s.if_id, s.start, s.end) for s in if_spans(joint)] == [(0, 4, 7), (1, 12, 17)]


def test_a_use_in_a_loop_counts_at_the_loops_end_one_in_a_branch_at_its_own_step():
    f = _main()
    body = f.body.blocks[0]
    num = number_ops(body, MEMOPT, overlay=True, exclusive=True)
    steps = UseSteps(num, MEMOPT)
    t, u, z = _compute(f, "t"), _compute(f, "u"), _compute(f, "z")
    outer_loop = next(o for o in walk(f.body) if isinstance(o, LoopOp))
    assert steps.at(t, body) == num.end[outer_loop] == 10  # %w read in the loop body
    assert steps.at(u, t.parent_block()) == 4  # %t read in a branch of the body's if
    assert steps.at(z, body) == 15  # in the loop inside the second if: that loop's end
    assert steps.inside(u, body) and not steps.inside(t, u.parent_block())
    # The span a read covers (what dma_safety checks transfers against): the whole loop when it
    # recurs every iteration, else the user's own step; its end is the use step.
    assert steps.span(t, body) == (num.begin[outer_loop], 10)
    assert steps.span(u, t.parent_block()) == (4, 4)
    for user, home in ((t, body), (u, t.parent_block()), (z, body)):
        assert steps.span(user, home)[1] == steps.at(user, home)


def test_a_kernel_is_one_step_and_an_op_may_take_none():
    class LoopsAreKernels(Flavour):
        def is_kernel(self, op: Operation) -> bool:
            return isinstance(op, LoopOp)

        def takes_no_step(self, op: Operation) -> bool:
            return isinstance(op, ComputeOp) and op.kind.data == "w"

    f = _main()
    num = number_ops(f.body.blocks[0], LoopsAreKernels(), overlay=True, exclusive=True)
    outer_loop = next(o for o in walk(f.body) if isinstance(o, LoopOp))
    assert num.begin[_compute(f, "w")] == num.begin[outer_loop] == 0
    assert _compute(f, "t") not in num.begin  # a kernel's body is not numbered
    assert num.held_over(outer_loop, 0) == 1
