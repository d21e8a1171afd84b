"""Fitting a function's activations into the on-chip capacity: spill, recompute, or the cheaper mix.

What ``plan-memory{capacity=N spill=auto policy=...}`` runs when the plan would not fit. Three
parts, as every planning pass here:

* **tracer** (:func:`spill_tensors`): every on-chip tensor of the top block as an IR-free
  :class:`~memopt.planning.spill.SpillTensor` — lifetime, the steps of its readers, and the
  latency model's cost of spilling it. Only tensors produced by an op of the top block and read
  by ops of the top block can move (arguments belong to the caller, loop-carried and branch
  values to their region op; a tensor read inside a region or through a view stays);
* **planner**: :func:`~memopt.planning.spill.choose_spills`;
* **mutator** (:func:`insert_spills`): ``%h = memopt.copy %t to "dram"`` right after the producer,
  ``%r = memopt.copy %h`` right before each reader, which then reads ``%r``. The copies make the
  plan explicit: the on-chip problem sees the pieces, the off-chip memory its own problem.

Policies (``policy``): ``spill`` moves tensors off chip; ``remat`` recomputes them
(``rematerialize``, MegEngine's DTR ahead of time); ``auto`` tries spill-only, remat-only and
mixes (remat down to 1.5x / 1.25x the capacity, then spill the rest) on copies of the function
and keeps the one with the lowest modelled time (:class:`Fit.extra_cycles`), so it is never
slower, in the model, than either pure policy. Remat's cost is its recomputed MACs at the
target's rate; spill's is its transfers (not assumed to overlap compute).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from xdsl.dialects import func
from xdsl.ir import Operation, OpResult
from xdsl.rewriter import InsertPoint, Rewriter

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError, copy_location
from memopt.dialects.memopt import REMAT_ATTR, ComputeOp, CopyOp, ViewOp, byte_size
from memopt.passes.dma_profile import op_macs
from memopt.passes.lifetime import FunctionLifetimes, analyze_function, take_body
from memopt.planning.latency import Target
from memopt.planning.spill import SpillTensor, choose_spills, spill_cost
from memopt.passes.remat_function import rematerialize_function
from memopt.passes.upstream_unsupported import refuse_memref

POLICIES = ("spill", "remat", "auto")
SPILL_MODES = ("off", "auto")
ROUNDS = 8
"""Re-plans after spilling: each asks for more spills by the packing excess over the capacity."""
MIXES = (1.5, 1.25)
"""``auto``'s mixed candidates: remat down to this multiple of the capacity, then spill."""


@dataclass(frozen=True)
class Fit:
    """What fitting did to one function and what it costs in the latency model."""

    policy: str
    spilled: int = 0
    bytes_moved: int = 0
    recomputed: int = 0
    spill_cycles: int = 0
    remat_cycles: int = 0

    @property
    def extra_cycles(self) -> int:
        return self.spill_cycles + self.remat_cycles


def base_cycles(f: func.FuncOp, target: Target) -> int:
    """The modelled compute time of ``f`` as written (every compute op at the target's rate)."""
    return sum(target.compute_cycles(op_macs(op)) for op in walk(f.body) if isinstance(op, ComputeOp))


def _readers(value) -> list[Operation] | None:
    """The distinct ops of the value's block that read it, or None when a use is anywhere else
    (a region, a view): such a tensor cannot be spilled by copies in its block."""
    block = value.op.parent_block()
    out: list[Operation] = []
    for use in value.uses:
        user = use.operation
        if user.parent_block() is not block or isinstance(user, ViewOp) or user.regions:
            return None
        if user not in out:
            out.append(user)
    if len(out) > 1:  # program order (use lists are not)
        position = {op: i for i, op in enumerate(block.ops)}
        out.sort(key=position.__getitem__)
    return out


def spill_tensors(lt: FunctionLifetimes, target: Target) -> list[SpillTensor]:
    """The tracer: one :class:`SpillTensor` per buffer of ``lt.problem`` (see module docstring)."""
    top = lt.func.body.blocks[0]
    num = lt.numbering
    out = []
    for b, owner in zip(lt.problem.buffers, lt.owner):
        readers = None
        if isinstance(owner, OpResult) and owner.op.parent_block() is top and not owner.op.regions \
                and not isinstance(owner.op, CopyOp) and b.size > 0:
            readers = _readers(owner)
        if readers and any(isinstance(u, CopyOp) for u in readers):
            readers = None  # already spilled: its home is off chip
        uses = tuple(sorted({num.begin[u] for u in readers})) if readers else ()
        reloads = len(readers or ())
        if readers and isinstance(owner, OpResult) and readers[0] is owner.op.next_op:
            reloads -= 1  # read before it leaves (insert_spills)
        out.append(SpillTensor(
            size=b.size, start=b.start, end=b.end, uses=uses,
            cost=spill_cost(b.size, reloads, target.transfer_cycles, target.dma_issue),
            spillable=bool(readers),
        ))
    return out


def insert_spills(lt: FunctionLifetimes, chosen: list[int], memory: str) -> tuple[int, int]:
    """The mutator: a spill copy after each chosen tensor's producer, a reload before each
    reader. Returns (tensors spilled, bytes moved)."""
    moved = 0
    for k in chosen:
        value = lt.owner[k]
        assert isinstance(value, OpResult)
        readers = _readers(value)
        assert readers
        # A reader right after the producer reads the tensor before it leaves (no reload).
        adjacent = readers[0] is value.op.next_op
        home = CopyOp(value, memory)
        copy_location(value.op, home)
        Rewriter.insert_op(home, InsertPoint.after(value.op))
        home.result.name_hint = f"{value.name_hint or 'spill'}.spill"
        for user in readers[1:] if adjacent else readers:
            back = CopyOp(home.result)
            copy_location(user, back)
            back.result.name_hint = f"{value.name_hint or 'spill'}.reload"
            Rewriter.insert_op(back, InsertPoint.before(user))
            for i, operand in enumerate(user.operands):
                if operand is value:
                    user.operands[i] = back.result
        moved += byte_size(value.type) * (1 + len(readers) - adjacent)  # type: ignore[arg-type]
    return len(chosen), moved


def spill_to_fit(f: func.FuncOp, capacity: int, target: Target, memory: str,
                 arena: Callable[[func.FuncOp], int], alignment: int) -> Fit:
    """Spill tensors of ``f`` until ``arena(f) <= capacity`` (re-planning each round, asking
    for more by the packing excess). When the rounds do not get there, every spillable tensor
    of the original function is spilled at once: that plan's arena is the smallest capacity
    spilling reaches — it fits, or it is the number a located one-line error names (and
    asking for exactly that capacity then succeeds, by the same fallback)."""
    original = f.clone()
    spilled = moved = cycles = 0
    aim = capacity
    for _ in range(ROUNDS):
        height = arena(f)
        if height <= capacity:
            return Fit("spill", spilled, moved, spill_cycles=cycles)
        lt = analyze_function(f, mode="joint", alignment=alignment)
        tensors = spill_tensors(lt, target)
        aim -= max(0, height - capacity) if spilled else 0
        chosen, _ = choose_spills(tensors, min(aim, capacity))
        if not chosen:
            break
        cycles += sum(tensors[k].cost for k in chosen)
        n, b = insert_spills(lt, chosen, memory)
        spilled += n
        moved += b
    if arena(f) <= capacity:
        return Fit("spill", spilled, moved, spill_cycles=cycles)
    g = original.clone()
    lt = analyze_function(g, mode="joint", alignment=alignment)
    tensors = spill_tensors(lt, target)
    every = [k for k, t in enumerate(tensors) if t.spillable]
    spilled, moved = insert_spills(lt, every, memory)
    height = arena(g)
    if height > capacity:
        raise MemoptError(
            f"cannot fit '@{f.sym_name.data}' in {capacity} bytes by spilling: the smallest capacity spilling "
            f"reaches is {height} bytes (what one op reads and writes must be on chip)", f)
    take_body(f, g)
    return Fit("spill", spilled, moved, spill_cycles=sum(tensors[k].cost for k in every))


def remat_to_fit(f: func.FuncOp, budget: int, target: Target, alignment: int) -> Fit:
    """Recompute tensors of ``f`` so that its arena fits ``budget`` (``rematerialize``)."""
    before = {op for op in walk(f.body) if REMAT_ATTR in op.attributes}
    rematerialize_function(f, budget, alignment=alignment)
    clones = [op for op in walk(f.body) if REMAT_ATTR in op.attributes and op not in before]
    cycles = sum(target.compute_cycles(op_macs(op)) for op in clones if isinstance(op, ComputeOp))
    return Fit("remat", recomputed=len(clones), remat_cycles=cycles)


def fit_function(f: func.FuncOp, capacity: int, policy: str, target: Target, memory: str,
                 arena: Callable[[func.FuncOp], int], alignment: int) -> Fit:
    """Rewrite ``f`` (in place) so that its arena fits ``capacity`` under ``policy``."""
    refuse_memref(f, "plan-memory", "spill=auto")
    if policy == "spill":
        return spill_to_fit(f, capacity, target, memory, arena, alignment)
    if policy == "remat":
        return remat_to_fit(f, capacity, target, alignment)
    candidates: list[tuple[int, int, Fit, func.FuncOp]] = []
    errors: list[str] = []

    def attempt(order: int, run: Callable[[func.FuncOp], Fit]) -> None:
        trial = f.clone()
        try:
            fit = run(trial)
        except MemoptError as e:
            errors.append(e.message)
            return
        candidates.append((fit.extra_cycles, order, fit, trial))

    attempt(0, lambda g: spill_to_fit(g, capacity, target, memory, arena, alignment))
    attempt(1, lambda g: remat_to_fit(g, capacity, target, alignment))
    for i, mix in enumerate(MIXES):
        budget = int(capacity * mix)
        if budget >= arena(f):
            continue

        def mixed(g: func.FuncOp, budget: int = budget) -> Fit:
            r = remat_to_fit(g, budget, target, alignment)
            s = spill_to_fit(g, capacity, target, memory, arena, alignment)
            return Fit("auto", s.spilled, s.bytes_moved, r.recomputed, s.spill_cycles, r.remat_cycles)

        attempt(2 + i, mixed)
    if not candidates:
        raise MemoptError(errors[0], f)
    _, _, fit, best = min(candidates, key=lambda c: (c[0], c[1]))
    take_body(f, best)
    return Fit("auto", fit.spilled, fit.bytes_moved, fit.recomputed, fit.spill_cycles, fit.remat_cycles)


__all__ = ["Fit", "POLICIES", "SPILL_MODES", "base_cycles", "fit_function", "spill_tensors", "insert_spills"]
