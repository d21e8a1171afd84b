"""Lower bounds on the arena height.

No plan can be smaller than the largest number of bytes that are live at one moment (the
*max-live* bound, LB). With control flow only one branch of each ``if`` runs, so the bound is
taken per execution path: at every time step, each ``if`` contributes its heaviest branch
(``LB_nest``). Without branch paths both definitions coincide.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from .problem import Path, Problem


def live_profile(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(times, live_bytes)``: bytes live on each compressed step, ignoring branches.

    ``times`` are the distinct interval endpoints; ``live_bytes[k]`` holds over
    ``[times[k], times[k+1])``.
    """
    if len(problem) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return _profile(problem.starts, problem.ends, problem.sizes)


def _profile(starts: np.ndarray, ends: np.ndarray, sizes: np.ndarray, times: np.ndarray | None = None):
    if times is None:
        times = np.unique(np.concatenate([starts, ends]))
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
    starts, ends, sizes = problem.starts, problem.ends, problem.sizes
    times = np.unique(np.concatenate([starts, ends]))
    by_path: dict[Path, list[int]] = defaultdict(list)
    for i, b in enumerate(problem.buffers):
        by_path[b.path].append(i)
    # Every prefix of a path is a node of the branch tree.
    nodes: set[Path] = set()
    for p in by_path:
        for k in range(len(p) + 1):
            nodes.add(p[:k])
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

    return int(value(()).max())
