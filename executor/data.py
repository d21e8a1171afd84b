"""Tensor bytes: element types as numpy dtypes, and the deterministic data the executor feeds in.

Every tensor is handled as a flat ``uint8`` array (its bytes), so that planned execution can
place it anywhere in one arena and comparisons are bit-exact. Kernels see typed copies
(:func:`typed`); results go back as bytes (:func:`as_bytes`).

Generated data must be the same on every run and every machine (plans are *proven* by
comparing two executions, and ``memopt-run`` output is checked by tests), and must never be
NaN/inf, so that numpy kernels stay finite: floats are small multiples of 1/64 in [-1, 1),
integers small, ``i1`` 0 or 1. Global weights without a ``value`` are seeded by a CRC of their
symbol name (not ``hash()``, which changes with PYTHONHASHSEED).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import AnyFloat, BFloat16Type, IndexType, IntegerType, TensorType
from xdsl.ir import Attribute

from memopt.dialects.memopt import byte_size


@dataclass(frozen=True)
class ElementKind:
    """How to read one element type: a numpy dtype when there is one (``None`` for i1, bf16
    and odd integer widths, which kernels treat as opaque bytes), and the value family used
    to generate data (``float``, ``int``, ``bool``, ``bf16`` or ``bytes``)."""

    dtype: np.dtype | None
    family: str
    itemsize: int


def element_kind(elem: Attribute) -> ElementKind:
    if isinstance(elem, IndexType):
        return ElementKind(np.dtype(np.int64), "int", 8)
    if isinstance(elem, IntegerType):
        width = elem.width.data
        size = max(1, (width + 7) // 8)
        if width == 1:
            return ElementKind(None, "bool", 1)
        if width in (8, 16, 32, 64):
            unsigned = elem.signedness.data.name == "UNSIGNED"
            return ElementKind(np.dtype(f"{'u' if unsigned else 'i'}{size}"), "int", size)
        return ElementKind(None, "bytes", size)
    if isinstance(elem, BFloat16Type):
        return ElementKind(None, "bf16", 2)
    if isinstance(elem, AnyFloat):
        size = max(1, (elem.bitwidth + 7) // 8)
        if size in (2, 4, 8):
            return ElementKind(np.dtype(f"f{size}"), "float", size)
        return ElementKind(None, "bytes", size)
    raise ValueError(f"unsupported element type: {elem}")


@dataclass(frozen=True)
class TensorInfo:
    """Shape, element kind and byte size of a tensor type."""

    shape: tuple[int, ...]
    kind: ElementKind
    nbytes: int

    @property
    def count(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))


def tensor_info(t: Attribute) -> TensorInfo:
    assert isinstance(t, TensorType), t
    return TensorInfo(tuple(t.get_shape()), element_kind(t.element_type), byte_size(t))


def typed(data: np.ndarray, info: TensorInfo) -> np.ndarray | None:
    """A fresh, aligned, typed copy of a tensor's bytes (None for opaque element types).

    Always a copy: kernels then run on identically laid out memory in planned and unplanned
    execution (SIMD paths may depend on alignment), and never alias the arena."""
    if info.kind.dtype is None:
        return None
    return np.frombuffer(data.tobytes(), dtype=info.kind.dtype).reshape(info.shape)


def as_bytes(value: np.ndarray) -> np.ndarray:
    """The bytes of a typed array, as a flat uint8 array."""
    return np.ascontiguousarray(value).reshape(-1).view(np.uint8)


def sample(rng: np.random.Generator, info: TensorInfo) -> np.ndarray:
    """Deterministic, finite, small values of the tensor's type, as bytes."""
    n = info.count
    fam = info.kind.family
    if fam == "float":
        vals = (rng.integers(-64, 64, n) / 64.0).astype(info.kind.dtype)
        return as_bytes(vals)
    if fam == "int":
        return as_bytes(rng.integers(-8, 8, n).astype(info.kind.dtype))
    if fam == "bool":
        return rng.integers(0, 2, n).astype(np.uint8)
    if fam == "bf16":
        f32 = (rng.integers(-64, 64, n) / 64.0).astype(np.float32)
        return as_bytes((f32.view(np.uint32) >> 16).astype(np.uint16))
    return rng.integers(0, 2, info.nbytes).astype(np.uint8)


def crc_seed(*parts: str | int) -> int:
    """A seed that is stable across runs and machines (CRC32 of the parts' text)."""
    return zlib.crc32("\x1f".join(str(p) for p in parts).encode())


def input_bytes(index: int, name: str, t: Attribute, seed: int = 0) -> np.ndarray:
    """Bytes of function argument ``index`` (named ``name``) for the given ``--seed``.

    ``i1`` arguments of seeds ``2k`` and ``2k + 1`` are complements of each other, so that any
    two consecutive seeds take both branches of an ``if`` on an argument."""
    info = tensor_info(t)
    if info.kind.family == "bool":
        rng = np.random.default_rng([crc_seed("arg", index, name), seed >> 1])
        return sample(rng, info) ^ np.uint8(seed & 1)
    rng = np.random.default_rng([crc_seed("arg", index, name), seed])
    return sample(rng, info)


def global_bytes(sym: str, t: Attribute, value: Attribute | None = None) -> np.ndarray:
    """Bytes of a global weight: its ``dense`` value when it has one, else pseudo-random data
    seeded by the symbol name."""
    info = tensor_info(t)
    if value is not None and info.kind.dtype is not None:
        vals = np.asarray(value.get_values(), dtype=info.kind.dtype)  # type: ignore[attr-defined]
        if vals.size == 1 and info.count != 1:
            vals = np.full(info.count, vals.reshape(-1)[0], dtype=info.kind.dtype)
        if vals.size == info.count:
            return as_bytes(vals).copy()
    if value is not None and info.kind.family == "bool":
        vals = np.asarray(value.get_values()).astype(np.uint8) & 1  # type: ignore[attr-defined]
        if vals.size == info.count:
            return vals.reshape(-1).copy()
    rng = np.random.default_rng(crc_seed("global", sym))
    return sample(rng, info)


__all__ = [
    "ElementKind", "TensorInfo", "as_bytes", "crc_seed", "element_kind", "global_bytes",
    "input_bytes", "sample", "tensor_info", "typed",
]
