"""The allocations of an upstream (``func``/``memref``) function as an eager pool replays them.

An eager runtime allocates each buffer when it is made and frees it after its last use. The
buffers are the ones memopt plans (static shape, identity layout, not escaping): traced by
:func:`~memopt.passes.upstream_lifetime.analyze_upstream` in an unplanned function, read back
from the plan (:func:`~memopt.passes.upstream_plan_io.read_upstream_plan`) in a planned one,
whose arena is then the static plan to compare the pools with. One memory space at a time:
each integer memory space is a memory of its own, with its own pool.

The planner numbers the branches of an ``scf.if`` over the same steps (exclusive: only one
runs), which a pool cannot know: replayed so, the two branches' buffers would be live at once.
So the replay times every buffer in a serial numbering — branches one after the other, as
``memopt-pool`` replays the memopt dialect: a planned function's plan read in that numbering
(the plan reader's ``numbering="serial"``), an unplanned one's buffers traced again with the
planner's own tracer over it; the bound and the static plan stay the planner's (branches
exclusive).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.dialects import func
from xdsl.ir import Operation

from memopt.diagnostics import MemoptError
from memopt.planning import Problem
from memopt.planning.function_plan import Plan

from .upstream_lifetime import BufferTracer, analyze_upstream, serial_numbering
from .upstream_plan_io import ArenaPlan, call_scratch, is_planned, read_upstream_plan


@dataclass(frozen=True)
class UpstreamAllocations:
    """What a pool replays for one memory space of an upstream function."""

    replayed: Problem
    """The buffers in serial steps (branches one after the other): what the pools replay."""
    planned: Problem
    """The same buffers as the planner numbers them (branches exclusive): bound and static plan."""
    plan: ArenaPlan | None
    """The arena the function is planned into (None: not planned)."""


def upstream_allocations(f: func.FuncOp, space: int = 0) -> UpstreamAllocations:
    """The buffers of ``f`` in memory space ``space``: read back from its plan when planned,
    else traced. No buffer at all is a located error (an all-zero replay would look like a
    program that needs no memory)."""
    name = f.sym_name.data
    if is_planned(f):
        plan = _arena(read_upstream_plan(f), space)
        if plan is None or not len(plan.problem):
            raise MemoptError(f"'@{name}' has no planned buffer in memory space {space}: nothing to replay", f)
        serial = _arena(read_upstream_plan(f, numbering="serial"), space)
        assert serial is not None  # the same arenas, read again in the serial numbering
        return UpstreamAllocations(serial.problem, plan.problem, plan)
    lt = analyze_upstream(f, call_scratch, space, 1)
    if not len(lt.problem):
        left = len(lt.remarks)
        why = f" ({left} left unplanned: memopt-opt --plan-memory says why)" if left else ""
        raise MemoptError(f"'@{name}' has no buffer memopt can trace in memory space {space} (static memref.alloc/"
                          f"alloca){why}: nothing to replay", f)
    return UpstreamAllocations(serial_problem(f, lt.allocs, lt.problem), lt.problem, None)


def _arena(plan: Plan[Operation], space: int) -> ArenaPlan | None:
    return next((a for a in plan.arenas if a.space == space), None)


def serial_problem(f: func.FuncOp, owners: list[Operation], problem: Problem) -> Problem:
    """``problem``'s buffers (defined by ``owners``, in order: allocs, arena views, or calls
    whose callee's arena they are) re-timed in the serial numbering of ``f``."""
    num = serial_numbering(f.body.blocks[0])
    tracer = BufferTracer(f, call_scratch, num)
    buffers = []
    for op, b in zip(owners, problem.buffers):
        start = num.begin[op]
        if isinstance(op, func.CallOp):  # a callee's arena: live for the call
            buffers.append(replace(b, start=start, end=start + 1, path=()))
            continue
        start, stop = tracer.trace(op).interval(num)  # double buffered: both live over the loop
        buffers.append(replace(b, start=start, end=stop, path=()))
    return Problem.of(buffers)


__all__ = ["UpstreamAllocations", "serial_problem", "upstream_allocations"]
