"""The memopt dialect's plan attributes read back with located errors.

A plan lives in discardable attributes (:mod:`memopt.passes.plan_io` writes them):
``memopt.offsets`` on every op with arena-resident tensor results, ``memopt.arg_offsets`` on the
function, ``memopt.plan = #memopt.plan<...>`` for the arena size, the lower bound and the
strategy, and ``memopt.memories`` for the arenas of off-chip memories. Here, below the passes
and the executor, because both read them: ``verify-plan`` and the plan reader through
:mod:`memopt.passes.plan_io`, the executor to lay a planned run out.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, DictionaryAttr, IntegerAttr
from xdsl.ir import Operation

from memopt.dialects.errors import MemoptError
from memopt.dialects.memopt import PLAN_ATTR, CopyOp, PlanAttr
from memopt.dialects.walk import walk

NO_OFFSET = -1
"""The offset of a result that takes no arena space (e.g. an off-chip weight)."""

MEMORIES_ATTR = "memopt.memories"
"""On a function with spilled tensors: ``{dram = N : i64, ...}``, the arena size of every
off-chip memory (the on-chip arena's is in ``memopt.plan``); each ``memopt.copy ... to "m"``
carries its offset in memory ``m``'s arena in ``memopt.offsets``."""


def offsets_attr(op: Operation, name: str, n: int) -> list[int]:
    """The ``n`` integers of plan attribute ``name`` on ``op``; located error when missing or
    of the wrong length (shared by verify-plan and the executor, which both read plans back)."""
    attr = op.attributes.get(name)
    if not isinstance(attr, DenseArrayBase):
        raise MemoptError(f"missing '{name}' attribute on a planned op", op)
    vals = [int(v) for v in attr.get_values()]
    if len(vals) != n:
        raise MemoptError(f"'{name}' has {len(vals)} entries, expected {n}", op)
    return vals


def memory_sizes(f) -> dict[str, int]:
    """``memopt.memories`` of ``f``: off-chip memory name → arena size (empty without spills)."""
    attr = f.attributes.get(MEMORIES_ATTR)
    if attr is None:
        return {}
    if not isinstance(attr, DictionaryAttr) or not all(isinstance(v, IntegerAttr) for v in attr.data.values()):
        raise MemoptError(f"'{MEMORIES_ATTR}' must be a dictionary of integer arena sizes", f)
    return {k: int(v.value.data) for k, v in attr.data.items()}


def offchip_memories(f: func.FuncOp) -> list[str]:
    """The off-chip memories ``f``'s copies use, sorted: each an arena of its own."""
    return sorted({op.memory.data for op in walk(f.body) if isinstance(op, CopyOp) and op.memory is not None})


def plan_attr(f: func.FuncOp) -> PlanAttr:
    """``f``'s ``#memopt.plan``; a located error when it is missing (not planned) or is some
    other attribute (hand-edited: said as such, not as missing)."""
    plan = f.attributes.get(PLAN_ATTR)
    if plan is None:
        raise MemoptError(f"function '@{f.sym_name.data}' is not planned: no '{PLAN_ATTR}' attribute "
                          "(run memopt-opt --plan-memory first)", f)
    if not isinstance(plan, PlanAttr):
        raise MemoptError(f"function '@{f.sym_name.data}': its '{PLAN_ATTR}' attribute is {plan}, not a "
                          "#memopt.plan<arena_size = N, lower_bound = N, strategy = \"...\">", f)
    return plan


__all__ = ["MEMORIES_ATTR", "NO_OFFSET", "memory_sizes", "offchip_memories", "offsets_attr", "plan_attr"]
