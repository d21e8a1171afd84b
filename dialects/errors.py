"""MemoptError, the error of IR-facing code located at an op, and the table that locates ops.

xDSL 0.74 does not attach source locations to parsed operations: the parser of
:mod:`.located_parser` records the (line, col) of every operation it parses here, passes copy
them to the ops they create, and :func:`locate` looks an operation (or its nearest located
ancestor) up. Passes report errors with ``raise MemoptError("message", op)``; the tools print
``PROG: error: FILE:LINE:COL: message`` at the op's location.

Here, in the dialect layer, so that every module that reads IR — the dialects' own plan
readers, the passes, the executor, the report — can raise it without importing the parser.
:mod:`memopt.diagnostics` re-exports every name.
"""

from __future__ import annotations

import weakref

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

_LOCATIONS: "weakref.WeakKeyDictionary[Operation, tuple[int, int]]" = (
    weakref.WeakKeyDictionary()
)


class MemoptError(Exception):
    """An error attributable to (optionally) one operation of the IR."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.message = message
        self.op = op

    def __str__(self) -> str:
        return self.message


_SOURCE: list[str | None] = [None]


def set_source_name(name: str | None) -> None:
    """Record the name of the input being processed (the tools call it when they parse), so
    that passes can locate remarks as errors are: ``FILE:LINE:COL``."""
    _SOURCE[0] = name


def where(op: Operation | None) -> str:
    """``FILE:LINE:COL: `` for ``op`` (what is known of it), or an empty string."""
    loc = locate(op)
    if loc is None:
        return f"{_SOURCE[0]}: " if _SOURCE[0] else ""
    return f"{_SOURCE[0] + ':' if _SOURCE[0] else ''}{loc[0]}:{loc[1]}: "


def set_location(op: Operation, line: int, col: int) -> None:
    """Record a source location for ``op`` (also used for ops created by passes
    that want to inherit the location of the op they replace)."""
    _LOCATIONS[op] = (line, col)


def copy_location(src: Operation, dst: Operation) -> None:
    """Give ``dst`` the location of ``src`` (if ``src`` has one)."""
    loc = locate(src)
    if loc is not None:
        _LOCATIONS[dst] = loc


def own_location(op: Operation) -> tuple[int, int] | None:
    """The location recorded for exactly this op (no parent fallback)."""
    loc = _LOCATIONS.get(op)
    if loc is not None:
        return loc
    if isinstance(op.location, FileLineColLoc):
        return (op.location.line.data, op.location.column.data)
    return None


def locate(op: Operation | None) -> tuple[int, int] | None:
    """(line, col) of ``op``, falling back to the nearest ancestor with a location."""
    while op is not None:
        loc = own_location(op)
        if loc is not None:
            return loc
        op = op.parent_op()
    return None


def value_location_op(value: SSAValue) -> Operation | None:
    """The op to point diagnostics at for a value: its defining op, or the op owning the block
    whose argument it is."""
    if isinstance(value, OpResult):
        return value.op
    if isinstance(value, BlockArgument):
        return value.block.parent_op()
    return None


__all__ = [
    "MemoptError", "copy_location", "locate", "own_location", "set_location", "set_source_name", "value_location_op",
    "where",
]
