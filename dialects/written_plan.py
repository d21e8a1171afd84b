"""A memopt-dialect function's plan read as it is written: the dialect's one plan reader.

The plan's attributes are decoded by :mod:`memopt.dialects.plan_attrs` (their names are
:mod:`memopt.dialects.plan_attr_names`); this module is the one reader over that decoder, and
no module but it and the plan's writer (:mod:`memopt.passes.plan_io`) imports either (a
contract in ``pyproject.toml``). :class:`WrittenPlan` gives the recorded numbers: the arena size
and bounds, the strategy, the control-flow numbering, each value's offset, the off-chip
memories and their arenas' sizes, the staging buffers' on-chip places. The executor, the API
and the staging layout use them as they are — a hand-edited or broken plan is run as written,
never re-derived — and the plan model (:func:`memopt.passes.plan_io.read_function_plan`) is
built over them, with the lifetimes it derives.

Each part is decoded when it is asked for, so a caller meets the first malformed part in the
order it reads them, as a located :class:`MemoptError`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from memopt.dialects.errors import MemoptError
from memopt.dialects.memopt import DmaBufferOp
from memopt.dialects import plan_attrs
from memopt.dialects.plan_attr_names import ARG_OFFSETS_ATTR, MEMORIES_ATTR, OFFSETS_ATTR
from memopt.planning.function_plan import Staging


def is_planned(f: func.FuncOp) -> bool:
    """Whether ``f`` carries a ``#memopt.plan``."""
    return plan_attrs.is_planned(f)


def carries_plan(f: func.FuncOp) -> bool:
    """Whether ``f`` has a plan attribute at all, well-formed or not: what a rewrite that would
    leave a plan stale refuses."""
    return plan_attrs.carries_plan(f)


def offchip_memories(f: func.FuncOp) -> list[str]:
    """The off-chip memories ``f``'s copies use, sorted: each an arena of its own (planned or
    not yet)."""
    return plan_attrs.offchip_memories(f)


@dataclass(frozen=True)
class WrittenPlan:
    """The plan of ``func`` (staging buffers: ``module``'s, which every function shares; None:
    a function in no module, which has none) as its attributes say; built by
    :func:`read_written_plan`."""

    func: func.FuncOp
    module: Operation | None
    arena_size: int
    lower_bound: int
    strategy: str

    def numbering(self) -> str:
        """The control-flow numbering the plan is valid in (``"joint"`` when none is recorded)."""
        return plan_attrs.plan_numbering(self.func)

    def arg_offsets(self) -> list[int]:
        """The arena offset of every argument of the function (-1: none)."""
        return plan_attrs.offsets_attr(self.func, ARG_OFFSETS_ATTR, len(self.func.body.blocks[0].args))

    def result_offsets(self, op: Operation) -> list[int]:
        """The offset of every result of ``op`` in its memory's arena (-1: none)."""
        return plan_attrs.offsets_attr(op, OFFSETS_ATTR, len(op.results))

    def has_result_offsets(self, op: Operation) -> bool:
        """Whether ``op`` carries result offsets at all, well-formed or not."""
        return OFFSETS_ATTR in op.attributes

    def offchip_memories(self) -> list[str]:
        """The off-chip memories the function's copies use, sorted: each an arena of its own."""
        return offchip_memories(self.func)

    def memory_sizes(self) -> dict[str, int]:
        """Off-chip memory name → its arena's size (empty without spills)."""
        return plan_attrs.memory_sizes(self.func)

    def memory_size(self, memory: str, at: Operation) -> int:
        """The arena size of off-chip ``memory``; a located error at ``at`` when none is recorded."""
        sizes = self.memory_sizes()
        if memory not in sizes:
            raise MemoptError(f"memory '{memory}' has no arena size in '{MEMORIES_ATTR}'", at)
        return sizes[memory]

    def staging(self) -> list[tuple[DmaBufferOp, int | None]]:
        """Every DMA staging buffer with its on-chip offset (None: not placed)."""
        return staging_buffers(self.module) if self.module is not None else []

    def placed_staging(self) -> tuple[Staging, ...]:
        """The staging buffers that have an on-chip place."""
        return placed_staging(self.module) if self.module is not None else ()

    def onchip_size(self) -> int | None:
        """The recorded on-chip total, arena plus staging buffers (None: none recorded)."""
        return onchip_size(self.module) if self.module is not None else None

    def lower_bound_inplace(self) -> int | None:
        """The recorded lower bound with in-place permissions counted (None: not recorded)."""
        return plan_attrs.lower_bound_inplace(self.func)

    def value_offsets(self) -> list[tuple[SSAValue, int]]:
        """Every value given an offset, arguments first, then results in walk order, aliases
        included."""
        return plan_attrs.value_offsets(self.func)


def read_written_plan(f: func.FuncOp, module: Operation | None = None) -> WrittenPlan:
    """``f``'s plan as written (``module``: where its staging buffers are, by default its
    parent); a located error when ``f`` is not planned or its ``#memopt.plan`` is malformed."""
    attr = plan_attrs.plan_attr(f)
    where = module if module is not None else f.parent_op()
    return WrittenPlan(f, where, attr.arena_size.data, attr.lower_bound.data, attr.strategy.data)


def staging_buffers(module: Operation) -> list[tuple[DmaBufferOp, int | None]]:
    """Every DMA staging buffer of ``module`` with its on-chip offset (None: not placed); a
    located error when an offset is malformed."""
    return plan_attrs.staging_buffers(module)


def placed_staging(module: Operation) -> tuple[Staging, ...]:
    """The DMA staging buffers of ``module`` that have an on-chip place."""
    return plan_attrs.placed_staging(module)


def onchip_size(module: Operation) -> int | None:
    """The on-chip total recorded on ``module``, arena plus staging buffers (None: none)."""
    return plan_attrs.onchip_size(module)


def recorded_capacity(module: Operation) -> int | None:
    """The on-chip capacity ``insert-dma`` recorded on ``module`` (None: none)."""
    return plan_attrs.recorded_capacity(module)


__all__ = [
    "WrittenPlan", "carries_plan", "is_planned", "offchip_memories", "onchip_size", "placed_staging",
    "read_written_plan", "recorded_capacity", "staging_buffers",
]
