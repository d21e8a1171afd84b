"""Registry of the passes available to ``memopt-opt``.

Each entry maps a pass name to a zero-argument factory returning the pass class; the
import happens lazily inside the factory, so a pass module that is missing or broken
only fails when that pass is actually requested.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass


def _plan_memory() -> type[ModulePass]:
    from memopt.passes.plan_memory import PlanMemoryPass

    return PlanMemoryPass


def _verify_plan() -> type[ModulePass]:
    from memopt.passes.verify_plan import VerifyPlanPass

    return VerifyPlanPass


def _insert_dma() -> type[ModulePass]:
    from memopt.passes.insert_dma import InsertDmaPass

    return InsertDmaPass


def _report_latency() -> type[ModulePass]:
    from memopt.passes.report_latency import ReportLatencyPass

    return ReportLatencyPass


def _lower_to_memref() -> type[ModulePass]:
    from memopt.passes.lower_to_memref import LowerToMemrefPass

    return LowerToMemrefPass


def _rematerialize() -> type[ModulePass]:
    from memopt.passes.rematerialize import RematerializeMemoryPass

    return RematerializeMemoryPass


def _tile() -> type[ModulePass]:
    from memopt.passes.tile import TilePass

    return TilePass


def _canonicalize() -> type[ModulePass]:
    from xdsl.transforms.canonicalize import CanonicalizePass

    return CanonicalizePass


def _cse() -> type[ModulePass]:
    from xdsl.transforms.common_subexpression_elimination import (
        CommonSubexpressionElimination,
    )

    return CommonSubexpressionElimination


def _dce() -> type[ModulePass]:
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    return DeadCodeElimination


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> lazy factory of the pass class (in a stable order)."""
    return {
        "plan-memory": _plan_memory,
        "verify-plan": _verify_plan,
        "insert-dma": _insert_dma,
        "report-latency": _report_latency,
        "lower-to-memref": _lower_to_memref,
        "rematerialize": _rematerialize,
        "tile": _tile,
        "canonicalize": _canonicalize,
        "cse": _cse,
        "dce": _dce,
    }


__all__ = ["get_all_passes"]
