"""The memopt dialect's plan attributes decoded, with located errors: the only code that does.

A plan lives in discardable attributes (:mod:`memopt.passes.plan_io` writes them; their names
are :mod:`memopt.dialects.plan_attr_names`): ``memopt.offsets`` on every op with arena-resident
tensor results, ``memopt.arg_offsets`` on the function, ``memopt.plan = #memopt.plan<...>`` for
the arena size, the lower bound and the strategy, ``memopt.numbering`` for the control-flow
numbering, ``memopt.lower_bound_inplace``, ``memopt.memories`` for the arenas of off-chip
memories, and ``memopt.onchip_offset``/``memopt.onchip_size`` for the DMA staging buffers.
Here, below the passes and the executor, because both read them, through the dialect's one plan
reader (:mod:`memopt.dialects.written_plan`), over which the plan model
(:func:`memopt.passes.plan_io.read_function_plan`) is built. Only that reader and the writer
import this module (a contract in ``pyproject.toml``), the writer for what it writes.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, DictionaryAttr, IntegerAttr, StringAttr
from xdsl.ir import Operation, SSAValue

from memopt.dialects.errors import MemoptError
from memopt.dialects.memopt import CopyOp, DmaBufferOp, PlanAttr
from memopt.dialects.plan_attr_names import (
    ARG_OFFSETS_ATTR, CAPACITY_ATTR, LB_INPLACE_ATTR, MEMORIES_ATTR, NUMBERING_ATTR, OFFSETS_ATTR, ONCHIP_OFFSET_ATTR,
    ONCHIP_SIZE_ATTR, PLAN_ATTR,
)
from memopt.planning.function_plan import Staging
from memopt.dialects.walk import walk

NO_OFFSET = -1
"""The offset of a result that takes no arena space (e.g. an off-chip weight)."""



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
    malformed = MemoptError(f"'{MEMORIES_ATTR}' must be a dictionary of integer arena sizes", f)
    if not isinstance(attr, DictionaryAttr):
        raise malformed
    sizes: dict[str, int] = {}
    for k, v in attr.data.items():
        if not isinstance(v, IntegerAttr):
            raise malformed
        sizes[k] = int(v.value.data)
    return sizes


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


def is_planned(f: func.FuncOp) -> bool:
    """Whether ``f`` carries a ``#memopt.plan``."""
    return isinstance(f.attributes.get(PLAN_ATTR), PlanAttr)


def carries_plan(f: func.FuncOp) -> bool:
    """Whether ``f`` has a ``memopt.plan`` attribute, of whatever kind."""
    return PLAN_ATTR in f.attributes


def plan_numbering(f: func.FuncOp) -> str:
    """The control-flow numbering ``f``'s plan is valid in: its ``memopt.numbering``
    (``"joint"`` when absent: a function without branches, where every numbering is one)."""
    mode = f.attributes.get(NUMBERING_ATTR)
    return mode.data if isinstance(mode, StringAttr) and mode.data in ("joint", "serial") else "joint"


def lower_bound_inplace(f: func.FuncOp) -> int | None:
    """``f``'s recorded lower bound with in-place permissions counted (None: not recorded)."""
    a = f.attributes.get(LB_INPLACE_ATTR)
    return a.value.data if isinstance(a, IntegerAttr) else None


def onchip_size(module: Operation) -> int | None:
    """The on-chip total recorded on ``module``, arena plus DMA staging buffers (None: none)."""
    a = module.attributes.get(ONCHIP_SIZE_ATTR)
    return a.value.data if isinstance(a, IntegerAttr) else None


def recorded_capacity(module: Operation) -> int | None:
    """The on-chip capacity ``insert-dma`` recorded on ``module``, if any."""
    a = module.attributes.get(CAPACITY_ATTR)
    return a.value.data if isinstance(a, IntegerAttr) else None


def staging_buffers(module: Operation) -> list[tuple[DmaBufferOp, int | None]]:
    """Every DMA staging buffer of ``module`` with its on-chip offset (None: not placed yet);
    a located error when the offset is malformed."""
    out: list[tuple[DmaBufferOp, int | None]] = []
    for op in walk(module):
        if isinstance(op, DmaBufferOp):
            at = op.attributes.get(ONCHIP_OFFSET_ATTR)
            if at is not None and (not isinstance(at, IntegerAttr) or at.value.data < 0):
                raise MemoptError(f"'{ONCHIP_OFFSET_ATTR}' must be a non-negative integer", op)
            out.append((op, at.value.data if at is not None else None))
    return out


def placed_staging(module: Operation) -> tuple[Staging, ...]:
    """The staging buffers of ``module`` that have an on-chip place."""
    return tuple(Staging(op.sym_name.data, off, op.size.value.data) for op, off in staging_buffers(module)
                 if off is not None)


def value_offsets(f: func.FuncOp) -> list[tuple[SSAValue, int]]:
    """Every value of ``f`` its attributes give an offset, arguments first, then results in
    walk order, aliases included (``-1`` entries too: no arena space)."""
    out: list[tuple[SSAValue, int]] = []
    arg_offs = f.attributes.get(ARG_OFFSETS_ATTR)
    if isinstance(arg_offs, DenseArrayBase):
        out += [(a, int(o)) for a, o in zip(f.body.blocks[0].args, arg_offs.get_values())]
    for op in walk(f.body):
        offs = op.attributes.get(OFFSETS_ATTR)
        if isinstance(offs, DenseArrayBase):
            out += [(r, int(o)) for r, o in zip(op.results, offs.get_values())]
    return out


__all__ = [
    "MEMORIES_ATTR", "NO_OFFSET", "carries_plan", "is_planned", "lower_bound_inplace", "memory_sizes", "offchip_memories", "offsets_attr",
    "onchip_size", "placed_staging", "plan_attr", "plan_numbering", "recorded_capacity", "staging_buffers", "value_offsets",
]
