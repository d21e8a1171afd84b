"""``rematerialize{budget=BYTES heuristic=lookahead min-size=0}``: fit a function's activations in
``budget`` bytes by computing cheap tensors again where they are needed (MegEngine's DTR, done
ahead of time).

Tracer → planner → mutator, as ``plan-memory``:

* **tracer** (:func:`~memopt.passes.remat_trace.remat_graph`): the top block of each function
  becomes an IR-free :class:`~memopt.planning.remat.RematGraph` (:mod:`memopt.passes.remat_trace`
  says what a tensor and an op are, and which ops are never recomputed);
* **planner**: :func:`~memopt.planning.remat.rematerialize` with the chosen heuristic, or
  Checkmate's optimum (:func:`~memopt.planning.remat_optimal.optimal`);
* **mutator** (:func:`~memopt.passes.remat_rewrite.rewrite`): the block is re-emitted in the new
  schedule, each recomputation a clone of its op placed right before its first reader.

Budget and packing: the budget bounds the live bytes of the rewritten function; the arena
``plan-memory`` then packs can be above that bound. The pass measures it (the default strategy on
the rewritten function) and, while it is over the budget, rewrites again aiming lower by the
excess — bisecting between targets that packed over and targets remat could not meet — at most
:data:`~memopt.passes.remat_function.ROUNDS` times, so that
``--rematerialize=budget=N --plan-memory`` fits N.
It reports ``remat: N ops cloned, +X cost (+P %), lower bound A → B`` on stderr (the bound with
in-place reuse counted, the one the plan meets); a budget below
what any remat can reach is a one-line error naming the smallest budget the heuristic meets.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.passes import ModulePass

from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import PlanAttr
from memopt.dialects.written_plan import carries_plan
from memopt.passes.lifetime import analyze_function, planned_functions
from memopt.passes.options import option
from memopt.passes.remat_function import MODES, rematerialize_function
from memopt.passes.upstream_unsupported import refuse_memref
from memopt.planning.bounds import lower_bound_inplace
from memopt.planning.remat_optimal import MAX_OPS


def _lower_bound(f: func.FuncOp) -> int:
    """The bound the plan is measured against: in-place reuse counted (``LB_inplace``), so a
    budget the arena meets is never below the bound printed beside it."""
    return lower_bound_inplace(analyze_function(f, mode="joint").problem)


def _refuse(f: func.FuncOp) -> None:
    """Functions the pass cannot rewrite truthfully, refused before any is rewritten: memref
    programs (nothing to recompute there yet) and planned functions (the rewrite would leave
    their plan stale: the clones carry copied offsets and the recorded bounds no longer hold)."""
    refuse_memref(f, "rematerialize", "rematerialization")
    if carries_plan(f):
        raise MemoptError(f"rematerialize: '@{f.sym_name.data}' is already planned ({PlanAttr.name}): run rematerialize "
                          "before plan-memory (rewriting it would leave its plan stale)", f)


@dataclass(frozen=True)
class RematerializeMemoryPass(ModulePass):
    """Fit every function's activations in ``budget`` bytes by recomputing tensors (DTR ahead of time)."""

    name = "rematerialize"

    budget: int | None = option(None, "on-chip bytes the function's arena must fit (required)", values="integer > 0")
    heuristic: str = option("lookahead", "which tensor to drop first: lookahead (memopt's, knows the future), "
                            "dtr (MegEngine's score), dtr-eq, dtr-local, lru, largest, or optimal (Checkmate's integer "
                            f"program on CP-SAT, work-limited and deterministic, graphs up to {MAX_OPS} ops)",
                            choices=MODES)
    min_size: int = option(0, "never drop a tensor smaller than this (DTR's evictee_minimum_size)",
                           values="integer >= 0")
    alignment: int = option(16, "the alignment plan-memory will use (sizes are counted rounded up to it)",
                            values="power of two >= 1")

    def validate(self) -> None:
        if self.budget is None:
            raise MemoptError("rematerialize: budget is required (on-chip bytes, e.g. budget=65536)")
        if self.budget <= 0:
            raise MemoptError(f"rematerialize: budget must be an integer > 0, got {self.budget}")
        if self.alignment < 1 or self.alignment & (self.alignment - 1):
            raise MemoptError(f"rematerialize: alignment must be a power of two >= 1, got {self.alignment}")
        if self.min_size < 0:
            raise MemoptError(f"rematerialize: min-size must be an integer >= 0, got {self.min_size}")

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        self.validate()
        assert self.budget is not None
        funcs = planned_functions(op)
        for f in funcs:
            _refuse(f)
        for f in funcs:
            self._function(f)

    def _function(self, f: func.FuncOp) -> None:
        """The driver over :func:`rematerialize_function`, with the pass's one-line remark."""
        budget = self.budget
        assert budget is not None
        before = _lower_bound(f)
        name = f.sym_name.data
        result = rematerialize_function(f, budget, heuristic=self.heuristic, min_size=self.min_size,
                                        alignment=self.alignment)
        if result is None:
            sys.stderr.write(f"remat: @{name}: 0 ops cloned, +0 cost (+0.0 %), lower bound {before} → {before} "
                             f"(fits budget {budget} as it is)\n")
            return
        after = _lower_bound(f)
        pct = 100.0 * result.extra_cost / result.base_cost if result.base_cost else 0.0
        sys.stderr.write(
            f"remat: @{name}: {result.cloned} ops cloned, +{result.extra_cost:g} cost (+{pct:.1f} %), "
            f"lower bound {before} → {after}\n"
        )


__all__ = ["RematerializeMemoryPass"]
