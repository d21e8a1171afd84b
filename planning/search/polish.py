"""Short branch-and-bound runs for callers that want a polish rather than a search: what ``best``
runs on small problems (:func:`exact_polish`) and at the lower bound of long traces
(:func:`descent`). Counted work only (the clock is never consulted), so results depend on the
inputs alone; no CP-SAT (its start-up alone would exceed such a budget)."""

from __future__ import annotations

from typing import Sequence

from ..bounds import lower_bound
from ..problem import Problem
from ..stacking import stacked_first
from ..validate import find_conflicts
from .bnb import OK
from .partitions import PartCache, try_cap
from .plans import height, large_first
from .sections import HEURISTICS, Structure
from .views import stacked_view
from .work import Stop, Work

EXACT_MAX = 500
"""Problems up to this many buffers (and without branches) are polished by a short branch and
bound (:func:`exact_polish`) rather than the hill climb (``best``'s polish, and ``search`` before
its climb)."""

EXACT_NODES = 5_000
"""Node budget of that branch and bound: about 0.5 s on minimalloc's 150-450-buffer instances."""

POLISH_RUN = 2
"""Node limit of one polish run, in multiples of the buffer count (see :func:`exact_polish`)."""


def exact_polish(problem: Problem, offsets: Sequence[int], nodes: int,
                 stop: Stop | None = None) -> tuple[list[int], int]:
    """A short branch and bound below a plan: a binary search over heights between the lower
    bound and the plan's, each probe one run per MiniMalloc preorder with :data:`POLISH_RUN`
    times the buffer count in nodes, at most ``nodes`` nodes in all. Returns ``(offsets,
    height)``, never higher than the input plan (``stop`` abandons the work: the result is then
    only some plan no higher than the input).

    Why this schedule rather than the search's rounds: those open with a probe at the lower
    bound — the hardest height — and jittered runs, which a few thousand nodes cannot afford;
    probing halfway, with runs long enough for some backtracking, ends lower within the same
    nodes.

    With a stacked view (``stacking.py``, as the search uses it) half the nodes go to its
    blocks, from large-first's plan of them and below the height the first half reached.
    """
    stacked = stacked_view(problem)
    if stacked is None:
        return _polish(problem, offsets, nodes, stop=stop)
    offsets, h = _polish(problem, offsets, nodes // 2, stop=stop)
    blocks, bh = _polish(stacked.problem, large_first(stacked.problem), nodes - nodes // 2, below=h, stop=stop)
    if bh < h:
        expanded = stacked.expand(blocks)
        if not find_conflicts(problem, expanded):  # planners are never trusted
            return expanded, bh
    return offsets, h


def _polish(problem: Problem, offsets: Sequence[int], nodes: int,
            below: int | None = None, stop: Stop | None = None) -> tuple[list[int], int]:
    """:func:`exact_polish` on one view: the binary search below the plan's height (or below
    ``below``, when lower), returning the plan itself when nothing lower is found."""
    h0 = height(problem, offsets)
    best, best_offsets = h0, list(offsets)
    st = Structure(problem)
    if st.m == 0 or nodes <= 0:
        return best_offsets, best
    ceiling = best if below is None else min(best, below)
    ranks = [st.preorder(h) for h in HEURISTICS]
    cache = PartCache(st)
    work = Work(nodes, float("inf"), stop)
    lo = lower_bound(problem)
    limit = max(64, POLISH_RUN * st.m)
    while work.left > 0 and lo < ceiling:
        cap = lo + (ceiling - 1 - lo) // 2
        status, sol = try_cap(st, cap, [(r, limit) for r in ranks], work, cache)
        if status != OK:
            lo = cap + 1
            continue
        assert sol is not None  # OK comes with the offsets
        offs = st.expand(sol)
        h = height(problem, offs)
        if h >= ceiling or find_conflicts(problem, offs):  # planners are never trusted
            break
        best, best_offsets, ceiling = h, offs, h
    return best_offsets, best


def descent(problem: Problem, cap: int, stop: Stop | None = None) -> list[int] | None:
    """The branch and bound's first descent at ``cap``: one run in the ``WAT`` preorder with
    about one node per buffer (a little backtracking at most), on the stacked view first when
    there is one, then on the buffers themselves. Offsets of a plan under ``cap``, or None.

    Why: on real training traces (MindSpore's SOMAS dumps of ResNet-50 and TinyBERT) the greedy
    orders stay just above the lower bound, and this descent — canonical placements, the lowest
    first, steered by the section floors — reaches the bound without backtracking. Its structure
    holds every pair of buffers live together, so ``best`` runs it only up to
    :data:`memopt.planning.strategies.DESCENT_MAX` buffers."""
    for view, stacking in stacked_first(problem, stacked_view(problem)):
        st = Structure(view)
        if st.m == 0:
            return [0] * len(problem)
        limit = st.m + st.m // 8
        work = Work(limit, float("inf"), stop)
        status, sol = try_cap(st, cap, [(st.preorder("WAT"), limit)], work, PartCache(st))
        if status == OK:
            assert sol is not None  # OK comes with the offsets
            offsets = st.expand(sol)
            offsets = stacking.expand(offsets) if stacking is not None else offsets
            if not find_conflicts(problem, offsets):  # planners are never trusted
                return offsets
    return None
