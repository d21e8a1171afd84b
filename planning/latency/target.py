"""The machine the latency model times (:class:`Target`) and its description files.

A target file is ``key = value`` lines (keys as in :data:`TARGET_KEYS`, ``#`` comments,
``capacity = none`` for unlimited); ``insert-dma``, ``report-latency``, ``plan-memory`` and
``memopt-report`` all read it through :func:`load_target`, so that they agree on the machine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Any


class LatencyError(ValueError):
    """A malformed target description (one-line message)."""


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class Target:
    """An edge NPU. Defaults (see docs/dma.md for the reasoning): a 256-MAC/cycle int8 array,
    a 64-bit DMA port (8 bytes/cycle), 200 cycles start-up per transfer, 32 core cycles to issue
    and retire an asynchronous transfer, unlimited on-chip capacity."""

    macs_per_cycle: int = 256
    dma_bytes_per_cycle: int = 8
    dma_latency: int = 200
    dma_issue: int = 32
    capacity: int | None = None
    onchip_name: str = "onchip"
    """The on-chip memory's name (plan export's ``memory`` column)."""
    offchip_name: str = "dram"
    """The off-chip memory spilled tensors go to (``memopt.copy ... to "<name>"``), reached over
    the DMA channel (``dma-bytes-per-cycle``, ``dma-latency``), unlimited."""

    def __post_init__(self) -> None:
        for name in ("onchip_name", "offchip_name"):
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", getattr(self, name)):
                raise LatencyError(f"target: {name.replace('_', '-')} must be an identifier, got '{getattr(self, name)}'")
        if self.onchip_name == self.offchip_name:
            raise LatencyError(f"target: onchip-name and offchip-name must differ, both are '{self.onchip_name}'")
        for name in ("macs_per_cycle", "dma_bytes_per_cycle"):
            if getattr(self, name) < 1:
                raise LatencyError(f"target: {name.replace('_', '-')} must be >= 1, got {getattr(self, name)}")
        for name in ("dma_latency", "dma_issue"):
            if getattr(self, name) < 0:
                raise LatencyError(f"target: {name.replace('_', '-')} must be >= 0, got {getattr(self, name)}")
        if self.capacity is not None and self.capacity < 0:
            raise LatencyError(f"target: capacity must be >= 0, got {self.capacity}")

    def compute_cycles(self, macs: int) -> int:
        return _ceil_div(max(0, macs), self.macs_per_cycle)

    def transfer_cycles(self, nbytes: int) -> int:
        """One DMA transfer (or one direct off-chip read) of ``nbytes``."""
        return self.dma_latency + _ceil_div(max(0, nbytes), self.dma_bytes_per_cycle)

    def dma_cycles(self, weights: Iterable[int]) -> int:
        return sum(self.transfer_cycles(b) for b in weights)

    def describe(self) -> str:
        cap = "unlimited" if self.capacity is None else f"{self.capacity} B"
        return (
            f"{self.macs_per_cycle} MACs/cycle, DMA {self.dma_bytes_per_cycle} B/cycle, "
            f"latency {self.dma_latency}, issue {self.dma_issue}, on-chip {cap}"
        )


TARGET_KEYS = tuple(f.name.replace("_", "-") for f in fields(Target))


def parse_target(text: str, base: Target | None = None) -> Target:
    """Read a target description: ``key = value`` lines (keys as in :data:`TARGET_KEYS`,
    ``#`` comments, ``capacity = none`` for unlimited), applied on top of ``base``."""
    values: dict[str, Any] = {}  # a Target field's value: an int, a name, None (unset)
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, eq, val = line.partition("=")
        key, val = key.strip().replace("_", "-"), val.strip()
        if not eq or key not in TARGET_KEYS:
            raise LatencyError(
                f"target line {n}: expected 'key = value' with key one of: {', '.join(TARGET_KEYS)}"
            )
        if key == "capacity" and val.lower() == "none":
            values[key] = None
            continue
        if key.endswith("-name"):
            values[key] = val
            continue
        try:
            values[key] = int(val, 0)
        except ValueError:
            raise LatencyError(f"target line {n}: '{key}' needs an integer, got '{val}'") from None
    return replace(base or Target(), **{k.replace("-", "_"): v for k, v in values.items()})


def text_line_of(path: str, offset: int) -> int:
    """The 1-based line of byte ``offset`` in the file at ``path``."""
    with open(path, "rb") as f:
        return f.read(offset).count(b"\n") + 1


def load_target(path: str | None, overrides: dict[str, int | None] | None = None) -> Target:
    """Default target, then the file at ``path`` (if any), then non-None ``overrides``."""
    target = Target()
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise LatencyError(f"cannot read target file '{path}': {e.strerror or e}") from None
        except UnicodeDecodeError as e:
            line = text_line_of(path, e.start)
            raise LatencyError(f"target file '{path}' line {line}: not UTF-8 text (byte 0x{e.object[e.start]:02x}); "
                               "a target file is 'key = value' lines") from None
        target = parse_target(text, target)
    changes: dict[str, Any] = {k: v for k, v in (overrides or {}).items() if v is not None}
    return replace(target, **changes) if changes else target
