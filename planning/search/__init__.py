"""``search``: an anytime planner that improves on the greedy portfolio.

Plan of work (every step keeps the best valid plan found so far, so stopping anywhere is safe;
whenever the best height reaches the target — the lower bound, or ``capacity`` — the search
stops), in ``strategy.py``:

0. Seed with large-first (cheap). With a ``capacity`` the rest of the greedy portfolio (every
   registered strategy that does not itself use a budget) runs next, since it often fits at
   once; without one it runs after step 1, and only if step 1 did not prove its plan optimal (no
   greedy plan can beat a proven optimum). The result is never worse than the portfolio.
1. **The exact search** (``rounds.py``): MiniMalloc-style branch and bound over canonical
   placements (``bnb.py``) on the static structure of sections (``sections.py``), in rounds of
   doubling node limits, one independent partition at a time (``partitions.py``), with OR-Tools'
   CP-SAT beside it (``cpsat_runs.py``) and, where it removes enough buffers, the problem's
   stacked view (``views.py``) in every other round. It gets 70 % of the budget (90 % with a
   capacity).
2. **Hill climbing over the placement order** (``climb.py``) with the rest of the budget: the
   fallback for traces too large or too irregular for the exact search. Before it, on problems
   small enough, ``best``'s own polish (``polish.py``) of the portfolio's plan, so that the search
   ends no higher than the default would.

``Problem.overwrites`` are ignored (they are permissions, not obligations).

Determinism (``work.py``): all search decisions depend only on the problem, ``seed`` and counted
work, never on the clock. The budget is turned into a work cap (``budget * NODES_PER_SECOND``
units), so on a machine that does that much work within the budget the result is the same on
every run; the wall clock is only a hard stop. Pass ``nodes=`` for an explicit work cap.
"""

from .climb import climb
from .polish import POLISH_RUN, descent, exact_polish
from .rounds import CPSAT_MIN_NODES
from .strategy import SearchStrategy
from .views import STACKED_MIN_SHARE
from .work import NODES_PER_SECOND, Stop

__all__ = [
    "CPSAT_MIN_NODES", "NODES_PER_SECOND", "POLISH_RUN", "STACKED_MIN_SHARE", "SearchStrategy", "Stop",
    "climb", "descent", "exact_polish",
]
