"""An exact packing backend: OR-Tools' CP-SAT solver deciding whether buffers fit under a height.

Why a second exact method next to the MiniMalloc-style branch and bound (``search/bnb.py``): the two
fail on different instances — CP-SAT's energetic reasoning in ``NoOverlap2D`` finds the packings
whose greedy-guided orders thrash, the branch and bound's canonical placements those whose many
equal-height sections CP-SAT's propagation cannot see through; together they fit more than
either (``bench/search.py`` prints both on minimalloc's suite and generated look-alikes).
``search`` therefore runs CP-SAT beside its preorders, in a second thread (:class:`Stream`).

The model is the textbook one (MiniMalloc's paper uses it as its baseline): one offset variable
per buffer in units of the gcd of the sizes and alignments (every offset of a canonical packing
— each buffer at the aligned-up top of what lies below it — is a multiple of it, so nothing is
lost; an alignment of 1 stays out of it, as does the cap: a unit of 1 byte where 1 KiB would do
slows CP-SAT's fixed search by an order of magnitude); a fixed time interval and a
variable memory interval per buffer; ``NoOverlap2D`` over them plus the redundant ``Cumulative``
over time (every cross section's bytes fit under the cap). With branch paths (exclusive buffers
share addresses) only the neighbours of the interference graph get pairwise ``NoOverlap``.

How a run searches: first CP-SAT's fixed search in each of :func:`sweep_orders` (the unplaced
buffer with the lowest possible offset goes there, ties in the order's sequence: MiniMalloc's
canonical placement, with CP-SAT's propagation and clause learning behind it), then in a
:func:`jittered` copy of each (in a :class:`Stream`), then its default search. Why the fixed
search leads: in these orders it fits instances that its default search, or the buffers' given
order, misses.

Determinism: one worker, limited by CP-SAT's deterministic time (a count of its own work, not
the clock), so a run gives the same answer on every machine that finishes that work before the
wall-clock hard stop. OR-Tools is optional: without it :func:`available` is False and the search
runs its branch and bound alone.
"""

from __future__ import annotations

import importlib.util
import math
import random
import time
from dataclasses import dataclass
from functools import lru_cache
from functools import reduce
from typing import Sequence

FIT, INFEASIBLE, UNKNOWN = "fit", "infeasible", "unknown"

JITTER = 3.0
"""How far (in places, one standard deviation) :func:`jittered` moves a buffer in a sweep order.
Why restart with jittered copies rather than only replay the sweeps with a doubled limit: the
fixed search's run lengths are heavy-tailed in the tie order, as the branch and bound's are in
its preorder (``search/views.py``
jitters those the same way)."""

FIXED_SHARE = 0.75
"""Share of a run's deterministic limit spent on CP-SAT's fixed search, split evenly over its
decision orders (the :func:`sweep_orders` and their jittered copies); the rest goes to its
default search with the run's seed, whose run lengths are heavy-tailed in the seed too."""

DET_PER_SECOND = 0.048
"""CP-SAT deterministic-time units done per wall second by one worker on these packing models
(``NoOverlap2D`` propagation is cheap in its
accounting), used to turn a time share into a deterministic limit."""


@lru_cache(maxsize=None)
def available() -> bool:
    """True when OR-Tools is installed (looked up without importing it: importing it costs
    about half a second, which every ``memopt-opt`` run would otherwise pay)."""
    try:
        return importlib.util.find_spec("ortools.sat.python.cp_model") is not None
    except ImportError:  # no `ortools` package at all
        return False


def load() -> None:
    """Import OR-Tools now (about 0.6 s). Why a caller would: an import in a background thread
    competes for the GIL with whatever the main thread computes meanwhile, and takes several
    times as long."""
    import ortools.sat.python.cp_model  # noqa: F401


@dataclass(frozen=True)
class Fit:
    """Outcome of one CP-SAT run: ``status`` is FIT (``offsets`` set), INFEASIBLE (proven) or
    UNKNOWN (limit reached); ``work`` is the deterministic time it used."""

    status: str
    offsets: tuple[int, ...] | None
    work: float


def fit(sizes: Sequence[int], starts: Sequence[int], ends: Sequence[int], aligns: Sequence[int],
        cap: int, det_limit: float, seconds: float,
        neighbours: Sequence[Sequence[int]] | None = None, on_solver=None, seed: int = 0,
        orders: Sequence[Sequence[int]] = (), conflicts: int | None = None,
        automatic: bool = True) -> Fit:
    """Decide whether the buffers (half-open lifetimes ``[start, end)``) fit under ``cap``.

    ``neighbours`` (index lists) replaces the time-overlap test when buffers in exclusive
    branches may share memory; ``det_limit`` bounds the work, ``seconds`` is a hard stop.
    ``seed`` is CP-SAT's random seed: its run lengths are heavy-tailed in it, so a caller that
    retries should retry with a new seed.
    ``orders`` (index lists, such as :func:`sweep_orders`) are decision orders for the fixed
    search, tried in turn, :data:`FIXED_SHARE` of ``det_limit`` among them; without them the
    fixed search follows the buffers' given order. ``conflicts`` caps each attempt's conflicts
    (backtracks) as well: a count, so the answer does not depend on the machine either, and on
    these models it tracks the wall time more closely than the deterministic time does (whose
    units a fixed search spends mostly on its first propagation). ``automatic=False`` leaves
    out the default search after the fixed ones (its whole share then goes to them).
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
        slot = model.new_int_var(0, (cap - sizes[i]) // g // step, f"slot{i}")
        start = slot * step if step > 1 else slot
        offsets.append((slot, step))
        ys.append(model.new_fixed_size_interval_var(start, sizes[i] // g, f"mem{i}"))
        xs.append(model.new_fixed_size_interval_var(starts[i], ends[i] - starts[i], f"time{i}"))
    if neighbours is None:
        model.add_no_overlap_2d(xs, ys)
        model.add_cumulative(xs, [s // g for s in sizes], cap // g)
    else:
        for i, ns in enumerate(neighbours):
            for j in ns:
                if i < j:
                    model.add_no_overlap([ys[i], ys[j]])
    fixed_share = (FIXED_SHARE if automatic else 1.0) / max(1, len(orders))
    fixed: Sequence[Sequence[int] | None] = orders or [None]  # None: the buffers' given order
    attempts: list[tuple[str, Sequence[int] | None, float]] = [("FIXED_SEARCH", order, fixed_share) for order in fixed]
    if automatic:
        attempts.append(("AUTOMATIC_SEARCH", None, 1.0 - FIXED_SHARE))
    work = 0.0
    for branching, order, share in attempts:
        # Every attempt starts from no decision strategy; a fixed one then follows ``order``:
        # the unplaced buffer with the lowest possible offset goes there first, ties in order
        # (a buffer aligned above the unit counts its slots in its own steps, so for it "lowest"
        # is approximate: the search stays complete, only its order changes).
        model.Proto().search_strategy.clear()
        if order is not None:
            model.add_decision_strategy([offsets[i][0] for i in order], cp_model.CHOOSE_LOWEST_MIN,
                                      cp_model.SELECT_MIN_VALUE)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = seed
        solver.parameters.search_branching = getattr(cp_model, branching)
        solver.parameters.max_deterministic_time = max(det_limit * share, 1e-3)
        solver.parameters.max_time_in_seconds = max(seconds, 1e-3)
        if conflicts is not None:
            solver.parameters.max_number_of_conflicts = conflicts
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


def sweep_orders(sizes: Sequence[int], starts: Sequence[int], ends: Sequence[int],
                 cap: int) -> list[list[int]]:
    """Decision orders for CP-SAT's fixed search: the buffers taller than half of ``cap`` first,
    then a sweep over time from the left, tallest first (or longest first) among buffers that
    start together; the same two sweeps from the right; the largest area first; and two sweeps
    outward from the peak (:func:`peak_distance`), tallest or longest first among buffers as
    far from it.

    Why several: with "lowest possible offset first" branching, CP-SAT's fixed search is the
    canonical placement of the branch and bound (``search/bnb.py``) with CP-SAT's stronger
    propagation and clause learning, and its run lengths are heavy-tailed in the tie order.
    Each order fits instances the others miss, and none fits them all. Time-reversed sweeps
    count: a packing is one whichever way time runs. Why the tall buffers first: no two of them
    can be live together, so they form a chain that every other buffer must fit above or below;
    placed first, they fix that skeleton before the small buffers fill it. Why from the peak:
    the most loaded cross section is where a packing has the least room, and a sweep from
    either end reaches it last, with its earlier choices already fixed (the branch and bound's
    preorders put the buffers of heavy sections first for the same reason).
    """
    idx = range(len(sizes))
    width = [e - s for s, e in zip(starts, ends)]
    low = [2 * s <= cap for s in sizes]  # False (first) for the tall ones
    near = peak_distance(sizes, starts, ends)
    return [
        sorted(idx, key=lambda i: (low[i], starts[i], -sizes[i], i)),
        sorted(idx, key=lambda i: (low[i], -ends[i], -sizes[i], i)),
        sorted(idx, key=lambda i: (low[i], starts[i], -width[i], i)),
        sorted(idx, key=lambda i: (low[i], -ends[i], -width[i], i)),
        sorted(idx, key=lambda i: (-sizes[i] * width[i], i)),
        sorted(idx, key=lambda i: (low[i], near[i], -sizes[i], i)),
        sorted(idx, key=lambda i: (low[i], near[i], -width[i], i)),
    ]


def peak_distance(sizes: Sequence[int], starts: Sequence[int], ends: Sequence[int]) -> list[int]:
    """How far in time each buffer's lifetime ``[start, end)`` lies from the peak, the first
    instant at which the live bytes are largest (0 for the buffers live then)."""
    if not sizes:
        return []
    delta: dict[int, int] = {}
    for s, a, z in zip(sizes, starts, ends):
        delta[a] = delta.get(a, 0) + s
        delta[z] = delta.get(z, 0) - s
    live, top, peak = 0, -1, 0
    for t in sorted(delta):
        live += delta[t]
        if live > top:
            top, peak = live, t
    return [max(0, a - peak, peak + 1 - z) for a, z in zip(starts, ends)]


def jittered(order: Sequence[int], rng: random.Random, sigma: float = JITTER) -> list[int]:
    """A copy of ``order`` with every buffer moved by about ``sigma`` places (Gaussian noise
    on its rank), so that ties and near-ties fall differently."""
    key = {i: r + rng.gauss(0.0, sigma) for r, i in enumerate(order)}
    return sorted(order, key=key.__getitem__)


class SolverHandle:
    """The CP-SAT solver a background thread is running, so that another thread can stop it:
    the thread passes :meth:`attach` to :func:`fit` as ``on_solver``; :meth:`stop` ends the
    search at once and waits for the thread. ``event`` is set once stopped."""

    def __init__(self) -> None:
        import threading

        self.event = threading.Event()
        self._lock = threading.Lock()
        self._solver = None

    def attach(self, solver):
        with self._lock:
            self._solver = solver
        return self.event

    def stop(self, thread) -> None:
        self.event.set()
        # A stop that lands before the solver has started its search is lost: repeat it.
        while thread.is_alive():
            with self._lock:
                if self._solver is not None:
                    self._solver.StopSearch()
            thread.join(0.01)


class Stream:
    """A sequence of :func:`fit` runs on one model, one after another in a background thread
    next to the caller's own search (CP-SAT releases the GIL, so on two cores both run at full
    speed). ``runs`` yields ``(deterministic limit, seed)`` per run; the stream ends at the first
    run that decides (FIT or INFEASIBLE), when ``runs`` is exhausted, at the hard stop
    ``seconds`` after it started, or at :meth:`stop`.

    Why a stream rather than one run per call: the caller consults run ``k`` at a fixed point of
    its own search (:meth:`outcome` waits for that run), so which answer counts does not depend
    on which thread finished first — and meanwhile the next run has already started, so CP-SAT
    never idles while the caller does other work.

    ``orders`` are the fixed search's decision orders (:func:`sweep_orders`); every run tries
    them as given and then a :func:`jittered` copy of each, drawn from the run's seed."""

    def __init__(self, sizes, starts, ends, aligns, cap: int, runs, seconds: float,
                 neighbours=None, orders: Sequence[Sequence[int]] = ()) -> None:
        import threading

        self._args = (sizes, starts, ends, aligns, cap)
        self._neighbours = neighbours
        self._orders = orders
        self._deadline = time.perf_counter() + seconds
        self._handle = SolverHandle()
        self._done = threading.Condition()
        self._results: list[Fit] = []
        self._ended = False
        self._error: BaseException | None = None
        load()  # here, not in the thread: see load
        self._thread = threading.Thread(target=self._run, args=(iter(runs),), daemon=True,
                                        name="memopt-cpsat")
        self._thread.start()

    def _run(self, runs) -> None:
        try:
            for det, seed in runs:
                left = self._deadline - time.perf_counter()
                if self._handle.event.is_set() or left <= 0:
                    break
                # Each run: the sweeps as given, then a jittered copy of each, fresh per seed.
                rng = random.Random(seed)
                orders = [*self._orders, *(jittered(o, rng) for o in self._orders)]
                res = fit(*self._args, det, left, self._neighbours, on_solver=self._handle.attach, seed=seed,
                          orders=orders)
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
        self._handle.stop(self._thread)
