"""Lower bounds on the arena height.

No plan can be smaller than the largest number of bytes that are live at one moment (the
*max-live* bound, LB). With control flow only one branch of each ``if`` runs, so the bound is
taken per execution path: at every time step, each ``if`` contributes its heaviest branch
(``LB_nest``). Without branch paths both definitions coincide.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from .inplace import fold_overwrites
from .problem import Path, Problem, exclusive


def live_profile(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(times, live_bytes)``: bytes live on each compressed step, ignoring branches.

    ``times`` are the distinct interval endpoints; ``live_bytes[k]`` holds over
    ``[times[k], times[k+1])``.
    """
    if len(problem) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return _profile(problem.starts, problem.ends, problem.sizes)


def distinct_times(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The distinct interval endpoints, sorted: ``np.unique`` without its import of ``numpy.ma``,
    which every tool would pay at start-up."""
    times = np.sort(np.concatenate([starts, ends]))
    if len(times) < 2:
        return times
    return times[np.concatenate(([True], times[1:] != times[:-1]))]


def _profile(starts: np.ndarray, ends: np.ndarray, sizes: np.ndarray,
             times: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    if times is None:
        times = distinct_times(starts, ends)
    delta = np.zeros(len(times) + 1, np.int64)
    np.add.at(delta, np.searchsorted(times, starts), sizes)
    np.add.at(delta, np.searchsorted(times, ends), -sizes)
    return times, np.cumsum(delta)[:-1]


def max_live(problem: Problem) -> int:
    """Max-live lower bound with every buffer counted (branch-oblivious)."""
    _, live = live_profile(problem)
    return int(live.max()) if len(live) else 0


def lower_bound(problem: Problem) -> int:
    """The tightest bound this module knows: ``LB_nest`` (equal to ``max_live`` without branches)."""
    if not problem.has_control_flow:
        return max_live(problem)
    return nested_lower_bound(problem)


def nested_lower_bound(problem: Problem) -> int:
    """Max over execution paths of live bytes: each ``if`` counts only its heaviest branch."""
    if len(problem) == 0:
        return 0
    return _nested_max(problem.starts, problem.ends, problem.sizes, [b.path for b in problem.buffers])


def nested_live_profile(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(times, live_bytes)`` like :func:`live_profile`, but per execution path: at every
    step each ``if`` counts only its heaviest branch (the curve whose maximum is ``LB_nest``)."""
    if len(problem) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return _nested_curve(problem.starts, problem.ends, problem.sizes, [b.path for b in problem.buffers])


def _nested_max(starts: np.ndarray, ends: np.ndarray, sizes: np.ndarray, paths: list[Path]) -> int:
    """``nested_lower_bound`` of the terms ``(start, end, size, path)`` (sizes may be negative)."""
    return int(_nested_curve(starts, ends, sizes, paths)[1].max())


def _nested_curve(starts: np.ndarray, ends: np.ndarray, sizes: np.ndarray,
                  paths: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    times = distinct_times(starts, ends)
    by_path: dict[Path, list[int]] = defaultdict(list)
    for i, p in enumerate(paths):
        by_path[p].append(i)
    # Every prefix of a path is a node of the branch tree (added from the path up to the first
    # prefix already known: linear in the tree's size however deep it nests).
    nodes: set[Path] = {()}
    for p in by_path:
        while p not in nodes:
            nodes.add(p)
            p = p[:-1]
    children: dict[Path, dict[int, list[Path]]] = defaultdict(lambda: defaultdict(list))
    for p in nodes:
        if p:
            children[p[:-1]][p[-1][0]].append(p)

    def value(node: Path) -> np.ndarray:
        own = by_path.get(node)
        if own:
            idx = np.asarray(own)
            total = _profile(starts[idx], ends[idx], sizes[idx], times)[1]
        else:
            total = np.zeros(len(times), np.int64)
        for if_id in sorted(children[node]):
            branches = [value(c) for c in sorted(children[node][if_id])]
            total = total + np.maximum.reduce(branches)
        return total

    return times, value(())


def lower_bound_inplace(problem: Problem) -> int:
    """A lower bound that stays valid when the overwrites of ``problem`` are used (``LB_inplace``).

    Only the pairs of ``problem.overwrites`` may share addresses, and a pair shares at most the
    child's bytes, so at every moment the occupied bytes are at least the live bytes minus, for
    each overwrite pair live at that moment, the child's size (Bonferroni: ``|A ∪ B ∪ ...| >=
    sum |A| - sum |A ∩ B|``). The bound is that quantity's maximum over time (per execution path
    with control flow, as :func:`lower_bound`). Without overwrites it equals :func:`lower_bound`.

    This is deliberately *not* the max-live of the folded problem
    (:func:`memopt.planning.inplace.fold_overwrites`): folding keeps a whole chain's extent
    reserved over the chain's lifetime, which a simulating planner (``megengine``'s
    ``alloc_overwrite`` releases the parent's bytes around the child) can beat, so that figure
    is an upper-ish reference, not a bound (:func:`folded_max_live` gives it).
    """
    _, live = inplace_live_profile(problem)
    return max(0, int(live.max())) if len(live) else 0


def inplace_live_profile(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(times, bytes)``: the per-path live bytes minus, for each overwrite pair live at
    once, the bytes the pair can share — the curve whose maximum is :func:`lower_bound_inplace`
    (what a plan that uses every in-place permission must at least occupy at each step)."""
    if not problem.overwrites:
        return nested_live_profile(problem)
    bufs = problem.buffers
    seen: set[tuple[int, int]] = set()
    extra_s, extra_e, extra_z, extra_p = [], [], [], []
    for w in problem.overwrites:
        key = (min(w.child, w.parent), max(w.child, w.parent))
        if key in seen:
            continue
        seen.add(key)
        c, p = bufs[w.child], bufs[w.parent]
        s, e = max(c.start, p.start), min(c.end, p.end)
        if s >= e or c.size == 0 or exclusive(c.path, p.path):
            continue
        extra_s.append(s)
        extra_e.append(e)
        extra_z.append(-min(c.size, p.size))
        # The pair overlaps only where both run: on the deeper of the two paths.
        extra_p.append(c.path if len(c.path) >= len(p.path) else p.path)
    if not extra_s:
        return nested_live_profile(problem)
    starts = np.concatenate([problem.starts, np.asarray(extra_s, np.int64)])
    ends = np.concatenate([problem.ends, np.asarray(extra_e, np.int64)])
    sizes = np.concatenate([problem.sizes, np.asarray(extra_z, np.int64)])
    paths = [b.path for b in bufs] + extra_p
    if not problem.has_control_flow:
        return _profile(starts, ends, sizes)
    return _nested_curve(starts, ends, sizes, paths)


def folded_max_live(problem: Problem) -> int:
    """Max-live of the problem with its overwrite chains folded (see ``lower_bound_inplace``)."""
    return lower_bound(fold_overwrites(problem)[0])
