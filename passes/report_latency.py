"""``report-latency``: how well the DMA schedule hides weight loads, per Region and in total.

Why a pass and not a tool: it measures the IR exactly as it stands in the pipeline (before
``insert-dma`` it reports the serial schedule, after it the ping-pong one), with the same
reading of the IR (:mod:`memopt.passes.dma_profile`) and the same model
(:mod:`memopt.planning.latency`) that ``insert-dma{mode=auto}`` decides with. The IR is not
changed.

For every Region (:mod:`memopt.passes.dma_regions`) with compute ops it prints one row: how often
it runs per call (enclosing loop trip counts), its compute ops, how many of them load weights by
DMA, ``T_serial = sum(c_i + d_i)``, ``T_pingpong`` (the Region's ops simulated as scheduled),
``T_lb = max(sum(c) + d_first, sum(d) + c_last)`` and ``eta = (T_serial - T) / (T_serial -
T_lb)`` (``-`` when nothing can overlap). Then a total per function: Regions in sequence add
up, a loop multiplies its body by the trip count, an ``if`` takes the worst branch of each figure.

Options: ``output`` (file to write; default stderr) and the target options of ``insert-dma``
(``target``, ``macs-per-cycle``, ``dma-bytes-per-cycle``, ``dma-latency``, ``dma-issue``,
``capacity``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass

from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import ComputeOp
from memopt.passes.dma_profile import op_profile, scheduled_items, weight_uses
from memopt.passes.dma_regions import ControlFlow, Node, Region, cut_function
from memopt.passes.dma_target import TargetOptions
from memopt.passes.options import option
from memopt.passes.lifetime import planned_functions
from memopt.planning.latency import Target, Timing, lower_bound_time, serial_time, simulate


@dataclass(frozen=True)
class RegionRow:
    name: str
    runs: int
    ops: int
    loads: int
    timing: Timing


def region_timing(r: Region, target: Target) -> Timing:
    """The three figures of one Region of the IR as it stands."""
    profiles = [op_profile(o) for o in r.ops if isinstance(o, ComputeOp)]
    return Timing(
        serial_time(profiles, target),
        simulate(scheduled_items(r.ops, r.name), target),
        lower_bound_time(profiles, target),
    )


def compose(nodes: list[Node], target: Target, rows: list[RegionRow]) -> Timing:
    """Total of a Region tree (see module docstring), appending a row per non-empty Region."""
    total = Timing()
    for n in nodes:
        if isinstance(n, Region):
            computes = [o for o in n.ops if isinstance(o, ComputeOp)]
            t = region_timing(n, target)
            if computes:
                loads = sum(1 for o in computes if any(w.on_chip for w in weight_uses(o)))
                rows.append(RegionRow(n.name, n.runs, len(computes), loads, t))
            total = total + t
            continue
        assert isinstance(n, ControlFlow)
        subs = [compose(b, target, rows) for _, b in n.blocks]
        inner = Timing.worst(subs) if n.exclusive else sum(subs, Timing())
        total = total + inner.times(n.trips)
    return total


def _eta(t: Timing) -> str:
    e = t.eta
    return "-" if e is None else f"{e:.2f}"


def format_report(func_name: str, rows: list[RegionRow], total: Timing, target: Target) -> str:
    width = max([len(r.name) for r in rows] + [len(f"total @{func_name}"), 6])
    head = f"{'region':<{width}} {'runs':>6} {'ops':>5} {'loads':>5} {'T_serial':>12} {'T_pingpong':>12} {'T_lb':>12} {'eta':>6}"
    lines = [f"report-latency: @{func_name} ({target.describe()})", head]
    for r in rows:
        t = r.timing
        lines.append(
            f"{r.name:<{width}} {r.runs:>6} {r.ops:>5} {r.loads:>5} {t.serial:>12} {t.pingpong:>12} {t.lb:>12} {_eta(t):>6}"
        )
    lines.append(
        f"{'total @' + func_name:<{width}} {'':>6} {sum(r.ops for r in rows):>5} {sum(r.loads for r in rows):>5} "
        f"{total.serial:>12} {total.pingpong:>12} {total.lb:>12} {_eta(total):>6}"
    )
    return "\n".join(lines) + "\n"


def function_latency(f, target: Target) -> tuple[list[RegionRow], Timing]:
    rows: list[RegionRow] = []
    total = compose(cut_function(f, f"@{f.sym_name.data}"), target, rows)
    return rows, total


@dataclass(frozen=True)
class ReportLatencyPass(TargetOptions, ModulePass):
    """Print T_serial, T_pingpong, T_lb and overlap efficiency per DMA Region and per function."""

    name = "report-latency"

    output: str | None = option(None, "file to write the report to (unset: stderr)",
                                values="path")

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        target = self.build_target("report-latency")
        text = ""
        for f in planned_functions(op):
            rows, total = function_latency(f, target)
            text += format_report(f.sym_name.data, rows, total, target)
        if self.output in (None, "", "-"):
            sys.stderr.write(text)
            return
        try:
            with open(self.output, "w", encoding="utf-8") as out:
                out.write(text)
        except OSError as e:
            raise MemoptError(f"report-latency: cannot write '{self.output}': {e.strerror or e}") from None


__all__ = ["RegionRow", "ReportLatencyPass", "compose", "format_report", "function_latency", "region_timing"]
