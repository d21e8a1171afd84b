"""Memref values of an executed upstream program: byte storage and strided numpy views of it.

A memref at run time is MLIR's descriptor: the storage it was allocated in, the byte position
of its aligned pointer there, an offset, sizes and strides in elements (:class:`Ref`). Its
elements are a numpy view with real strides over the storage's bytes, so subviews, casts,
reshapes and views of an arena touch exactly the bytes the compiled program would.

Every memref also names the *logical buffer* it belongs to (``owner``): an allocation, or a
planned buffer (a ``memref.view`` of an arena), inherited by every view derived from it.
Storage that can hold several logical buffers (an arena, in planned execution) keeps a
*shadow*: per byte, the owner whose write left it there (0: never written). A read through a
memref must find its own owner on every byte it reads — the exact test of "the bytes its last
write left" (see :mod:`.memref_machine`).

Element types and their numpy dtypes: ``i1`` is ``bool``, ``i8``..``i64`` and ``index`` are
signed integers of their width (MLIR integers are signless: signedness is the op's choice),
``f16``/``f32``/``f64`` are themselves, and ``bf16`` is stored as its 16 bits (``uint16``) and
computed with as ``float32`` values rounded to bf16 (nearest even) on every store.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    AffineMapAttr, AnyFloat, BFloat16Type, Float16Type, Float32Type, Float64Type, IndexType, IntegerType,
    MemRefType, NoneAttr, StridedLayoutAttr,
)
from xdsl.ir import Attribute, Operation

DYNAMIC = -(1 << 63)
"""xDSL's marker of a dynamic size, stride or offset (``?``)."""


class Unsupported(Exception):
    """A value or type the executor cannot represent (turned into a located error by its caller)."""


@dataclass(frozen=True)
class Elem:
    """An element type: ``storage`` is the dtype of its bytes in memory, ``value`` the dtype
    computed with (they differ for bf16 only)."""

    name: str
    storage: np.dtype
    value: np.dtype

    @property
    def itemsize(self) -> int:
        return self.storage.itemsize

    def decode(self, raw: np.ndarray) -> np.ndarray:
        """Values from stored elements."""
        if self.name != "bf16":
            return raw
        return (np.asarray(raw, np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)

    def encode(self, values) -> np.ndarray:
        """Stored elements from values (converted to this type first)."""
        values = np.asarray(values)
        if self.name != "bf16":
            return values.astype(self.storage, copy=False)
        return bf16_bits(values.astype(np.float32))


def bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to bf16 (nearest, ties to even), as their 16 bits; NaN stays NaN."""
    bits = np.asarray(x, np.float32).view(np.uint32)
    rounding = ((bits >> np.uint32(16)) & np.uint32(1)) + np.uint32(0x7FFF)
    out = ((bits + rounding) >> np.uint32(16)).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), out).astype(np.uint16)


def round_bf16(x) -> np.ndarray:
    """float32 values rounded to the nearest bf16 value (kept as float32)."""
    return BF16.decode(bf16_bits(np.asarray(x, np.float32)))


BF16 = Elem("bf16", np.dtype(np.uint16), np.dtype(np.float32))


def elem_of(t: Attribute) -> Elem:
    """The :class:`Elem` of an element type; :class:`Unsupported` for the others."""
    if isinstance(t, IndexType):
        return Elem("index", np.dtype(np.int64), np.dtype(np.int64))
    if isinstance(t, IntegerType):
        width = t.width.data
        if width == 1:
            return Elem("i1", np.dtype(np.bool_), np.dtype(np.bool_))
        if width in (8, 16, 32, 64):
            dt = np.dtype(f"i{width // 8}")
            return Elem(f"i{width}", dt, dt)
        raise Unsupported(f"integer type i{width} (only i1, i8, i16, i32, i64 and index execute)")
    if isinstance(t, BFloat16Type):
        return BF16
    if isinstance(t, (Float16Type, Float32Type, Float64Type)):
        dt = np.dtype(f"f{t.bitwidth // 8}")
        return Elem(f"f{t.bitwidth}", dt, dt)
    if isinstance(t, AnyFloat):
        raise Unsupported(f"float type {t} (only f16, bf16, f32 and f64 execute)")
    raise Unsupported(f"element type {t}")


def value_dtype(t: Attribute) -> np.dtype:
    """The numpy dtype a scalar of type ``t`` is computed in."""
    return elem_of(t).value


def type_layout(t: MemRefType) -> tuple[list[int | None], int | None]:
    """The strides and offset a memref type states (None where dynamic); identity if none."""
    shape = list(t.get_shape())
    layout = t.layout
    if isinstance(layout, NoneAttr):
        identity: list[int | None] = list(contiguous_strides(shape))
        return identity, 0
    if isinstance(layout, StridedLayoutAttr):
        return list(layout.get_strides()), layout.get_offset()
    if isinstance(layout, AffineMapAttr):
        return _linear_layout(layout, len(shape))
    raise Unsupported(f"memref layout {layout}")


def _linear_layout(layout: AffineMapAttr, rank: int) -> tuple[list[int | None], int | None]:
    amap = layout.data
    if amap.num_symbols or len(amap.results) != 1:
        raise Unsupported(f"memref layout {layout} (not a strided map)")
    at = lambda point: amap.eval(point, [])[0]  # noqa: E731
    offset = at([0] * rank)
    strides: list[int | None] = [at([int(k == d) for k in range(rank)]) - offset for d in range(rank)]
    return strides, offset


def contiguous_strides(sizes) -> list[int]:
    """Row-major strides of ``sizes`` (in elements)."""
    strides = [1] * len(sizes)
    for k in range(len(sizes) - 2, -1, -1):
        strides[k] = strides[k + 1] * max(int(sizes[k + 1]), 1)
    return strides


class Storage:
    """Bytes allocated once (an alloc, an argument, a global): ``shadow`` tells per byte which
    logical buffer wrote it last (kept when the storage may hold several buffers, or when
    definedness is checked)."""

    __slots__ = ("data", "shadow", "ident", "name", "origin", "freed", "constant", "arena")

    def __init__(self, nbytes: int, ident: int, name: str, origin=None, *, fill: np.ndarray | None = None,
                 shadow: bool = True, arena: bool = False):
        self.data = fill if fill is not None else np.zeros(nbytes, np.uint8)
        self.shadow = np.zeros(len(self.data), np.int32) if shadow else None
        self.ident, self.name, self.origin = ident, name, origin
        self.freed: Operation | None = None  # the op that deallocated it
        self.constant = False
        self.arena = arena

    @property
    def nbytes(self) -> int:
        return len(self.data)


class Ref:
    """A memref descriptor: ``storage``, the aligned pointer's byte position ``base`` in it,
    ``offset``/``sizes``/``strides`` in elements; ``owner``/``name`` the logical buffer;
    ``planned`` whether that buffer is a view of an arena. ``arr`` is the elements (stored form:
    bf16 as uint16), a writable view of the storage; ``sh`` the shadow of its bytes, shape
    ``sizes + (itemsize,)`` (None without one); both None for a view outside its storage."""

    __slots__ = ("storage", "base", "offset", "sizes", "strides", "elem", "owner", "name", "planned",
                 "arr", "sh", "expect")

    def __init__(self, storage: Storage, base: int, offset: int, sizes, strides, elem: Elem, owner: int,
                 name: str, planned: bool = False):
        self.storage, self.base, self.offset = storage, base, offset
        self.sizes, self.strides = tuple(sizes), tuple(strides)
        self.elem, self.owner, self.name, self.planned = elem, owner, name, planned
        self.arr = self.sh = None
        self.expect = np.full(elem.itemsize, owner, np.int32).tobytes()
        if self.in_bounds():
            self.arr, self.sh = self._views()

    def _views(self) -> tuple[np.ndarray, np.ndarray | None]:
        size, shadow = self.elem.itemsize, self.storage.shadow
        if self.span() is None:
            return np.zeros(self.sizes, self.elem.storage), (np.zeros(self.sizes + (size,), np.int32)
                                                            if shadow is not None else None)
        arr = np.ndarray(self.sizes, self.elem.storage, buffer=self.storage.data, offset=self.start,
                         strides=tuple(s * size for s in self.strides))
        if shadow is None:
            return arr, None
        sh = np.ndarray(self.sizes + (size,), np.int32, buffer=shadow, offset=4 * self.start,
                        strides=tuple(4 * s * size for s in self.strides) + (4,))
        return arr, sh

    def derive(self, base: int, offset: int, sizes, strides, elem: Elem | None = None) -> Ref:
        """Another view of the same logical buffer."""
        return Ref(self.storage, base, offset, sizes, strides, elem or self.elem, self.owner, self.name, self.planned)

    @property
    def start(self) -> int:
        """Byte position of element [0, ..., 0] in the storage."""
        return self.base + self.offset * self.elem.itemsize

    def span(self) -> tuple[int, int] | None:
        """[lo, hi) bytes the view touches in its storage; None when it has no element."""
        if any(n == 0 for n in self.sizes):
            return None
        size = self.elem.itemsize
        lo = hi = self.start
        for n, s in zip(self.sizes, self.strides):
            reach = (n - 1) * s * size
            lo, hi = (lo + reach, hi) if reach < 0 else (lo, hi + reach)
        return lo, hi + size

    def in_bounds(self) -> bool:
        sp = self.span()
        return sp is None or (sp[0] >= 0 and sp[1] <= self.storage.nbytes)

    def array(self) -> np.ndarray:
        if self.arr is None:
            raise Unsupported(f"buffer '{self.name}' is a view outside its storage")
        return self.arr

    def tobytes(self) -> bytes:
        """The elements' stored bytes in row-major order (what runs' results are compared by)."""
        return np.ascontiguousarray(self.array()).tobytes()

    def shadow(self) -> np.ndarray | None:
        return self.sh

    def values(self) -> np.ndarray:
        """A fresh contiguous copy of the elements, as values (bf16 as float32)."""
        return np.array(self.elem.decode(self.array()), copy=True)

    def contiguous(self) -> bool:
        return list(self.strides) == contiguous_strides(self.sizes)


def nbytes_of(sizes, elem: Elem) -> int:
    n = elem.itemsize
    for d in sizes:
        n *= int(d)
    return n


__all__ = [
    "BF16", "DYNAMIC", "Elem", "Ref", "Storage", "Unsupported", "bf16_bits", "contiguous_strides", "elem_of",
    "nbytes_of", "round_bf16", "type_layout", "value_dtype",
]
