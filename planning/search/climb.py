"""Hill climbing over the first-fit order (Arm Vela's ``HillClimb`` allocator, TelaMalloc-style
order search): a buffer that reaches the peak (or one live with it) moves earlier in the order,
first fit re-plans, and the change is kept when the height does not grow.

Why: the fallback for traces too large or too irregular for the exact search, and a cheap polish
of a plan (:func:`climb`). A first-fit evaluation counts ``len(problem) / 32`` work units.
"""

from __future__ import annotations

import random
from typing import Sequence

import numpy as np

from ..firstfit import first_fit
from ..problem import Problem
from .plans import height
from .work import Stop, Work


def order_of(problem: Problem, offsets: Sequence[int]) -> list[int]:
    """An order under which first fit reproduces a plan at least as low: bottom-up by offset."""
    return sorted(range(len(problem)), key=lambda i: (offsets[i], -problem.buffers[i].size, i))


def hill_climb(problem: Problem, order: list[int], target: int, rng: random.Random,
               work: Work) -> tuple[list[int], list[int], int]:
    """Move peak buffers earlier in the order while first fit's height does not grow:
    ``(best order, its offsets, its height)``, until ``target`` or the work runs out."""
    sizes = problem.sizes
    starts, ends = problem.starts, problem.ends
    cost = max(1, len(problem) // 32)
    offsets = first_fit(problem, order)
    h = height(problem, offsets)
    best_order, best_offsets = list(order), offsets
    best_h = h
    cur = list(order)
    pos_of = {b: p for p, b in enumerate(cur)}
    while best_h > target and work.spend(cost):
        tops = np.asarray(offsets, np.int64) + sizes
        at_peak = np.flatnonzero(tops == int(tops.max()))
        i = int(at_peak[rng.randrange(len(at_peak))])
        if rng.random() < 0.3:
            # Also consider a buffer live with the peak buffer (moving it can free space below).
            live = np.flatnonzero((starts < ends[i]) & (starts[i] < ends) & (sizes > 0))
            i = int(live[rng.randrange(len(live))])
        p = pos_of[i]
        if p == 0:
            continue
        q = rng.randrange(p)
        cand = cur[:q] + [i] + cur[q:p] + cur[p + 1:]
        cand_offsets = first_fit(problem, cand)
        ch = height(problem, cand_offsets)
        if ch <= h:
            cur, offsets, h = cand, cand_offsets, ch
            for r in range(q, p + 1):
                pos_of[cur[r]] = r
            if h < best_h:
                best_h, best_order, best_offsets = h, list(cur), offsets
    return best_order, best_offsets, best_h


def climb(problem: Problem, offsets: Sequence[int], target: int, evaluations: int,
          seed: int = 0, stop: Stop | None = None) -> tuple[list[int], int]:
    """A short, deterministic hill climb from a plan: at most ``evaluations`` first-fit runs.

    The cheap half of the search for callers that want a polish rather than a search
    (``plan_joint`` uses it when the greedy plans miss ``LB_nest``): starting from the order that
    reproduces ``offsets`` bottom-up, peak buffers move earlier while the height does not grow.
    Counted work only (no clock), so the result depends on the inputs and ``seed`` alone
    (``stop`` abandons it: the result is then only some plan no higher than the input).
    Returns ``(offsets, height)``, never higher than the input plan.
    """
    h0 = height(problem, offsets)
    if not len(problem) or h0 <= target or evaluations <= 0:
        return list(offsets), h0
    cost = max(1, len(problem) // 32)
    work = Work(evaluations * cost, float("inf"), stop)
    _, offs, h = hill_climb(problem, order_of(problem, offsets), target, random.Random(seed), work)
    return (list(offs), h) if h < h0 else (list(offsets), h0)
