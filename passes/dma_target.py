"""The target-description options shared by ``insert-dma`` and ``report-latency``.

Why one declaration: the pass that decides the schedule and the pass that measures it must be
given the same machine the same way; declaring the fields once (a frozen dataclass mixin that
xDSL's option parser sees as ordinary fields of each pass) keeps their names, types and
defaults from drifting apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from memopt.diagnostics import MemoptError
from memopt.planning.latency import LatencyError, Target, load_target


@dataclass(frozen=True)
class TargetOptions:
    """``target`` (a ``key = value`` file) and per-field overrides of it (None: keep)."""

    target: str | None = None
    macs_per_cycle: int | None = None
    dma_bytes_per_cycle: int | None = None
    dma_latency: int | None = None
    dma_issue: int | None = None
    capacity: int | None = None

    def build_target(self, pass_name: str) -> Target:
        """The target these options describe; a bad one is a one-line ``MemoptError``."""
        return target_from_options(self, pass_name)


def target_from_options(p: TargetOptions, pass_name: str) -> Target:
    """The target a pass's options describe: defaults, then the file, then the overrides."""
    try:
        return load_target(p.target, {
            "macs_per_cycle": p.macs_per_cycle, "dma_bytes_per_cycle": p.dma_bytes_per_cycle,
            "dma_latency": p.dma_latency, "dma_issue": p.dma_issue, "capacity": p.capacity,
        })
    except LatencyError as e:
        raise MemoptError(f"{pass_name}: {e}") from None


def target_options(target: Target) -> dict[str, int | None]:
    """Keyword arguments that make a pass describe ``target`` exactly (for benches and tests)."""
    return {
        "macs_per_cycle": target.macs_per_cycle, "dma_bytes_per_cycle": target.dma_bytes_per_cycle,
        "dma_latency": target.dma_latency, "dma_issue": target.dma_issue, "capacity": target.capacity,
    }


__all__ = ["TargetOptions", "target_from_options", "target_options"]
