"""The state of one execution of an upstream program, and how it reads and writes memory.

One :class:`Machine` runs one function once: unplanned (every planned buffer its own storage)
or planned (planned buffers as views of their arena). It holds the values of SSA values, the
storage allocated, and feeds the two records the proof is made of, which its checker keeps
(:class:`.checker.Checker`, the same for the memopt dialect):

* **ownership of bytes** (:mod:`.ownership`) — every write stamps the bytes it writes with the
  writing buffer's identity (the shadow, :mod:`.memref_values`); every read checks that each
  byte it reads still carries the reader's own identity. A byte stamped by another buffer was
  clobbered (named, with the buffer that overwrote it); a byte never stamped was never written
  (its value is undefined). An op's reads are checked again after its writes: an op whose
  output overlaps an input it is still reading clobbers it too.
* **the sequence of writes** — a digest per write, in order (:class:`.proof.Productions`). The
  unplanned run records it; the planned run must reproduce it exactly (same ops, same values):
  planned and unplanned execution compute identical values.

Limits: every op executed counts against ``max_ops`` (a loop counts its trips times its body,
refused before it starts when that is already known to be too many), every allocation against
``max_bytes``; going over either is a located error, never a hang or a swap storm.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.ir import Operation

from memopt.diagnostics import MemoptError

from .checker import Checker
from .core import Core, Program
from .memref_values import Ref, Storage
from .ownership import where
from .paths import Forced
from .proof import digest
from .resources import Limits

NOUN = "buffer"
"""What messages call an upstream program's logical buffer."""


class Machine(Core):
    """One run of an upstream function on the interpreter core: values and storage. ``checker``
    keeps what the run is checked by (:class:`.checker.Checker`: the write log, the reads, the
    ownership of bytes); a run outside a proof gets one of its own."""

    def __init__(self, program: Program, *, planned: bool, seed: int = 0, limits: Limits = Limits(),
                 shapes: dict | None = None, branches: Forced | None = None, checker: Checker | None = None):
        super().__init__(program, seed=seed, limits=limits, branches=branches)
        self.planned = planned
        self.shapes = shapes or {}
        self.checker = checker if checker is not None else Checker(NOUN)
        self.live = self.kernels = 0
        self.op: Operation | None = None
        self.pending: dict[tuple, tuple[Ref, Operation]] = {}  # DMA in flight: tag element -> destination
        self.owners = self.checker.owners
        self.buffers = self.owners.buffers  # owner id -> (name, defining op)
        self.last_writer = self.owners.last_writer  # written directly by the per-element stores
        self.globals: dict[str, Ref] = {}
        self.depth = 0
        self.index: Callable[[int], np.ndarray] | None = None  # linalg.index inside the body being evaluated
        self.arguments: list = []

    # ------------------------------------------------------------------ storage
    def new_owner(self, name: str, op: Operation | None) -> int:
        return self.owners.new_owner(name, op)

    def allocate(self, nbytes: int, name: str, op: Operation | None, *, arena: bool = False,
                 fill: np.ndarray | None = None) -> Storage:
        """Fresh storage of ``nbytes`` (counted against ``max_bytes``). Its bytes start as zeros:
        a byte never written is never read (that is an error), so its value does not matter."""
        if nbytes < 0:
            raise MemoptError(f"cannot allocate a negative size ({nbytes} bytes)", op)
        if self.live + nbytes > self.limits.max_bytes:
            raise MemoptError(f"executing needs more than {self.limits.max_bytes} bytes of storage (--max-bytes): "
                              f"this allocation of {nbytes} bytes comes on top of {self.live} live", op)
        self.live += nbytes
        ident = self.new_owner(name, op)
        shadow = not self.planned or arena
        return Storage(nbytes, ident, name, op, fill=fill, shadow=shadow, arena=arena)

    def free(self, storage: Storage, op: Operation) -> None:
        if storage.freed is not None:
            raise MemoptError(f"buffer '{storage.name}' is deallocated twice (first at {where(storage.freed)})", op)
        storage.freed = op
        self.live -= storage.nbytes

    def decide(self, unplanned: bool) -> bool:
        """A decision taken in the unplanned run (``unplanned``), replayed as it was when planned."""
        return self.checker.decide(unplanned)

    def defined(self, ref: Ref) -> bool:
        """Every byte of ``ref`` was written through it (unplanned storage is never shared)."""
        sh = ref.shadow()
        return sh is None or bool((sh == ref.owner).all())

    # ------------------------------------------------------------------ reads and writes
    def access(self, ref: Ref, op: Operation, what: str) -> None:
        """Refuse an access to freed storage, out of bounds, or to bytes a DMA is writing."""
        st = ref.storage
        if st.freed is not None:
            raise MemoptError(f"buffer '{ref.name}' is {what} after it was deallocated (at {where(st.freed)})", op)
        if not ref.in_bounds():
            raise MemoptError(f"buffer '{ref.name}' is {what} outside its storage (a view past the end of "
                              f"its {st.nbytes} bytes)", op)
        if self.pending:
            self.check_in_flight(ref, op, what)

    def check_in_flight(self, ref: Ref, op: Operation, what: str, span: tuple[int, int] | None = None) -> None:
        span = span or ref.span()
        for dst, start in self.pending.values():
            other = dst.span()
            if span and other and dst.storage is ref.storage and span[0] < other[1] and other[0] < span[1]:
                raise MemoptError(f"bytes a DMA is still writing (started at {where(start)}) are {what} "
                                  "before its memref.dma_wait", op)

    def read(self, ref: Ref, op: Operation) -> np.ndarray:
        """The values of ``ref``'s elements (a fresh array), checking each byte is its own."""
        self.checker.reads += 1
        self.access(ref, op, "read")
        self.check_owner(ref, op)
        return ref.values()

    def check_owner(self, ref: Ref, op: Operation) -> None:
        """Refuse a read of ``ref`` (by ``op``) finding a byte that is not its own."""
        self.owners.check(ref.shadow(), ref.owner, ref.name, op)

    def bad_read(self, ref: Ref, op: Operation, sh: np.ndarray, at: tuple = ()) -> None:
        raise MemoptError(self.owners.fault(sh, ref.owner, ref.name, at), op)

    def write(self, ref: Ref, values, op: Operation, k: int = 0) -> None:
        """Store ``values`` (broadcast to the shape) into ``ref``; stamp and log the write."""
        self.access(ref, op, "written")
        if ref.storage.constant:
            raise MemoptError(f"buffer '{ref.name}' is a constant global: it cannot be written", op)
        arr = ref.array()
        arr[...] = ref.elem.encode(values)
        self.owners.stamp(ref.shadow(), ref.owner, op)
        self.record(op, k, digest(arr), ref)

    def record(self, op: Operation, k: int, data, ref: Ref | None) -> None:
        """Log one write; in planned execution, it must be the unplanned run's write at this place."""
        if self.checker.produced((id(op), k), data) is not None:
            raise self.checker.differs(ref.name if ref is not None else None, op)


__all__ = ["NOUN", "Machine", "where"]
