"""Command-line plumbing shared by memopt's tools: one-line errors, never a traceback.

Every tool reports a user error as ``PROG: error: FILE[:LINE:COL]: message`` and exits 1, an
internal error as ``PROG: error: internal error: …`` with exit 2, and never shows a Python
traceback. :func:`run_tool` is that policy; :class:`ToolError` is what a tool raises to use it.

Nothing here reads IR (that is :mod:`memopt.tools.source`), so the tools that never parse MLIR
start without xDSL's parser.
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import sys
import threading
from typing import Callable, NoReturn, Sequence


class ToolError(Exception):
    """A user-facing error; ``line``/``col`` locate it in the input file when known."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


class OutputError(ToolError):
    """A failure to write a result: reported without the input file's name."""


class ArgParser(argparse.ArgumentParser):
    """argparse whose usage errors become one-line :class:`ToolError` s."""

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        raise ToolError(message)


def one_line(msg: str) -> str:
    """Join a (possibly multi-line) message into one line."""
    return " ".join(p.strip() for p in str(msg).splitlines() if p.strip())


def escape_controls(text: str) -> str:
    """``text`` with control characters (NUL, newline, escape, DEL ...) spelled as ``\\xNN``
    escapes, so a hostile file name or input byte can neither split an error line nor reach the
    terminal raw."""
    return "".join(c if c.isprintable() or c == " " else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}"
                   for c in text)


class _ClosedStream:
    """Stands in for ``sys.stdin``/``sys.stdout`` when the process was started with that file
    descriptor closed (``<&-``, ``>&-``): Python then sets them to None, and the first read or
    write would be an AttributeError. Using one is a user error, said in one line."""

    def __init__(self, what: str):
        self.what = what

    def _fail(self, *args, **kwargs):
        raise (OutputError if self.what == "standard output" else ToolError)(f"cannot use {self.what}: it is closed")

    read = readline = write = _fail

    def flush(self) -> None:
        pass

    @property
    def buffer(self):
        self._fail()


def read_input(path: str | None) -> str:
    """The text of an input (None or ``-``: standard input) with one-line errors: missing file,
    directory, unreadable, not UTF-8 (with the offset of the first bad byte). A UTF-8 byte order
    mark is dropped (editors on Windows write one)."""
    try:
        if path in (None, "-"):
            raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
        else:
            with open(path, "rb") as fh:
                raw = fh.read()
    except FileNotFoundError:
        raise ToolError("could not open input file: no such file or directory") from None
    except IsADirectoryError:
        raise ToolError("could not open input file: is a directory") from None
    except OSError as e:
        raise ToolError(f"could not read input: {e.strerror or e}") from None
    if isinstance(raw, str):
        return raw
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        hint = ""
        if raw[4:8] == b"TFL3" or (path or "").lower().endswith((".onnx", ".tflite")):
            hint = f"; it looks like a model: import it first with memopt-import {path or '-'} -o model.mlir"
        raise ToolError(f"input is not UTF-8 text (invalid byte 0x{raw[e.start]:02x} at offset {e.start}){hint}") from None
    return text[1:] if text.startswith("\ufeff") else text


def write_output(path: str | None, data: str | bytes) -> None:
    """The one place tools write their result: ``path`` (None or ``-``: standard output).

    Every failure — a closed stdout, a full device, a directory or unwritable path — is a
    one-line :class:`ToolError`, never a traceback or an "internal error"."""
    to_stdout = path in (None, "-")
    where = "standard output" if to_stdout else f"'{escape_controls(str(path))}'"
    try:
        if to_stdout:
            if isinstance(data, bytes):
                sys.stdout.buffer.write(data)
            else:
                sys.stdout.write(data)
            sys.stdout.flush()
        else:
            with open(path, "wb") as f:  # type: ignore[arg-type]
                f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
    except BrokenPipeError:
        raise
    except OSError as e:
        raise OutputError(f"cannot write {where}: {e.strerror or e}") from None


_PROG = ["memopt"]
"""The running tool's name, for lines printed outside a pass (set by :func:`run_tool`)."""


def tool_name() -> str:
    """The name of the tool running (``memopt`` outside :func:`run_tool`), for remarks."""
    return _PROG[0]


def run_tool(prog: str, run: Callable[[list[str], dict], int], argv: Sequence[str] | None) -> int:
    """Run ``run(argv, state)`` under the one-line error policy; ``state["file"]`` names the
    input for error prefixes once the tool knows it."""
    if argv is None:
        argv = sys.argv[1:]
    if sys.stdin is None:
        sys.stdin = _ClosedStream("standard input")  # type: ignore[assignment]
    if sys.stdout is None:
        sys.stdout = _ClosedStream("standard output")  # type: ignore[assignment]
    if sys.stderr is None:  # nowhere to report anything: exit codes only
        sys.stderr = io.StringIO()
    state: dict = {}
    _PROG[0] = prog
    try:
        code = _with_deep_stack(lambda: run(list(argv), state))
        sys.stdout.flush()
    except ToolError as e:
        where = None if isinstance(e, OutputError) else state.get("file")
        prefix = ""
        if where is not None:
            where = escape_controls(str(where))
            prefix = f"{where}:{e.line}:{e.col}: " if e.line is not None else f"{where}: "
        sys.stderr.write(f"{prog}: error: {prefix}{escape_controls(one_line(e.message))}\n")
        code = 1
    except OSError as e:
        if isinstance(e, BrokenPipeError):
            raise
        # A late flush of standard output (full device, I/O error): still a one-line error.
        sys.stderr.write(f"{prog}: error: cannot write standard output: {escape_controls(e.strerror or str(e))}\n")
        _silence_stdout()
        code = 1
    except BrokenPipeError:
        # The consumer closed the pipe (e.g. `| head`): not an error of ours.
        _silence_stdout()
        code = 0
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: error: interrupted\n")
        code = 130
    except SystemExit as e:  # --help
        code = e.code if isinstance(e.code, int) else 0
    except RecursionError:
        sys.stderr.write(f"{prog}: error: input nested too deeply to process\n")
        code = 1
    except MemoryError:
        sys.stderr.write(f"{prog}: error: out of memory\n")
        code = 1
    except BaseException as e:  # noqa: BLE001 - never show a traceback
        sys.stderr.write(f"{prog}: error: internal error: {type(e).__name__}: {escape_controls(one_line(str(e)))}\n")
        code = 2
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        _silence_stdout()
    return code


GC_GENERATION0_THRESHOLD = 100_000


def process_entry(main: Callable[[], int]) -> Callable[[], NoReturn]:
    """The console-script entry of a tool: ``main()`` run as a whole process, then exit.

    Two process-level settings that a library call must not impose on its host, worth about
    0.2 s of a one-second ``memopt-opt`` run on a 1,000-op program (``bench/pack.py --only-e2e``):

    * the cyclic garbage collector's first generation runs every 100,000 allocations instead
      of 700: parsing allocates IR objects by the hundred thousand and frees almost none, so
      the default collections scan a growing heap for nothing;
    * the process leaves with ``os._exit`` after flushing its output: tearing the IR down object
      by object at interpreter exit took 0.1-0.15 s, which the OS does at once. Every tool has
      joined its workers and closed its files before ``main`` returns.
    """

    def entry() -> NoReturn:
        gc.set_threshold(GC_GENERATION0_THRESHOLD, *gc.get_threshold()[1:])
        code = main()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # closed or broken: run_tool has reported what it could
                pass
        os._exit(code)

    return entry


DEEP_STACK_BYTES = 512 << 20
RECURSION_LIMIT = 200_000


def _with_deep_stack(fn: Callable[[], int]) -> int:
    """Run ``fn`` in a thread with a large stack and recursion limit. Why: xDSL's parser, printer
    and verifier, and memopt's region walks, recurse once per nesting level (several frames
    each), so the interpreter's defaults stop at about a hundred nested ``if``/``loop`` regions;
    real control-flow graphs are shallower, hostile ones are not, and a refusal there would be
    a limit of the tool, not of the input. Exceptions are re-raised in the caller."""
    result: dict = {}

    def target() -> None:
        try:
            result["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to run_tool's policy
            result["error"] = e

    old_limit = sys.getrecursionlimit()
    try:
        old_size = threading.stack_size(DEEP_STACK_BYTES)
    except (ValueError, RuntimeError):  # platform without settable thread stacks
        return fn()
    sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
    try:
        t = threading.Thread(target=target, name="memopt-main", daemon=True)
        t.start()
        while t.is_alive():
            t.join(0.1)
    finally:
        threading.stack_size(old_size)
        sys.setrecursionlimit(old_limit)
    if "error" in result:
        raise result["error"]
    return result["value"]


def _silence_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's exit-time flush of unwritten output cannot
    print a traceback after the one-line error."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass
