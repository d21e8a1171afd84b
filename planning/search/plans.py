"""Small facts about plans that every part of the search uses: a plan's height and the cheap
seed plan."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..firstfit import first_fit
from ..problem import Problem


def height(problem: Problem, offsets: Sequence[int]) -> int:
    """The top of the highest buffer of a plan (0 for no buffers)."""
    if not len(offsets):
        return 0
    return int((np.asarray(offsets, np.int64) + problem.sizes).max())


def large_first(problem: Problem) -> list[int]:
    """First fit in size-descending order (ties by start): the search's cheap seed plan."""
    bufs = problem.buffers
    return first_fit(problem, sorted(range(len(bufs)), key=lambda i: (-bufs[i].size, bufs[i].start, i)))
