"""``verify-plan``: re-check a planned module and fail on any overlap.

Lifetimes are recomputed from the IR with exact control-flow semantics (branches of an ``if``
are exclusive, values read inside a region live until the region op ends, in-place writes are
accepted only where the ``inplace`` hint allows them), offsets are read back from the plan
attributes, and the core validator checks that no two buffers that can be live at the same time
overlap and that everything fits in the recorded arena size. It trusts nothing the planner
wrote: corrupted or hand-edited attributes are reported at the op that carries them.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass

from memopt.diagnostics import MemoptError
from memopt.passes.lifetime import analyze_function, planned_functions, value_location_op
from memopt.passes.plan_io import read_plan
from memopt.planning import find_conflicts


@dataclass(frozen=True)
class VerifyPlanPass(ModulePass):
    name = "verify-plan"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for f in planned_functions(op):
            lt = analyze_function(f, mode="joint", inplace=True, alignment=1)
            offsets, arena_size, _ = read_plan(lt)
            conflicts = find_conflicts(lt.problem, offsets, limit=1)
            if conflicts:
                c = conflicts[0]
                ids = [b.id for b in lt.problem.buffers]
                culprit = lt.owner[ids.index(c.b)]
                raise MemoptError(f"invalid plan: {c.message}", value_location_op(culprit))
            for b, off, owner in zip(lt.problem.buffers, offsets, lt.owner):
                if off + b.size > arena_size:
                    raise MemoptError(
                        f"invalid plan: buffer '{b.id}' [{off}, {off + b.size}) exceeds the arena size {arena_size}",
                        value_location_op(owner),
                    )
