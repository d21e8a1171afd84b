"""Rematerialization of one function to a budget: the core the ``rematerialize`` pass
(:mod:`memopt.passes.rematerialize`) and ``plan-memory{spill=auto}``
(:mod:`memopt.passes.fit_capacity`) both drive, so neither pass reaches into the other.

Tracer → planner → mutator on a copy of the function:

* **tracer** (:func:`~memopt.passes.remat_trace.remat_graph`): the top block as an IR-free
  :class:`~memopt.planning.remat.RematGraph`;
* **planner**: :func:`~memopt.planning.remat.rematerialize` with the chosen heuristic, or
  Checkmate's optimum (:func:`~memopt.planning.remat_optimal.optimal`);
* **mutator** (:func:`~memopt.passes.remat_rewrite.rewrite`): the block re-emitted in the new
  schedule.

Budget and packing: the planner bounds the live bytes of the rewritten function, but the arena
``plan-memory`` packs can be above that bound. :func:`rematerialize_function` measures it (the
default strategy on the rewritten function) and, while it is over the budget, rewrites again
aiming lower by the excess — bisecting between targets that packed over and targets remat could
not meet — at most :data:`ROUNDS` times, so that the budget is the arena's. A budget below what
any remat can reach is a located one-line error naming the smallest budget known to work.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func

from memopt.diagnostics import MemoptError
from memopt.passes.lifetime import take_body
from memopt.passes.plan_function import plan_function_memory
from memopt.passes.remat_rewrite import rewrite
from memopt.passes.remat_trace import remat_graph
from memopt.planning import make_strategy
from memopt.planning.remat import HEURISTICS, RematError, RematGraph, RematResult, rematerialize, smallest_budget
from memopt.planning.remat_optimal import optimal

MODES = HEURISTICS + ("optimal",)
"""The ``heuristic`` values: the rules, and Checkmate's integer program solved by CP-SAT."""
ROUNDS = 6
"""At most this many rewrites are packed before the best one is kept."""


def _schedule(graph: RematGraph, budget: int, heuristic: str, min_size: int) -> RematResult:
    """The planner the option names: a rule of :mod:`memopt.planning.remat`, or the optimum."""
    if heuristic == "optimal":
        return optimal(graph, budget, min_size=min_size)
    return rematerialize(graph, budget, heuristic, min_size)


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
    strategy) packs it into is at most ``budget`` bytes (see the module docstring). Returns the
    planner's result of the rewrite kept, or None when ``f`` fits as it is (left untouched). A
    budget no rewrite meets is a located :class:`MemoptError` naming the smallest budget known to
    work. Writes nothing: remarks are the caller's."""
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


__all__ = ["MODES", "ROUNDS", "rematerialize_function"]
