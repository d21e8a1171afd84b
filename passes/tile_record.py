"""What the ``tile`` pass did, kept on the function for ``memopt-report`` to show: one entry per
tiled run in ``memopt.tiled`` — the run (first..last op, by the tensors they write), its ops,
its grid, the MACs it cost untiled and the extra MACs its halos recompute, and the inputs it
streams from off chip. A record, not a plan: nothing reads it back to compute."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, StringAttr, i64

TILED_ATTR = "memopt.tiled"


def record_run(f: func.FuncOp, run: str, ops: int, grid: tuple[int, int], base: int, extra: int,
               streamed: Sequence[str] = ()) -> None:
    """Append one tiled run to ``f``'s ``memopt.tiled`` (the report lists them in this order)."""
    entry = DictionaryAttr({
        "run": StringAttr(run), "ops": IntegerAttr(ops, i64), "grid": StringAttr(f"{grid[0]}x{grid[1]}"),
        "macs": IntegerAttr(base, i64), "extra": IntegerAttr(extra, i64),
        "streamed": ArrayAttr([StringAttr(s) for s in streamed]),
    })
    have = f.attributes.get(TILED_ATTR)
    runs = list(have.data) if isinstance(have, ArrayAttr) else []
    f.attributes[TILED_ATTR] = ArrayAttr(runs + [entry])


def in_program_order(f: func.FuncOp, count: int) -> None:
    """Reverse the last ``count`` entries (runs rewritten last first, as ``tile{capacity}`` does)."""
    have = f.attributes.get(TILED_ATTR)
    if isinstance(have, ArrayAttr) and count > 1:
        runs = list(have.data)
        f.attributes[TILED_ATTR] = ArrayAttr(runs[:-count] + runs[-count:][::-1])


__all__ = ["TILED_ATTR", "in_program_order", "record_run"]
