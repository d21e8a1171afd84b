"""A memopt-dialect function's plan read exactly as it is written, value by value.

The executor must run a plan as written — a hand-edited or broken one included — so it may not
re-derive lifetimes, which the plan reader (:func:`memopt.passes.plan_io.read_function_plan`)
does to build the plan model. What it, the API and the staging layout need instead is the
recorded numbers: the arena size and bounds, each value's offset, the off-chip memories' arena
sizes, the staging buffers' on-chip places. :class:`WrittenPlan` gives them, decoded by the
dialect's plan decoder (:mod:`memopt.dialects.plan_attrs`); no module but the two readers
decodes the attributes (a contract in ``pyproject.toml``).

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


def is_planned(f: func.FuncOp) -> bool:
    """Whether ``f`` carries a ``#memopt.plan``."""
    return plan_attrs.is_planned(f)


def carries_plan(f: func.FuncOp) -> bool:
    """Whether ``f`` has a plan attribute at all, well-formed or not: what a rewrite that would
    leave a plan stale refuses."""
    return plan_attrs.carries_plan(f)


@dataclass(frozen=True)
class WrittenPlan:
    """The plan of ``func`` (staging buffers: ``module``'s, which every function shares) as its
    attributes say; built by :func:`read_written_plan`."""

    func: func.FuncOp
    module: Operation
    arena_size: int
    lower_bound: int
    strategy: str

    def arg_offsets(self) -> list[int]:
        """The arena offset of every argument of the function (-1: none)."""
        return plan_attrs.offsets_attr(self.func, ARG_OFFSETS_ATTR, len(self.func.body.blocks[0].args))

    def result_offsets(self, op: Operation) -> list[int]:
        """The offset of every result of ``op`` in its memory's arena (-1: none)."""
        return plan_attrs.offsets_attr(op, OFFSETS_ATTR, len(op.results))

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
        return plan_attrs.staging_buffers(self.module)

    def onchip_size(self) -> int | None:
        """The recorded on-chip total, arena plus staging buffers (None: none recorded)."""
        return plan_attrs.onchip_size(self.module)

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
    assert where is not None, "a planned function lives in a module"
    return WrittenPlan(f, where, attr.arena_size.data, attr.lower_bound.data, attr.strategy.data)


def recorded_capacity(module: Operation) -> int | None:
    """The on-chip capacity ``insert-dma`` recorded on ``module`` (None: none)."""
    return plan_attrs.recorded_capacity(module)


__all__ = ["WrittenPlan", "carries_plan", "is_planned", "read_written_plan", "recorded_capacity"]
