"""``memopt-opt --summary``: the plan in a few human lines on stderr, after the passes ran.

What a first run should say (and the IR says only to those who can read it): per planned
function, the arena against its lower bound (and the in-place bound when in-place reuse is
possible — the arena may then be below ``lower_bound``), the strategy that made it, and the
on-chip total with the DMA staging buffers; functions left unplanned are named.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from memopt.dialects.walk import walk
from memopt.api import summarize


def summary_lines(module: ModuleOp) -> list[str]:
    """One line per function with a body (planned or not), then the module's DMA buffers."""
    planned = {s.name: s for s in summarize(module).functions}
    lines = []
    for f in module.body.block.ops:
        if not isinstance(f, func.FuncOp) or not f.body.blocks:
            continue
        s = planned.get(f.sym_name.data)
        if s is None:
            lines.append(f"@{f.sym_name.data}: not planned (run --plan-memory)")
            continue
        bound = f"lower bound {s.lower_bound}"
        if s.lower_bound_inplace is not None and s.lower_bound_inplace < s.lower_bound:
            bound += f", {s.lower_bound_inplace} with in-place reuse"
        line = f"@{s.name}: arena {s.arena_size} bytes ({bound}; strategy {s.strategy})"
        if s.onchip_size != s.arena_size:
            line += f", on chip {s.onchip_size} bytes with the DMA staging buffers"
        for space, size in s.space_arena_sizes:
            line += f", memory space {space}: {size} bytes"
        lines.append(line)
    transfers = sum(1 for op in walk(module) if op.name in ("memopt.dma_start", "memref.dma_start"))
    if transfers:
        lines.append(f"{transfers} DMA transfers stream weights on chip")
    return lines


__all__ = ["summary_lines"]
