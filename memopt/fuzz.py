"""The fuzz harness: plan random programs every way there is, validate, and prove by execution.

One *case* is one generated program (:mod:`memopt.executor.graphgen`) under one
:class:`FuzzConfig` -- a strategy, a control-flow mode, an alignment, and whether the
``insert-dma`` pass runs first. For each case the harness

1. runs the program unplanned (the reference results);
2. runs ``insert-dma`` when asked and registered, and checks the results did not change;
3. runs ``plan-memory`` (which validates its own plan) and ``verify-plan`` (which recomputes
   lifetimes with exact control-flow semantics and re-checks the attributes);
4. proves the plan with :func:`memopt.executor.check_module` (planned vs unplanned, value by
   value, DMA landing at start and at wait).

Strategies, control-flow modes and passes are discovered at run time (``strategy_names()``,
``CONTROL_FLOW_MODES``, the pass registry), so strategies and modes added later are fuzzed
without touching this file. Passes run through the Python API on a parsed module: no
subprocesses, one parse per program. It drives both the passes and the executor, so it sits above
both (``memopt.fuzz``), not inside the executor.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from memopt.diagnostics import LocatedParser, MemoptError, locate, verify_located
from memopt.dialects.context import make_context
from memopt.executor import check_module, run_function
from memopt.passes.dma_profile import largest_weight_set
from memopt.passes.lifetime import CONTROL_FLOW_MODES
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.passes.registry import get_all_passes
from memopt.passes.verify_plan import VerifyPlanPass
from memopt.planning import strategy_names

SEARCH_BUDGET = 0.002
"""Seconds given to the anytime ``search`` strategy (and to ``best``, admitting it) per case."""


DMA_SCHEDULES = ("ping-pong", "ring")
"""``insert-dma`` schedules the fuzzer runs: the LUNA paper's two buffers, and a *tight* ring (as
small as the program's largest weight set, so that most loads wrap over earlier ones)."""


@dataclass(frozen=True)
class FuzzConfig:
    strategy: str
    control_flow: str
    dma: str = ""
    """``""`` (no ``insert-dma``) or one of :data:`DMA_SCHEDULES`."""
    alignment: int = 16

    def __str__(self) -> str:
        dma = f",insert-dma({self.dma})" if self.dma else ""
        return f"strategy={self.strategy} control-flow={self.control_flow} alignment={self.alignment}{dma}"


class FuzzFailure(Exception):
    """A case that failed: the program text, the configuration and what went wrong."""

    def __init__(self, text: str, config: FuzzConfig, stage: str, message: str):
        super().__init__(f"[{stage}] {config}: {message}")
        self.text, self.config, self.stage, self.message = text, config, stage, message

    def report(self) -> str:
        return f"{self}\n--- program ---\n{self.text}"


def has_pass(name: str) -> bool:
    return name in get_all_passes()


def configurations(strategies=None, modes=None, dma=None, alignments=(1, 16)) -> list[FuzzConfig]:
    """Every combination of registered strategy x control-flow mode x DMA x alignment.

    DMA configurations (:data:`DMA_SCHEDULES`) are included only when an ``insert-dma`` pass is
    registered."""
    strategies = list(strategies if strategies is not None else strategy_names())
    modes = list(modes if modes is not None else CONTROL_FLOW_MODES)
    dmas = list(dma if dma is not None else ("", *DMA_SCHEDULES) if has_pass("insert-dma") else ("",))
    return [FuzzConfig(s, m, d, a) for s, m, d, a in itertools.product(strategies, modes, dmas, alignments)]


_CTX = make_context()


def parse(text: str) -> ModuleOp:
    module = LocatedParser(_CTX, text, "<fuzz>").parse_module()
    verify_located(module)
    return module


def _located(e: MemoptError) -> str:
    loc = locate(e.op)
    return f"{loc[0]}:{loc[1]}: {e.message}" if loc else e.message


def run_case(text: str, config: FuzzConfig, module: ModuleOp | None = None, seeds=(0,), max_paths: int = 4) -> None:
    """Plan, verify and prove one program under one configuration; raise :class:`FuzzFailure`.

    ``module`` (a parsed ``text``) may be passed to skip parsing; it is planned in place unless
    the configuration transforms the IR (``insert-dma``), in which case a clone is used. The
    proof runs once per input seed in ``seeds``, each on up to ``max_paths`` execution paths
    (``if`` ops forced both ways, :func:`memopt.executor.check.check_function`)."""
    stage = "parse"
    try:
        if module is None:
            module = parse(text)
        elif config.dma:
            module = module.clone()
        stage = "reference run"
        ref = run_function(module).outputs
        if config.dma and has_pass("insert-dma"):
            stage = "insert-dma"
            # every load pipelined: the fuzzer exercises the schedules, not the latency model's choice
            options = {"mode": "always", **({"ring": _tight_ring(module)} if config.dma == "ring" else {})}
            get_all_passes()["insert-dma"]()(**options).apply(_CTX, module)  # type: ignore[arg-type]
            verify_located(module)
            got = run_function(module).outputs
            if [a.tobytes() for a in got] != [b.tobytes() for b in ref]:
                raise MemoptError("insert-dma changed the function's results")
        stage = "plan-memory"
        budget = SEARCH_BUDGET if config.strategy == "search" else None
        PlanMemoryPass(strategy=config.strategy, alignment=config.alignment,
                       control_flow=config.control_flow, budget=budget).apply(_CTX, module)  # type: ignore[arg-type]
        stage = "verify-plan"
        VerifyPlanPass().apply(_CTX, module)  # type: ignore[arg-type]
        stage = "check"
        for seed in seeds:
            check_module(module, seed=seed, max_paths=max_paths)
    except MemoptError as e:
        raise FuzzFailure(text, config, stage, _located(e)) from None
    except Exception as e:  # noqa: BLE001 - any crash is a finding
        raise FuzzFailure(text, config, stage, f"{type(e).__name__}: {e}") from e


def _tight_ring(module: ModuleOp) -> int:
    """The largest weight set of any compute op: the smallest ring ``mode=always`` accepts."""
    return max(largest_weight_set(module), 16)


__all__ = ["DMA_SCHEDULES", "FuzzConfig", "FuzzFailure", "SEARCH_BUDGET", "configurations", "has_pass", "parse", "run_case"]
