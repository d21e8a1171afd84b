"""What a proof by execution compares, the same for both IR flavours.

A plan is proven by running a function twice — unplanned (every buffer its own storage) and
planned (buffers where the plan puts them) — and requiring the planned run to produce what the
unplanned run produced, in the same order, and to return the same results. The memopt-dialect
interpreter and the upstream ``memref`` machine differ in their ops and in how they store values;
what their one checker (:mod:`.checker`) compares is this module's:

* :func:`digest`, the fingerprint of a value's bytes (also what ``memopt-run`` prints);
* :class:`Productions`, the sequence of what a run produced — per production the producer (a
  value, or an op and its result index) and a fingerprint of what it wrote. The unplanned run
  records it; the planned run, made with the unplanned run's sequence as its reference, is
  checked at every production: another producer at that place means execution took a different
  path, the same producer with other bytes means the plan changed a value;
* :func:`result_bytes` and :func:`first_difference`, how two runs' results are compared.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Hashable, Sequence
from enum import Enum

import numpy as np


def digest(data: np.ndarray) -> bytes:
    """The fingerprint of ``data``'s bytes in row-major order (16 bytes of BLAKE2b)."""
    flat = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    return hashlib.blake2b(flat.data, digest_size=16).digest()


class Mismatch(Enum):
    """How a planned run's production differs from the reference's at the same place."""

    PATH = "another producer: execution took a different path"
    VALUE = "the same producer wrote other bytes"


class Productions:
    """What one run produced, in order (see the module docstring). Kept as two arrays of hashes —
    of the producer, and of the producer with its fingerprint — because a loop nest writes
    millions of times."""

    __slots__ = ("producers", "entries", "reference")

    def __init__(self, reference: Productions | None = None) -> None:
        """``reference``: the unplanned run's productions, which this run must reproduce."""
        self.producers = array("q")
        self.entries = array("q")
        self.reference = reference

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, producer: Hashable, fingerprint: Hashable) -> Mismatch | None:
        """Record a production; with a reference, how it differs from the reference's at this
        place (None: it does not)."""
        who, entry = hash(producer), hash((producer, fingerprint))
        ref = self.reference
        found = None
        if ref is not None:
            n = len(self.entries)
            if n >= len(ref.entries) or ref.producers[n] != who:
                found = Mismatch.PATH
            elif ref.entries[n] != entry:
                found = Mismatch.VALUE
        self.producers.append(who)
        self.entries.append(entry)
        return found

    def complete(self) -> bool:
        """Whether this run produced everything its reference did (and no more)."""
        return self.reference is None or len(self.entries) == len(self.reference.entries)


def result_bytes(values: Sequence[object]) -> list[bytes]:
    """What two runs' results are compared by: each result's bytes in row-major order (an
    array, a buffer's elements — any value with ``tobytes()`` — or a scalar)."""
    out = []
    for v in values:
        tobytes = getattr(v, "tobytes", None)
        out.append(tobytes() if tobytes is not None else np.asarray(v).tobytes())
    return out


def first_difference(expected: Sequence[bytes], got: Sequence[bytes]) -> int | None:
    """The position of the first result that differs (None: all the same)."""
    for k, (a, b) in enumerate(zip(expected, got)):
        if a != b:
            return k
    return None


__all__ = ["Mismatch", "Productions", "digest", "first_difference", "result_bytes"]
