"""The default's exact step: CP-SAT aiming at the lower bound while the portfolio runs.

Why: the greedy portfolio leaves minimalloc-like instances (a few hundred buffers, a packing at
or near the lower bound) several percent above their best height, and its polish (a short
branch and bound, a hill climb) rarely closes that. CP-SAT's fixed search — the unplaced
buffer with the lowest possible offset goes there, in one of ``cpsat.sweep_orders`` — fits most
of them at the bound within a few dozen conflicts, most often in the stacked view
(``stacking.py``: every class of buffers sharing their whole lifetime packed as one block),
where the search need not try the interleavings of a class. So the default runs a few such
attempts, alternating between the stacked view and the buffers themselves, one order at a
time, in a background thread beside the portfolio (CP-SAT releases the GIL), and takes the
first fit. The stacked view goes first: its attempts are cheaper (fewer rectangles) and fit
more often.

The work is limited by counts, not the clock: each attempt by CP-SAT's conflicts
(:data:`CONFLICTS`) and deterministic time (:data:`ATTEMPT`), all of them together by the
buffers they attempt (:data:`WORK`). So the same problem gets the same plan on every machine. A
wall-clock stop (:data:`SAFETY_SECONDS`) only guards against a propagation that runs long
without counting its work; only when it fires can two runs differ.
"""

from __future__ import annotations

import threading
import time
from typing import Sequence

from . import cpsat
from .problem import Problem
from .stacking import stack, stacked_first

CONFLICTS = 60
"""Conflicts (backtracks) one attempt may spend: the fits seen on minimalloc's suite and its
generated look-alikes took at most 70, most fewer than 10; an order that needs more rarely
finds one soon."""

ATTEMPT = 0.006
"""Deterministic units one attempt may spend (a fit takes 0.001-0.004 on the suite; an attempt
that finds nothing costs about 1.5 ms of wall time per buffer)."""

WORK = 1_000
"""What all attempts may cost together, in buffers attempted (each attempt counts the buffers
of its view): about four attempts on 250 buffers, two on 500 — a second or two of attempts
that find nothing, whatever the size."""

ATTEMPTS = 4
"""At most this many attempts: the fits seen came within the first four orders of the stacked
view (or the first of the buffers' own when nothing stacks); later ones rarely fit."""

SAFETY_SECONDS = 30.0
"""Wall-clock stop of the whole aim (a guard only: see the module docstring)."""

MIN_BUFFERS = 64
"""Smaller problems are left to the polish's branch and bound, which settles them exactly at
less cost than starting CP-SAT."""

MAX_BUFFERS = WORK
"""Larger problems are left to the polish: not one attempt on them fits in :data:`WORK`."""


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
        spent, deadline = 0, time.perf_counter() + SAFETY_SECONDS
        for view, stacking in stacked_first(self.problem, stack(self.problem)):
            cols = _columns(view)
            for order in cpsat.sweep_orders(*cols[:3], self.height):
                left = deadline - time.perf_counter()
                if spent + len(view) > WORK or self.attempts >= ATTEMPTS or left <= 0 or self._handle.event.is_set():
                    return
                spent += len(view)
                self.attempts += 1
                res = cpsat.fit(*cols, self.height, ATTEMPT, left, on_solver=self._handle.attach,
                                orders=[order], conflicts=CONFLICTS, automatic=False)
                if res.status == cpsat.FIT:
                    assert res.offsets is not None  # a fit has its offsets
                    offs = list(res.offsets)
                    self._offsets = stacking.expand(offs) if stacking is not None else offs
                    return
                if res.status == cpsat.INFEASIBLE:
                    if stacking is None:  # the buffers' own model is exact: nothing fits
                        self.infeasible = True
                        return
                    break  # no block packing fits: on to the buffers themselves


def _columns(problem: Problem) -> tuple[Sequence[int], Sequence[int], Sequence[int], Sequence[int]]:
    """Sizes, starts, ends and alignments, as :func:`cpsat.fit` takes them."""
    bufs = problem.buffers
    return ([b.size for b in bufs], [b.start for b in bufs], [b.end for b in bufs],
            [b.alignment for b in bufs])
