"""The LUNA paper's Algorithm 1: place buffers one by one at the lowest conflict-free offset.

Given an order, each buffer goes to the lowest (aligned) offset whose address range misses every
already-placed buffer that is live at the same time (and not in an exclusive branch). The order
is what distinguishes the strategies.

Finding the placed buffers that overlap a lifetime is the hot spot. Time is compressed to the
distinct interval endpoints and cut into fixed-width *time blocks*; every placed buffer is
registered in the blocks its interval touches. A query reads only the blocks of its own
interval, so the work per buffer is proportional to the buffers live around it, not to ``n``:
the whole run is about ``n log n`` for graphs whose live set stays bounded, as neural networks'
does. (Long-lived buffers are registered once per block, which is cheap at block width 8.)
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .problem import Problem, exclusive

BLOCK_WIDTH = 8


def first_fit(problem: Problem, order: Sequence[int]) -> list[int]:
    """Offsets (in problem order) from placing buffers in ``order`` at the lowest free offset."""
    n = len(problem)
    offsets = [0] * n
    if n == 0:
        return offsets
    times = np.unique(np.concatenate([problem.starts, problem.ends]))
    cs = np.searchsorted(times, problem.starts).tolist()
    ce = np.searchsorted(times, problem.ends).tolist()
    starts = problem.starts.tolist()
    ends = problem.ends.tolist()
    sizes = problem.sizes.tolist()
    aligns = problem.alignments.tolist()
    paths = [b.path for b in problem.buffers] if problem.has_control_flow else None
    blocks: list[list[int]] = [[] for _ in range(len(times) // BLOCK_WIDTH + 1)]
    stamp = [-1] * n
    for i in order:
        size = sizes[i]
        if size == 0:
            continue
        s, e = starts[i], ends[i]
        b0, b1 = cs[i] // BLOCK_WIDTH, (ce[i] - 1) // BLOCK_WIDTH
        taken = []
        for blk in range(b0, b1 + 1):
            for j in blocks[blk]:
                if stamp[j] != i:
                    stamp[j] = i
                    if starts[j] < e and s < ends[j]:
                        if paths is None or not exclusive(paths[i], paths[j]):
                            taken.append((offsets[j], offsets[j] + sizes[j]))
        a = aligns[i]
        x = 0
        if taken:
            taken.sort()
            for lo, hi in taken:
                xa = -(-x // a) * a if a > 1 else x
                if xa + size <= lo:
                    break
                if hi > x:
                    x = hi
        offsets[i] = -(-x // a) * a if a > 1 else x
        for blk in range(b0, b1 + 1):
            blocks[blk].append(i)
    return offsets
