"""The one place memopt reads integers from text it did not write.

Sizes, offsets, lifetimes, alignments, costs and trip counts are signed 64-bit integers
everywhere downstream (numpy ``int64`` arrays, MLIR ``i64`` attributes), so a value outside
``[-2^63, 2^63)`` must be refused where it is read, with a message that names the field — not end
as a numpy ``OverflowError`` or a silently wrapped negative number later. Integers in text are
ASCII decimal digits with an optional sign: Python's ``int()`` also takes ``1_000`` and
non-ASCII digits (``١٢``), which no CSV or MLIR writer means as a number.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
INT64_RANGE = f"[{INT64_MIN}, {INT64_MAX}]"

_DECIMAL = re.compile(r"[+-]?[0-9]+", re.ASCII)


def check_int64(value: int, what: str) -> int:
    """``value`` when it fits a signed 64-bit integer; ValueError naming ``what`` otherwise."""
    if not INT64_MIN <= value <= INT64_MAX:
        raise ValueError(f"{what} {value} is out of the 64-bit integer range {INT64_RANGE}")
    return value


def parse_int64(text: str, what: str) -> int:
    """An ASCII decimal integer in the 64-bit range, or ValueError naming ``what``."""
    raw = text.strip()
    if not _DECIMAL.fullmatch(raw):
        shown = raw.encode("unicode_escape").decode("ascii")
        raise ValueError(f"{what} '{shown}' is not an integer (expected ASCII digits, e.g. 42)")
    return check_int64(int(raw), what)


def check_finite_positive(value: float, what: str) -> float:
    """Seconds and similar: a finite number > 0 (``nan`` and ``inf`` are not budgets)."""
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{what} must be a finite number > 0, got {value}")
    return value


_MLIR_INT = re.compile(
    r'"(?:[^"\\\n]|\\.)*"'          # string literals: skipped
    r"|//[^\n]*"                    # comments: skipped
    r"|[%@#^!][\w$.\-]*"            # SSA names, symbols, attribute/type aliases, block labels: skipped
    r"|[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?"  # float literals: skipped
    r"|0x[0-9a-fA-F]+|[A-Za-z_][A-Za-z_$.]*"  # bare words without digits (i, tensor, the x of 4x8)
    r"|(-?)([0-9]+)(?![0-9])"  # integer literals
)


def out_of_range_literals(text: str) -> Iterator[tuple[int, str]]:
    """``(offset, literal)`` of every integer literal of MLIR text outside the 64-bit range.

    A lexical scan (linear, one regex): string literals, names and identifiers are skipped, so
    only numbers count — including the dimensions of shaped types, which the lexer reads as the
    digits between ``x`` separators (``tensor<99999999999999999999xf32>``)."""
    for m in _MLIR_INT.finditer(text):
        digits = m.group(2)
        if digits is None or len(digits) < 19:
            continue
        value = int(digits)
        if m.group(1):
            value = -value
        if not INT64_MIN <= value <= INT64_MAX:
            yield m.start(), m.group(0)


__all__ = [
    "INT64_MAX", "INT64_MIN", "INT64_RANGE", "check_finite_positive", "check_int64", "out_of_range_literals",
    "parse_int64",
]
