"""An exact packing backend: OR-Tools' CP-SAT solver deciding whether buffers fit under a height.

Why a second exact method next to the MiniMalloc-style branch and bound (``search.py``): the two
fail on different instances. Measured on minimalloc's challenging suite and on 20 generated
instances of its statistics (``synthetic.packed``, seeds 9101-9120, capacity 2^20): the branch
and bound fits A-F and 16 of the 20 within 60 s, CP-SAT fits 2 of A-F and 15 of the 20 within
20 s, and together they fit 25 of 26 — CP-SAT's energetic reasoning in ``NoOverlap2D`` finds the
packings whose greedy-guided orders thrash, the branch and bound's canonical placements those
whose many equal-height sections CP-SAT's propagation cannot see through. ``search`` therefore
runs CP-SAT beside its preorders, in a second thread (:class:`Stream`).

The model is the textbook one (MiniMalloc's paper uses it as its baseline): one offset variable
per buffer in units of the gcd of the sizes and alignments (every offset of a canonical packing
— each buffer at the aligned-up top of what lies below it — is a multiple of it, so nothing is
lost; an alignment of 1 stays out of it, as does the cap: a unit of 1 byte where 1 KiB would do
slows CP-SAT's fixed search tenfold, measured); a fixed time interval and a
variable memory interval per buffer; ``NoOverlap2D`` over them plus the redundant ``Cumulative``
over time (every cross section's bytes fit under the cap). With branch paths (exclusive buffers
share addresses) only the neighbours of the interference graph get pairwise ``NoOverlap``.

Determinism: one worker, limited by CP-SAT's deterministic time (a count of its own work, not
the clock), so a run gives the same answer on every machine that finishes that work before the
wall-clock hard stop. OR-Tools is optional: without it :func:`available` is False and the search
runs its branch and bound alone.
"""

from __future__ import annotations

import importlib.util
import math
import time
from dataclasses import dataclass
from functools import lru_cache
from functools import reduce
from typing import Sequence

FIT, INFEASIBLE, UNKNOWN = "fit", "infeasible", "unknown"

_ATTEMPTS = (("FIXED_SEARCH", 0.25), ("AUTOMATIC_SEARCH", 0.75))
"""How a run splits its deterministic limit: first CP-SAT's fixed search (lowest offset first,
propagation only, no seed dependence), then its default search. Measured on six held-out
instances that the branch and bound misses, at a limit of 0.4 units: the fixed search fits four
of them within 0.015-0.12 units, where the default search needs 0.06-0.4 and misses about half
of its seeds; the default search fits one instance the fixed search never does."""

DET_PER_SECOND = 0.048
"""CP-SAT deterministic-time units done per wall second by one worker on these packing models
(measured 0.02-0.06 on the challenging suite: ``NoOverlap2D`` propagation is cheap in its
accounting), used to turn a time share into a deterministic limit."""


@lru_cache(maxsize=None)
def available() -> bool:
    """True when OR-Tools is installed (looked up without importing it: importing it costs
    about half a second, which every ``memopt-opt`` run would otherwise pay)."""
    try:
        return importlib.util.find_spec("ortools.sat.python.cp_model") is not None
    except ImportError:  # no `ortools` package at all
        return False


@dataclass(frozen=True)
class Fit:
    """Outcome of one CP-SAT run: ``status`` is FIT (``offsets`` set), INFEASIBLE (proven) or
    UNKNOWN (limit reached); ``work`` is the deterministic time it used."""

    status: str
    offsets: tuple[int, ...] | None
    work: float


def fit(sizes: Sequence[int], starts: Sequence[int], ends: Sequence[int], aligns: Sequence[int],
        cap: int, det_limit: float, seconds: float,
        neighbours: Sequence[Sequence[int]] | None = None, on_solver=None, seed: int = 0) -> Fit:
    """Decide whether the buffers (half-open lifetimes ``[start, end)``) fit under ``cap``.

    ``neighbours`` (index lists) replaces the time-overlap test when buffers in exclusive
    branches may share memory; ``det_limit`` bounds the work, ``seconds`` is a hard stop.
    ``seed`` is CP-SAT's random seed: its run lengths are heavy-tailed in it (measured on one
    held-out instance, seeds 0-5: fit after 0.19-0.52 deterministic units on three, nothing
    within 0.85-0.94 on the others), so a caller that retries should retry with a new seed.
    """
    from ortools.sat.python import cp_model

    n = len(sizes)
    if n == 0:
        return Fit(FIT, (), 0.0)
    if any(s > cap for s in sizes):
        return Fit(INFEASIBLE, None, 0.0)
    g = max(1, reduce(math.gcd, [*sizes, *(a for a in aligns if a > 1)], 0))
    model = cp_model.CpModel()
    offsets, ys, xs = [], [], []
    for i in range(n):
        step = max(1, aligns[i] // g)  # g divides every alignment above 1
        slot = model.NewIntVar(0, (cap - sizes[i]) // g // step, f"slot{i}")
        start = slot * step if step > 1 else slot
        offsets.append((slot, step))
        ys.append(model.NewFixedSizeIntervalVar(start, sizes[i] // g, f"mem{i}"))
        xs.append(model.NewFixedSizeIntervalVar(starts[i], ends[i] - starts[i], f"time{i}"))
    if neighbours is None:
        model.AddNoOverlap2D(xs, ys)
        model.AddCumulative(xs, [s // g for s in sizes], cap // g)
    else:
        for i, ns in enumerate(neighbours):
            for j in ns:
                if i < j:
                    model.AddNoOverlap([ys[i], ys[j]])
    work = 0.0
    for branching, share in _ATTEMPTS:
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = seed
        solver.parameters.search_branching = getattr(cp_model, branching)
        solver.parameters.max_deterministic_time = max(det_limit * share, 1e-3)
        solver.parameters.max_time_in_seconds = max(seconds, 1e-3)
        stopped = on_solver(solver) if on_solver is not None else None
        if stopped is not None and stopped.is_set():
            return Fit(UNKNOWN, None, work)  # lets another thread stop the search
        t0 = time.perf_counter()
        status = solver.Solve(model)
        seconds -= time.perf_counter() - t0
        work += float(solver.deterministic_time)
        if stopped is not None and stopped.is_set():
            return Fit(UNKNOWN, None, work)
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            offs = tuple(int(solver.Value(slot)) * step * g for slot, step in offsets)
            return Fit(FIT, offs, work)
        if status == cp_model.INFEASIBLE:
            return Fit(INFEASIBLE, None, work)
        if seconds <= 0:
            break
    return Fit(UNKNOWN, None, work)


class Stream:
    """A sequence of :func:`fit` runs on one model, one after another in a background thread
    next to the caller's own search (CP-SAT releases the GIL, so on two cores both run at full
    speed). ``runs`` yields ``(deterministic limit, seed)`` per run; the stream ends at the first
    run that decides (FIT or INFEASIBLE), when ``runs`` is exhausted, at the hard stop
    ``seconds`` after it started, or at :meth:`stop`.

    Why a stream rather than one run per call: the caller consults run ``k`` at a fixed point of
    its own search (:meth:`outcome` waits for that run), so which answer counts does not depend
    on which thread finished first — and meanwhile the next run has already started, so CP-SAT
    never idles while the caller does other work (measured on held-out packed instances: with
    one run per round, CP-SAT was busy for 23 of 60 s)."""

    def __init__(self, sizes, starts, ends, aligns, cap: int, runs, seconds: float,
                 neighbours=None) -> None:
        import threading

        self._args = (sizes, starts, ends, aligns, cap)
        self._neighbours = neighbours
        self._deadline = time.perf_counter() + seconds
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._done = threading.Condition(self._lock)
        self._solver = None
        self._results: list[Fit] = []
        self._ended = False
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(iter(runs),), daemon=True,
                                        name="memopt-cpsat")
        self._thread.start()

    def _attach(self, solver):
        with self._lock:
            self._solver = solver
        return self._stop

    def _run(self, runs) -> None:
        try:
            for det, seed in runs:
                left = self._deadline - time.perf_counter()
                if self._stop.is_set() or left <= 0:
                    break
                res = fit(*self._args, det, left, self._neighbours, on_solver=self._attach, seed=seed)
                with self._done:
                    self._results.append(res)
                    self._done.notify_all()
                if res.status != UNKNOWN:
                    break
        except BaseException as e:  # noqa: BLE001 - handed to outcome()
            self._error = e
        finally:
            with self._done:
                self._ended = True
                self._done.notify_all()

    def outcome(self, k: int = 0) -> Fit:
        """Run ``k``'s result, waiting for it; UNKNOWN when the stream ended before it."""
        with self._done:
            self._done.wait_for(lambda: len(self._results) > k or self._ended)
        if self._error is not None:
            raise self._error
        return self._results[k] if len(self._results) > k else Fit(UNKNOWN, None, 0.0)

    def stop(self) -> None:
        """End the stream now (its remaining runs are not needed)."""
        self._stop.set()
        # A stop that lands before the solver has started its search is lost: repeat it.
        while self._thread.is_alive():
            with self._lock:
                if self._solver is not None:
                    self._solver.StopSearch()
            self._thread.join(0.01)
