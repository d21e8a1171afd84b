"""``tile{capacity=N}``: choose the runs and grids that bring a function's lower bound within a
capacity with the least recomputed MACs, and tile them (issue 34's choice).

The options are priced by :mod:`memopt.passes.tile_options` (upper estimates of the tiled lower
bound) and chosen by :mod:`memopt.planning.tile_choice`; the chosen runs are rewritten by
:func:`memopt.passes.tile.tile_ops` (a convolution split by output channels by
:func:`memopt.passes.tile_channels.split_channels`), last first, and the lower bound of the result is measured. A
capacity no choice meets is one located error naming the smallest one that works (within the
MAC budget), so the user knows what to ask for. When the choice counted values crossing its runs
as off chip and the tiled program is still over capacity, those alive but unread at its steps over
capacity get their homes (:func:`memopt.passes.tile_stream.home_crossing`).
"""

from __future__ import annotations

from xdsl.dialects import func

from memopt.diagnostics import MemoptError
from memopt.passes.lifetime import analyze_function
from memopt.passes.tile_channels import channel_split_of, split_channels
from memopt.passes.tile_rewrite import activations, op_name as _name, stream_names as stream_inputs_of, tile_ops
from memopt.passes.tile_options import program_options
from memopt.passes.tile_record import in_program_order
from memopt.passes.tile_stream import home_crossing
from memopt.planning.bounds import inplace_live_profile, lower_bound_inplace
from memopt.planning.latency import Target
from memopt.planning.tile_choice import fit_preferring, smallest


def _lower_bound(f: func.FuncOp) -> int:
    return lower_bound_inplace(analyze_function(f, mode="joint").problem)


def _steps_over(f: func.FuncOp, capacity: int) -> list[tuple[int, int]]:
    """The step ranges (half-open) where ``f``'s live bytes exceed ``capacity``."""
    times, curve = inplace_live_profile(analyze_function(f, mode="joint").problem)
    return [(int(times[k]), int(times[k + 1]) if k + 1 < len(times) else int(times[k]) + 1)
            for k in range(len(curve)) if curve[k] > capacity]


def tile_to_fit(f: func.FuncOp, capacity: int | None, max_extra: float | None, stream: str | None = None,
                prefer_whole: bool = True, target: Target | None = None) -> list[str]:
    """Tile ``f`` so its lower bound is at most ``capacity`` bytes (the smallest reachable when
    None) with at most ``max_extra`` % more MACs; with ``stream`` (a memory name) a run may read
    its inputs stripe by stripe from that memory (only when nothing fits without, with
    ``prefer_whole``; else where ``target``'s latency model finds it cheaper); returns the lines
    to report."""
    prog = program_options(f, stream=stream is not None, target=target)
    name = f.sym_name.data
    budget = None if max_extra is None else int(prog.total_macs * max_extra / 100)
    least, least_choice = smallest(prog.live, prog.options, budget, prefer_whole, prog.live_homed)
    if capacity is None:
        capacity, choice = least, least_choice
    else:
        fitted = fit_preferring(prog.live, prog.options, capacity, prefer_whole, budget, prog.live_homed)
        if fitted is None:
            within = "" if max_extra is None else f" within +{max_extra:g} % MACs"
            raise MemoptError(f"tile: cannot fit '@{name}' in {capacity} bytes by tiling{within}: the smallest "
                              f"capacity tiling reaches is {least} bytes", f)
        choice = fitted
    before = max(prog.live) if prog.live else 0
    lines = []
    total_extra = 0
    active = activations(f.body.blocks[0])
    for o in sorted(choice, key=lambda o: -o.first):
        first, last = prog.ops[o.first], prog.ops[o.last]
        if o.channels:
            split = channel_split_of(last, active)
            assert split is not None
            split_channels(f, split, o.grid[0], prog.layout)
            lines.append(f"tile: @{name}: {_name(last.results[0])} in {o.grid[0]} groups of output channels, +0 MACs")
            continue
        label = f"{_name(first.results[0])}..{_name(last.results[0])}"
        streamed = stream_inputs_of(first, last, prog.layout) if o.stream else []
        n, _, extra = tile_ops(f, first, last, o.grid, stream if o.stream else None, prog.layout)
        total_extra += extra
        via = f", streaming {', '.join(streamed)} from {stream}" if streamed else ""
        lines.append(f"tile: @{name}: {label} ({n} ops) in {o.grid[0]}x{o.grid[1]} patches, {extra:+d} MACs{via}")
    lines.reverse()
    in_program_order(f, sum(1 for o in choice if not o.channels))
    after = _lower_bound(f) if choice else before
    if after > capacity and stream is not None and prog.live_homed is not None:
        homed = home_crossing(f, _steps_over(f, capacity), stream)
        lines.append(f"tile: @{name}: {len(homed)} tensors alive across steps over capacity live in {stream} "
                     f"between their readers ({', '.join(_name(v) for v in homed)})")
        after = _lower_bound(f)
    if after > capacity:
        raise MemoptError(f"tile: '@{name}' tiled has a lower bound of {after} bytes, above capacity={capacity} "
                          "(the options' estimate was too low)", f)
    pct = 100.0 * total_extra / prog.total_macs if prog.total_macs else 0.0
    lines.append(f"tile: @{name}: {len(choice)} runs, {total_extra:+d} MACs ({pct:+.1f} %), lower bound {before} → "
                 f"{after} (capacity {capacity})")
    return lines


__all__ = ["tile_to_fit"]
