"""Which logical buffer each memopt-dialect value belongs to in a planned run, and its checks.

The planned memory model of a check (:class:`.owned_memory.OwnedPlanned`) keeps the ownership record
(:mod:`.ownership`); this module decides, value by value, what the IR promises about its bytes,
so that a read is refused exactly when a plan let another buffer's write reach bytes still to be
read (whatever the values):

* a value an op writes (a function argument, a compute or unknown op's result, a copy to or from
  another memory) is a buffer of its own, stamped where it is written — an in-place result
  included: it takes over its input's bytes, which nothing may read afterwards;
* a value that *moves* (an ``if`` result, a loop result, a loop body's block argument) written
  exactly over the bytes of the value it is copied from (the yielded or initial value, read just
  before) shares that value's slot: it continues that buffer; written elsewhere it is its own;
* a view is its source's buffer (the same bytes); a ``dma_wait`` result is its transfer's
  (stamped when the transfer lands); a weight read from the off-chip store has no shadow.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from memopt.diagnostics import MemoptError, locate
from memopt.dialects.errors import value_location_op
from memopt.dialects.memopt import DmaWaitOp, GetGlobalOp, IfOp, LoopOp, ViewOp, YieldOp

from .data import tensor_info
from .memory import ValueNames
from .owned_memory import OwnedPlanned, address


class ValueOwners:
    """The owner and shadow of every value a planned run holds (see the module docstring)."""

    def __init__(self, memory: OwnedPlanned, names: ValueNames) -> None:
        self.memory, self.owners, self.names = memory, memory.owners, names
        self.held: dict[SSAValue, tuple[int, np.ndarray]] = {}  # value -> (owner, shadow of its bytes)
        self.own: dict[SSAValue, int] = {}  # a written value's own owner id, made once
        self.moving: tuple[Operation | None, dict[tuple[int, int], int]] = (None, {})

    def produced(self, value: SSAValue, data: np.ndarray) -> None:
        """``value`` now holds ``data``: give it its owner, and stamp the bytes it wrote."""
        shadow = self.memory.shadow_of(data)
        if shadow is None:
            self.held.pop(value, None)
            return
        op = value.owner if isinstance(value.owner, Operation) else None
        if isinstance(op, ViewOp):
            source = self.held.get(op.source)
            if source is None:
                self.held.pop(value, None)
            else:
                self.held[value] = (source[0], shadow)
            return
        if isinstance(op, DmaWaitOp):
            self.held[value] = (self.memory.waited[op], shadow)
            return
        if isinstance(op, GetGlobalOp):
            self.held.pop(value, None)
            return
        owner = self._moved_from(value, data)
        if owner is None:
            owner = self.own.get(value, 0)
            if not owner:
                owner = self.own[value] = self.owners.new_owner(self.names.of(value), op)
        self.owners.stamp(shadow, owner, op if op is not None else _writer(value))
        self.held[value] = (owner, shadow)

    def _moved_from(self, value: SSAValue, data: np.ndarray) -> int | None:
        """The owner ``value`` continues: that of the value just read whose bytes it was
        written over exactly, when ``value`` moves (see the module docstring)."""
        if not _moves(value):
            return None
        return self.moving[1].get((address(data), data.nbytes))

    def read(self, value: SSAValue, data: np.ndarray, user: Operation) -> None:
        """``user`` reads ``value``: every byte must still be its buffer's."""
        held = self.held.get(value)
        if held is None:
            return
        owner, shadow = held
        if isinstance(user, (YieldOp, LoopOp)):
            self._remember(user, data, owner)
        if shadow.size and not (shadow == owner).all():
            loc = locate(user)
            at = f" at {loc[0]}:{loc[1]}" if loc else ""
            message = self.owners.fault(_by_element(value, shadow), owner, self.names.of(value), reading=f"its use by '{user.name}'{at}")
            raise MemoptError(message, value_location_op(value))

    def _remember(self, user: Operation, data: np.ndarray, owner: int) -> None:
        """A value a terminator passes on (or a loop starts from), by the bytes it is in."""
        if self.moving[0] is not user:
            self.moving = (user, {})
        self.moving[1][(address(data), data.nbytes)] = owner


def _moves(value: SSAValue) -> bool:
    if isinstance(value, BlockArgument):
        return isinstance(value.owner, Block) and isinstance(value.owner.parent_op(), LoopOp)
    return isinstance(value.owner, (IfOp, LoopOp))


def _writer(value: SSAValue) -> Operation | None:
    """The op a block argument is written by: the op whose region holds its block."""
    block = value.owner
    return block.parent_op() if isinstance(block, Block) else None


def _by_element(value: SSAValue, shadow: np.ndarray) -> np.ndarray:
    """``shadow`` as one row of bytes per element of ``value`` (so that a fault names the
    element), when its element size is whole bytes."""
    if isinstance(value.type, TensorType):
        size = tensor_info(value.type).kind.itemsize
        if size > 0 and shadow.size % size == 0:
            return shadow.reshape(-1, size)
    return shadow


__all__ = ["ValueOwners"]
