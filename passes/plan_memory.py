"""``plan-memory``: give every on-chip tensor an offset in one arena per function.

A thin shell over the IR-free core: lifetime analysis builds a :class:`~memopt.planning.Problem`,
the chosen strategy plans it, the validator checks it (planners are never trusted), and the plan
is written back as attributes (see :mod:`memopt.passes.plan_io`). With ``export`` the plan is
also written as minimalloc-style CSV (``id,lower,upper,size,offset``, ids = tensor names), so
outside tools can check it.

Options:
  strategy      registered strategy name or ``best`` (default: run them all, keep the smallest)
  alignment     byte alignment of every offset (default 16, as TFLite Micro)
  inplace       let ops with an ``inplace`` hint overwrite an input that dies there (default true)
  control-flow  how ``if`` branches share memory: flat | serial | merge | joint (default joint)
  capacity      fail when an arena, or the arena plus the DMA staging buffers, exceeds this
                many bytes (default: unlimited) — or the target's ``capacity``, or the one an
                earlier ``insert-dma`` recorded (``memopt.capacity``): the smallest of them
  budget        seconds for anytime strategies (``search``; admits them into ``best``)
  export        path of a CSV file to write the plan to
  match-range   ``nnvm`` only: NNVM's match range (a number >= 0, or ``auto`` to search 1..32)
  num-groups    ``nnvm`` only: parallel colour groups whose freed blocks are not shared (default 1)
  spill         ``off`` (default: over capacity is an error) or ``auto``: move tensors off chip or
                recompute them until the arena fits ``capacity`` (:mod:`memopt.passes.fit_capacity`)
  policy        with ``spill=auto``: ``spill``, ``remat`` or ``auto`` (the lowest modelled time)
  target        target description: spill costs (DMA channel) and memory names

The plan's ``lower_bound`` ignores in-place reuse; when in-place permissions exist the function
also gets ``memopt.lower_bound_inplace``, the bound with them (plans may go below the former).

Control-flow modes (the planning core of each is :mod:`memopt.planning.control_flow`):

* ``flat``   — both branches of an ``if`` overlaid on its span and *not* exclusive, as if they
  could run together (the branch-oblivious baseline);
* ``serial`` — branches numbered one after the other (TFLite Micro's scheme);
* ``merge``  — the LUNA paper's Algorithm 2: each branch planned on its own, innermost first, one
  region of ``max(branch peaks)`` reserved for the whole ``if`` in its parent; when that comes
  out above the flat layout (the region spans the whole ``if``, see
  :mod:`memopt.planning.control_flow`), flat's layout is kept and named (``<s>/flat``);
* ``joint``  — every tensor planned at once with branch-exclusive interference; the merge and
  serial layouts are kept instead when lower, so ``joint`` never loses to either (a kept serial
  layout is valid in the serial numbering, and recorded and verified as such); a short
  deterministic hill climb polishes it when it misses ``LB_nest`` (``<s>+climb/joint``).

In a function that contains an ``if``, the plan's strategy reads ``"<strategy>/<mode>"`` with
the mode whose layout was kept (``joint`` may report ``merge`` or ``serial``); functions
without ``if`` are the same problem in every mode and keep the bare strategy name;
``verify-plan`` re-checks a plan in the numbering its mode names. The ``lower_bound`` is the
same whatever the mode: ``LB_nest`` of the joint numbering (max over execution paths of the
live bytes), or the serial numbering's max-live when lower (each numbering is sound but
neither holds all of the other's conflicts, see :mod:`memopt.passes.lifetime`).
Exported CSV rows carry the intervals of the numbering the layout was planned in (serial steps
for ``serial``, joint steps otherwise).

Upstream functions are planned by :mod:`.plan_upstream_functions`, memopt-dialect functions by
:mod:`.plan_function`. Two modules are imported inside the methods that use them, for start-up:
:mod:`.plan_upstream_functions` (upstream functions only; it brings the upstream tracer and mutator
with xDSL's ``affine``, ``arith`` and ``bufferization`` dialects) and :mod:`.fit_capacity`
(``spill=auto`` only; it brings the spill and remat planners and the executor).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, replace
from functools import cached_property

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass

from memopt.diagnostics import MemoptError, where
from memopt.dialects.ir_flavour import is_upstream
from memopt.dialects.written_plan import offchip_memories, recorded_capacity
from memopt.passes.dma_layout import place_dma_buffers
from memopt.passes.lifetime import CONTROL_FLOW_MODES, analyze_function, planned_functions
from memopt.passes.options import option
from memopt.passes.plan_function import FunctionPlan, plan_function_memory
from memopt.passes.plan_io import write_inplace_bound, write_memory_plan, write_plan
from memopt.passes.upstream_unsupported import refuse_memref, remark_no_effect
from memopt.planning import PlanningError, Strategy, make_strategy, strategy_names, validate
from memopt.planning.csvio import write_rows
from memopt.planning.latency import LatencyError, Target, load_target
from memopt.planning.strategies import strategy_options

ARENA_MODES = ("alloc", "arg")
"""The ``arena`` option's choices: where an upstream function's arena lives
(:func:`~memopt.passes.upstream_plan.write_upstream_plan`'s ``arena_mode``)."""


def check_options(
    strategy: str, alignment: int, control_flow: str, capacity: int | None, budget: float | None,
    match_range: str | float = "auto", num_groups: int = 1,
) -> Strategy:
    """Reject bad option values with one-line messages (before touching the IR); the strategy
    they name, made (the pass plans every function with it)."""
    try:
        made = make_strategy(
            strategy, **strategy_options(strategy, budget=budget, match_range=match_range, num_groups=num_groups)
        )
    except PlanningError as e:
        raise MemoptError(f"plan-memory: {e}") from None
    if alignment < 1 or alignment & (alignment - 1):
        raise MemoptError(f"plan-memory: alignment must be a power of two >= 1, got {alignment}")
    if control_flow not in CONTROL_FLOW_MODES:
        raise MemoptError(
            f"plan-memory: unknown control-flow mode '{control_flow}' (expected one of: {', '.join(CONTROL_FLOW_MODES)})"
        )
    check_capacity(capacity)
    if budget is not None and not (math.isfinite(budget) and budget > 0):
        raise MemoptError(f"plan-memory: budget must be a finite number > 0 (seconds), got {budget}")
    return made


def check_capacity(capacity: int | None) -> None:
    """``capacity`` is a byte count (given, the target's, or one an earlier ``insert-dma`` recorded)."""
    if capacity is not None and capacity < 0:
        raise MemoptError(f"plan-memory: capacity must be >= 0, got {capacity}")


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """Give every on-chip tensor an offset in one arena per function, validated."""

    name = "plan-memory"

    strategy: str = option("best", "planning strategy; best runs them all and keeps the smallest arena "
                           "(search ignores inplace hints)",
                           choices=strategy_names)
    alignment: int = option(16, "byte alignment of every offset", values="power of two >= 1")
    inplace: bool = option(True, "let an op with an inplace hint overwrite an input that dies there "
                          "(memopt dialect; on upstream IR bufferization decided in-place reuse)")
    control_flow: str = option("joint", "how the branches of an if share memory (see docs); memopt dialect "
                               "only, upstream branches are numbered jointly",
                               choices=CONTROL_FLOW_MODES)
    capacity: int | None = option(None, "fail when an arena (plus DMA staging buffers) exceeds this many bytes "
                                  "(also the target's capacity and one an earlier insert-dma recorded: the smallest)",
                                  values="integer >= 0")
    budget: float | int | None = option(None, "seconds for anytime strategies (search); admits them into best",
                                        values="number > 0")
    export: str | None = option(None, "also write the plan as CSV id,lower,upper,size,offset to this file",
                                values="path")
    match_range: str | int | float = option("auto", "nnvm only: NNVM's match range of block sizes",
                                            values="number >= 0 | auto (search 1..32)")
    num_groups: int = option(1, "nnvm only: parallel colour groups whose freed blocks are not shared",
                             values="integer >= 1")
    spill: str = option("off", "when the arena exceeds capacity: fail (off), or move tensors off chip / "
                        "recompute them as policy says until it fits (auto)", choices=("off", "auto"))
    policy: str = option("auto", "with spill=auto, how to fit: spill (copy tensors to off-chip memory and "
                         "back), remat (recompute them), auto (the lowest modelled time of both and mixes)",
                         choices=("spill", "remat", "auto"))
    target: str | None = option(None, "target description for spill costs and memory names (see docs/dma.md)",
                                values="path")
    arena: str = option("alloc", "upstream IR only: the arena is a memref.alloc in the function (alloc) or a new "
                        "trailing argument the caller provides, sized by memopt.arena_size (arg)",
                        choices=ARENA_MODES)

    @cached_property
    def _strategy(self) -> Strategy:
        """The options checked and the strategy made, once per pass: validation and apply share
        it, and every function and memory is planned with it (a strategy keeps no state between
        plans)."""
        return check_options(
            self.strategy, self.alignment, self.control_flow, self.capacity, self.budget,
            self.match_range, self.num_groups,
        )

    def validate(self) -> None:
        _ = self._strategy
        if self.target is not None:
            self._target()  # a bad target file is an option error, reported before any input is read

    def _target(self) -> Target:
        return self._loaded_target

    @cached_property
    def _loaded_target(self) -> Target:
        """The ``target`` file read once (the default target without one)."""
        try:
            return load_target(self.target)
        except LatencyError as e:
            raise MemoptError(f"plan-memory: {e}") from None

    def _capacity(self, module: builtin.ModuleOp) -> int | None:
        """The on-chip capacity to respect: the smallest of this pass's ``capacity``, its
        target's, and the one an earlier ``insert-dma`` recorded."""
        given = [c for c in (self.capacity, self._target().capacity, recorded_capacity(module)) if c is not None]
        return min(given, default=None)

    def _arena_of(self, f) -> int:
        return plan_function_memory(f, self._strategy, control_flow=self.control_flow, inplace=self.inplace,
                                    alignment=self.alignment).solution.height

    def _fit(self, f, target, height: int) -> FunctionPlan:
        """Spill and/or recompute (``policy``) until the arena fits ``capacity``; reports what
        moved and what it costs on stderr."""
        from memopt.passes.fit_capacity import base_cycles, fit_function  # spill=auto only (module docstring)

        assert self.capacity is not None
        base = base_cycles(f, target)
        fit = fit_function(f, self.capacity, self.policy, target, target.offchip_name, self._arena_of,
                           self.alignment)
        pct = 100.0 * fit.extra_cycles / base if base else 0.0
        sys.stderr.write(
            f"plan-memory: {where(f)}'@{f.sym_name.data}' needs {height} bytes, over capacity {self.capacity}: "
            f"policy {self.policy}: {fit.spilled} tensors spilled to {target.offchip_name} ({fit.bytes_moved} bytes "
            f"moved), {fit.recomputed} ops recomputed, +{fit.extra_cycles} cycles (+{pct:.1f} %)\n")
        fp = plan_function_memory(f, self._strategy, control_flow=self.control_flow, inplace=self.inplace,
                                  alignment=self.alignment)
        if fp.solution.height > self.capacity:  # fit_function re-plans until it fits: never expected
            raise MemoptError(f"internal error: '@{f.sym_name.data}' still needs {fp.solution.height} bytes "
                              f"after fitting to {self.capacity}", f)
        return fp

    def _plan_offchip(self, f) -> list[tuple]:
        """One arena per off-chip memory the function's copies use; validated, written, and
        returned as export rows."""
        rows: list[tuple] = []
        for memory in offchip_memories(f):
            lt = analyze_function(f, mode="joint", inplace=False, alignment=self.alignment, memory=memory)
            solution = self._strategy.plan(lt.problem)
            try:
                validate(lt.problem, solution)
            except PlanningError as e:
                raise MemoptError(f"internal error: invalid plan of memory '{memory}': {e}", f) from None
            write_memory_plan(lt, solution)
            rows += [(b.id, b.start, b.end, b.size, off, memory) for b, off in zip(lt.problem.buffers, solution.offsets)]
        return rows

    def _plan_upstream(self, funcs: list, target: Target) -> list[tuple]:
        """Plan the upstream functions among ``funcs`` (:mod:`.plan_upstream_functions`); their
        export rows, prefixed with the function's name when the module has several functions."""
        upstream = [f for f in funcs if is_upstream(f)]
        if not upstream:
            return []
        from memopt.passes.plan_upstream_functions import UpstreamPlanner  # upstream only (module docstring)

        planner = UpstreamPlanner(self._strategy, self.alignment, self.capacity, self.arena, target.onchip_name)
        return planner.plan_functions(upstream, len(funcs) > 1)

    def _refuse_upstream(self, funcs: list) -> None:
        """``spill=auto`` rewrites memopt-dialect tensors only: on a memref program it would be
        silently not applied, so it is refused there (located), before anything is planned."""
        if self.spill != "auto":
            return
        for f in funcs:
            refuse_memref(f, "plan-memory", "spill=auto")

    def _remark_dialect_options(self, funcs: list) -> None:
        """Say which options a flavour does not take (:func:`remark_no_effect`, at its first
        function): upstream branches are always numbered jointly (exclusive branches share
        bytes) and bufferization already decided in-place reuse, so ``control-flow`` and
        ``inplace`` act on memopt-dialect functions only; a memopt-dialect plan is offsets into
        the arena its runtime provides, so ``arena`` acts on upstream functions only."""
        upstream = [f for f in funcs if is_upstream(f)]
        if upstream:
            f = upstream[0]
            name = f.sym_name.data
            if self.control_flow != "joint":
                remark_no_effect("plan-memory", f, f"control-flow={self.control_flow}", "upstream memref",
                                 f"'@{name}': its branches are numbered jointly")
            if not self.inplace:
                remark_no_effect("plan-memory", f, "inplace=false", "upstream memref",
                                 f"'@{name}': bufferization already chose its in-place reuse")
        dialect = [f for f in funcs if not is_upstream(f)]
        if dialect and self.arena != "alloc":
            f = dialect[0]
            remark_no_effect("plan-memory", f, f"arena={self.arena}", "memopt-dialect",
                             f"'@{f.sym_name.data}': its plan is offsets into the arena its runtime provides")

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        _ = self._strategy
        capacity = self._capacity(op)
        if capacity == self.capacity:
            self._run(op)
            return
        check_capacity(capacity)  # the one option the target or an earlier insert-dma can make invalid
        self._respecting(capacity)._run(op)

    def _respecting(self, capacity: int | None) -> PlanMemoryPass:
        """This pass with ``capacity`` for its own; it shares the strategy and the target this
        pass already made (the cached properties), so neither is made twice."""
        fitted = replace(self, capacity=capacity)
        for made in ("_strategy", "_loaded_target"):
            if made in self.__dict__:
                fitted.__dict__[made] = self.__dict__[made]
        return fitted

    def _run(self, op: builtin.ModuleOp) -> None:
        """Plan every function of ``op`` (``capacity``: the one to respect, see :meth:`_capacity`)."""
        funcs = planned_functions(op)
        self._refuse_upstream(funcs)
        self._remark_dialect_options(funcs)
        target = self._target()
        rows = self._plan_upstream(funcs, target)
        arenas: list[int] = []
        for f in funcs:
            if is_upstream(f):
                continue
            prefix = f"{f.sym_name.data}::" if len(funcs) > 1 else ""
            function_rows, arena = self._plan_function(f, target, prefix)
            rows += function_rows
            arenas.append(arena)
        if self.export:
            self._export(rows, target)
        # DMA staging buffers (insert-dma) are on-chip too: placed after the largest arena, and
        # the capacity limits the whole on-chip footprint, not just the arena.
        place_dma_buffers(op, self.alignment, self.capacity, arenas)

    def _plan_function(self, f, target: Target, prefix: str) -> tuple[list[tuple], int]:
        """Plan a memopt-dialect function (fitted to ``capacity`` when over it and ``spill=auto``)
        and its off-chip memories, and write the plans; its export rows and its arena's size."""
        fp = plan_function_memory(
            f, self._strategy, control_flow=self.control_flow, inplace=self.inplace,
            alignment=self.alignment,
        )
        lt, solution, lb = fp.lifetimes, fp.solution, fp.lower_bound
        if self.capacity is not None and solution.height > self.capacity:
            if self.spill == "off":
                raise MemoptError(
                    f"arena of '@{f.sym_name.data}' needs {solution.height} bytes, over capacity "
                    f"{self.capacity} (lower bound {lb}; spill=auto moves tensors off chip)", f,
                )
            fp = self._fit(f, target, solution.height)
            lt, solution, lb = fp.lifetimes, fp.solution, fp.lower_bound
        write_plan(lt, solution, lb, fp.numbering)
        memory_rows = self._plan_offchip(f)
        write_inplace_bound(f, fp.lower_bound_inplace if lt.problem.overwrites else None)
        rows = [(prefix + b.id, b.start, b.end, b.size, off, target.onchip_name)
                for b, off in zip(lt.problem.buffers, solution.offsets)]
        rows += [(prefix + r[0], *r[1:]) for r in memory_rows]
        return rows, solution.height

    def _export(self, rows: list[tuple], target: Target) -> None:
        """Write ``rows`` to the ``export`` file as CSV. The memory column appears when some
        tensor lives off chip (minimalloc's five columns otherwise, which every tool that reads
        them expects)."""
        several = any(len(r) == 6 and r[5] != target.onchip_name for r in rows)
        rows = [r if several else r[:5] for r in rows]
        assert self.export is not None
        try:
            with open(self.export, "w", encoding="utf-8") as out:
                out.write(write_rows(rows))
        except OSError as e:
            raise MemoptError(f"plan-memory: cannot write export file '{self.export}': {e.strerror}") from None
