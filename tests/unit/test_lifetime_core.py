"""The lifetime rules both IR flavours share (passes/lifetime_core.py): numbering, use steps,
following a buffer through its aliases, escapes and loop-carried buffers."""

from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr, i32
from xdsl.dialects import test as xdsl_test
from xdsl.ir import Block, Operation, SSAValue
from xdsl.parser import Parser

from memopt.api import context
from memopt.dialects.memopt import ComputeOp, IfOp, LoopOp
from memopt.dialects.walk import walk
from memopt.passes.lifetime import MEMOPT
from memopt.diagnostics import MemoptError
from memopt.passes.lifetime_core import ACCESS, Flavour, Origins, Tracer, Use, UseSteps, aliases, if_spans, number_ops

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


# ------------------------------------------------------------ following a buffer (Tracer)
# Built from xDSL's test ops, each tagged with what a flavour would say of it: no IR parsing,
# no dialect; the rules under test are the core's alone.


class Tagged(Flavour):
    """A flavour reading each op's ``kind``: a ``view`` aliases without touching the bytes, a
    ``store`` makes the storage escape, an ``out`` hands its operand on as its parent's result, a
    ``yield`` to its loop's next iteration; a ``slot`` op's results are complete at its end."""

    def use(self, user: Operation, index: int) -> Use:
        k = _kind(user)
        parent = user.parent_op()
        if k == "view":
            return Use(at_step=False, accesses=False, lives_on=list(user.results))
        if k == "store":
            return Use(accesses=False, escape="stored")
        if k in ("out", "yield") and parent is not None:
            nxt = parent if k == "yield" else None
            return Use(accesses=False, lives_on=[parent.results[index]], next_iteration=nxt)
        return ACCESS

    def completes_at_end(self, op: Operation) -> bool:
        return _kind(op) == "slot"


def _kind(op: Operation) -> str:
    attr = op.attributes.get("kind")
    return attr.data if isinstance(attr, StringAttr) else ""


def _op(kind: str, *operands: SSAValue, results: int = 1, body: list[Operation] | None = None) -> xdsl_test.TestOp:
    return xdsl_test.TestOp(operands, [i32] * results, {"kind": StringAttr(kind)}, regions=[body] if body is not None else ())


def _tracer(*ops: Operation) -> tuple[Tracer, Block]:
    block = Block(list(ops))
    return Tracer(number_ops(block, Tagged(), overlay=True, exclusive=True), Tagged()), block


def test_a_buffer_lives_to_the_last_use_of_any_alias_a_view_is_no_use():
    a = _op("def")
    v = _op("view", a.results[0])
    r = _op("read", v.results[0])
    loop = _op("loop", results=0, body=[r])  # a loop body's read counts at the loop's end
    tracer, _ = _tracer(a, v, loop, _op("def"))
    reach = tracer.trace([a.results[0]], 0)
    assert reach.values == [a.results[0], v.results[0]]
    assert (reach.interval(tracer.num), reach.accessed, reach.escape) == ((0, tracer.num.end[loop] + 1), True, None)
    b = _op("def")
    only_viewed, _ = _tracer(b, _op("view", b.results[0]))
    unread = only_viewed.trace([b.results[0]], 0)
    assert (unread.interval(only_viewed.num), unread.accessed) == ((0, 1), False)


def test_an_escape_stops_the_trace():
    a = _op("def")
    store = _op("store", a.results[0], results=0)
    v = _op("view", a.results[0])
    tracer, _ = _tracer(a, store, v, _op("read", v.results[0], results=0))
    reach = tracer.trace([a.results[0]], 0)
    assert reach.escape == "stored" and reach.values == [a.results[0]]  # the view is never followed


def test_a_buffer_yielded_to_its_loops_next_iteration_is_double_buffered_over_the_loop():
    b = _op("def")
    loop = _op("loop", body=[b, _op("read", b.results[0], results=0), _op("yield", b.results[0], results=0)])
    tracer, block = _tracer(_op("def"), loop)
    reach = tracer.trace([b.results[0]], tracer.num.begin[b])
    assert reach.carried_by is loop and loop.results[0] in reach.values
    assert reach.interval(tracer.num) == (tracer.num.begin[loop], tracer.num.end[loop] + 1)
    assert reach.path(tracer.num) == tracer.num.path[block]


def test_carried_by_two_loops_or_from_a_nested_loop_it_escapes():
    b = _op("def")
    inner = _op("loop", body=[b, _op("yield", b.results[0], results=0)])
    outer = _op("loop", body=[inner, _op("yield", inner.results[0], results=0)])
    tracer, _ = _tracer(outer)
    assert tracer.trace([b.results[0]], tracer.num.begin[b]).escape == "it is carried by two loops' iter_args"
    c = _op("def")
    inner = _op("loop", body=[c, _op("out", c.results[0], results=0)])  # handed out, not carried
    outer = _op("loop", body=[inner, _op("yield", inner.results[0], results=0)])
    tracer, _ = _tracer(outer)
    assert tracer.trace([c.results[0]], tracer.num.begin[c]).escape == "it is carried by 'test.op' from a nested loop"


def test_a_result_complete_at_its_ops_end_lives_to_that_end():
    a = _op("def")
    slot = _op("slot", body=[_op("read", a.results[0], results=0)])
    tracer, _ = _tracer(a, slot)
    start = tracer.num.begin[slot]
    assert tracer.trace([slot.results[0]], start).interval(tracer.num) == (start, tracer.num.end[slot] + 1)
    assert tracer.trace([a.results[0]], 0).interval(tracer.num) == (0, tracer.num.end[slot] + 1)  # read inside it


def test_a_use_before_the_definition_or_outside_its_block_is_a_located_error():
    x = _op("def")
    early = _op("read", x.results[0], results=0)
    tracer, _ = _tracer(early, x)
    with pytest.raises(MemoptError, match="used before it is defined"):
        tracer.trace([x.results[0]], tracer.num.begin[x])
    y = _op("def")
    loop = _op("loop", results=0, body=[y])
    tracer, _ = _tracer(loop, _op("read", y.results[0], results=0))
    with pytest.raises(MemoptError, match="used outside its scope"):
        tracer.trace([y.results[0]], tracer.num.begin[y])


def test_origins_read_the_hand_on_rule_backwards():
    a, b = _op("def"), _op("def")
    v = _op("view", a.results[0])
    read = _op("read", v.results[0])  # an access: its result is an origin of its own
    branch = _op("branch", body=[_op("out", v.results[0], results=0)])
    other = _op("branch", body=[_op("out", b.results[0], results=0)])
    loop = _op("loop", body=[_op("yield", a.results[0], results=0)])
    _, block = _tracer(a, b, v, read, branch, other, loop)
    origins = Origins(block, Tagged())
    assert origins.of(branch.results[0]) == {a.results[0]}  # through the view and the hand-on
    assert origins.of(other.results[0]) == {b.results[0]}
    assert origins.of(read.results[0]) == {read.results[0]}
    assert origins.of(loop.results[0]) == {a.results[0]}


def test_aliases_read_the_hand_on_rule_forwards():
    a = _op("def")
    v = _op("view", a.results[0])
    read = _op("read", v.results[0])  # an access: what it makes is not the buffer
    branch = _op("branch", body=[_op("out", v.results[0], results=0)])
    loop = _op("loop", body=[_op("yield", a.results[0], results=0)])
    _, block = _tracer(a, v, read, branch, loop)
    flavour = Tagged()
    assert aliases(a.results[0], flavour) == {a.results[0], v.results[0]}  # views only
    every = aliases(a.results[0], flavour, through_yields=True)
    assert every == {a.results[0], v.results[0], branch.results[0], loop.results[0]}
    origins = Origins(block, flavour)
    assert all(origins.of(x) == {a.results[0]} for x in every)  # the same uses, read backwards
