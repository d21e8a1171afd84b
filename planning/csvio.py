"""minimalloc's CSV format: ``id,lower,upper,size[,alignment][,offset]``, ``upper`` exclusive.

Reading accepts the columns in any order (by header name) and ignores unknown ones; writing
keeps the input's rows and adds (or replaces) the ``offset`` column.
"""

from __future__ import annotations

import csv
import io
from typing import Iterable

from .numbers import INT64_MAX, parse_int64
from .problem import Buffer, PlanningError, Problem, Solution

REQUIRED = ("id", "lower", "upper", "size")


def read_problem(text: str, source: str = "<csv>") -> tuple[Problem, list[int] | None]:
    """Parse CSV text into a problem and, when an ``offset`` column exists, its offsets.

    Every field is checked where it is read (:mod:`memopt.planning.numbers`: ASCII integers in
    the 64-bit range); a row with fewer or more fields than the header, a blank id or an id seen
    before (with the line of its first use) is an error naming the line. A UTF-8 byte order
    mark before the header is ignored.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        raise PlanningError(f"{source}:1: empty file (expected header {','.join(REQUIRED)})") from None
    except csv.Error as e:
        raise PlanningError(f"{source}:1: malformed CSV: {e}") from None
    header = [h.strip() for h in header]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise PlanningError(f"{source}:1: missing column(s) {', '.join(missing)} in header")
    col = {name: header.index(name) for name in header}
    buffers: list[Buffer] = []
    offsets: list[int] | None = [] if "offset" in col else None
    first_line: dict[str, int] = {}
    line_no = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as e:
            raise PlanningError(f"{source}:{reader.line_num}: malformed CSV: {e}") from None
        line_no = reader.line_num
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise PlanningError(f"{source}:{line_no}: expected {len(header)} fields (as the header), got {len(row)}")

        def num(name: str, default: int | None = None) -> int:
            if name not in col:
                assert default is not None
                return default
            try:
                return parse_int64(row[col[name]], name)
            except ValueError as e:
                raise PlanningError(f"{source}:{line_no}: {e}") from None

        ident = row[col["id"]].strip()
        if not ident:
            raise PlanningError(f"{source}:{line_no}: blank id")
        if ident in first_line:
            raise PlanningError(f"{source}:{line_no}: duplicate id '{ident}' (first used on line {first_line[ident]})")
        first_line[ident] = line_no
        size, start, end, alignment = num("size"), num("lower"), num("upper"), num("alignment", 1)
        try:
            buffers.append(Buffer(ident, size, start, end, alignment))
        except PlanningError as e:
            raise PlanningError(f"{source}:{line_no}: {e}") from None
        if offsets is not None:
            offsets.append(num("offset"))
    if sum(b.size + b.alignment for b in buffers) > INT64_MAX:
        raise PlanningError(f"{source}: the buffers' total size exceeds the 64-bit range (an arena could not be addressed)")
    try:
        return Problem.of(buffers), offsets
    except PlanningError as e:
        raise PlanningError(f"{source}: {e}") from None


def write_solution(problem: Problem, solution: Solution, *, alignment_column: bool | None = None) -> str:
    """CSV text with the problem's rows plus an ``offset`` column."""
    if alignment_column is None:
        alignment_column = any(b.alignment != 1 for b in problem.buffers)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["id", "lower", "upper", "size", *(["alignment"] if alignment_column else []), "offset"])
    for b, off in zip(problem.buffers, solution.offsets):
        w.writerow([b.id, b.start, b.end, b.size, *([b.alignment] if alignment_column else []), off])
    return out.getvalue()


def write_rows(rows: Iterable[tuple[object, ...]]) -> str:
    """CSV text ``id,lower,upper,size,offset`` from plain rows (used by plan export); rows of six
    fields add a ``memory`` column (the memory whose arena the offset is in)."""
    rows = list(rows)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["id", "lower", "upper", "size", "offset"] + (["memory"] if rows and len(rows[0]) == 6 else []))
    w.writerows(rows)
    return out.getvalue()
