"""``tile{first=NAME last=NAME grid=RxC}``: compute a run of spatial ops patch by patch, so that
its intermediate feature maps are never whole (MCUNetV2's patch-based inference; Arm Vela's
cascading over stripes when the grid has one column).

The run is ``last`` and the ops of its block from ``first`` on whose result a member of the run
reads as a spatial operand (ops are named by the tensor they write: the model's name or the SSA
name); other ops in that range (a weight's dequantize) stay where they are. Its ops must be spatial — convolution (stride,
padding, dilation, groups), depthwise, max/average pooling, a constant pad, a resize, depth-to-space
/ space-to-depth, a concatenation of channels, a channel shuffle (fused from its reshape,
transpose, reshape by :mod:`memopt.passes.tile_shuffle`), LRN, element-wise ops (residual adds
included; an operand spanning H and W, such as a PRELU's per-cell alpha, is cut with the patch,
one broadcast along them read whole) — with their windows as the importers record them
(:mod:`memopt.importers.windows`), and only ``last``'s result may be read after the run.

The rewrite, in place of the run: for each patch of ``last``'s output (the grid cuts its rows
into R stripes and its columns into C), walking the run backwards, every value gets the hull of
the rows/columns its readers need (:mod:`memopt.planning.tiling`); the run's inputs are sliced to
that (a ``memopt.view`` when the slice is contiguous, ``memopt.compute "extract_slice"`` else),
each op is cloned to compute just its part (its padding kept only where its window crosses the
image's border: at a cut, the halo is read and recomputed; a resize or depth-to-space told by
``origin``/``extent`` where its patch sits in the whole), and the patch is written into the
run's output by ``memopt.compute "insert_slice"`` (in place over a buffer ``"empty"`` creates).
So lifetime analysis, ``plan-memory``, ``verify-plan``, ``insert-dma`` and ``memopt-run`` see an
ordinary program; ``memopt-run --check --against ORIGINAL`` proves it computes the original's
bytes, since the executor runs every op of a run with its real windowed kernel.

Every op of the rewrite carries ``memopt.ident`` (the identity of the op it computes part of) so
stand-in kernels of the ops after the run keep their identities; its ``cost`` is the original's
share of the patch, so the halos' recomputation shows as extra cost. The pass reports
``tile: @f: N ops in RxC patches, +X MACs (+P %) recomputed, lower bound A → B`` on stderr (negative
when a run that shrinks its input, such as a resize down, computes fewer cells than it did whole).

With ``capacity=N`` (instead of first/last/grid) the pass chooses the runs and grids itself: those
that bring the lower bound within N bytes with the least recomputed MACs, at most ``max-extra`` %
(:mod:`memopt.passes.tile_fit`); ``capacity=min`` takes the smallest capacity tiling reaches.

Each tiled run is recorded on the function (``memopt.tiled``, :mod:`memopt.passes.tile_record`)
for ``memopt-report`` to list.

``stream=on`` reads the run's inputs stripe by stripe from an off-chip home instead of holding them
whole on chip across it (:mod:`memopt.passes.tile_stream`); with ``capacity`` (``auto`` or
``on``) a run streams where the latency model (``target``) finds its transfers cheaper than the
halo MACs a run held on chip would recompute.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.passes import ModulePass

from memopt.diagnostics import MemoptError
from memopt.dialects.written_plan import carries_plan
from memopt.passes.lifetime import analyze_function, planned_functions
from memopt.passes.options import option
from memopt.passes.tile_fit import tile_to_fit
from memopt.passes.tile_rewrite import parse_grid, tile_ops, tile_run
from memopt.passes.tile_shuffle import fuse_channel_shuffles
from memopt.planning.bounds import lower_bound_inplace
from memopt.planning.latency import LatencyError, Target, load_target


def _lower_bound(f: func.FuncOp) -> int:
    return lower_bound_inplace(analyze_function(f, mode="joint").problem)


@dataclass(frozen=True)
class TilePass(ModulePass):
    """Compute a run of spatial ops patch by patch: its intermediate tensors only patch-sized (MCUNetV2; Vela cascading)."""

    name = "tile"

    first: str | None = option(None, "the run's first op, by the tensor it writes (the model's name or the SSA name, "
                               "without %) (required unless capacity)", values="a tensor name")
    last: str | None = option(None, "the run's last op, by the tensor it writes: the only tensor of the run read after "
                              "it (required unless capacity)", values="a tensor name")
    grid: str | int = option("2", "patches of the last op's output: ROWS (horizontal stripes, Vela's cascading) or ROWSxCOLS",
                       values="ROWS or ROWSxCOLS, positive integers no larger than the output's rows/columns")
    func: str | None = option(None, "the function holding the run (default: the only function with a body)",
                              values="a function name")
    capacity: str | int | None = option(None, "instead of first/last/grid: choose the runs and grids that bring "
                                        "the lower bound within this many bytes with the least recomputed MACs "
                                        "(min: the smallest capacity tiling reaches)",
                                        values="a positive integer (bytes) or min")
    max_extra: str | int | float | None = option(None, "with capacity: the recomputed MACs allowed, in % of the "
                                           "function's MACs (unset: no limit)", values="a non-negative number")
    stream: str = option("auto", "read a run's inputs stripe by stripe from an off-chip home (offchip): on, off, or "
                         "auto (with capacity, on and auto: where the latency model finds its transfers cheaper than "
                         "the halos it saves; without, auto is off)", values="on, off or auto")
    target: str | None = option(None, "target description whose DMA channel and MAC rate price the transfers of "
                                "streaming (as plan-memory's; see docs/dma.md)", values="a target file")
    offchip: str = option("dram", "the off-chip memory streamed inputs live in (as plan-memory's target names it)",
                          values="an identifier")

    def validate(self) -> None:
        if str(self.stream) not in ("on", "off", "auto"):
            raise MemoptError(f"tile: stream must be on, off or auto, got '{self.stream}'")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(self.offchip)):
            raise MemoptError(f"tile: offchip must be a memory name (an identifier), got '{self.offchip}'")
        if self.target is not None:
            self._target()  # a bad target file is an option error, reported before any input is read
        if self.capacity is not None:
            if self.first or self.last:
                raise MemoptError("tile: capacity chooses the runs itself: give either capacity or first/last")
            self.limits()
            return
        if self.max_extra is not None:
            raise MemoptError("tile: max-extra applies with capacity only")
        if not self.first or not self.last:
            raise MemoptError("tile: first and last are required (the tensors the run's first and last ops write, "
                              "e.g. first=conv2d last=activation.3), or capacity")
        parse_grid(str(self.grid))

    def _target(self) -> Target:
        try:
            return load_target(self.target)
        except LatencyError as e:
            raise MemoptError(f"tile: {e}") from None

    def limits(self) -> tuple[int | None, float | None]:
        """(capacity in bytes, None for min; max-extra %, None for unlimited)."""
        cap = str(self.capacity).strip()
        if cap != "min" and not (cap.isdigit() and int(cap) > 0):
            raise MemoptError(f"tile: capacity must be a positive number of bytes or min, got '{self.capacity}'")
        extra = None
        if self.max_extra is not None:
            try:
                extra = float(self.max_extra)
            except ValueError:
                extra = -1.0
            if not extra >= 0:
                raise MemoptError(f"tile: max-extra must be a non-negative number (percent), got '{self.max_extra}'")
        return (None if cap == "min" else int(cap)), extra

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        self.validate()
        funcs = planned_functions(op)
        if self.func is not None:
            funcs = [f for f in funcs if f.sym_name.data == self.func]
            if not funcs:
                raise MemoptError(f"tile: func={self.func}: no function '@{self.func}' with a body")
        elif len(funcs) != 1:
            raise MemoptError(f"tile: the module has {len(funcs)} functions with a body: name one (func=NAME)")
        f = funcs[0]
        if carries_plan(f):
            raise MemoptError(f"tile: '@{f.sym_name.data}' is already planned: run tile before plan-memory", f)
        fuse_channel_shuffles(f)
        if self.capacity is not None:
            for line in tile_to_fit(f, *self.limits(), stream=None if self.stream == "off" else str(self.offchip),
                                    prefer_whole=False, target=self._target()):
                sys.stderr.write(line + "\n")
            return
        grid = parse_grid(str(self.grid))
        before = _lower_bound(f)
        assert self.first is not None and self.last is not None
        n, base, extra = tile_run(f, self.first, self.last, grid, str(self.offchip) if self.stream == "on" else None)
        after = _lower_bound(f)
        pct = 100.0 * extra / base if base else 0.0
        sys.stderr.write(f"tile: @{f.sym_name.data}: {n} ops in {grid[0]}x{grid[1]} patches, {extra:+d} MACs "
                         f"({pct:+.1f} %) recomputed, lower bound {before} → {after}\n")


__all__ = ["TilePass", "parse_grid", "tile_ops", "tile_run"]
