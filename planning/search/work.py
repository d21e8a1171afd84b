"""Work accounting for the search: a cap on counted work, the wall clock only a hard stop.

Why count work rather than time: every decision of the search then depends on the problem, the
seed and the work done, so a search that ends by its work cap gives the same plan on every run of
a machine fast enough to do that work within the budget. Only when the clock (or a ``Stop``) cuts
the search short can two runs differ.
"""

from __future__ import annotations

import time
from typing import Callable

NODES_PER_SECOND = 4_000
"""Work units the budget buys per second (one unit is a branch-and-bound node): a conservative
estimate of the branch and bound's speed with CP-SAT busy in the second thread, so that on such a
machine the work cap, not the clock, ends the search and the result is deterministic."""

Stop = Callable[[], bool]
"""Asked now and then during counted work: True abandons the work (its result is then unused)."""


class Work:
    """Counts work against a cap and a wall-clock deadline (the deadline is a hard stop only);
    ``stop``, when given, is asked at the same points as the clock."""

    def __init__(self, cap: int, deadline: float, stop: Stop | None = None) -> None:
        self.cap = cap
        self.used = 0
        self.deadline = deadline
        self.stop = stop
        self._next_clock = 0

    def spend(self, units: int = 1) -> bool:
        """Record work; False once the cap or the deadline is reached, or ``stop`` says so."""
        self.used += units
        if self.used >= self.cap:
            return False
        if self.used >= self._next_clock:
            self._next_clock = self.used + 256
            if time.perf_counter() >= self.deadline or (self.stop is not None and self.stop()):
                self.cap = self.used  # stay exhausted
                return False
        return True

    def charge(self, units: int) -> None:
        """Account for work done by a sub-budget (and notice a passed deadline or a stop)."""
        self.used += units
        if time.perf_counter() >= self.deadline or (self.stop is not None and self.stop()):
            self.cap = min(self.cap, self.used)

    @property
    def left(self) -> int:
        return max(0, self.cap - self.used)
