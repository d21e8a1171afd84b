"""The optimum of rematerialization under a budget, as a reference for the heuristics.

Checkmate (Jain et al., *Checkmate: Breaking the Memory Wall with Optimal Tensor
Rematerialization*, MLSys 2020) writes the problem as an integer program over *stages*: stage
``t`` (``t = 0 .. n-1``) runs original op ``t`` last, after recomputing ("cloning") some earlier
ops. Its variables are ``R[t,i]`` (op ``i`` is computed in stage ``t``; ``R[t,t] = 1``, ``R[t,i] =
0`` for ``i > t``: the frontier advances one op per stage), ``S[t,i]`` (op ``i``'s value is kept
resident from stage ``t-1`` into stage ``t``; ``S[0,·] = 0``) and, for the memory, ``FREE[t,i,k]``
(``i`` is freed right after op ``k`` of stage ``t``: ``k`` ran, reads ``i`` or is ``i``, no later op
of the stage that reads ``i`` runs, and ``i`` is not kept into stage ``t+1``) with the running
bytes ``U[t,k] = U[t,k-1] - freed after k-1 + R[t,k]·size(k)``, ``U[t,·] <= budget``, starting
from the kept bytes ``Σ S[t,i]·size(i)``. The objective is the recompute cost ``Σ cost(i)·R[t,i]``
over the clones. This module solves it with OR-Tools' CP-SAT; :func:`optimal` returns the best
schedule found as a :class:`~memopt.planning.remat.RematResult` (``heuristic="optimal"``).

How :class:`~memopt.planning.remat.RematGraph` maps onto it, faithful to :func:`schedule_peak`
(the truth the rest of the project uses):

* ``S`` is per *tensor*, not per op: an op computes all its outputs (``R`` is per op), but each
  output is kept or freed on its own (a multi-output op whose second result dies at once costs
  only a step's worth of it, as in :func:`schedule_peak`). Tensors of 0 bytes are not modelled:
  once computed they stay readable (the schedule's order guarantees that) and hold nothing;
* function inputs (pinned): resident from the start, ``S[t,x] = 1`` up to their last original
  read, then kept only while a clone still reads them — never recomputed, freed after their
  last read like any tensor (:func:`schedule_peak` ends them there too); an input that is also a
  result is resident throughout;
* results: a stage ``n`` after the last op holds only clones (the heuristics too recompute a
  dropped result after the last op), and every result is resident at its end
  (``R[n,p] + S[n,y] >= 1``, never freed in stage ``n``);
* an op's ``extra`` bytes count at its step only: ``U[t,k] + R[t,k]·extra(k) <= budget``;
* ops with ``recomputable=False`` have no clones (no ``R[t,i]``, ``i < t``); tensors smaller than
  ``min_size`` are never dropped (``S[t,y] = 1`` from their op to their last original read);
* ``RematOp.inplace`` is ignored: an output and the input whose storage it would take count
  both, exactly as :func:`schedule_peak` counts them (a safe over-approximation of the bytes
  ``plan-memory`` then needs).

Where the stage model could count more than :func:`schedule_peak` — a value kept into a stage
without being read there or later, a value kept while its op is recomputed in the same stage,
a clone whose outputs nothing reads — constraints rule the case out (``S`` only where needed,
``S[t,y] + R[t,p] <= 1``, every clone used); they remove only solutions that cost no less than
one they keep, so the optimum is unchanged and the model's bytes equal :func:`schedule_peak`'s
(``tests/unit/test_remat_optimal.py`` fixes random clone sets and checks both ways, and checks
the optimum against brute force over every clone set of tiny graphs). The one exception is
``min_size``: a small output kept by force while its op is recomputed for another output counts
twice in the stage (safe: the schedule then uses less than the model thinks). One redundant
equation per value and stage — present (kept in, or computed) = kept out + freed, each value
freed at most once — ties the frees to presence in the LP relaxation, which otherwise frees a
value at several places at once, fractionally: with it CP-SAT proves the 12-layer chain's
optimum at a budget of 5 in 1.5 s instead of 55 s (measured). Checkmate's reductions are built
in: variables exist only where they can matter (a clone of ``i`` only in stages up to the last
one where one of its outputs can still be read, a kept value only up to its last possible
read), ``R[t,i > t]`` and ``S[0,·]`` do not exist.

The schedule is read off ``R``: per stage, its clones in index order, then the stage's op. It is
validated with :func:`schedule_peak` (every read after a computation, peak within the budget)
before it is returned. CP-SAT starts from the cheapest heuristic schedule that fits (every one
of :data:`~memopt.planning.remat.HEURISTICS` by default) put in stage form — its clones before
op ``t`` in stage ``t``, sorted, once each, clones nothing reads dropped — when that form still
fits; so the answer is never worse than such a heuristic's, even when CP-SAT's work runs out.

Determinism: one CP-SAT worker (its portfolio of eight interleaved workers proved the linear
chain's optima several times slower, measured) and a limit on CP-SAT's deterministic time (a
count of its own work, not the clock): ``work`` units, by default :func:`default_work` of the
graph, so a run gives the same answer on every machine. Size: the model has O(n²) variables and
constraints; graphs above :data:`MAX_OPS` ops are refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import reduce
from typing import TYPE_CHECKING, Sequence

from .remat import (
    HEURISTICS, RematError, RematGraph, RematResult, live_peak, rematerialize, schedule_peak, working_set_bound,
)

if TYPE_CHECKING:  # ortools is imported where a model is built: it is optional at run time
    from ortools.sat.python.cp_model import IntVar

MAX_OPS = 600
"""Largest graph (ops) :func:`optimal` accepts: the model grows with the square of it (about
0.5 M variables and 1 M constraints at 400 ops of a training graph)."""

NUM_WORKERS = 1
"""CP-SAT workers: one, which alone is deterministic without ``interleave_search`` (and proved
the linear chain's optima faster than eight interleaved ones: 1.5 s against 13 s on the 12-layer
chain, 25 ops, at a budget of 5, measured)."""

WORK_BASE = 8.0
WORK_PER_OP = 0.02
""":func:`default_work`: ``WORK_BASE + WORK_PER_OP · ops`` deterministic units."""

COST_DIGITS = 6
"""Costs are made integral by a power of ten up to ``10^COST_DIGITS`` (exact then); otherwise
they are rounded to a millionth of the largest, and optimality is no longer claimed."""


def default_work(graph: RematGraph) -> float:
    """CP-SAT deterministic-time limit when ``work`` is None: ``WORK_BASE + WORK_PER_OP · ops``
    (8 units plus 2 per 100 ops: 10 at 100 ops, 16 at 400). On these models a unit took 5-50
    wall seconds of one core (measured; CP-SAT's own count leaves out much of its LP work):
    about 1.5 minutes at 100 ops, 10 at 400. Why that much: the 4-layer transformer (108 ops)
    at half its peak is proven optimal after 7.4 units, 46 % below lookahead's recompute cost;
    at 2 units CP-SAT had not improved on lookahead's schedule."""
    return WORK_BASE + WORK_PER_OP * len(graph.ops)


@dataclass
class OptimalRun:
    """What one :func:`solve` did."""

    result: RematResult
    proven: bool
    """True when CP-SAT proved ``result`` optimal (for the exact costs)."""
    lower_bound: float
    """Best proven lower bound on the recompute cost (cost units)."""
    status: str
    """CP-SAT's status name (OPTIMAL, FEASIBLE); HINT when the result is the heuristic's schedule
    CP-SAT started from and its own search returned nothing better (or nothing); TRIVIAL when
    the original schedule fits (no model is built)."""
    work: float
    """Deterministic time CP-SAT used."""
    variables: int
    constraints: int
    hint_cost: float | None
    """Recompute cost of the heuristic schedule CP-SAT started from (None: none fitted)."""


def optimal(graph: RematGraph, budget: int, *, min_size: int = 0, work: float | None = None,
            hint: Sequence[str] = HEURISTICS) -> RematResult:
    """The cheapest schedule (least recompute cost) of ``graph`` whose live bytes stay within
    ``budget``, as far as CP-SAT gets within ``work`` (see :func:`optimal_with_status` for
    whether it is proven). Raises :class:`RematError` when the budget is below the working set
    (with that bound), when CP-SAT proves it infeasible, when it finds no schedule within the
    work, or when the graph has more than :data:`MAX_OPS` ops."""
    return solve(graph, budget, min_size=min_size, work=work, hint=hint).result


def optimal_with_status(graph: RematGraph, budget: int, *, min_size: int = 0, work: float | None = None,
                        hint: Sequence[str] = HEURISTICS) -> tuple[RematResult, bool]:
    """:func:`optimal` and whether the result is proven optimal."""
    run = solve(graph, budget, min_size=min_size, work=work, hint=hint)
    return run.result, run.proven


def _integral(costs: Sequence[float]) -> tuple[list[int], float | None]:
    """Integer costs and the cost of one unit: exact (a power of ten up to ``10^COST_DIGITS``,
    over the gcd) when that exists; else rounded to a millionth of the largest (unit None)."""
    if any(c < 0 or not math.isfinite(c) for c in costs):
        raise RematError("optimal: op costs must be finite and non-negative")
    top = max(costs, default=0.0)
    if top == 0:
        return [0] * len(costs), 1.0
    for d in range(COST_DIGITS + 1):
        scaled = [c * 10 ** d for c in costs]
        ints = [round(x) for x in scaled]
        if all(abs(x - i) <= 1e-9 * max(1.0, abs(x)) for x, i in zip(scaled, ints)):
            g = reduce(math.gcd, ints, 0) or 1
            if max(ints) // g < 1 << 40:
                return [i // g for i in ints], g / 10 ** d
            break
    return [round(c / top * 1_000_000) for c in costs], None


class _Model:
    """Checkmate's program for one graph and budget (see module docstring)."""

    def __init__(self, graph: RematGraph, budget: int, min_size: int = 0):
        from ortools.sat.python import cp_model

        self.graph = graph
        self._stages(budget, min_size)
        self.m = cp_model.CpModel()
        self._variables()
        self._data_rules()
        self._memory_rules(cp_model)
        self.cost_int, self.cost_unit = _integral([op.cost for op in graph.ops])
        keys = list(self.R)
        self.m.minimize(cp_model.LinearExpr.weighted_sum([self.R[key] for key in keys],
                                                         [self.cost_int[i] for _, i in keys]))

    def _stages(self, budget: int, min_size: int) -> None:
        """What the variables range over: bytes in units of their gcd, the positive reads and
        writes of each op, per tensor the stages it may be kept in (``lo`` to ``need``; forced up
        to ``fhi``), per stage the ops that may run in it (``act``)."""
        graph = self.graph
        ops, sizes = graph.ops, graph.sizes
        n = self.n = len(ops)
        producer = self.producer = graph.producers()
        inputs, outputs = set(graph.inputs), set(graph.outputs)
        self.outputs = outputs
        for x in inputs:
            if producer[x] >= 0:
                raise RematError(f"optimal: input {graph.tensor_name(x)} is also computed by op "
                                 f"'{ops[producer[x]].name}'")
        # bytes in units of their gcd (with every op's extra): nothing is lost, budget rounds down
        g = reduce(math.gcd, [*(s for s in sizes if s > 0), *(op.extra for op in ops if op.extra > 0)], 0) or 1
        self.unit = g
        self.cap = budget // g
        self.size = [s // g for s in sizes]
        pos_in = self.pos_in = [[y for y in dict.fromkeys(op.inputs) if sizes[y] > 0] for op in ops]
        pos_out = self.pos_out = [[y for y in dict.fromkeys(op.outputs) if sizes[y] > 0] for op in ops]
        readers: list[list[int]] = [[] for _ in sizes]
        for k in range(n):
            for y in pos_in[k]:
                readers[y].append(k)
        self.readers = readers
        last = [r[-1] if r else -1 for r in readers]
        droppable = self.droppable = [s > 0 and s >= min_size and y not in inputs for y, s in enumerate(sizes)]
        cloneable = [op.recomputable and any(droppable[y] for y in pos_out[i]) for i, op in enumerate(ops)]
        # need[y]: last stage y can be read in (an original read, a clone's, or the end: stage n);
        # until[i]: last stage a clone of i can be of use.
        need = [-1] * len(sizes)
        until = [-1] * n
        for i in range(n - 1, -1, -1):
            for y in pos_out[i]:
                need[y] = max([last[y], n if y in outputs else -1] + [until[j] for j in readers[y]])
            if cloneable[i]:
                until[i] = max(need[y] for y in pos_out[i] if droppable[y])
        for x in inputs:
            if sizes[x] > 0:
                need[x] = max([last[x], n if x in outputs else -1] + [until[j] for j in readers[x]])
        self.need = need
        # kept-value range per tensor: [lo, need]; forced (pinned input, below min_size) up to fhi
        self.lo = [0 if y in inputs else producer[y] + 1 for y in range(len(sizes))]
        self.fhi = [-1] * len(sizes)
        for y in range(len(sizes)):
            if sizes[y] == 0:
                continue
            if y in inputs or sizes[y] < min_size:
                self.fhi[y] = max(last[y], n if y in outputs else -1)
        # active positions per stage (stage n: clones after the last op)
        act: list[list[int]] = [[] for _ in range(n + 1)]
        for i in range(n):
            for t in range(i + 1, until[i] + 1):
                act[t].append(i)
            act[i].append(i)
        self.act = act
        self.act_set = [set(a) for a in act]

    def _variables(self) -> None:
        """``R`` (clones) per stage and active op, ``S`` (kept) per stage and tensor where not
        forced; ``alive``: the tensors that may be resident in each stage."""
        m, n, sizes = self.m, self.n, self.graph.sizes
        self.R: dict[tuple[int, int], IntVar] = {}
        for t in range(n + 1):
            for i in self.act[t]:
                if i != t:
                    self.R[t, i] = m.new_bool_var(f"R{t}_{i}")
        self.S: dict[tuple[int, int], IntVar] = {}
        alive: list[list[int]] = [[] for _ in range(n + 1)]
        for y in range(len(sizes)):
            if sizes[y] == 0:
                continue
            for t in range(self.lo[y], self.need[y] + 1):
                alive[t].append(y)
                if t > self.fhi[y]:
                    self.S[t, y] = m.new_bool_var(f"S{t}_{y}")
        self.alive = alive

    def _clause(self, lits) -> None:
        """OR of literals (constants 0/1 allowed)."""
        out = []
        for x in lits:
            if isinstance(x, int):
                if x:
                    return
            else:
                out.append(x)
        self.m.add_bool_or(out)  # empty: infeasible

    @staticmethod
    def _neg(x):
        return 1 - x if isinstance(x, int) else x.negated()

    def _data_rules(self) -> None:
        """Every read has its value, results are resident at the end, a value is kept only while
        of use, every clone is read."""
        m, n, r, s, clause = self.m, self.n, self.r, self.s, self._clause
        producer, readers, sizes = self.producer, self.readers, self.graph.sizes
        # every read has its value: computed earlier in the stage or kept into it
        for t in range(n + 1):
            for j in self.act[t]:
                for y in self.pos_in[j]:
                    p = producer[y]
                    clause([self._neg(r(t, j)), s(t, y)] + ([r(t, p)] if p >= 0 else []))
        for y in self.outputs:  # results resident at the end
            if sizes[y] > 0:
                p = producer[y]
                clause([s(n, y)] + ([r(n, p)] if p >= 0 else []))
        for (t, y), v in self.S.items():
            p = producer[y]
            nv = v.negated()
            # kept into t: was resident in t-1 (kept or computed)
            clause([nv, s(t - 1, y)] + ([r(t - 1, p)] if p >= 0 else []))
            # kept only when read in stage t or kept further
            clause([nv, s(t + 1, y)] + [r(t, j) for j in readers[y] if j in self.act_set[t]])
            # not kept while recomputed in the stage
            if p >= 0 and (t, p) in self.R:
                m.add_bool_or([nv, self.R[t, p].negated()])
        for (t, i), v in self.R.items():  # a clone is read (in its stage or later)
            lits = [v.negated()]
            for y in self.pos_out[i]:
                if self.droppable[y]:
                    lits.append(s(t + 1, y))
                    lits += [r(t, j) for j in readers[y] if j > i and j in self.act_set[t]]
            clause(lits)

    def _memory_rules(self, cp_model) -> None:
        """The running bytes per stage position within the budget (``U``, ``FREE``)."""
        self.U: dict[tuple[int, int], IntVar] = {}
        self.FREE: dict[tuple[int, int, int], IntVar] = {}
        for t in range(self.n + 1):
            if self.act[t]:
                frees = self._stage_memory(cp_model, t)
                self._freed_once(cp_model, t, frees)

    def _stage_memory(self, cp_model, t: int) -> dict[int, list]:
        """Stage ``t``'s running bytes after each of its ops; the ``FREE`` variables of each
        tensor in the stage."""
        m, r, s, size, cap = self.m, self.r, self.s, self.size, self.cap
        ops = self.graph.ops
        frees: dict[int, list] = {}
        kept = [(y, s(t, y)) for y in self.alive[t]]
        base = sum(size[y] for y, v in kept if isinstance(v, int) and v)
        terms = [v for y, v in kept if not isinstance(v, int)]
        coefs = [size[y] for y, v in kept if not isinstance(v, int)]
        for k in self.act[t]:
            rk = r(t, k)
            out_k = sum(size[y] for y in self.pos_out[k])
            u = m.new_int_var(0, cap, f"U{t}_{k}")
            self.U[t, k] = u
            if isinstance(rk, int):
                base += out_k * rk
            elif out_k:
                terms.append(rk)
                coefs.append(out_k)
            m.add(u == cp_model.LinearExpr.weighted_sum(terms, coefs) + base)
            if ops[k].extra:
                ex = -(-ops[k].extra // self.unit)
                m.add(u + ex * rk <= cap)
            terms, coefs, base = [u], [1], 0
            for y in dict.fromkeys(self.pos_in[k] + self.pos_out[k]):
                conds = [self._neg(rk), s(t + 1, y)]
                conds += [r(t, j) for j in self.readers[y] if j > k and j in self.act_set[t]]
                if any(isinstance(c, int) and c for c in conds):
                    continue  # never freed here
                f = m.new_bool_var(f"F{t}_{y}_{k}")
                m.add_bool_and([c.negated() for c in conds if not isinstance(c, int)]).only_enforce_if(f)
                self.FREE[t, y, k] = f
                frees.setdefault(y, []).append(f)
                terms.append(f)
                coefs.append(-size[y])
        return frees

    def _freed_once(self, cp_model, t: int, frees: dict[int, list]) -> None:
        """A value present in stage ``t`` (kept into it or computed in it) is either kept into
        the next stage or freed exactly once: implied by the rules above, but it ties the frees
        to the presence in the LP relaxation (which otherwise frees a value at several places at
        once, fractionally)."""
        m, r, s, producer = self.m, self.r, self.s, self.producer
        present = dict.fromkeys(self.alive[t])
        for k in self.act[t]:
            present.update(dict.fromkeys(self.pos_out[k]))
        for y in present:
            p = producer[y]
            rp = r(t, p) if p >= 0 else 0
            if not isinstance(rp, int) and t <= self.fhi[y]:
                continue  # kept by force and recomputed: two values at once
            lhs = [*frees.get(y, ()), s(t + 1, y)]
            rhs = [s(t, y), rp]
            const = sum(x for x in rhs if isinstance(x, int)) - sum(x for x in lhs if isinstance(x, int))
            lv = [x for x in lhs if not isinstance(x, int)]
            rv = [x for x in rhs if not isinstance(x, int)]
            if not lv and not rv:
                if const:
                    m.add_bool_or([])  # cannot happen in a consistent model
                continue
            m.add(cp_model.LinearExpr.weighted_sum(lv + rv, [1] * len(lv) + [-1] * len(rv)) == const)

    def r(self, t: int, i: int):
        if i == t:
            return 1
        return self.R.get((t, i), 0)

    def s(self, t: int, y: int):
        if t == self.n + 1:
            return 1 if y in self.outputs else 0
        if t < self.lo[y] or t > self.need[y]:
            return 0
        if t <= self.fhi[y]:
            return 1
        return self.S[t, y]

    # ------------------------------------------------------------------ schedules <-> variables

    def schedule(self, clones: set[tuple[int, int]]) -> list[tuple[int, bool]]:
        """The schedule of a clone set: per stage its clones in index order, then its op."""
        steps: list[tuple[int, bool]] = []
        for t in range(self.n + 1):
            steps += [(i, True) for i in self.act[t] if i != t and (t, i) in clones]
            if t < self.n:
                steps.append((t, False))
        return steps

    def hint(self, clones: set[tuple[int, int]]) -> None:
        """Every variable's value for the clone set (kept values where needed, frees, bytes)."""
        m, n = self.m, self.n
        m.clear_hints()

        def rv(t: int, i: int) -> int:
            return 1 if i == t else int((t, i) in clones)

        sv: dict[tuple[int, int], int] = {}
        for y in range(len(self.size)):
            if self.size[y] == 0:
                continue
            p = self.producer[y]
            nxt = 1 if y in self.outputs else 0  # stage n+1
            for t in range(self.need[y], self.lo[y] - 1, -1):
                if t <= self.fhi[y]:
                    val = 1
                else:
                    read = any(rv(t, j) for j in self.readers[y] if j in self.act_set[t])
                    val = int((read or nxt) and not (p >= 0 and rv(t, p)))
                sv[t, y] = val
                nxt = val

        def s_(t: int, y: int) -> int:
            if t == n + 1:
                return 1 if y in self.outputs else 0
            return sv.get((t, y), 0)

        for (t, i), v in self.R.items():
            m.add_hint(v, rv(t, i))
        for (t, y), v in self.S.items():
            m.add_hint(v, s_(t, y))
        for t in range(n + 1):
            if not self.act[t]:
                continue
            running = sum(self.size[y] * s_(t, y) for y in self.alive[t])
            for k in self.act[t]:
                u = running + rv(t, k) * sum(self.size[y] for y in self.pos_out[k])
                m.add_hint(self.U[t, k], min(u, self.cap))
                for y in dict.fromkeys(self.pos_in[k] + self.pos_out[k]):
                    f = self.FREE.get((t, y, k))
                    if f is None:
                        continue
                    val = int(rv(t, k) and not s_(t + 1, y) and not any(
                        rv(t, j) for j in self.readers[y] if j > k and j in self.act_set[t]))
                    m.add_hint(f, val)
                    u -= val * self.size[y]
                running = u

    def staged(self, schedule: Sequence[int], clone: Sequence[bool]) -> set[tuple[int, int]] | None:
        """A heuristic's schedule as a clone set (clones before op t: stage t; after the last
        op: stage n); None when a clone falls where the model has no variable."""
        out: set[tuple[int, int]] = set()
        t = 0
        for k, c in zip(schedule, clone):
            if not c:
                t = k + 1
            elif (t, k) in self.R:
                out.add((t, k))
            else:
                return None
        return out

    def used(self, clones: set[tuple[int, int]]) -> set[tuple[int, int]]:
        """The clone set without the clones whose outputs nothing reads before they are computed
        again (nor is a result): one backward walk, a dropped clone's reads not counted."""
        steps = self.schedule(clones)
        stage, t = [], 0
        for k, c in steps:
            stage.append(t)
            if not c:
                t = k + 1
        pending = [y in self.outputs for y in range(len(self.size))]
        keep = set()
        for idx in range(len(steps) - 1, -1, -1):
            k, c = steps[idx]
            if c:
                if not any(pending[y] for y in self.pos_out[k] if self.droppable[y]):
                    continue
                keep.add((stage[idx], k))
            for y in self.pos_out[k]:
                pending[y] = False
            for y in self.pos_in[k]:
                pending[y] = True
        return keep


    def recomputed(self, schedule: Sequence[int], clone: Sequence[bool]) -> int:
        """Values dropped and computed again for a later read (or the end): the outputs of the
        clones that something reads before they are computed again, counted once per clone."""
        pending = [y in self.outputs for y in range(len(self.size))]
        count = 0
        for k, c in zip(reversed(schedule), reversed(clone)):
            if c:
                count += sum(1 for y in self.pos_out[k] if pending[y] and self.droppable[y])
            for y in self.pos_out[k]:
                pending[y] = False
            for y in self.pos_in[k]:
                pending[y] = True
        return count


def solve(graph: RematGraph, budget: int, *, min_size: int = 0, work: float | None = None,
          hint: Sequence[str] = HEURISTICS) -> OptimalRun:
    """:func:`optimal` with everything the run knows (:class:`OptimalRun`)."""
    n = len(graph.ops)
    peak0 = live_peak(graph)  # also checks that the original schedule is valid
    bound, at = working_set_bound(graph)
    if budget < bound:
        what = (f"the working set of op '{graph.ops[at].name}' ({bound} bytes: its inputs, outputs and the pinned "
                f"inputs still needed)" if at >= 0 else f"the function's results ({bound} bytes)")
        raise RematError(f"budget {budget} is below {what}", bound)
    if peak0 <= budget:
        res = RematResult(list(range(n)), [False] * n, peak0, graph.base_cost, 0.0, 0, "optimal")
        return OptimalRun(res, True, 0.0, "TRIVIAL", 0.0, 0, 0, None)
    if n > MAX_OPS:
        raise RematError(f"optimal: {n} ops is above the limit of {MAX_OPS} (the integer program grows with "
                         "the square of the op count)")
    from ortools.sat.python import cp_model

    model = _Model(graph, budget, min_size)
    # the best heuristic schedule that fits, in stage form, is CP-SAT's starting point
    best_hint: set[tuple[int, int]] | None = None
    hint_cost: float | None = None
    for h in hint:
        try:
            hr = rematerialize(graph, budget, h, min_size)
        except RematError:
            continue
        clones = model.staged(hr.schedule, hr.clone)
        if clones is None:
            continue
        clones = model.used(clones)
        steps = model.schedule(clones)
        try:
            if schedule_peak(graph, [k for k, _ in steps]) > budget:
                continue
        except ValueError:
            continue
        cost = sum(graph.ops[i].cost for _, i in clones)
        if hint_cost is None or cost < hint_cost:
            best_hint, hint_cost = clones, cost
    if best_hint is not None:
        model.hint(best_hint)
    solver = cp_model.CpSolver()
    prm = solver.parameters
    prm.num_workers = NUM_WORKERS
    prm.interleave_search = NUM_WORKERS > 1  # deterministic batches for a portfolio
    prm.random_seed = 0
    prm.max_deterministic_time = float(default_work(graph) if work is None else work)
    # CP-SAT's presolve step that merges overlapping linear constraints counts most of its
    # deterministic time on these models (0.75 units of 3 in 0.5 s, three times, on the 100-layer
    # chain: the search never started); without it the work goes to the search (measured)
    prm.find_big_linear_overlap = False
    status = solver.solve(model.m)
    proto = model.m.proto
    nvars, ncons = len(proto.variables), len(proto.constraints)
    found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    if status == cp_model.INFEASIBLE and best_hint is None:
        raise RematError(f"optimal: no schedule fits budget {budget} (proven infeasible by CP-SAT)")
    if not found and best_hint is None:
        raise RematError(f"optimal: no schedule within budget {budget} found within {prm.max_deterministic_time:g} "
                         f"units of work (CP-SAT status {solver.status_name(status)})")
    if found:
        clones = {key for key, v in model.R.items() if solver.boolean_value(v)}
        sol_cost = sum(graph.ops[i].cost for _, i in clones)
        if best_hint is not None and hint_cost is not None and hint_cost < sol_cost:
            clones, name = best_hint, "HINT"
        else:
            name = solver.status_name(status)
    else:
        clones, name = best_hint, "HINT"
    assert clones is not None
    steps = model.schedule(clones)
    schedule = [k for k, _ in steps]
    flags = [c for _, c in steps]
    # drop free clones that nothing needs (the objective does not see them)
    for idx in range(len(steps) - 1, -1, -1):
        k, c = steps[idx]
        if c and graph.ops[k].cost == 0:
            trial = schedule[:idx] + schedule[idx + 1:]
            try:
                if schedule_peak(graph, trial) <= budget:
                    schedule, flags = trial, flags[:idx] + flags[idx + 1:]
            except ValueError:
                pass
    try:
        peak = schedule_peak(graph, schedule)
    except ValueError as e:
        raise RematError(f"optimal: internal error: the solution's schedule is invalid ({e})") from None
    if peak > budget:
        raise RematError(f"optimal: internal error: the solution's schedule peaks at {peak} bytes, over budget "
                         f"{budget} (the model's accounting disagrees with schedule_peak)")
    extra = float(sum(graph.ops[k].cost for k, c in zip(schedule, flags) if c))
    evictions = model.recomputed(schedule, flags)
    res = RematResult(schedule, flags, peak, graph.base_cost, extra, evictions, "optimal")
    # proven: CP-SAT's own solution, optimal for the exact costs
    proven = status == cp_model.OPTIMAL and model.cost_unit is not None and name != "HINT"
    lb = solver.best_objective_bound * model.cost_unit if model.cost_unit is not None else 0.0
    return OptimalRun(res, proven, max(0.0, lb), name,
                      float(solver.deterministic_time), nvars, ncons, hint_cost)


__all__ = ["MAX_OPS", "OptimalRun", "default_work", "optimal", "optimal_with_status", "solve"]
