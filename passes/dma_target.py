"""The target-description options shared by ``insert-dma`` and ``report-latency``.

Why one declaration: the pass that decides the schedule and the pass that measures it must be
given the same machine the same way; declaring the fields once (a frozen dataclass mixin that
xDSL's option parser sees as ordinary fields of each pass) keeps their names, types and
defaults from drifting apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from memopt.diagnostics import MemoptError
from memopt.passes.options import option
from memopt.planning.latency import LatencyError, Target, load_target


@dataclass(frozen=True)
class TargetOptions:
    """``target`` (a ``key = value`` file) and per-field overrides of it (None: keep)."""

    target: str | None = option(None, "target description file (key = value lines; see docs/dma.md)",
                                values="path")
    macs_per_cycle: int | None = option(None, "override the target's multiply-accumulates per core cycle (built-in 256)", values="integer >= 1")
    dma_bytes_per_cycle: int | None = option(None, "override the target's DMA bytes per cycle (built-in 8)", values="integer >= 1")
    dma_latency: int | None = option(None, "override the target's cycles before a transfer's first byte (built-in 200)", values="integer >= 0")
    dma_issue: int | None = option(None, "override the target's core cycles to issue a transfer (built-in 32)", values="integer >= 0")
    capacity: int | None = option(None, "override the target's on-chip bytes the arena plus staging buffers must fit (built-in unlimited)",
                                  values="integer >= 0")

    def validate(self) -> None:
        target_from_options(self, getattr(self, "name", "target"))

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
