"""Rematerialization under a memory budget: drop tensors and compute them again where needed.

MegEngine's DTR (after Kirisame et al., *Dynamic Tensor Rematerialization*, ICLR 2021) does this
at run time: when memory use passes a threshold it evicts the resident tensor with the lowest
score, and recomputes an evicted tensor (recursively) when an op needs it. A compiler knows the
whole schedule ahead of time, so it can run the same loop *statically* — and choose better,
because it knows every future use. This module is that loop, IR-free:

* a :class:`RematGraph` is a schedule of ops over tensors (bytes each); function inputs are
  resident from the start and pinned (no producer to recompute them), function outputs must be
  resident at the end;
* :func:`rematerialize` walks the schedule. Before an op runs, its missing inputs are recomputed
  (their producers cloned, recursively when their own inputs were dropped too); while the
  resident bytes plus the op's outputs (and its ``extra`` working bytes) exceed the budget, the
  resident tensor with the lowest score of the chosen :data:`HEURISTICS` is evicted (never one
  the op reads, never a pinned one, never one smaller than ``min_size``, never one whose
  producer is blacklisted). A tensor is freed for good after its last use — except a value
  the schedule no longer reads that a recomputation has just read or made: it stays (evictable
  like any tensor, scored by the next read of a dropped tensor that needs it) while the
  recomputation of some dropped tensor still reads it, as eager DTR keeps what it recomputes.
  Freeing it at once made every rule recompute an LSTM's input projection, the whole
  sequence's, once per step to rebuild each step's saved gates (more than 2x overhead where
  eager DTR paid 1.2x);
* the result is the new schedule (original ops in order, clones inserted before their uses).
  :func:`schedule_peak` re-derives its live bytes from the schedule alone — each computed
  instance lives from its op to its last read before it is computed again — which is what the
  memory planner will see; a result is only returned when that peak fits the budget.

Heuristics (smaller score = evicted first):

* ``dtr`` — MegEngine's score exactly as its source states it:
  ``(cost + 1e-3)^p_cost · p_rt^recompute_times / (((memory + free_mem)/1 MiB)^p_mem ·
  (now − last_used + 1e-3)^p_time)`` with ``p_cost = p_mem = p_time = 1``, ``p_rt = 1.0001``;
  ``cost`` is the *neighbour cost*: the tensor's own compute cost plus the compute cost of the
  equivalence class of every evicted neighbour (producer inputs and consumer outputs) —
  :class:`EvictedClasses`: evicting merges classes, recomputing takes the tensor's cost out of
  its class without splitting it. ``free_mem`` (bytes free next to the tensor's block) is 0
  statically — the planner packs later — and measured by the eager simulator
  (:func:`simulate_eager`), which has addresses;
* ``dtr-eq`` — the DTR paper's ``h_DTR^eq`` (its simulator's equivalence classes): the same
  classes, neighbour cost and score, without MegEngine's ``p_rt^recompute_times`` factor, which
  the paper's score does not have;
* ``dtr-local`` — own compute cost only (no neighbourhood);
* ``lru`` — least recently used first; ``largest`` — largest first;
* ``lookahead`` (default) — what only a compiler can do: Belady's rule weighted by the exact
  recompute price. Score = ``chain_cost / (memory · distance_to_next_use)`` where ``chain_cost``
  is the full cost of recomputing the tensor *now* (its producer plus, recursively, every
  evicted ancestor that recompute would need) and the distance is counted to its next use in the
  schedule (a tensor not used again is freed, never scored). Then a deterministic local search
  (:func:`_lookahead`): a portfolio of variants of the rule — memory and distance weighted
  ``1``, ``2``, ``0.5`` or ``0.75``; DTR's neighbourhood cost in place of the chain cost — and a
  hill climb from the best one over per-tensor score multipliers, up to a size rule
  (:func:`search_runs`), keeping the cheapest schedule that fits; when no variant fits, DTR's
  rules and the simple ones as fallbacks. Measured against the
  optimum of Checkmate's linear chain (Griewank's revolve) in ``bench/remat.py``.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass
from typing import Sequence

import numpy as np

MIB = 1 << 20
HEURISTICS = ("lookahead", "dtr", "dtr-eq", "dtr-local", "lru", "largest")


class RematError(Exception):
    """The budget cannot be met; ``minimum`` is the smallest budget that can (None: unknown)."""

    def __init__(self, message: str, minimum: int | None = None):
        super().__init__(message)
        self.minimum = minimum


@dataclass(frozen=True)
class RematOp:
    name: str
    cost: float
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    extra: int = 0
    """Bytes the op needs while it runs besides its operands (a region op's inner peak)."""
    recomputable: bool = True
    """False for blacklisted ops (random, collective, region ops)."""
    inplace: tuple[int, ...] = ()
    """Per output (empty: none): the input tensor whose storage the output takes, or -1. The
    output takes it only where that input's value dies at this op (no later read, not a
    result) and is at least as large — the rule ``plan-memory`` applies to the IR's ``inplace``
    hint — so the two never hold bytes at once there."""


@dataclass(frozen=True)
class RematGraph:
    sizes: tuple[int, ...]
    """Bytes of every tensor (by id)."""
    ops: tuple[RematOp, ...]
    """The schedule."""
    inputs: tuple[int, ...] = ()
    """Tensors resident at the start and pinned (function arguments)."""
    outputs: tuple[int, ...] = ()
    """Tensors that must be resident at the end (function results)."""
    names: tuple[str, ...] = ()
    """A name per tensor for messages (an IR tracer gives the SSA names); empty: ``tensor K``."""

    def tensor_name(self, t: int) -> str:
        return f"'{self.names[t]}'" if t < len(self.names) and self.names[t] else f"tensor {t}"

    def producers(self) -> list[int]:
        prod = [-1] * len(self.sizes)
        for k, op in enumerate(self.ops):
            for t in op.outputs:
                prod[t] = k
        return prod

    @property
    def base_cost(self) -> float:
        return float(sum(op.cost for op in self.ops))


@dataclass
class RematResult:
    schedule: list[int]
    """Op indices in execution order: every original op once, in order, clones before uses."""
    clone: list[bool]
    """Per schedule entry: True for a recomputation."""
    peak: int
    """Max live bytes of the schedule (:func:`schedule_peak`)."""
    base_cost: float
    extra_cost: float
    evictions: int
    heuristic: str

    @property
    def cloned(self) -> int:
        return sum(self.clone)

    @property
    def overhead(self) -> float:
        """(base + recompute cost) / base cost."""
        return (self.base_cost + self.extra_cost) / self.base_cost if self.base_cost else 1.0


def live_peak(graph: RematGraph) -> int:
    """Max live bytes of the original schedule (the lower bound before remat)."""
    return schedule_peak(graph, list(range(len(graph.ops))))


def schedule_peak(graph: RematGraph, schedule: Sequence[int]) -> int:
    """Max live bytes of ``schedule``: an instance of a tensor lives from the step that computes
    it (or the start, for inputs) to its last read before the next computation of the same
    tensor (outputs: to the end); a step also holds its op's ``extra`` bytes. An in-place output
    (:attr:`RematOp.inplace`) whose input instance is last read at that step takes the input's
    bytes: the input's instance ends a step earlier. Raises ValueError when an op reads a tensor
    no earlier step computed."""
    n = len(schedule)
    sizes = graph.sizes
    dies = _dying_reads(graph, schedule)
    start_of: dict[int, int] = {t: -1 for t in graph.inputs}
    last: dict[int, int] = {}
    intervals: list[tuple[int, int, int]] = []  # (begin, end inclusive, bytes)

    def close(t: int) -> None:
        b = start_of.pop(t)
        intervals.append((max(b, 0), last.get(t, b), sizes[t]))

    for s, k in enumerate(schedule):
        op = graph.ops[k]
        for t in op.inputs:
            if t not in start_of:
                raise ValueError(f"step {s} ('{op.name}') reads {graph.tensor_name(t)} before any step computes it")
            last[t] = s
        for o, x in zip(op.outputs, op.inplace):
            if x >= 0 and x in dies[s] and sizes[o] <= sizes[x]:
                last[x] = s - 1
        for t in op.outputs:
            if t in start_of:
                close(t)
            start_of[t] = s
            last[t] = s
        if op.extra:
            intervals.append((s, s, op.extra))
    for t in list(start_of):
        if t in graph.outputs:
            last[t] = max(n - 1, 0)
        close(t)
    delta = [0] * (n + 1)
    for b, e, size in intervals:
        if e < b:
            continue
        delta[b] += size
        delta[min(e, n - 1) + 1] -= size
    peak = cur = 0
    for d in delta[:n]:
        cur += d
        peak = max(peak, cur)
    return peak


def _dying_reads(graph: RematGraph, schedule: Sequence[int]) -> list[set[int]]:
    """Per step of ``schedule``: the tensors it reads whose instance no later step reads (and
    that are not the result instances kept to the end)."""
    needed_after = set(graph.outputs)
    dies: list[set[int]] = [set() for _ in schedule]
    for s in range(len(schedule) - 1, -1, -1):
        op = graph.ops[schedule[s]]
        needed_after.difference_update(op.outputs)
        for t in op.inputs:
            if t not in needed_after:
                dies[s].add(t)
                needed_after.add(t)
    return dies


def working_set_bound(graph: RematGraph) -> tuple[int, int]:
    """A budget below which no remat can succeed, and the op that needs it (-1: the function's
    end): at every op its inputs, outputs and ``extra`` bytes are resident together (an
    in-place output whose input dies there shares the input's bytes), with every pinned input
    still to be read later (pinned tensors cannot be dropped); at the end, the results."""
    last_read = {}
    for k, op in enumerate(graph.ops):
        for t in op.inputs:
            last_read[t] = k
    outputs = set(graph.outputs)
    # At the end: the results, and every input (pinned) that is one.
    best = sum(graph.sizes[t] for t in outputs)
    where = -1
    for k, op in enumerate(graph.ops):
        need = set(op.inputs) | set(op.outputs)
        for o, x in zip(op.outputs, op.inplace):
            if x >= 0 and last_read.get(x) == k and x not in outputs and graph.sizes[o] <= graph.sizes[x]:
                need.discard(o)
        pinned = {t for t in graph.inputs if last_read.get(t, -1) >= k or t in outputs}
        total = sum(graph.sizes[t] for t in need | pinned) + op.extra
        if total > best:
            best, where = total, k
    return best, where


def last_reads(graph: RematGraph, uses: Sequence[Sequence[int]]) -> list[int]:
    """Per tensor: the last original step that reads it (results: the end, ``len(ops)``; -1:
    never read) — how long the original schedule holds it."""
    n = len(graph.ops)
    outputs = set(graph.outputs)
    return [(n if t in outputs else (u[-1] if u else -1)) for t, u in enumerate(uses)]


def recovery_horizon(graph: RematGraph, producer: Sequence[int], uses: Sequence[Sequence[int]]) -> list[int]:
    """Per tensor: the last original step before which it can always be computed again once
    dropped (DTR's rule that eviction stays recoverable). Recomputing a tensor needs its
    producer's inputs: each is still held (read at or after that step: its last read, a result
    to the end) or itself recomputable by the same rule; arguments and outputs of ops that are
    not recomputable have no other source. A tensor read at step ``u`` may be dropped before
    ``u`` only if its horizon is at least ``u``. Static: it depends on the graph alone."""
    n = len(graph.ops)
    pinned = set(graph.inputs)
    alive = last_reads(graph, uses)
    horizon = [-1] * len(graph.sizes)
    for k, op in enumerate(graph.ops):
        h = n + 1
        for x in op.inputs:
            p = producer[x]
            again = p >= 0 and x not in pinned and graph.ops[p].recomputable
            h = min(h, max(alive[x], horizon[x] if again else -1))
        for t in op.outputs:
            horizon[t] = h
    return horizon


SCAN_CHUNK = 64
"""Candidates an eviction scan sorts at a time (by the lower bound of their score)."""


def _lowest_score(idx: np.ndarray, lb: np.ndarray, score) -> int:
    """The tensor of ``idx`` with the lowest ``(score, id)``, ``lb`` a lower bound of each one's
    score and ``score(t, bound)`` its exact score (any value above ``bound`` when above it).
    Exact scores are taken in lower-bound order until the bound passes the best found; only the
    ``SCAN_CHUNK`` lowest bounds are sorted first, the rest when the best is above them all."""
    best_t, best_s = -1, math.inf
    rest = np.arange(idx.size)
    while rest.size:
        if rest.size > SCAN_CHUNK:
            part = np.argpartition(lb[rest], SCAN_CHUNK)
            head, rest = rest[part[:SCAN_CHUNK]], rest[part[SCAN_CHUNK:]]
        else:
            head, rest = rest, rest[:0]
        head = head[np.lexsort((idx[head], lb[head]))]
        for bound, t in zip(lb[head].tolist(), idx[head].tolist()):
            if bound > best_s:
                return best_t
            sc = score(t, best_s)
            if sc < best_s or (sc == best_s and t < best_t):
                best_t, best_s = t, sc
        rest = rest[lb[rest] <= best_s]
    return best_t


class EvictedClasses:
    """DTR's equivalence classes of evicted tensors (union-find), each with the summed compute
    cost of the evicted tensors in it — the cost a rule charges for evicting a neighbour of the
    class. Evicting a tensor makes a node of its own cost and merges it with the classes of its
    evicted neighbours; recomputing it takes its cost out of its class and detaches it, so a
    later eviction makes a fresh node again (DTR's simulator). A class is never split when a
    member is recomputed: its other members stay together (DTR's own approximation). So a
    class's cost is always the summed cost of its members evicted now — never negative, never a
    recomputed tensor's cost counted, never a re-evicted one's missed."""

    def __init__(self, own_cost: Sequence[float]):
        self.own_cost = own_cost
        self.node = [-1] * len(own_cost)
        """Per tensor, its node while evicted (-1: not evicted)."""
        self.parent: list[int] = []
        self.cost: list[float] = []
        self.member: list[int] = []
        """Per node, the tensor it was made for."""

    def evicted(self, t: int) -> bool:
        return self.node[t] >= 0

    def find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def root(self, t: int) -> int:
        """The class of evicted tensor ``t``."""
        return self.find(self.node[t])

    def evict(self, t: int, neighbours: Sequence[int]) -> None:
        """``t`` is evicted: a node of its cost, merged with every evicted neighbour's class."""
        n = len(self.parent)
        self.parent.append(n)
        self.cost.append(self.own_cost[t])
        self.member.append(t)
        self.node[t] = n
        for x in neighbours:
            if self.node[x] >= 0:
                a, b = self.find(n), self.find(self.node[x])
                if a != b:
                    self.parent[b] = a
                    self.cost[a] += self.cost[b]

    def restore(self, t: int) -> None:
        """``t`` is computed again: its cost leaves its class (which is not split)."""
        if self.node[t] >= 0:
            r = self.find(self.node[t])
            # float rounding only: the members left cost at least nothing
            self.cost[r] = max(0.0, self.cost[r] - self.own_cost[t])
            self.node[t] = -1

    def classes(self) -> dict[int, tuple[float, list[int]]]:
        """Per class root: its cost and its members evicted now (for checks)."""
        out: dict[int, tuple[float, list[int]]] = {}
        for n, t in enumerate(self.member):
            r = self.find(n)
            cost, members = out.setdefault(r, (self.cost[r], []))
            if self.node[t] == n:
                members.append(t)
        return out


def _recompute_factor(heuristic: str) -> float:
    """MegEngine's ``p_rt``, the base its score raises to a tensor's recompute count: 1 for the
    paper's ``h_DTR^eq``, which has no such factor."""
    return 1.0 if heuristic == "dtr-eq" else 1.0001


def _neighbours(ops: Sequence[RematOp], producer: Sequence[int], consumers: Sequence[Sequence[int]],
                t: int) -> tuple[int, ...]:
    """DTR's neighbours of ``t``: its producer's inputs, then its readers' outputs."""
    return (*ops[producer[t]].inputs, *(y for c in consumers[t] for y in ops[c].outputs))


def _prepare(graph: RematGraph) -> tuple[list[int], list[list[int]], list[list[int]]]:
    producer = graph.producers()
    consumers: list[list[int]] = [[] for _ in graph.sizes]
    uses: list[list[int]] = [[] for _ in graph.sizes]
    for k, op in enumerate(graph.ops):
        for t in op.inputs:
            if not uses[t] or uses[t][-1] != k:
                uses[t].append(k)
            consumers[t].append(k)
    return producer, consumers, uses


def rematerialize(
    graph: RematGraph, budget: int, heuristic: str = "lookahead", min_size: int = 0
) -> RematResult:
    """A schedule of ``graph`` whose live bytes stay within ``budget`` (see module docstring);
    raises :class:`RematError` (with the smallest budget that works, when it can tell)."""
    if heuristic not in HEURISTICS:
        raise RematError(f"unknown heuristic '{heuristic}' (expected one of: {', '.join(HEURISTICS)})")
    bound, at = working_set_bound(graph)
    if budget < bound:
        what = (f"the working set of op '{graph.ops[at].name}' ({bound} bytes: its inputs, outputs and the pinned "
                f"inputs still needed)" if at >= 0 else f"the function's results ({bound} bytes)")
        raise RematError(f"budget {budget} is below {what}", bound)
    if heuristic == "lookahead":
        return _lookahead(graph, budget, min_size)
    return _run(graph, budget, heuristic, min_size, (1.0, 1.0))


VARIANTS: tuple[tuple[float, float], ...] = (
    (1.0, 1.0), (-1.0, 1.0), (1.0, 0.5), (2.0, 1.0), (1.0, 0.75), (1.0, 2.0), (2.0, 2.0), (-1.0, 0.5),
)
"""The lookahead rule's exponents (memory, distance) the portfolio tries, in order; a negative
memory exponent selects DTR's neighbourhood cost in the numerator."""

SEARCH_WORK = 24_000
"""Op executions the lookahead's search may spend (portfolio, restarts, climb), over the graph's
op count (:func:`search_runs`)."""
MIN_RUNS = 4
"""Runs of the portfolio every graph gets, however large."""
FALLBACKS = ("dtr", "dtr-eq", "dtr-local", "lru", "largest")
"""Rules tried, in order, when no variant of the lookahead rule meets a budget."""


def search_runs(graph: RematGraph) -> int:
    """Runs of the rule the lookahead's search makes: ``SEARCH_WORK`` over the op count, at least
    :data:`MIN_RUNS`, at most the portfolio and 300 climb steps — a size rule, not a clock, so
    results are deterministic (a 5,000-op graph gets the first variants, a 100-op one the full
    search)."""
    return max(MIN_RUNS, min(len(VARIANTS) + 300, SEARCH_WORK // max(1, len(graph.ops))))


def _lookahead(graph: RematGraph, budget: int, min_size: int) -> RematResult:
    """The lookahead rule's portfolio (:data:`VARIANTS`), a few restarts with every score scaled
    at random, then a hill climb from the best: each step scales the scores of one to three
    tensors by a random factor (log-normal, fixed seeds) and keeps the change when the
    schedule's recompute cost does not grow — a local search over the rule's choices, which on
    Checkmate's linear chain closes most of the gap to revolve's optimum at tight budgets. When
    no variant meets the budget, the best of the :data:`FALLBACKS` that does."""
    import random

    runs = search_runs(graph)
    best: RematResult | None = None
    best_w: tuple[float, float] = VARIANTS[0]
    best_noise = [1.0] * len(graph.sizes)
    error: RematError | None = None
    for w in VARIANTS[:runs]:
        try:
            r = _run(graph, budget, "lookahead", min_size, w)
        except RematError as e:
            error = error or e
            continue
        if best is None or (r.extra_cost, r.cloned) < (best.extra_cost, best.cloned):
            best, best_w = r, w
    if best is None:
        fallback = _best_fallback(graph, budget, min_size)
        if fallback is None:
            assert error is not None
            raise error
        return fallback
    if best.extra_cost == 0:
        return best
    steps = max(0, runs - len(VARIANTS))
    # First restarts with every tensor's score scaled at random (other regions of the search
    # space, alternating the two cost models), then a hill climb from the best schedule so far.
    for seed in range(1, 1 + min(16, steps // 4)):
        rng = random.Random(seed)
        w = (1.0, 1.0) if seed % 2 else (-1.0, 1.0)
        sigma = (0.3, 0.7, 1.2)[seed % 3]
        cand = [math.exp(rng.gauss(0.0, sigma)) for _ in graph.sizes]
        try:
            r = _run(graph, budget, "lookahead", min_size, w, cand)
        except RematError:
            continue
        if (r.extra_cost, r.cloned) < (best.extra_cost, best.cloned):
            best, best_w, best_noise = r, w, cand
    rng = random.Random(0x5EED)
    noise = best_noise
    for _ in range(steps - min(16, steps // 4)):
        cand = list(noise)
        for _ in range(rng.randint(1, 3)):
            t = rng.randrange(len(cand))
            cand[t] *= math.exp(rng.gauss(0.0, 1.0))
        try:
            r = _run(graph, budget, "lookahead", min_size, best_w, cand)
        except RematError:
            continue
        if (r.extra_cost, r.cloned) <= (best.extra_cost, best.cloned):
            best, noise = r, cand
    return best


def _best_fallback(graph: RematGraph, budget: int, min_size: int) -> RematResult | None:
    """The cheapest schedule any of the :data:`FALLBACKS` makes within ``budget`` (None: none)."""
    best = None
    for h in FALLBACKS:
        try:
            r = _run(graph, budget, h, min_size, (1.0, 1.0))
        except RematError:
            continue
        if best is None or (r.extra_cost, r.cloned) < (best.extra_cost, best.cloned):
            best = r
    return best


def _run(graph: RematGraph, budget: int, heuristic: str, min_size: int, weights: tuple[float, float],
         noise: list[float] | None = None, reuse_costs: bool = True) -> RematResult:
    """One walk of the schedule under ``heuristic`` (module docstring). ``reuse_costs=False``
    computes the missing-ancestor costs afresh in every eviction scan instead of keeping them
    between scans: the same schedule, slower (the reference the kept costs are tested against)."""
    return _StaticRun(graph, budget, heuristic, min_size, weights, noise, reuse_costs).run()


class _Walk:
    """What both walks of a schedule hold (:class:`_StaticRun`, :class:`_EagerRun`): the graph
    and its producer, consumer and use tables, the pinned inputs and the outputs, and the state
    DTR's scores read — the last use, recompute count and evicted flag of each tensor, its
    evicted class, the recompute factor, the clock and the tensors an op holds."""

    def __init__(self, graph: RematGraph, budget: int, heuristic: str, min_size: int):
        self.graph = graph
        self.budget = budget
        self.heuristic = heuristic
        self.min_size = min_size
        self.producer, self.consumers, self.uses = _prepare(graph)
        self.sizes, self.ops = graph.sizes, graph.ops
        n_t = self.n_t = len(self.sizes)
        self.pinned, self.outputs = set(graph.inputs), set(graph.outputs)
        self.last_used = [0] * n_t
        self.recompute_times = [0] * n_t
        self.evicted = [False] * n_t
        self.own_cost = [self.ops[p].cost if p >= 0 else 0.0 for p in self.producer]
        self.classes = EvictedClasses(self.own_cost)
        self.rt_base = _recompute_factor(heuristic)
        self.now = 0
        self.locked: set[int] = set()


class _StaticRun(_Walk):
    """The state of one walk of :func:`_run` — residency, evicted classes, the kept costs of
    missing ancestors and the numpy mirrors of the eviction scan — with one method per step:
    :meth:`execute` runs an op (recomputing its missing inputs first), :meth:`evict_one` picks
    and drops the lowest-scored resident tensor, :meth:`run` walks the whole schedule."""

    def __init__(self, graph: RematGraph, budget: int, heuristic: str, min_size: int,
                 weights: tuple[float, float], noise: list[float] | None, reuse_costs: bool):
        super().__init__(graph, budget, heuristic, min_size)
        self.reuse_costs = reuse_costs
        sizes, ops, producer, consumers, n_t = self.sizes, self.ops, self.producer, self.consumers, self.n_t
        own_cost, pinned = self.own_cost, self.pinned
        self.resident = [False] * n_t
        for t in graph.inputs:
            self.resident[t] = True
        self.mem = sum(sizes[t] for t in set(graph.inputs))
        self.use_ptr = [0] * n_t  # index into uses[t] of the next original use at or after the current op
        self.schedule: list[int] = []
        self.clone: list[bool] = []
        self.extra_cost = 0.0
        self.n_evict = 0
        a_mem, self.a_dist = weights
        # a_mem < 0 selects the neighbourhood variant: the numerator is the cost of every evicted
        # tensor the eviction joins (DTR's e*, which prices the gap it widens), memory weighted 1.
        self.neighbourhood = a_mem < 0
        self.a_mem = abs(a_mem)
        # Local search (:func:`_lookahead`): per-tensor multipliers of the lookahead score.
        self.noise = list(noise) if noise is not None else [1.0] * n_t
        self.neighbours: dict[int, tuple[int, ...]] = {}
        """Per tensor asked about, its producer's inputs then its readers' outputs, in that order."""
        self.made_from = [ops[p].inputs if p >= 0 else () for p in producer]
        self.missing_cost: dict[int, float] = {}
        """Per missing tensor, the cost of computing it again with every missing ancestor it needs;
        kept across eviction scans, its entries that a residency change can touch dropped by
        :meth:`forget` (each op run changes residency, so clearing it all made every scan walk the
        same chains again)."""
        self.known_np = np.array(own_cost, dtype=np.float64)
        """Per tensor, its :attr:`missing_cost` entry, else its own cost: what recomputing it now
        costs at least (the eviction scan's lower bound reads it for a candidate's missing inputs)."""
        self.walked: set[int] = set()
        """The entries of :attr:`missing_cost` a walk filled (several missing inputs): the ancestors
        they depend on have no entries of their own, so every residency change drops them."""
        self.children = [sorted({y for c in set(consumers[t]) for y in ops[c].outputs}) for t in range(n_t)]
        self.alive = last_reads(graph, self.uses)
        self.readers = [sorted(set(c)) for c in consumers]
        self.keeps = [p >= 0 and ops[p].recomputable and t not in pinned for t, p in enumerate(producer)]
        self.cache: set[int] = set()
        """Resident values the original schedule reads no more, kept after a recomputation because
        a dropped tensor's recomputation reads them (:meth:`wanted`); evictable like any other."""
        self._mirror()

    def _mirror(self) -> None:
        """Numpy mirrors for the eviction scan (the hot spot: one scan per eviction over every
        resident tensor). A cheap lower bound of every candidate's score is computed at once —
        its own producer cost instead of the neighbourhood or chain cost, which can only add —
        and exact scores are evaluated in lower-bound order until the bound passes the best."""
        graph, sizes, ops, producer, uses = self.graph, self.sizes, self.ops, self.producer, self.uses
        n_t, pinned, outputs, min_size = self.n_t, self.pinned, self.outputs, self.min_size
        self.size_np = size_np = np.array(sizes, dtype=np.float64)
        self.own_np = np.array(self.own_cost, dtype=np.float64)
        self.static_ok = np.array(
            [sizes[t] > 0 and sizes[t] >= min_size and t not in pinned and producer[t] >= 0
             and ops[producer[t]].recomputable for t in range(n_t)], dtype=bool)
        self.resident_np = np.zeros(n_t, dtype=bool)
        self.resident_np[list(set(graph.inputs))] = True
        self.last_np = np.zeros(n_t, dtype=np.float64)
        self.rt_np = np.zeros(n_t, dtype=np.float64)
        self.noise_np = np.array(self.noise, dtype=np.float64)
        self.cache_np = np.zeros(n_t, dtype=bool)
        self.nu_np = np.array([u[0] if u else (len(ops) if t in outputs else -1) for t, u in enumerate(uses)],
                              dtype=np.float64)
        self.horizon_np = np.array(recovery_horizon(graph, producer, uses), dtype=np.float64)
        self.size_pow = size_np ** self.a_mem
        self.has_producer_np = np.array([p >= 0 for p in producer], dtype=bool)
        # the producer's distinct inputs of every tensor, one column each (``input_real``: which
        # entries of the column are inputs, the rest padding), so a scan reads only its candidates'
        # columns and sums across a few rows
        distinct_inputs = [sorted(set(self.made_from[t])) for t in range(n_t)]
        self.width = width = max(1, max((len(xs) for xs in distinct_inputs), default=1))
        self.input_mat = np.zeros((width, n_t), dtype=np.int64)
        self.input_real = np.zeros((width, n_t), dtype=bool)
        for t, xs in enumerate(distinct_inputs):
            self.input_mat[:len(xs), t] = xs
            self.input_real[:len(xs), t] = True
        self.alive_np = np.array(self.alive, dtype=np.float64)

    def next_use(self, t: int, k: int) -> int:
        """The first original read of ``t`` at or after ``k`` (the end for a result; -1: none)."""
        u = self.uses[t]
        use_ptr = self.use_ptr
        i = use_ptr[t]
        n = len(u)
        if i < n and u[i] >= k:  # the common case: the pointer is already there
            return u[i]
        while i < n and u[i] < k:
            i += 1
        use_ptr[t] = i
        if i < n:
            return u[i]
        return len(self.ops) if t in self.outputs else -1

    def near(self, t: int) -> tuple[int, ...]:
        got = self.neighbours.get(t)
        if got is None:
            got = self.neighbours[t] = _neighbours(self.ops, self.producer, self.consumers, t)
        return got

    def neighbour_cost(self, t: int) -> float:
        """DTR's e*: ``t``'s producer's cost and the cost of every evicted class beside it."""
        classes, evicted = self.classes, self.evicted
        root = classes.root
        near = self.neighbours.get(t)
        if near is None:
            near = self.near(t)
        roots = {root(x) for x in near if evicted[x]}
        return self.own_cost[t] + sum(classes.cost[r] for r in roots)

    def forget(self, t: int) -> None:
        """Drop the :attr:`missing_cost` entries ``t``'s residency change can touch: ``t``'s, the
        walked ones, and every entry reached from those through readers that have entries."""
        missing_cost = self.missing_cost
        if not missing_cost:
            return
        known_np, own_cost, children, walked = self.known_np, self.own_cost, self.children, self.walked
        stack = [t, *walked]
        walked.clear()
        for y in stack:
            if missing_cost.pop(y, None) is not None:
                known_np[y] = own_cost[y]
        while stack:
            for y in children[stack.pop()]:
                if y in missing_cost:
                    del missing_cost[y]
                    known_np[y] = own_cost[y]
                    stack.append(y)

    def missing_inputs(self, t: int) -> list[int]:
        resident, producer = self.resident, self.producer
        return [x for x in self.made_from[t] if not resident[x] and producer[x] >= 0]

    def wanted(self, t: int, at: int) -> int:
        """The earliest original read (at or after ``at``) of a dropped tensor whose producer
        reads ``t``: when ``t`` is next needed although the schedule no longer reads it (-1:
        never)."""
        ops, resident, next_use = self.ops, self.resident, self.next_use
        best = -1
        for c in self.readers[t]:
            if c >= at:
                break
            for y in ops[c].outputs:
                if not resident[y]:
                    u = next_use(y, at)
                    if u >= 0 and (best < 0 or u < best):
                        best = u
        return best

    def closure_cost(self, t: int, u: int = -1, cap: float = math.inf) -> float:
        """Cost of recomputing ``t`` at step ``u`` (default: now): its producer and every
        ancestor missing then — dropped now, or held now but read for the last time before
        ``u`` (unless kept in the :attr:`cache`) — each counted once (a walk). The walk stops
        once the sum passes ``cap`` (a scan only needs to know it lost)."""
        own_cost, made_from, resident, alive = self.own_cost, self.made_from, self.resident, self.alive
        cache, producer = self.cache, self.producer
        total = own_cost[t]
        seen = {t}
        stack = [t]
        while stack:
            for x in made_from[stack.pop()]:
                if (not resident[x] or (alive[x] < u and x not in cache)) and x not in seen and producer[x] >= 0:
                    seen.add(x)
                    total += own_cost[x]
                    stack.append(x)
            if total > cap:
                return total
        return total

    def cost_of_missing(self, x: int) -> float:
        """:attr:`missing_cost` of ``x``, filling it for the missing ancestors on the way. A
        tensor with at most one missing input adds its own cost to that input's (the two sets
        of ancestors are disjoint); one with several takes a walk, as they may share some."""
        missing_cost, known_np, own_cost = self.missing_cost, self.known_np, self.own_cost
        missing_inputs = self.missing_inputs
        stack = [x]
        while stack:
            y = stack[-1]
            if y in missing_cost:
                stack.pop()
                continue
            miss = missing_inputs(y)
            if len(miss) > 1:
                missing_cost[y] = known_np[y] = self.closure_cost(y)
                self.walked.add(y)
                stack.pop()
                continue
            pending = [z for z in miss if z not in missing_cost]
            if pending:
                stack.extend(pending)
                continue
            missing_cost[y] = known_np[y] = own_cost[y] + (missing_cost[miss[0]] if miss else 0.0)
            stack.pop()
        return missing_cost[x]

    def chain_cost(self, t: int, u: int, cap: float = math.inf) -> float:
        """Cost of recomputing ``t`` at its next read ``u``: its producer and every ancestor
        missing by then (memoised while every input of the producer is still held at ``u``); a
        walk may stop early at any sum above ``cap``."""
        resident, alive, producer, cache = self.resident, self.alive, self.producer, self.cache
        if any(resident[x] and alive[x] < u and producer[x] >= 0 and x not in cache for x in self.made_from[t]):
            return self.closure_cost(t, u, cap)
        miss = self.missing_inputs(t)
        if len(miss) > 1:
            return self.closure_cost(t, -1, cap)
        return self.own_cost[t] + (self.cost_of_missing(miss[0]) if miss else 0.0)

    def score(self, t: int, k: int, bound: float = math.inf) -> float:
        """``t``'s score; a lookahead score above ``bound`` may be returned as any value above it."""
        heuristic = self.heuristic
        size = self.sizes[t]
        if heuristic == "lookahead":
            nu = self.wanted(t, k) if t in self.cache else self.next_use(t, k)
            dist = max(nu - k, 0) + 1e-3
            denom = (size ** self.a_mem) * (dist ** self.a_dist)
            noise = self.noise[t]
            if self.neighbourhood:
                cost = self.neighbour_cost(t)
            else:  # a margin keeps every score the cap cuts short strictly above the bound
                cap = bound * denom / noise * (1 + 1e-9) if noise > 0 and bound < math.inf else math.inf
                cost = self.chain_cost(t, nu, cap)
            return noise * cost / denom
        if heuristic == "largest":
            return -size
        if heuristic == "lru":
            return -(self.now - self.last_used[t])
        if heuristic == "dtr-local":
            cost = self.ops[self.producer[t]].cost
        else:
            cost = self.neighbour_cost(t)
        stale = self.now - self.last_used[t] + 1e-3
        return (cost + 1e-3) * (self.rt_base ** self.recompute_times[t]) / ((size / MIB) * stale)

    def missing_inputs_bound(self, idx: np.ndarray) -> np.ndarray:
        """Per candidate of ``idx``, a lower bound of what its chain adds to its own cost: the
        chain holds every input of the producer missing at the next read (the sum of their own
        costs), and every ancestor each of them misses now (the largest known cost, scaled
        down a hair so that float rounding never lifts it above the exact sum)."""
        x = self.input_mat[:, idx]
        missing = self.input_real[:, idx] & self.has_producer_np[x] & (
            ~self.resident_np[x] | ((self.alive_np[x] < self.nu_np[idx]) & ~self.cache_np[x]))
        own_part = np.where(missing, self.own_np[x], 0.0)
        known_part = np.where(missing, self.known_np[x], 0.0)
        sums, most = own_part[0], known_part[0]
        for j in range(1, self.width):  # row by row: numpy's reductions over a short axis are slow
            sums = sums + own_part[j]
            most = np.maximum(most, known_part[j])
        return np.maximum(sums, most * (1 - 1e-9))

    def evict_one(self, k: int, need: int) -> None:
        """Make room for ``need`` more bytes before op ``k``: free the kept values no dropped
        tensor needs any more, else evict the candidate with the lowest score."""
        if not self.reuse_costs:
            self.missing_cost.clear()
            self.known_np[:] = self.own_cost
            self.walked.clear()
        unneeded = [t for t in sorted(self.cache) if self.wanted(t, k) < 0]
        for t in unneeded:  # kept values no dropped tensor needs any more go first, for free
            self._free(t)
        if unneeded and self.mem + need <= self.budget:
            return
        cache_np, nu_np = self.cache_np, self.nu_np
        mask = self.resident_np & self.static_ok & ((self.horizon_np >= nu_np) | cache_np)
        if self.locked:
            mask[list(self.locked)] = False
        idx = np.flatnonzero(mask)
        if idx.size == 0:
            raise RematError(
                f"cannot free {self.mem + need - self.budget} more bytes before op '{self.ops[k].name}' (step {k}): "
                f"every resident tensor is read by it, pinned, blacklisted, below min-size or not recomputable when "
                f"next read"
            )
        heuristic = self.heuristic
        sz = self.size_np[idx]
        if heuristic == "largest":
            lb = -sz
        elif heuristic == "lru":
            lb = -(self.now - self.last_np[idx])
        elif heuristic == "lookahead":
            dist = np.maximum(nu_np[idx] - k, 0) + 1e-3
            cost_lb = self.own_np[idx]
            if not self.neighbourhood:
                cost_lb = cost_lb + self.missing_inputs_bound(idx)
            lb = self.noise_np[idx] * cost_lb / (self.size_pow[idx] * dist ** self.a_dist)
            if self.cache:  # a kept value is next needed before nu_np's bound: scored exactly
                lb[cache_np[idx]] = 0.0
        else:
            lb = (self.own_np[idx] + 1e-3) * (self.rt_base ** self.rt_np[idx]) / (
                (sz / MIB) * (self.now - self.last_np[idx] + 1e-3))
        if heuristic in ("largest", "lru", "dtr-local"):
            victim = int(idx[np.lexsort((idx, lb))[0]])
        else:
            score = self.score
            victim = _lowest_score(idx, lb, lambda t, bound: score(t, k, bound))
        self.resident[victim] = False
        self.resident_np[victim] = False
        self.forget(victim)
        if victim in self.cache:
            self.cache.discard(victim)
            cache_np[victim] = False
        self.evicted[victim] = True
        self.classes.evict(victim, self.near(victim))
        self.mem -= self.sizes[victim]
        self.n_evict += 1

    def make_room(self, k: int, need: int) -> None:
        while self.mem + need > self.budget:
            self.evict_one(k, need)

    def execute(self, k: int, is_clone: bool, at: int) -> None:
        """Execute op ``k`` (at original position ``at``), recomputing missing inputs first."""
        ops, sizes, resident, producer, locked = self.ops, self.sizes, self.resident, self.producer, self.locked
        op = ops[k]
        added = []
        for t in op.inputs:
            if t not in locked:
                locked.add(t)
                added.append(t)
        try:
            for t in op.inputs:
                if not resident[t]:
                    p = producer[t]
                    if p < 0 or not ops[p].recomputable:
                        raise RematError(f"internal error: {self.graph.tensor_name(t)} read by '{op.name}' was "
                                         "dropped but cannot be recomputed")
                    self.execute(p, True, at)
            taken = self._taken_inputs(op, added, at if is_clone else at + 1)
            for t in op.outputs:  # held outputs the op computes again are not dropped to make room
                if t not in locked:
                    locked.add(t)
                    added.append(t)
            need = (sum(sizes[t] for t in set(op.outputs) if not resident[t] and t not in taken) + op.extra
                    - sum(sizes[x] - sizes[o] for o, x in taken.items()))
            self.make_room(at, need)
            self.schedule.append(k)
            self.clone.append(is_clone)
            self.now += 1
            now, last_used, last_np, evicted = self.now, self.last_used, self.last_np, self.evicted
            for t in taken.values():
                self._free(t)
            for t in op.inputs:
                last_used[t] = now
                last_np[t] = now
            for t in op.outputs:
                if not resident[t]:
                    resident[t] = True
                    self.resident_np[t] = True
                    self.forget(t)
                    self.mem += sizes[t]
                last_used[t] = now
                last_np[t] = now
                if evicted[t]:
                    evicted[t] = False
                    self.classes.restore(t)
                    self.recompute_times[t] += 1
                    self.rt_np[t] += 1
            if is_clone:
                self.extra_cost += op.cost
        finally:
            for t in added:
                locked.discard(t)
        if is_clone:
            # what this recomputation read or made and nothing (original or pending) reads again;
            # one that a dropped tensor's recomputation still reads is kept, evictable (the cache)
            for t in set(op.inputs) | set(op.outputs):
                if t not in locked and resident[t] and self.next_use(t, at) < 0:
                    if self.keeps[t] and self.wanted(t, at) >= 0:
                        self.cache.add(t)
                        self.cache_np[t] = True
                        self.nu_np[t] = len(ops)
                    else:
                        self._free(t)

    def _taken_inputs(self, op: RematOp, own: list[int], after: int) -> dict[int, int]:
        """In-place outputs of ``op`` → the input whose bytes each takes: an input only this op
        holds (no pending reader), not read by the original schedule from ``after`` on and not a
        result dies here, so its storage becomes the output's (plan-memory's rule)."""
        resident, sizes, outputs = self.resident, self.sizes, self.outputs
        taken: dict[int, int] = {}
        for o, x in zip(op.outputs, op.inplace):
            if (x >= 0 and x in own and resident[x] and not resident[o] and x not in outputs
                    and sizes[o] <= sizes[x] and self.next_use(x, after) < 0 and x not in taken.values()):
                taken[o] = x
        return taken

    def _free(self, t: int) -> None:
        if t in self.cache:
            self.cache.discard(t)
            self.cache_np[t] = False
        if self.resident[t]:
            self.resident[t] = False
            self.resident_np[t] = False
            self.forget(t)
            self.mem -= self.sizes[t]

    def run(self) -> RematResult:
        """Walk the schedule: run each op, free what the original schedule reads no more, then
        recompute the results that are not resident at the end."""
        graph, ops, sizes, producer, resident = self.graph, self.ops, self.sizes, self.producer, self.resident
        pinned, outputs, next_use, nu_np = self.pinned, self.outputs, self.next_use, self.nu_np
        for t in set(graph.inputs):  # an input nothing reads is dead from the start
            if not self.uses[t] and t not in outputs:
                self._free(t)
        for k in range(len(ops)):
            try:
                self.execute(k, False, k)
            except RecursionError:
                raise RematError(
                    f"'{self.heuristic}' thrashes before op '{ops[k].name}' (step {k}): its recompute chain is deeper "
                    "than Python's stack allows"
                ) from None
            for t in ops[k].inputs:
                nu_np[t] = next_use(t, k + 1)
            # free what is not read again (by the original schedule) and is not a result
            for t in set(ops[k].inputs) | set(ops[k].outputs):
                if t in pinned and t in outputs:
                    continue
                if next_use(t, k + 1) < 0:
                    self._free(t)
        # results must be resident at the end
        for t in graph.outputs:
            if sizes[t] and not resident[t] and producer[t] >= 0:
                self.execute(producer[t], True, len(ops))
        peak = schedule_peak(graph, self.schedule)
        if peak > self.budget:  # the simulation over-approximates live bytes, so this cannot happen
            raise RematError(f"internal error: schedule peak {peak} over budget {self.budget}")
        return RematResult(self.schedule, self.clone, peak, graph.base_cost, self.extra_cost, self.n_evict,
                           self.heuristic)


BISECT_WORK = 2_000_000
"""Op executions a :func:`smallest_budget` bisection may spend before it stops early."""


def smallest_budget(graph: RematGraph, heuristic: str | None = None, min_size: int = 0) -> tuple[int, bool]:
    """The smallest budget ``heuristic`` meets (``None``: any heuristic — what ``lookahead``
    meets, with its fallbacks), and whether the bisection between the working-set bound and
    the original peak ran to the end (False: it stopped at :data:`BISECT_WORK`; smaller
    budgets may fit). Rematerialization is not monotone in the budget, so this is the smallest
    found, checked by a successful run."""
    hi = live_peak(graph)
    lo, _ = working_set_bound(graph)
    if lo >= hi:
        return hi, True
    rules = [heuristic] if heuristic not in (None, "lookahead") else ["lookahead"] + list(FALLBACKS)
    best = hi
    spent = 0
    while lo < best:
        if spent >= BISECT_WORK:
            return best, False
        mid = (lo + best) // 2
        met = False
        for h in rules:
            spent += len(graph.ops)
            try:
                _run(graph, mid, h, min_size, (1.0, 1.0))
            except RematError:
                continue
            met = True
            break
        if met:
            best = mid
        else:
            lo = mid + 1
    return best, True


# ---------------------------------------------------------------------------------- eager DTR


@dataclass
class EagerReport:
    """What the run-time DTR of MegEngine reports for one execution."""

    evictions: int
    remats: int
    base_cost: float
    extra_cost: float
    peak_reserved: int
    """Highest address used in the arena (fragmentation included)."""

    @property
    def overhead(self) -> float:
        return (self.base_cost + self.extra_cost) / self.base_cost if self.base_cost else 1.0


def simulate_eager(graph: RematGraph, budget: int, heuristic: str = "dtr", min_size: int = 0) -> EagerReport:
    """The run-time variant: execute op by op in an arena of ``budget`` bytes with a first-fit
    allocator, free a tensor when its reference count reaches zero, evict on demand when an
    allocation does not fit — so fragmentation forces evictions a static plan would not need —
    and recompute on access. ``free_mem`` in the DTR score is the free bytes next to the
    tensor's block. It knows no future: ``lookahead`` is not available here."""
    if heuristic == "lookahead":
        raise RematError("the eager simulator has no lookahead: it does not know the future")
    if heuristic not in HEURISTICS:
        raise RematError(f"unknown heuristic '{heuristic}'")
    return _EagerRun(graph, budget, heuristic, min_size).run()


class _EagerRun(_Walk):
    """The state of one :func:`simulate_eager` execution — the arena's blocks, reference
    counts, evicted classes and counters — with one method per step: :meth:`alloc` places a
    tensor (evicting until it fits), :meth:`execute` runs an op (recomputing missing inputs
    first), :meth:`run` executes the whole schedule."""

    def __init__(self, graph: RematGraph, budget: int, heuristic: str, min_size: int):
        super().__init__(graph, budget, heuristic, min_size)
        self.horizon = recovery_horizon(graph, self.producer, self.uses)
        self.remaining = [len(u) for u in self.uses]  # reads still to come (refcount)
        self.at = 0  # the original op being run (its clones included)
        self.addr: dict[int, int] = {}
        self.evictions = 0
        self.remats = 0
        self.extra = 0.0
        self.peak = 0

    def next_read(self, t: int) -> int:
        u = self.uses[t]
        i = bisect_left(u, self.at)
        return u[i] if i < len(u) else (len(self.ops) if t in self.outputs else -1)

    def blocks(self) -> list[tuple[int, int, int]]:
        sizes = self.sizes
        return sorted((a, a + sizes[t], t) for t, a in self.addr.items())

    def fit(self, size: int) -> int | None:
        x = 0
        for lo, hi, _ in self.blocks():
            if x + size <= lo:
                return x
            x = max(x, hi)
        return x if x + size <= self.budget else None

    def free_around(self, t: int) -> int:
        bs = self.blocks()
        a, e = self.addr[t], self.addr[t] + self.sizes[t]
        left = max((hi for lo, hi, _ in bs if hi <= a), default=0)
        right = min((lo for lo, hi, _ in bs if lo >= e), default=self.budget)
        return (a - left) + (right - e)

    def score(self, t: int) -> float:
        heuristic, sizes, last_used, ops = self.heuristic, self.sizes, self.last_used, self.ops
        now = self.now
        if heuristic == "largest":
            return -sizes[t]
        if heuristic == "lru":
            return -(now - last_used[t])
        p = self.producer[t]
        if heuristic == "dtr-local":
            cost = ops[p].cost
        else:
            classes, evicted = self.classes, self.evicted
            roots = {classes.root(x) for x in _neighbours(ops, self.producer, self.consumers, t) if evicted[x]}
            cost = ops[p].cost + sum(classes.cost[r] for r in roots)
        return (cost + 1e-3) * (self.rt_base ** self.recompute_times[t]) / (
            ((sizes[t] + self.free_around(t)) / MIB) * (now - last_used[t] + 1e-3))

    def alloc(self, t: int, what: str) -> None:
        """Place ``t`` first-fit, evicting the lowest-scored candidate until it fits."""
        sizes, producer, ops, addr = self.sizes, self.producer, self.ops, self.addr
        while True:
            a = self.fit(sizes[t])
            if a is not None:
                addr[t] = a
                self.peak = max(self.peak, a + sizes[t])
                return
            locked, pinned, horizon, next_read = self.locked, self.pinned, self.horizon, self.next_read
            cands = [x for x in addr if x not in locked and x not in pinned and sizes[x] >= max(self.min_size, 1)
                     and producer[x] >= 0 and ops[producer[x]].recomputable and horizon[x] >= next_read(x)]
            if not cands:
                raise RematError(f"eager DTR: out of memory allocating {sizes[t]} bytes for {what}")
            score = self.score
            v = min(cands, key=lambda x: (score(x), x))
            del addr[v]
            self.evicted[v] = True
            self.classes.evict(v, _neighbours(ops, producer, self.consumers, v))
            self.evictions += 1

    def execute(self, k: int, is_clone: bool) -> None:
        """Run op ``k``, recomputing its missing inputs first; an output may take the block of
        an input this read ends."""
        ops, sizes, addr, locked, outputs = self.ops, self.sizes, self.addr, self.locked, self.outputs
        op = ops[k]
        added = [t for t in op.inputs if t not in locked]
        locked.update(added)
        try:
            for t in op.inputs:
                if t not in addr and sizes[t]:
                    if self.producer[t] < 0:
                        raise RematError(f"internal error: eager DTR: input {t} is gone")
                    self.execute(self.producer[t], True)
            if any(t not in addr and sizes[t] for t in op.inputs):
                raise RematError(f"internal error: eager DTR runs '{op.name}' without its inputs")
            for o, x in zip(op.outputs, op.inplace):
                # in place: the output takes the block of an input this read ends (refcount 1)
                if (x >= 0 and x in addr and o not in addr and x not in outputs and self.remaining[x] == 1
                        and not is_clone and sizes[o] <= sizes[x]):
                    addr[o] = addr.pop(x)
            for t in op.outputs:
                if t not in addr and sizes[t]:
                    self.alloc(t, f"'{op.name}'")
            new_out = [t for t in op.outputs if t not in locked]
            locked.update(new_out)
            added += new_out
            self.now += 1
            for t in op.inputs + op.outputs:
                self.last_used[t] = self.now
            for t in op.outputs:
                if self.evicted[t]:
                    self.evicted[t] = False
                    self.classes.restore(t)
                    self.recompute_times[t] += 1
            if is_clone:
                self.remats += 1
                self.extra += op.cost
        finally:
            for t in added:
                locked.discard(t)

    def run(self) -> EagerReport:
        """Place the inputs, run every op and drop what its reads ended, then recompute the
        results that were evicted."""
        graph, sizes, remaining, outputs, addr = self.graph, self.sizes, self.remaining, self.outputs, self.addr
        for t in set(graph.inputs):
            if sizes[t] and (remaining[t] > 0 or t in outputs):
                self.alloc(t, "an input")
        for k, op in enumerate(self.ops):
            self.at = k
            self.execute(k, False)
            for t in op.inputs:
                remaining[t] -= 1
            for t in set(op.inputs) | set(op.outputs):
                if remaining[t] <= 0 and t not in outputs and t in addr:
                    del addr[t]
        self.at = len(self.ops)
        for t in graph.outputs:
            if sizes[t] and t not in addr and self.producer[t] >= 0:
                self.execute(self.producer[t], True)
        return EagerReport(self.evictions, self.remats, graph.base_cost, self.extra, self.peak)


__all__ = [
    "EagerReport", "HEURISTICS", "RematError", "RematGraph", "RematOp", "RematResult", "live_peak",
    "last_reads", "recovery_horizon", "rematerialize", "schedule_peak", "simulate_eager", "smallest_budget",
    "working_set_bound",
]
