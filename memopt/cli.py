"""Command-line plumbing shared by memopt's tools: one-line errors, never a traceback.

Every tool reports a user error as ``PROG: error: FILE[:LINE:COL]: message`` and exits 1, an
internal error as ``PROG: error: internal error: …`` with exit 2, and never shows a Python
traceback. :func:`run_tool` is that policy; :class:`ToolError` is what a tool raises to use it.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from typing import TYPE_CHECKING, Callable, NoReturn, Sequence

if TYPE_CHECKING:  # xDSL is imported only by the tools that parse IR (memopt-pack does not)
    from memopt.diagnostics import MemoptError


class ToolError(Exception):
    """A user-facing error; ``line``/``col`` locate it in the input file when known."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col

    @staticmethod
    def at_op(e: MemoptError) -> "ToolError":
        """The error of a pass or verifier, located at its op when the op has a location."""
        from memopt.diagnostics import locate

        loc = locate(e.op)
        return ToolError(e.message, *(loc if loc is not None else (None, None)))


class ArgParser(argparse.ArgumentParser):
    """argparse whose usage errors become one-line :class:`ToolError` s."""

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        raise ToolError(message)


def one_line(msg: str) -> str:
    """Join a (possibly multi-line) message into one line."""
    return " ".join(p.strip() for p in str(msg).splitlines() if p.strip())


def parse_source(text: str, filename: str, *, allow_unregistered: bool = False):
    """Parse and verify a module; errors become located :class:`ToolError` s.

    Returns ``(context, module)``.
    """
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from memopt.diagnostics import (
        LocatedParser, MemoptError, exception_message, parse_error_message, verify_located,
    )
    from memopt.tools.opt import make_context

    ctx = make_context()
    ctx.allow_unregistered = allow_unregistered
    lp = LocatedParser(ctx, text, filename)
    try:
        module = lp.parse_module()
    except ParseError as e:
        loc = e.span.get_location()
        raise ToolError(parse_error_message(e), loc.line, loc.col) from None
    except DiagnosticException as e:  # e.g. attribute verification while parsing
        loc = lp._current_token.span.get_location()  # pyright: ignore[reportPrivateUsage]
        raise ToolError(exception_message(e), loc.line, loc.col) from None
    try:
        verify_located(module)
    except MemoptError as e:
        raise ToolError.at_op(e) from None
    return ctx, module


def run_tool(prog: str, run: Callable[[list[str], dict], int], argv: Sequence[str] | None) -> int:
    """Run ``run(argv, state)`` under the one-line error policy; ``state["file"]`` names the
    input for error prefixes once the tool knows it."""
    if argv is None:
        argv = sys.argv[1:]
    state: dict = {}
    try:
        code = run(list(argv), state)
    except ToolError as e:
        where = state.get("file")
        prefix = ""
        if where is not None:
            prefix = f"{where}:{e.line}:{e.col}: " if e.line is not None else f"{where}: "
        sys.stderr.write(f"{prog}: error: {prefix}{one_line(e.message)}\n")
        code = 1
    except BrokenPipeError:
        # The consumer closed the pipe (e.g. `| head`): not an error of ours.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, io.UnsupportedOperation):
            pass
        code = 0
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: error: interrupted\n")
        code = 130
    except SystemExit as e:  # --help
        code = e.code if isinstance(e.code, int) else 0
    except BaseException as e:  # noqa: BLE001 - never show a traceback
        sys.stderr.write(f"{prog}: error: internal error: {type(e).__name__}: {one_line(str(e))}\n")
        code = 2
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return code
