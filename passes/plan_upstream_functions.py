"""``plan-memory`` on bufferized upstream functions: tracer → planner → mutator, per function
and memory space (:mod:`memopt.passes.plan_memory` is the pass over it).

Each function's allocations in one memory space (``memref<..., N>``, the default space's first)
are traced into one problem (:func:`~memopt.passes.upstream_lifetime.analyze_upstream`), planned
with the pass's strategy and validated (planners are never trusted), then rewritten as views of
one arena (:func:`~memopt.passes.upstream_plan.write_upstream_plan`; other spaces by
:func:`~memopt.passes.upstream_plan.write_space_plan`). Callees are planned before their callers:
a callee's arena is an argument its callers pass a slice of their own arena for
(:mod:`memopt.passes.upstream_calls`). A function planned before (``memopt.arena_size``) is left
as it is, so planning is idempotent.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.dialects import func

from memopt.diagnostics import MemoptError, where
from memopt.passes.upstream_calls import called, callees_first
from memopt.passes.upstream_lifetime import UpstreamLifetimes, analyze_upstream, memory_spaces
from memopt.passes.upstream_plan import write_space_plan, write_upstream_plan
from memopt.passes.upstream_plan_io import arena_arg_index, call_scratch, is_planned
from memopt.planning import PlanningError, Solution, Strategy, lower_bound, validate


@dataclass(frozen=True)
class UpstreamPlanner:
    """The ``plan-memory`` options upstream planning takes: the strategy made, the offsets'
    alignment, the on-chip capacity (None: unlimited), where an uncalled function's arena lives
    (``arena``: ``alloc`` or ``arg``) and the on-chip memory's name for the export rows."""

    strategy: Strategy
    alignment: int
    capacity: int | None
    arena: str
    onchip_name: str

    def plan_functions(self, funcs: list[func.FuncOp], prefixed: bool) -> list[tuple]:
        """Plan ``funcs``, callees before callers (a called function's arena is its last
        argument); the export rows of every buffer, named ``<function>::<buffer>`` when
        ``prefixed``."""
        inner = called(funcs)
        rows: list[tuple] = []
        for f in callees_first(funcs):
            name = f.sym_name.data
            mode = "arg" if name in inner else self.arena
            rows += self._plan_function(f, prefix=f"{name}::" if prefixed else "", arena_mode=mode)
            if name in inner and arena_arg_index(f) is not None:
                sys.stderr.write(f"plan-memory: remark: {where(f)}'@{name}' is called by planned functions: its "
                                 f"arena is now its last argument (memopt.arena_arg), which every caller passes\n")
        return rows

    def _plan_function(self, f: func.FuncOp, prefix: str, arena_mode: str) -> list[tuple]:
        """One arena per memory space of ``f`` (none when it is planned already); its export rows."""
        if is_planned(f):
            return []
        rows: list[tuple] = []
        for space in memory_spaces(f):
            rows += self._plan_space(f, space, prefix, arena_mode)
        return rows

    def _plan_space(self, f: func.FuncOp, space: int, prefix: str, arena_mode: str) -> list[tuple]:
        """The arena of ``f``'s buffers in memory ``space``: traced, planned, validated, checked
        against the capacity (on chip, space 0) and written; its export rows."""
        lt = analyze_upstream(f, call_scratch, space, self.alignment)
        for alloc, why in lt.remarks:
            sys.stderr.write(f"plan-memory: remark: {where(alloc)}'{alloc.name}' in '@{f.sym_name.data}' {why}\n")
        problem = lt.problem
        solution = self._validated(f, lt)
        lb = lower_bound(problem)
        if space == 0:
            if self.capacity is not None and solution.height > self.capacity:
                raise MemoptError(
                    f"arena of '@{f.sym_name.data}' needs {solution.height} bytes, over capacity {self.capacity} "
                    f"(lower bound {lb})", f
                )
            write_upstream_plan(lt, solution, lb, self.alignment, arena_mode)
        else:
            write_space_plan(lt, solution, space)
        memory = self.onchip_name if space == 0 else f"space{space}"
        return [(prefix + b.id, b.start, b.end, b.size, o, memory) for b, o in zip(problem.buffers, solution.offsets)]

    def _validated(self, f: func.FuncOp, lt: UpstreamLifetimes) -> Solution:
        """The strategy's plan of ``lt``'s problem, checked by the validator."""
        solution = self.strategy.plan(lt.problem)
        try:
            validate(lt.problem, solution)
        except PlanningError as e:
            raise MemoptError(f"internal error: strategy '{solution.strategy}' produced an invalid plan: {e}", f) from None
        return solution


__all__ = ["UpstreamPlanner"]
