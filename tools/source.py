"""The MLIR input of the tools that read IR: parsed, verified, every error a located one-liner.

:func:`parse_source` is what ``memopt-opt``, ``memopt-run``, ``memopt-report`` and
``memopt-pool`` do with their input text; :func:`located` turns a pass's or verifier's
:class:`~memopt.diagnostics.MemoptError` into the tool's :class:`~memopt.cli.ToolError`, at the
op's line and column. Apart from :mod:`memopt.cli` so that the tools that never read IR
(``memopt-pack``, ``memopt-import``) start without xDSL's parser and dialects.
"""

from __future__ import annotations

import re
import sys

from xdsl.utils.exceptions import DiagnosticException, ParseError

from memopt.cli import ToolError, tool_name
from memopt.diagnostics import (
    LocatedParser, MemoptError, exception_message, locate, parse_error_message, set_source_name, verify_located, where,
)
from memopt.dialects.context import make_context
from memopt.dialects.opaque import OpaqueOp
from memopt.dialects.upstream_syntax import add_implicit_terminators
from memopt.dialects.walk import walk
from memopt.planning.numbers import INT64_RANGE, out_of_range_literals


def located(e: MemoptError) -> ToolError:
    """The error of a pass or verifier, located at its op when the op has a location."""
    loc = locate(e.op)
    return ToolError(e.message, *(loc if loc is not None else (None, None)))


def parse_source(text: str, filename: str, *, allow_unregistered: bool = False):
    """Parse and verify a module; errors become located :class:`ToolError` s.

    Returns ``(context, module)``.
    """
    if not text.strip():
        raise ToolError("the input is empty (expected an MLIR module)")
    for offset, literal in out_of_range_literals(text):
        raise ToolError(f"integer {literal} is out of the 64-bit integer range {INT64_RANGE}", *_line_col(text, offset))
    ctx = make_context()  # reads unknown ops, attributes and types whatever allow_unregistered says
    set_source_name(filename)
    lp = LocatedParser(ctx, text, filename)
    try:
        module = lp.parse_module()
    except ParseError as e:
        loc = e.span.get_location()
        msg = parse_error_message(e)
        opened = _unclosed_brace(text)
        if opened is not None and (msg == "in block definition" or e.span.start >= len(text.rstrip())):
            line, col = _line_col(text, opened)
            raise ToolError(f"unexpected end of input: the '{{' opened at line {line}, column {col} is never closed",
                            *_line_col(text, len(text.rstrip()))) from None
        if msg.startswith("Could not parse entire input"):
            if not _strip_comments(text).strip():
                raise ToolError("the input has no MLIR module (only comments and whitespace)") from None
            msg = "unexpected text after the end of the module (an extra '}'?)"
        raise ToolError(msg, loc.line, loc.col) from None
    except DiagnosticException as e:  # e.g. attribute verification while parsing
        loc = lp._current_token.span.get_location()  # pyright: ignore[reportPrivateUsage]
        raise ToolError(exception_message(e), loc.line, loc.col) from None
    add_implicit_terminators(module)
    try:
        verify_located(module)
    except MemoptError as e:
        raise located(e) from None
    _remark_unknown_ops(module)
    return ctx, module


def _remark_unknown_ops(module) -> None:
    """One ``remark:`` per op name memopt has no definition of (read as an opaque op)."""
    said: set[str] = set()
    for op in walk(module):
        if isinstance(op, OpaqueOp) and op.name not in said:
            said.add(op.name)
            sys.stderr.write(f"{tool_name()}: remark: {where(op)}'{op.name}' is not known to memopt: every memref it "
                             "takes is taken as read and written whole, and every memref it returns as an alias "
                             "of them\n")


def _strip_comments(text: str) -> str:
    return "".join(m for m in re.split(r'//[^\n]*', text))


def _unclosed_brace(text: str) -> int | None:
    """Offset of the innermost ``{`` never closed (strings and comments skipped), else None."""
    stack: list[int] = []
    for m in re.finditer(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|[{}]', text):
        tok = m.group(0)
        if tok == "{":
            stack.append(m.start())
        elif tok == "}":
            if stack:
                stack.pop()
    return stack[-1] if stack else None


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
