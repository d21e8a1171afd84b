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
:data:`ROUNDS` times, so that ``--rematerialize=budget=N --plan-memory`` fits N.
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
from memopt.passes.lifetime import analyze_function, planned_functions, take_body
from memopt.passes.options import option
from memopt.passes.plan_function import plan_function_memory
from memopt.passes.remat_rewrite import rewrite
from memopt.passes.remat_trace import remat_graph
from memopt.passes.upstream_unsupported import refuse_memref
from memopt.planning import make_strategy
from memopt.planning.bounds import lower_bound_inplace
from memopt.planning.remat import HEURISTICS, RematError, RematGraph, RematResult, rematerialize, smallest_budget
from memopt.planning.remat_optimal import MAX_OPS, optimal

MODES = HEURISTICS + ("optimal",)
"""The pass's ``heuristic`` values: the rules, and Checkmate's integer program solved by CP-SAT."""
ROUNDS = 6
"""At most this many rewrites are packed before the pass keeps the best one."""


def _schedule(graph: RematGraph, budget: int, heuristic: str, min_size: int) -> RematResult:
    """The planner the option names: a rule of :mod:`memopt.planning.remat`, or the optimum."""
    if heuristic == "optimal":
        return optimal(graph, budget, min_size=min_size)
    return rematerialize(graph, budget, heuristic, min_size)


def _lower_bound(f: func.FuncOp) -> int:
    """The bound the plan is measured against: in-place reuse counted (``LB_inplace``), so a
    budget the arena meets is never below the bound printed beside it."""
    return lower_bound_inplace(analyze_function(f, mode="joint").problem)


def _arena(f: func.FuncOp, alignment: int) -> int:
    """The arena ``plan-memory`` (default strategy) gives ``f``."""
    return plan_function_memory(f, make_strategy("best"), alignment=alignment).solution.height


def _smallest_hint(smallest: int | None, complete: bool, as_is: int) -> str:
    """The smallest budget known to work, for a refusal: what a bisection over every heuristic's
    budgets met (``lookahead`` with its fallbacks meets it), or the function's own arena when
    that is smaller (the packing can beat the recomputation model's live bytes)."""
    if smallest is not None and smallest < as_is:
        how = ("the smallest a bisection found: recomputation is not monotone in the budget, so a smaller one may "
               "fit too" if complete else "the bisection stopped at its work limit: a smaller one may fit too")
        return f"; the smallest budget any heuristic meets is {smallest} bytes (heuristic=lookahead; {how})"
    return f"; the smallest budget known to work is {as_is} bytes, the function's arena as it is"


def _refuse(f: func.FuncOp) -> None:
    """Functions the pass cannot rewrite truthfully, refused before any is rewritten: memref
    programs (nothing to recompute there yet) and planned functions (the rewrite would leave
    their plan stale: the clones carry copied offsets and the recorded bounds no longer hold)."""
    refuse_memref(f, "rematerialize", "rematerialization")
    if carries_plan(f):
        raise MemoptError(f"rematerialize: '@{f.sym_name.data}' is already planned ({PlanAttr.name}): run rematerialize "
                          "before plan-memory (rewriting it would leave its plan stale)", f)


@dataclass
class _Targets:
    """The live-bytes targets the rewrites aim at: the budget first, then lower by each packing
    excess, bisecting between the lowest target that packed over (``too_big``) and the highest
    remat could not meet (``too_low``)."""

    target: int
    too_big: int
    too_low: int | None = None

    def unmet(self) -> bool:
        """Remat could not meet the target: aim halfway back up. False when nothing is left between."""
        self.too_low = self.target
        self.target = (self.too_low + self.too_big) // 2
        return self.target > self.too_low

    def packed_over(self, excess: int) -> bool:
        """The rewrite for the target packed ``excess`` bytes over the budget: aim lower by that.
        False when the next target would leave the range still open."""
        self.too_big = min(self.too_big, self.target)
        self.target -= excess
        if self.too_low is not None and self.target <= self.too_low:
            self.target = (self.too_low + self.too_big) // 2
        return not (self.target <= (self.too_low or 0) or self.target >= self.too_big)


def rematerialize_function(f: func.FuncOp, budget: int, *, heuristic: str = "lookahead", min_size: int = 0,
                           alignment: int = 16) -> RematResult | None:
    """Rewrite ``f`` in place, recomputing tensors, until the arena ``plan-memory`` (default
    strategy) packs it into is at most ``budget`` bytes (see the module docstring): the core the
    ``rematerialize`` pass and ``plan-memory{spill=auto}`` both drive. Returns the planner's
    result of the rewrite kept, or None when ``f`` fits as it is (left untouched). A budget no
    rewrite meets is a located :class:`MemoptError` naming the smallest budget known to work.
    Writes nothing: remarks are the caller's."""
    as_is = _arena(f, alignment)
    if as_is <= budget:
        return None
    work, arena, chosen = _best_rewrite(f, budget, as_is, heuristic, min_size, alignment)
    if arena > budget:
        raise MemoptError(
            f"rematerialize: cannot fit '@{f.sym_name.data}' in {budget} bytes: rewritten to a lower bound within it, "
            f"its arena still packs to {arena} bytes (try another heuristic)", f)
    take_body(f, work)
    return chosen


def _best_rewrite(f: func.FuncOp, budget: int, as_is: int, heuristic: str, min_size: int,
                  alignment: int) -> tuple[func.FuncOp, int, RematResult]:
    """Rewrites of a copy of ``f``, one per target (at most :data:`ROUNDS`), until one packs
    within ``budget``: that one, else the one that packs smallest, with its arena and the
    planner's result. A budget remat cannot meet at all is refused at once."""
    pristine = f.clone()
    aim = _Targets(budget, budget + 1)
    kept: tuple[func.FuncOp, int, RematResult] | None = None
    for round_ in range(ROUNDS):
        traced = remat_graph(pristine, alignment)
        try:
            result = _schedule(traced.graph, aim.target, heuristic, min_size)
        except RematError as e:
            if round_ == 0:
                raise _cannot_fit(f, budget, e, traced.graph, min_size, as_is) from None
            if not aim.unmet():
                break
            continue
        candidate = pristine.clone()
        rewrite(candidate, remat_graph(candidate, alignment), result.schedule, result.clone)
        packed = _arena(candidate, alignment)
        if kept is None or packed <= budget or packed < kept[1]:
            kept = (candidate, packed, result)
        if packed <= budget or not aim.packed_over(packed - budget):
            break
    assert kept is not None
    return kept


def _cannot_fit(f: func.FuncOp, budget: int, error: RematError, graph: RematGraph, min_size: int,
                as_is: int) -> MemoptError:
    """The refusal of a budget the planner cannot meet on ``f`` as it is, naming the smallest
    budget known to work."""
    try:
        smallest, complete = smallest_budget(graph, None, min_size)
    except RematError:
        smallest, complete = None, False
    hint = _smallest_hint(smallest, complete, as_is)
    return MemoptError(f"rematerialize: cannot fit '@{f.sym_name.data}' in {budget} bytes: {error}{hint}", f)


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


__all__ = ["MODES", "ROUNDS", "RematerializeMemoryPass", "rematerialize_function"]
