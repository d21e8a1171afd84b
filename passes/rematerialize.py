"""``rematerialize{budget=BYTES heuristic=lookahead min-size=0}``: fit a function's activations in
``budget`` bytes by computing cheap tensors again where they are needed (MegEngine's DTR, done
ahead of time).

Tracer → planner → mutator, as ``plan-memory``:

* **tracer** (:func:`remat_graph`): the top block of each function becomes an IR-free
  :class:`~memopt.planning.remat.RematGraph`. A tensor is an on-chip buffer: an argument (pinned:
  nothing can recompute it) or an op's result; a ``memopt.view`` is its source (uses of the view
  are uses of the source); weights (``memopt.get_global`` and views of it) live off chip and take
  no budget. Every ``memopt.compute`` is one op with its ``cost`` (MACs; one per output element
  without it). A region op (``memopt.if``/``memopt.loop``) is one step — remat stays inside one
  block — reading every outside tensor its regions use, never recomputed, and holding its inner
  peak as extra bytes. Ops whose kind is random or collective (:data:`BLACKLIST`) or that carry
  ``memopt.no_remat`` are never recomputed;
* **planner**: :func:`~memopt.planning.remat.rematerialize` with the chosen heuristic;
* **mutator** (:func:`_rewrite`): the block is re-emitted in the new schedule; a recomputation is a
  clone of its op (results named ``<name>.remat<k>``, attribute ``memopt.remat``) placed right
  before its first reader, and every later reader — views re-applied, uses inside regions
  included — reads the latest copy.

Budget and packing: the budget bounds the live bytes of the rewritten function; the arena
``plan-memory`` then packs can be above that bound. The pass measures it (the default strategy on
the rewritten function) and, while it is over the budget, rewrites again aiming lower by the
excess — bisecting between targets that packed over and targets remat could not meet — at most
:data:`ROUNDS` times, so that ``--rematerialize=budget=N --plan-memory`` fits N.
It reports ``remat: N ops cloned, +X cost (+P %), lower bound A → B`` on stderr (the bound with
in-place reuse counted, the one the plan meets); a budget below
what any remat can reach is a one-line error naming the smallest budget the heuristic meets.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import IntegerAttr, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError, copy_location
from memopt.executor.memopt_ops import op_identities
from memopt.dialects.memopt import (
    ComputeOp, DmaStartOp, DmaWaitOp, GetGlobalOp, PlanAttr, REMAT_ATTR, ViewOp, byte_size,
)
from memopt.dialects.written_plan import carries_plan
from memopt.passes.dma_profile import op_macs
from memopt.passes.lifetime import analyze_function, planned_functions, take_body
from memopt.passes.options import option
from memopt.passes.plan_function import plan_function_memory
from memopt.passes.upstream_unsupported import refuse_memref
from memopt.planning import align_up, make_strategy, nested_live_profile
from memopt.planning.bounds import lower_bound_inplace
from memopt.planning.problem import Problem
from memopt.planning.remat import (
    HEURISTICS, RematError, RematGraph, RematOp, RematResult, rematerialize, smallest_budget,
)
from memopt.planning.remat_optimal import MAX_OPS, optimal

MODES = HEURISTICS + ("optimal",)
"""The pass's ``heuristic`` values: the rules, and Checkmate's integer program solved by CP-SAT."""


def _schedule(graph: RematGraph, budget: int, heuristic: str, min_size: int) -> RematResult:
    """The planner the option names: a rule of :mod:`memopt.planning.remat`, or the optimum."""
    if heuristic == "optimal":
        return optimal(graph, budget, min_size=min_size)
    return rematerialize(graph, budget, heuristic, min_size)

BLACKLIST = ("random", "dropout", "multinomial", "bernoulli", "allreduce", "all_reduce", "allgather",
             "all_gather", "send", "recv", "print")
"""Kinds never recomputed (substring, case-insensitive): random draws would differ, collectives
and I/O must run exactly once — DTR's blacklist."""
NO_REMAT_ATTR = "memopt.no_remat"
ROUNDS = 6


def _root(v: SSAValue) -> SSAValue:
    while isinstance(v.owner, ViewOp):
        v = v.owner.source
    return v


def _offchip(v: SSAValue) -> bool:
    return isinstance(_root(v).owner, GetGlobalOp)


@dataclass
class Traced:
    """A function's remat graph and the way back to its IR."""

    graph: RematGraph
    ops: list[Operation]
    """The IR op of every RematOp, in schedule order."""
    tensors: list[SSAValue]
    """The IR value (a root: argument or op result) of every tensor."""


def remat_graph(f: func.FuncOp, alignment: int = 1) -> Traced:
    """The tracer (see module docstring); sizes rounded up to ``alignment``, as the arena
    plan will place them."""
    block = f.body.blocks[0]
    index: dict[SSAValue, int] = {}
    tensors: list[SSAValue] = []
    sizes: list[int] = []

    inputs: list[int] = []

    def tensor(v: SSAValue) -> int:
        if v not in index:
            index[v] = len(tensors)
            tensors.append(v)
            t = v.type
            offchip = _offchip(v) or not isinstance(t, TensorType)
            sizes.append(0 if offchip or not isinstance(t, TensorType) else align_up(byte_size(t), alignment))
            if offchip:
                inputs.append(index[v])  # weights: present from the start, off chip
        return index[v]

    for a in block.args:
        t = tensor(a)
        if t not in inputs:
            inputs.append(t)
    joint = None
    ops: list[RematOp] = []
    ir_ops: list[Operation] = []
    for op in block.ops:
        if isinstance(op, (DmaStartOp, DmaWaitOp)):
            raise MemoptError("rematerialize: run it before insert-dma (the function already streams weights)", op)
        if isinstance(op, (ViewOp, GetGlobalOp, func.ReturnOp)):
            continue
        if not op.results and not op.regions:
            continue
        reads: list[int] = []
        for v in _outside_operands(op):
            if isinstance(v.type, TensorType):
                t = tensor(_root(v))
                if t not in reads:
                    reads.append(t)
        outs = [tensor(r) for r in op.results if isinstance(r.type, TensorType)]
        extra = 0
        if op.regions:
            joint = joint or analyze_function(f, mode="joint")
            extra = _inner_peak(op, joint)
        kind = op.kind.data.lower() if isinstance(op, ComputeOp) else op.name
        recomputable = (isinstance(op, ComputeOp) and NO_REMAT_ATTR not in op.attributes
                        and not any(b in kind for b in BLACKLIST))
        cost = float(op_macs(op)) if isinstance(op, ComputeOp) else 0.0
        inplace = _inplace(op, index, sizes) if isinstance(op, ComputeOp) else ()
        ops.append(RematOp(_op_name(op), cost, tuple(reads), tuple(outs), extra, recomputable, inplace))
        ir_ops.append(op)
    ret = block.last_op
    outputs = [tensor(_root(v)) for v in ret.operands] if isinstance(ret, func.ReturnOp) else []
    names = tuple(f"%{v.name_hint}" if v.name_hint else "" for v in tensors)
    graph = RematGraph(tuple(sizes), tuple(ops), tuple(inputs), tuple(dict.fromkeys(outputs)), names)
    return Traced(graph, ir_ops, tensors)


def _inplace(op: ComputeOp, index: dict[SSAValue, int], sizes: list[int]) -> tuple[int, ...]:
    """The op's ``inplace`` hint as the graph's: per result, the tensor of the operand it may
    overwrite — an on-chip tensor itself, not a view of one (-1 otherwise); empty when none."""
    taken = []
    for idx in op.inplace_indices():
        v = op.inputs[idx] if idx >= 0 else None
        t = index.get(v, -1) if v is not None and _root(v) is v else -1
        taken.append(t if t >= 0 and sizes[t] > 0 else -1)
    return tuple(taken) if any(t >= 0 for t in taken) else ()


def _op_name(op: Operation) -> str:
    if op.results and op.results[0].name_hint:
        return f"%{op.results[0].name_hint}"
    return op.name


def _captured_uses(op: Operation) -> list[tuple[Operation, int, SSAValue]]:
    """Every (op inside ``op``'s regions, operand index, value) reading a value defined outside."""
    if not op.regions:
        return []
    inside: set[SSAValue] = set()
    for inner in walk(op):
        inside.update(inner.results)
        for r in inner.regions:
            for b in r.blocks:
                inside.update(b.args)
    return [(inner, i, v) for inner in walk(op) if inner is not op
            for i, v in enumerate(inner.operands) if v not in inside]


def _outside_operands(op: Operation) -> list[SSAValue]:
    """Operands of ``op`` and every value its regions use that is defined outside it."""
    return list(op.operands) + [v for _, _, v in _captured_uses(op)]


def _inner_peak(op: Operation, joint) -> int:
    """Peak bytes of the buffers that begin inside ``op``'s regions (its results excluded)."""
    lo, hi = joint.numbering.begin[op], joint.numbering.end[op]
    inner = [b for b, owner in zip(joint.problem.buffers, joint.owner)
             if lo < b.start <= hi and owner not in op.results]
    if not inner:
        return 0
    _, live = nested_live_profile(Problem.of(inner))
    return int(live.max()) if len(live) else 0


def _rewrite(f: func.FuncOp, traced: Traced, schedule: list[int], clone: list[bool]) -> None:
    """The mutator: re-emit the top block in ``schedule`` order (see module docstring)."""
    emitter = _Reemitter(f, traced)
    for k, is_clone in zip(schedule, clone):
        emitter.emit(traced.ops[k], is_clone)
    ret = emitter.ret
    for i, v in enumerate(ret.operands):
        if isinstance(v.type, TensorType):
            ret.operands[i] = emitter.latest(v)
    emitter.drop_leftovers()


class _Reemitter:
    """The top block of ``f`` emptied and filled again op by op before its return: each traced
    op placed (or a clone of it), its operands read from their latest copies; the free ops
    (views, get_globals ...) emitted just before their first reader."""

    def __init__(self, f: func.FuncOp, traced: Traced) -> None:
        block = self.block = f.body.blocks[0]
        ret = block.last_op
        assert ret is not None
        self.ret = ret
        self.emitted: set[Operation] = set()
        self.current: dict[SSAValue, SSAValue] = {}  # root value -> its latest computed copy
        self.copies: dict[SSAValue, int] = {}
        self.ident = op_identities(f)
        traced_ops = set(traced.ops)
        self.free_ops = [o for o in block.ops if o is not ret and o not in traced_ops]
        self.free_set = set(self.free_ops)
        for o in list(block.ops):
            if o is not ret:
                o.detach()
        self.view_cache: dict[tuple[SSAValue, SSAValue], SSAValue] = {}
        self.origin: dict[SSAValue, SSAValue] = {}  # a copy (clone result, re-applied view) -> the original value

    def place(self, op: Operation) -> None:
        self.block.insert_op_before(op, self.ret)
        self.emitted.add(op)

    def ensure(self, v: SSAValue) -> None:
        """Emit the free op (view, get_global ...) defining ``v`` and its own operands first."""
        owner = v.owner
        if isinstance(owner, Operation) and owner in self.free_set and owner not in self.emitted:
            for x in owner.operands:
                self.ensure(x)
            self.place(owner)

    def latest(self, v: SSAValue) -> SSAValue:
        """``v`` as it reads now: its root's latest copy, with its views re-applied on it
        (anything this needs is emitted now, so before the op about to be placed)."""
        v = self.origin.get(v, v)  # an operand already rewritten to a copy: back to the original value
        root = _root(v)
        now = self.current.get(root, root)
        if now is root:
            self.ensure(v)
            return v
        if v is root:
            return now
        key = (v, now)
        if key not in self.view_cache:
            src = self.latest(v.owner.source)  # type: ignore[union-attr]  # v is a view's result (not its root)
            view = v.owner.clone()  # type: ignore[union-attr]
            view.operands[0] = src
            if v.name_hint:
                view.results[0].name_hint = f"{v.name_hint}.remat"
            self.place(view)
            self.view_cache[key] = view.results[0]
            self.origin[view.results[0]] = v
        return self.view_cache[key]

    def emit(self, orig: Operation, is_clone: bool) -> None:
        """Place ``orig`` (or a clone of it: a recomputation) with its operands, and the uses
        inside its regions of values defined outside, read from their latest copies."""
        if is_clone:
            op = orig.clone()
            op.attributes[REMAT_ATTR] = IntegerAttr(self.ident[orig], i64)  # the pseudo-kernel identity it copies
            copy_location(orig, op)
            for r_old, r_new in zip(orig.results, op.results):
                self.copies[r_old] = self.copies.get(r_old, 0) + 1
                if r_old.name_hint:
                    r_new.name_hint = f"{r_old.name_hint}.remat{self.copies[r_old]}"
        else:
            op = orig
        for i, v in enumerate(op.operands):
            if isinstance(v.type, TensorType):
                op.operands[i] = self.latest(v)
            else:
                self.ensure(v)
        for inner, i, v in _captured_uses(op):
            if isinstance(v.type, TensorType):
                inner.operands[i] = self.latest(v)
            else:
                self.ensure(v)
        self.place(op)
        for r_old, r_new in zip(orig.results, op.results):
            self.current[r_old] = r_new
            if r_new is not r_old:
                self.origin[r_new] = r_old

    def drop_leftovers(self) -> None:
        """Free ops nothing reads any more (a view whose readers now read a recomputed copy's
        view) are dropped: left in place they would keep the dropped tensor alive."""
        leftover = [o for o in self.free_ops if o not in self.emitted]
        changed = True
        while changed:
            changed = False
            for o in list(leftover):
                if all(not r.uses for r in o.results):
                    leftover.remove(o)
                    o.erase()
                    changed = True
        for o in leftover:  # still read (by nothing emitted: cannot happen, kept for safety)
            for x in o.operands:
                self.ensure(x)
            self.place(o)


def _lower_bound(f: func.FuncOp) -> int:
    """The bound the plan is measured against: in-place reuse counted (``LB_inplace``), so a
    budget the arena meets is never below the bound printed beside it."""
    return lower_bound_inplace(analyze_function(f, mode="joint").problem)


def _arena(f: func.FuncOp, alignment: int) -> int:
    """The arena ``plan-memory`` (default strategy) gives ``f``."""
    return plan_function_memory(f, make_strategy("best"), alignment=alignment).solution.height


def _smallest_hint(smallest: int | None, complete: bool, as_is: int) -> str:
    """The smallest budget known to work, for a refusal: what a bisection over every heuristic's
    budgets met (``lookahead`` with its fallbacks meets it), or the function's own arena when
    that is smaller (the packing can beat the recomputation model's live bytes)."""
    if smallest is not None and smallest < as_is:
        how = ("the smallest a bisection found: recomputation is not monotone in the budget, so a smaller one may "
               "fit too" if complete else "the bisection stopped at its work limit: a smaller one may fit too")
        return f"; the smallest budget any heuristic meets is {smallest} bytes (heuristic=lookahead; {how})"
    return f"; the smallest budget known to work is {as_is} bytes, the function's arena as it is"


def _refuse(f: func.FuncOp) -> None:
    """Functions the pass cannot rewrite truthfully, refused before any is rewritten: memref
    programs (nothing to recompute there yet) and planned functions (the rewrite would leave
    their plan stale: the clones carry copied offsets and the recorded bounds no longer hold)."""
    refuse_memref(f, "rematerialize", "rematerialization")
    if carries_plan(f):
        raise MemoptError(f"rematerialize: '@{f.sym_name.data}' is already planned ({PlanAttr.name}): run rematerialize "
                          "before plan-memory (rewriting it would leave its plan stale)", f)


def rematerialize_function(f: func.FuncOp, budget: int, *, heuristic: str = "lookahead", min_size: int = 0,
                           alignment: int = 16) -> RematResult | None:
    """Rewrite ``f`` in place, recomputing tensors, until the arena ``plan-memory`` (default
    strategy) packs it into is at most ``budget`` bytes (see the module docstring): the core the
    ``rematerialize`` pass and ``plan-memory{spill=auto}`` both drive. Returns the planner's
    result of the rewrite kept, or None when ``f`` fits as it is (left untouched). A budget no
    rewrite meets is a located :class:`MemoptError` naming the smallest budget known to work.
    Writes nothing: remarks are the caller's."""
    name = f.sym_name.data
    as_is = _arena(f, alignment)
    if as_is <= budget:
        return None
    pristine = f.clone()
    target = budget
    arena = None
    work = None
    too_big, too_low = budget + 1, None  # targets known to pack over budget / to fail
    for round_ in range(ROUNDS):
        traced = remat_graph(pristine, alignment)
        try:
            result = _schedule(traced.graph, target, heuristic, min_size)
        except RematError as e:
            if round_ == 0:
                try:
                    smallest, complete = smallest_budget(traced.graph, None, min_size)
                except RematError:
                    smallest, complete = None, False
                hint = _smallest_hint(smallest, complete, as_is)
                raise MemoptError(f"rematerialize: cannot fit '@{name}' in {budget} bytes: {e}{hint}", f) from None
            too_low = target  # aimed too low: try between it and the last target that packed over
            target = (too_low + too_big) // 2
            if target <= too_low:
                break
            continue
        candidate = pristine.clone()
        _rewrite(candidate, remat_graph(candidate, alignment), result.schedule, result.clone)
        packed = _arena(candidate, alignment)
        if arena is None or packed <= budget or packed < arena:
            work, arena, chosen = candidate, packed, result
        if packed <= budget:
            break
        too_big = min(too_big, target)
        target -= packed - budget  # aim lower by the packing excess
        if too_low is not None and target <= too_low:
            target = (too_low + too_big) // 2
        if target <= (too_low or 0) or target >= too_big:
            break
    assert arena is not None and work is not None
    if arena > budget:
        raise MemoptError(
            f"rematerialize: cannot fit '@{name}' in {budget} bytes: rewritten to a lower bound within it, its "
            f"arena still packs to {arena} bytes (try another heuristic)", f)
    take_body(f, work)
    return chosen


@dataclass(frozen=True)
class RematerializeMemoryPass(ModulePass):
    """Fit every function's activations in ``budget`` bytes by recomputing tensors (DTR ahead of time)."""

    name = "rematerialize"

    budget: int | None = option(None, "on-chip bytes the function's arena must fit (required)", values="integer > 0")
    heuristic: str = option("lookahead", "which tensor to drop first: lookahead (memopt's, knows the future), "
                            "dtr (MegEngine's score), dtr-eq, dtr-local, lru, largest, or optimal (Checkmate's integer "
                            f"program on CP-SAT, work-limited and deterministic, graphs up to {MAX_OPS} ops)",
                            choices=MODES)
    min_size: int = option(0, "never drop a tensor smaller than this (DTR's evictee_minimum_size)",
                           values="integer >= 0")
    alignment: int = option(16, "the alignment plan-memory will use (sizes are counted rounded up to it)",
                            values="power of two >= 1")

    def validate(self) -> None:
        if self.budget is None:
            raise MemoptError("rematerialize: budget is required (on-chip bytes, e.g. budget=65536)")
        if self.budget <= 0:
            raise MemoptError(f"rematerialize: budget must be an integer > 0, got {self.budget}")
        if self.alignment < 1 or self.alignment & (self.alignment - 1):
            raise MemoptError(f"rematerialize: alignment must be a power of two >= 1, got {self.alignment}")
        if self.min_size < 0:
            raise MemoptError(f"rematerialize: min-size must be an integer >= 0, got {self.min_size}")

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        self.validate()
        assert self.budget is not None
        funcs = planned_functions(op)
        for f in funcs:
            _refuse(f)
        for f in funcs:
            self._function(f)

    def _function(self, f: func.FuncOp) -> None:
        """The driver over :func:`rematerialize_function`, with the pass's one-line remark."""
        budget = self.budget
        assert budget is not None
        before = _lower_bound(f)
        name = f.sym_name.data
        result = rematerialize_function(f, budget, heuristic=self.heuristic, min_size=self.min_size,
                                        alignment=self.alignment)
        if result is None:
            sys.stderr.write(f"remat: @{name}: 0 ops cloned, +0 cost (+0.0 %), lower bound {before} → {before} "
                             f"(fits budget {budget} as it is)\n")
            return
        after = _lower_bound(f)
        pct = 100.0 * result.extra_cost / result.base_cost if result.base_cost else 0.0
        sys.stderr.write(
            f"remat: @{name}: {result.cloned} ops cloned, +{result.extra_cost:g} cost (+{pct:.1f} %), "
            f"lower bound {before} → {after}\n"
        )


__all__ = ["BLACKLIST", "RematerializeMemoryPass", "rematerialize_function", "remat_graph"]
