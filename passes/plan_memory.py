"""``plan-memory``: give every on-chip tensor an offset in one arena per function.

A thin shell over the IR-free core: lifetime analysis builds a :class:`~memopt.planning.Problem`,
the chosen strategy plans it, the validator checks it (planners are never trusted), and the plan
is written back as attributes (see :mod:`memopt.passes.plan_io`). With ``export`` the plan is
also written as minimalloc-style CSV (``id,lower,upper,size,offset``, ids = tensor names), so
outside tools can check it.

Options:
  strategy      registered strategy name or ``best`` (default: run them all, keep the smallest)
  alignment     byte alignment of every offset (default 16, as TFLite Micro)
  inplace       let ops with an ``inplace`` hint overwrite an input that dies there (default true)
  control-flow  how ``if`` branches are numbered: serial | flat | joint (default serial)
  capacity      fail when an arena exceeds this many bytes (default: unlimited)
  budget        seconds for anytime strategies (``search``; admits them into ``best``)
  export        path of a CSV file to write the plan to
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass

from memopt.diagnostics import MemoptError
from memopt.passes.lifetime import CONTROL_FLOW_MODES, FunctionLifetimes, analyze_function, planned_functions
from memopt.passes.plan_io import write_plan
from memopt.planning import PlanningError, Solution, lower_bound, make_strategy, validate
from memopt.planning.csvio import write_rows


def check_options(strategy: str, alignment: int, control_flow: str, capacity: int | None, budget: float | None) -> None:
    """Reject bad option values with one-line messages (before touching the IR)."""
    try:
        make_strategy(strategy, **({"budget": budget} if budget is not None and strategy in ("best", "search") else {}))
    except PlanningError as e:
        raise MemoptError(f"plan-memory: {e}") from None
    if alignment < 1 or alignment & (alignment - 1):
        raise MemoptError(f"plan-memory: alignment must be a power of two >= 1, got {alignment}")
    if control_flow not in CONTROL_FLOW_MODES:
        raise MemoptError(
            f"plan-memory: unknown control-flow mode '{control_flow}' (expected one of: {', '.join(CONTROL_FLOW_MODES)})"
        )
    if capacity is not None and capacity < 0:
        raise MemoptError(f"plan-memory: capacity must be >= 0, got {capacity}")
    if budget is not None and budget <= 0:
        raise MemoptError(f"plan-memory: budget must be > 0 seconds, got {budget}")


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """Plan the arena of every function (see module docstring)."""

    name = "plan-memory"

    strategy: str = "best"
    alignment: int = 16
    inplace: bool = True
    control_flow: str = "serial"
    capacity: int | None = None
    budget: float | None = None
    export: str | None = None

    def plan_function(self, lt: FunctionLifetimes) -> Solution:
        kwargs = {"budget": self.budget} if self.budget is not None and self.strategy in ("best", "search") else {}
        solution = make_strategy(self.strategy, **kwargs).plan(lt.problem)
        try:
            validate(lt.problem, solution)
        except PlanningError as e:
            raise MemoptError(f"internal error: strategy '{solution.strategy}' produced an invalid plan: {e}", lt.func) from None
        return solution

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        check_options(self.strategy, self.alignment, self.control_flow, self.capacity, self.budget)
        rows = []
        funcs = planned_functions(op)
        for f in funcs:
            lt = analyze_function(f, mode=self.control_flow, inplace=self.inplace, alignment=self.alignment)
            solution = self.plan_function(lt)
            lb = lower_bound(lt.problem)
            if self.capacity is not None and solution.height > self.capacity:
                raise MemoptError(
                    f"arena of '@{f.sym_name.data}' needs {solution.height} bytes, over capacity "
                    f"{self.capacity} (lower bound {lb})", f,
                )
            write_plan(lt, solution, lb)
            prefix = f"{f.sym_name.data}::" if len(funcs) > 1 else ""
            rows += [
                (prefix + b.id, b.start, b.end, b.size, off)
                for b, off in zip(lt.problem.buffers, solution.offsets)
            ]
        if self.export:
            try:
                with open(self.export, "w", encoding="utf-8") as out:
                    out.write(write_rows(rows))
            except OSError as e:
                raise MemoptError(f"plan-memory: cannot write export file '{self.export}': {e.strerror}") from None
