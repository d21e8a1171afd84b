"""Ownership of bytes: which logical buffer's write each byte of shared storage holds.

A planned run puts many buffers in one arena; a plan is right only if no buffer's bytes are
overwritten by another while it is still to be read — whatever the values written happen to be.
Comparing values alone cannot see that: a write of equal bytes over a live buffer leaves its values
intact on one input and not on another, so the verdict would depend on the seed. So every run of a
proof keeps this record (its checker's, :class:`.checker.Checker`), for both the upstream ``memref``
machine (:mod:`.memref_machine`) and the memopt dialect's interpreter (:mod:`.value_owners`):

* every logical buffer gets an *owner id* (:meth:`Ownership.new_owner`), named for messages;
* storage that may hold several buffers keeps a *shadow* (:func:`blank_shadow`): per byte, the
  owner whose write left it there (0: never written); a write stamps its bytes
  (:meth:`Ownership.stamp`), and the op that wrote an owner last is kept;
* a read must find its own owner on every byte (:meth:`Ownership.check`): a byte stamped by
  another buffer was *clobbered* (the message names the buffer that overwrote it and where it
  was written), a byte never stamped is *undefined* (:meth:`Ownership.fault`).

Views share their source's owner; a flavour decides which of its values are new buffers and which
take over another's bytes (what its IR promises), and words its own messages' subject.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation

from memopt.diagnostics import MemoptError, locate

NEVER_WRITTEN = 0
"""The shadow's stamp of a byte no write has reached."""


def blank_shadow(nbytes: int) -> np.ndarray:
    """The shadow of ``nbytes`` bytes of storage, none of them written yet."""
    return np.zeros(nbytes, np.int32)


def where(op: Operation | None) -> str:
    """How a message places ``op``: its line, else its name."""
    loc = locate(op)
    return f"line {loc[0]}" if loc else f"'{op.name}'" if op is not None else "?"


class Ownership:
    """The owners of one run's logical buffers and the last op that wrote each (see the module
    docstring); ``noun`` is what messages call a buffer (``buffer``, ``tensor``)."""

    __slots__ = ("buffers", "last_writer", "next_id", "noun")

    def __init__(self, noun: str = "buffer") -> None:
        self.buffers: dict[int, tuple[str, Operation | None]] = {}  # owner id -> (name, defining op)
        self.last_writer: dict[int, Operation] = {}
        self.next_id = NEVER_WRITTEN + 1
        self.noun = noun

    def new_owner(self, name: str, op: Operation | None) -> int:
        """A fresh owner id for the logical buffer ``name`` (defined by ``op``)."""
        ident = self.next_id
        self.next_id += 1
        self.buffers[ident] = (name, op)
        return ident

    def stamp(self, shadow: np.ndarray | None, owner: int, op: Operation | None) -> None:
        """``op`` wrote every byte ``shadow`` covers as ``owner``."""
        if shadow is not None:
            shadow[...] = owner
        if op is not None:
            self.last_writer[owner] = op

    def check(self, shadow: np.ndarray | None, owner: int, name: str, op: Operation | None,
              reading: str = "this read") -> None:
        """Raise the located fault (at ``op``) unless every byte ``shadow`` covers is ``owner``'s."""
        if shadow is not None and shadow.size and not (shadow == owner).all():
            raise MemoptError(self.fault(shadow, owner, name, reading=reading), op)

    def fault(self, shadow: np.ndarray, owner: int, name: str, at: tuple = (), reading: str = "this read") -> str:
        """Why a read of ``name`` (owner ``owner``) through ``shadow`` is wrong: a byte another
        buffer wrote (clobbered, named with its writer), or one nothing wrote (undefined; the
        element ``at``, or the first wrong one when some bytes are its own)."""
        wrong = np.argwhere(shadow != owner)[0]
        stamp = int(shadow[tuple(wrong)])
        if stamp == NEVER_WRITTEN or stamp not in self.buffers:
            if at or (shadow == owner).any():
                element = list(at) or [int(i) for i in wrong[:-1]]
                return f"element {element} of {self.noun} '{name}' is read before it is written (its bytes are undefined)"
            return f"{self.noun} '{name}' is read before anything is written to it (its bytes are undefined)"
        other = self.buffers[stamp][0]
        writer = self.last_writer.get(stamp)
        by = f" (written at {where(writer)})" if writer is not None else ""
        return (f"{self.noun} '{name}' differs between planned and unplanned execution: "
                f"its bytes were overwritten by '{other}'{by} before {reading}")


__all__ = ["NEVER_WRITTEN", "Ownership", "blank_shadow", "where"]
