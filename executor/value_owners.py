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
from .memory import ValueNames, address
from .owned_memory import OwnedPlanned


Place = tuple[np.ndarray, tuple[int, int]]
"""Where a value's bytes are: their shadow, and their (address, size)."""

VIEW, WAIT, WEIGHT, MOVES, WRITTEN = range(5)
"""What a value's production does to ownership (see the module docstring)."""


class ValueOwners:
    """The owner and shadow of every value a planned run holds (see the module docstring).
    What each value is, and where its bytes are, is worked out once per run: a value produced
    again (in a loop) is in the same place, but for a ``dma_wait`` result, which is where its
    transfer went."""

    def __init__(self, memory: OwnedPlanned, names: ValueNames) -> None:
        self.memory, self.owners, self.names = memory, memory.owners, names
        self.held: dict[SSAValue, tuple[int, Place, bytes]] = {}  # value -> (owner, its place, its stamps)
        self.stamps: dict[tuple[int, int], bytes] = {}
        self.kinds: dict[SSAValue, int] = {}
        self.places: dict[SSAValue, Place | None] = {}
        self.own: dict[SSAValue, int] = {}  # a written value's own owner id, made once
        self.moving: tuple[Operation | None, dict[tuple[int, int], int]] = (None, {})

    def produced(self, value: SSAValue, data: np.ndarray) -> None:
        """``value`` now holds ``data``: give it its owner, and stamp the bytes it wrote."""
        kind = self.kinds.get(value)
        if kind is None:
            kind = self.kinds[value] = _kind(value)
        place = self._place(value, data, kind)
        if place is None or kind == WEIGHT:
            self.held.pop(value, None)
            return
        if kind == VIEW:
            source = self.held.get(value.owner.source)  # type: ignore[union-attr]
            if source is None:
                self.held.pop(value, None)
            else:
                self.held[value] = (source[0], place, self._stamps(source[0], place))
            return
        if kind == WAIT:
            waited = self.memory.waited[value.owner]  # type: ignore[index]
            self.held[value] = (waited, place, self._stamps(waited, place))
            return
        owner = self.moving[1].get(place[1]) if kind == MOVES else None
        if owner is None:
            owner = self.own.get(value, 0)
            if not owner:
                owner = self.own[value] = self.owners.new_owner(self.names.of(value), _writer(value))
        self.owners.stamp(place[0], owner, _writer(value))
        self.held[value] = (owner, place, self._stamps(owner, place))

    def _stamps(self, owner: int, place: Place) -> bytes:
        """The shadow's bytes where ``owner`` holds all of ``place`` (what a read must find)."""
        key = (owner, place[0].size)
        found = self.stamps.get(key)
        if found is None:
            found = self.stamps[key] = np.full(place[0].size, owner, np.int32).tobytes()
        return found

    def _place(self, value: SSAValue, data: np.ndarray, kind: int) -> Place | None:
        """Where ``data`` (``value``'s bytes) is; None: not in this memory (a weight)."""
        if kind != WAIT and value in self.places:
            return self.places[value]
        span = (address(data), data.nbytes)
        shadow = self.memory.shadow_at(*span)
        place = self.places[value] = (shadow, span) if shadow is not None else None
        return place

    def read(self, value: SSAValue, data: np.ndarray, user: Operation) -> None:
        """``user`` reads ``value``: every byte must still be its buffer's."""
        held = self.held.get(value)
        if held is None:
            return
        owner, (shadow, span), stamps = held
        if isinstance(user, (YieldOp, LoopOp)):
            self._remember(user, span, owner)
        if shadow.tobytes() != stamps:
            loc = locate(user)
            at = f" at {loc[0]}:{loc[1]}" if loc else ""
            message = self.owners.fault(_by_element(value, shadow), owner, self.names.of(value),
                                        reading=f"its use by '{user.name}'{at}")
            raise MemoptError(message, value_location_op(value))

    def _remember(self, user: Operation, span: tuple[int, int], owner: int) -> None:
        """A value a terminator passes on (or a loop starts from), by the bytes it is in."""
        if self.moving[0] is not user:
            self.moving = (user, {})
        self.moving[1][span] = owner


def _kind(value: SSAValue) -> int:
    op = value.owner
    if isinstance(op, ViewOp):
        return VIEW
    if isinstance(op, DmaWaitOp):
        return WAIT
    if isinstance(op, GetGlobalOp):
        return WEIGHT
    return MOVES if _moves(value) else WRITTEN


def _moves(value: SSAValue) -> bool:
    if isinstance(value, BlockArgument):
        return isinstance(value.owner, Block) and isinstance(value.owner.parent_op(), LoopOp)
    return isinstance(value.owner, (IfOp, LoopOp))


def _writer(value: SSAValue) -> Operation | None:
    """The op that writes ``value``: its op, or for a block argument the op whose region holds
    its block."""
    owner = value.owner
    return owner if isinstance(owner, Operation) else owner.parent_op()


def _by_element(value: SSAValue, shadow: np.ndarray) -> np.ndarray:
    """``shadow`` as one row of bytes per element of ``value`` (so that a fault names the
    element), when its element size is whole bytes."""
    if isinstance(value.type, TensorType):
        size = tensor_info(value.type).kind.itemsize
        if size > 0 and shadow.size % size == 0:
            return shadow.reshape(-1, size)
    return shadow


__all__ = ["ValueOwners"]
