"""The default's exact step: CP-SAT aiming at the lower bound while the portfolio runs.

Why: the greedy portfolio leaves minimalloc-like instances (a few hundred buffers, a packing at
or near the lower bound) several percent above their best height, and its polish (a short
branch and bound, a hill climb) rarely closes that. CP-SAT's fixed search — the unplaced
buffer with the lowest possible offset goes there, in one of ``cpsat.sweep_orders`` — fits most
of them at the bound within a few dozen conflicts, most often in the stacked view
(``stacking.py``: every class of buffers sharing their whole lifetime packed as one block),
where the search need not try the interleavings of a class. So the default runs such attempts
in a background thread beside the portfolio (CP-SAT releases the GIL), one decision order at a
time, and takes the first fit: a few quick ones (:data:`QUICK`), the stacked view first (its
attempts are cheaper, fewer rectangles, and fit more often), then longer ones alternating
between the two views (:data:`CONFLICTS`, :data:`ATTEMPT`), which fit most of the generated
look-alikes the quick ones miss.

The work is limited by counts, not the clock: each attempt by CP-SAT's conflicts and
deterministic time, the quick ones together by the buffers they attempt, the longer ones by
their deterministic time (:data:`WORK`). So the same problem gets the same plan on every
machine. A wall-clock stop (:data:`SAFETY_SECONDS`) only guards against a propagation that runs
long without counting its work; only when it fires can two runs differ.
"""

from __future__ import annotations

import random
import threading
import time
from typing import Iterator, Sequence

from . import cpsat
from .problem import Problem
from .stacking import Stacking, stack, stacked_first

QUICK = (60, 0.006, 4, 1_000)
"""The quick attempts, first: (conflicts, deterministic units per attempt, attempts, buffers
attempted in all). Each of :func:`cpsat.sweep_orders` in turn in the stacked view, then in the
buffers' own, until the attempts or the buffers run out (each attempt counts the buffers of its
view: about four attempts on 250 buffers, two on 500). Why: most fits on minimalloc's suite
come within the first orders of the stacked view and a few dozen conflicts (at most 70, most
fewer than 10), at 0.001-0.004 units."""

CONFLICTS = 150
"""Conflicts (backtracks) one longer attempt may spend, after the quick ones. Why: on generated
look-alikes of the suite the fits the quick attempts miss come mostly within 150 conflicts of
one of the first orders, of either view."""

ATTEMPT = 0.02
"""Deterministic units one longer attempt may spend (the fits seen took 0.004-0.04)."""

WORK = 0.05
"""Deterministic units the longer attempts may spend together: about one to one and a half
seconds of attempts that find nothing (CP-SAT does 0.035-0.08 units per second on these
models, fewer on the larger ones)."""

JITTERED = 1
"""Rounds of jittered copies (:func:`cpsat.jittered`) of the sweep orders after the orders
themselves, in the longer attempts."""

MIN_ATTEMPT = 0.002
"""The least a longer attempt is worth starting with: what is left of :data:`WORK` below it
ends the attempts."""

SAFETY_SECONDS = 30.0
"""Wall-clock stop of the whole aim (a guard only: see the module docstring)."""

MIN_BUFFERS = 64
"""Smaller problems are left to the polish's branch and bound, which settles them exactly at
less cost than starting CP-SAT."""

MAX_BUFFERS = QUICK[3]
"""Larger problems are left to the polish: not one quick attempt on them fits in the buffers
of :data:`QUICK`."""


def eligible(problem: Problem) -> bool:
    """Whether the default aims at the bound with CP-SAT: a problem of
    :data:`MIN_BUFFERS`–:data:`MAX_BUFFERS` buffers, without branches (exclusive buffers would
    need the interference graph's neighbours) and without in-place permissions (which CP-SAT's
    model does not know), when OR-Tools is installed."""
    return (MIN_BUFFERS <= len(problem) <= MAX_BUFFERS and not problem.has_control_flow
            and not problem.overwrites and cpsat.available())


class Aim:
    """Attempts to fit ``problem`` under ``height`` in a background thread, started at once;
    :meth:`offsets` waits for the outcome, :meth:`stop` abandons it."""

    def __init__(self, problem: Problem, height: int) -> None:
        self.problem, self.height = problem, height
        self.attempts = 0
        self.infeasible = False
        """True when CP-SAT proved that nothing fits under ``height``."""
        self._offsets: list[int] | None = None
        self._dropped = False  # CP-SAT proved that no block packing of the stacked view fits
        self._deadline = time.perf_counter() + SAFETY_SECONDS
        self._error: BaseException | None = None
        self._handle = cpsat.SolverHandle()
        cpsat.load()  # here, not in the thread: see cpsat.load
        self._thread = threading.Thread(target=self._run, daemon=True, name="memopt-aim")
        self._thread.start()

    def offsets(self) -> list[int] | None:
        """Offsets of a plan of height at most ``height``, or None when no attempt found one."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._offsets

    def fitted(self) -> bool:
        """Whether an attempt has fitted already (without waiting for the outcome)."""
        return self._offsets is not None

    def stop(self) -> None:
        """Abandon the attempts (the portfolio reached the bound by itself)."""
        self._handle.stop(self._thread)

    def _run(self) -> None:
        try:
            self._attempt()
        except BaseException as e:  # noqa: BLE001 - raised again by offsets()
            self._error = e

    def _attempt(self) -> None:
        """The quick attempts, then the longer ones, until one fits, CP-SAT proves that nothing
        fits, or their work runs out."""
        views = [(view, stacking, cpsat.sweep_orders(*_columns(view)[:3], self.height))
                 for view, stacking in stacked_first(self.problem, stack(self.problem))]
        if self._quick(views):
            return
        left = WORK
        for view, stacking, order in _longer(views):
            if left < MIN_ATTEMPT:
                return
            if stacking is None or not self._dropped:
                res = self._try(view, stacking, order, CONFLICTS, min(ATTEMPT, left))
                if res is None or res.status == cpsat.FIT or self.infeasible:
                    return
                left -= res.work

    def _quick(self, views: list[tuple[Problem, Stacking | None, list[list[int]]]]) -> bool:
        """The quick attempts (:data:`QUICK`): whether the aim is over (a fit, a proof that
        nothing fits, or a stop)."""
        conflicts, det, attempts, buffers = QUICK
        for view, stacking, orders in views:
            for order in orders:
                if buffers < len(view) or self.attempts >= attempts:
                    return False
                buffers -= len(view)
                res = self._try(view, stacking, order, conflicts, det)
                if res is None or res.status == cpsat.FIT or self.infeasible:
                    return True
                if self._dropped and stacking is not None:
                    break  # no block packing fits: on to the buffers themselves
        return False

    def _try(self, view: Problem, stacking: Stacking | None, order: list[int], conflicts: int,
             det: float) -> cpsat.Fit | None:
        """One attempt in ``view`` with the decision ``order`` (None: stopped before it). A fit
        is kept; a proof that nothing fits sets :attr:`infeasible` in the buffers' own view
        (exact), drops the stacked view in the stacked one."""
        left = self._deadline - time.perf_counter()
        if left <= 0 or self._handle.event.is_set():
            return None
        self.attempts += 1
        res = cpsat.fit(*_columns(view), self.height, det, left, on_solver=self._handle.attach,
                        orders=[order], conflicts=conflicts, automatic=False)
        if res.status == cpsat.FIT:
            assert res.offsets is not None  # a fit has its offsets
            offs = list(res.offsets)
            self._offsets = stacking.expand(offs) if stacking is not None else offs
        elif res.status == cpsat.INFEASIBLE:
            self.infeasible = self.infeasible or stacking is None
            self._dropped = self._dropped or stacking is not None
        return res


def _longer(views: list[tuple[Problem, Stacking | None, list[list[int]]]]) -> Iterator[tuple[Problem, Stacking | None, list[int]]]:
    """The longer attempts in turn, (view, its stacking, decision order): the k-th sweep order
    in each view (the stacked one first) for k = 0, 1, ..., then :data:`JITTERED` rounds of
    jittered copies of them. Why the views alternate: the fits the quick attempts miss come
    in either view, most within its first few orders."""
    rng = random.Random(0)
    rounds = max(len(orders) for _, _, orders in views)
    for k in range(rounds * (1 + JITTERED)):
        for view, stacking, orders in views:
            order = orders[k % len(orders)]
            yield view, stacking, (order if k < len(orders) else cpsat.jittered(order, rng))


def _columns(problem: Problem) -> tuple[Sequence[int], Sequence[int], Sequence[int], Sequence[int]]:
    """Sizes, starts, ends and alignments, as :func:`cpsat.fit` takes them."""
    bufs = problem.buffers
    return ([b.size for b in bufs], [b.start for b in bufs], [b.end for b in bufs],
            [b.alignment for b in bufs])
