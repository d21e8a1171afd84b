"""``memopt-opt``: an xdsl-opt style driver for the memopt dialect and passes.

    memopt-opt [FILE|-] [-o OUT] [--print-op-generic]
               [-p 'plan-memory{strategy=best alignment=16},verify-plan']
               [--plan-memory[=strategy=large-first alignment=16]] [--verify-plan] ...
               [--plan-memory{strategy=large-first alignment=16}]  (a pipeline element as a flag, quoted)

Passes given with ``-p/--passes`` and with ``--<pass-name>[=<options>]`` flags are run
in command-line order. Every failure is reported as exactly one line on stderr::

    memopt-opt: error: FILE:LINE:COL: message

(exit code 1; internal errors exit with code 2).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException

from memopt.cli import ArgParser, ToolError, one_line, process_entry, read_input, run_tool, write_output
from memopt.diagnostics import MemoptError, verify_located
from memopt.passes.options import mistyped_option, option_help, validate_pass
from memopt.passes import registry
from memopt.printer import MemoPrinter
from memopt.tools.source import located, parse_source

PROG = "memopt-opt"


# ----------------------------------------------------------------------------- passes


def _available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    return registry.get_all_passes()


def _passes_help() -> str:
    lines = ["passes (as -p 'name{opt=val ...},...', --name[=opt=val ...] or --name{opt=val ...}):"]
    for name, factory in _available_passes().items():
        try:
            cls = factory()
        except Exception as e:  # pass module not available (yet)
            lines.append(f"  --{name:<22} (unavailable: {type(e).__name__})")
            continue
        doc = (cls.__doc__ or "").strip().splitlines()
        summary = doc[0] if doc and not doc[0].startswith(cls.__name__ + "(") else ""
        summary = summary or f"({cls.__module__}.{cls.__name__})"
        lines.append(f"  --{name:<22} {summary}".rstrip())
        for text in option_help(cls):
            lines.append(f"      {text}")
    lines.append("option values with spaces or '{}' must be quoted in -p pipelines (-p 'name{k=\"a b\"}'); "
                 "paths and dotted names need not be (-p 'plan-memory{export=out/plan.csv}')")
    return "\n".join(lines) + "\n"


def _duplicate_option(text: str) -> str | None:
    """The first option given twice in one ``name{...}`` of a pipeline (xDSL keeps the last)."""
    for body in re.findall(r"\{([^{}]*)\}", text):
        seen: set[str] = set()
        for key in re.findall(r'(?:^|\s)([A-Za-z_][\w-]*)\s*=(?:"[^"]*"|\S*)', body):
            key = key.replace("_", "-")
            if key in seen:
                return key
            seen.add(key)
    return None


_PLAIN_VALUE = re.compile(r"^(?:[A-Za-z0-9_+-]+(?:,[A-Za-z0-9_+-]+)*|[-+]?\d+\.\d*(?:[eE][-+]?\d+)?)$")
"""A value xDSL's pipeline lexer reads as it stands: words, integers, comma lists of them, and
decimal numbers. Anything else (``sv2.csv``, ``out/plan.csv``, ``npu.target``) is quoted for it,
as MLIR's own pass-option syntax takes such values unquoted."""


def _quote_flag_options(val: str) -> str:
    """Render ``--pass=k=v k2=v2`` options for xDSL's pipeline syntax: values that are not
    plain tokens (paths such as ``export=/tmp/plan.csv``) are quoted, so users can write
    MLIR-style flags without knowing the pipeline grammar."""
    parts = []
    for token in val.split():
        key, eq, value = token.partition("=")
        if eq and value and not value.startswith('"') and not _PLAIN_VALUE.match(value):
            token = f'{key}="{value}"'
        parts.append(token)
    return " ".join(parts)


def _quote_pipeline_options(text: str) -> str:
    """The same quoting inside every ``name{...}`` of a ``-p`` pipeline (quoted values and
    nested braces are left as they are)."""
    return re.sub(r"\{([^{}\"]*)\}", lambda m: "{" + _quote_flag_options(m.group(1)) + "}", text)


def _comma_between_options(text: str) -> str | None:
    """The first ``name{a=1, b=2}`` that separates options with a comma (MLIR separates them
    with spaces; a comma continues a list value)."""
    for body in re.findall(r"\{([^{}]*)\}", text):
        if re.search(r",\s*[A-Za-z_][\w-]*\s*=", body):
            return body
    return None


def _split_pass_flags(
    argv: Sequence[str], pass_names: Sequence[str]
) -> tuple[list[str], list[tuple[str, str]]]:
    """Extract pipeline-building flags from argv, keeping their order.

    Returns (remaining argv, [(kind, text)]) with kind "pipeline" (a -p spec) or
    "pass" (a ``--name[=opts]`` flag rendered as ``name{opts}``)."""
    rest: list[str] = []
    items: list[tuple[str, str]] = []
    i = 0
    n = len(argv)
    while i < n:
        a = argv[i]
        if a == "--":
            rest.extend(argv[i:])
            break
        if a in ("-p", "--passes"):
            if i + 1 >= n:
                raise ToolError(f"argument {a}: expected a pass pipeline")
            items.append(("pipeline", argv[i + 1]))
            i += 2
            continue
        if a.startswith("--passes="):
            items.append(("pipeline", a[len("--passes=") :]))
            i += 1
            continue
        if a.startswith("-p") and not a.startswith("--") and len(a) > 2:
            items.append(("pipeline", a[2:]))
            i += 1
            continue
        if a.startswith("--"):
            if "{" in a and a[2:].partition("{")[0] in pass_names:
                items.append(("pipeline", a[2:]))  # a pipeline element as a flag: --name{k=v ...}
                i += 1
                continue
            key, eq, val = a[2:].partition("=")
            if key in pass_names:
                quoted = val if _comma_between_options(f"{{{val}}}") else _quote_flag_options(val)  # error below
                items.append(("pass", f"{key}{{{quoted}}}" if eq and val.strip() else key))
                i += 1
                continue
        rest.append(a)
        i += 1
    return rest, items


def _build_pipeline(items: list[tuple[str, str]]) -> list[Any]:
    available = _available_passes()
    passes: list[Any] = []
    for kind, text in items:
        shown = f"--{text}" if kind == "pass" else text
        commas = _comma_between_options(text)
        if commas is not None:
            fixed = re.sub(r",\s*(?=[A-Za-z_][\w-]*\s*=)", " ", commas.strip())
            raise ToolError(f"invalid pass pipeline '{shown}': pass options are separated by spaces, not commas "
                            f"(write {{{fixed}}})")
        text = _quote_pipeline_options(text)
        try:
            specs = list(parse_pipeline(text))
        except ArgSpecParseError as e:
            lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
            what = lines[-1] if lines else "syntax error"
            unquoted = re.search(r'([\w-]+)=([^\s"{},]*[/\\:~][^\s"{},]*)', text)
            if unquoted:
                key, value = unquoted.groups()
                raise ToolError(
                    f"invalid pass pipeline '{shown}': the value of '{key}' must be quoted because it "
                    f"contains '/' or ':' (write {key}=\"{value}\")"
                ) from None
            raise ToolError(f"invalid pass pipeline '{shown}': {what}") from None
        dup = _duplicate_option(text)
        if dup is not None:
            raise ToolError(f"invalid pass pipeline '{shown}': option '{dup}' is given twice")
        for spec in specs:
            if spec.name not in available:
                known = ", ".join(available)
                raise ToolError(f"unknown pass '{spec.name}' (available passes: {known})")
            try:
                cls = available[spec.name]()
            except Exception as e:
                raise ToolError(
                    f"pass '{spec.name}' is not available: {type(e).__name__}: {one_line(str(e))}"
                ) from None
            spec = spec.normalize_parameter_names()
            valid = {
                f.name
                for f in dataclasses.fields(cls)
                if f.name != "name" and f.init
            }
            for key in spec.parameters:
                if key not in valid:
                    opts = ", ".join(sorted(k.replace("_", "-") for k in valid)) or "none"
                    raise ToolError(
                        f"unknown option '{key.replace('_', '-')}' for pass "
                        f"'{spec.name}' (valid options: {opts})"
                    )
            mistyped = mistyped_option(cls, spec.parameters)
            if mistyped is not None:
                raise ToolError(f"invalid options for pass '{spec.name}': {mistyped}")
            try:
                p = cls.from_pass_spec(spec)
                validate_pass(p, spec.name)
                passes.append(p)
            except (ValueError, MemoptError) as e:
                msg = one_line(str(e)).removeprefix(f"{spec.name}: ")
                raise ToolError(f"invalid options for pass '{spec.name}': {msg}") from None
    return passes


# ----------------------------------------------------------------------------- main flow


def _arg_parser() -> ArgParser:
    p = ArgParser(
        prog=PROG,
        description="memopt modular optimizer driver (memory planning for NN graphs)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,
        allow_abbrev=False,
    )
    p.add_argument("input_file", nargs="?", default=None, help="input file ('-' or omitted: stdin)")
    p.add_argument("-o", "--output-file", default=None, help="output file (default: stdout)")
    p.add_argument("--print-op-generic", action="store_true", help="print ops in generic form")
    p.add_argument(
        "--allow-unregistered-dialect",
        action="store_true",
        help="allow ops of unregistered dialects",
    )
    p.add_argument(
        "-p",
        "--passes",
        metavar="PIPELINE",
        help="comma-separated pass pipeline, e.g. 'plan-memory{strategy=best},verify-plan'",
    )
    p.add_argument(
        "--print-pipeline",
        action="store_true",
        help="print the resolved pass pipeline on stdout and exit",
    )
    p.add_argument("--summary", action="store_true",
                   help="after the passes, print the plan on stderr: per function its arena against the "
                        "lower bound, the strategy, the on-chip total with DMA buffers")
    p.add_argument("-h", "--help", action="store_true", help="show this help and exit")
    return p


def _run(argv: Sequence[str], state: dict[str, str]) -> int:
    pass_names = list(_available_passes())
    rest, items = _split_pass_flags(argv, pass_names)
    parser = _arg_parser()
    args, unknown = parser.parse_known_args(rest)
    if args.help:
        parser.epilog = _passes_help()
        parser.print_help(sys.stdout)
        return 0
    path = args.input_file
    if unknown:
        bad = unknown[0]
        if bad.startswith("--"):
            key = bad[2:].partition("=")[0]
            raise ToolError(
                f"unknown pass or option '--{key}' (available passes: {', '.join(pass_names)})"
            )
        raise ToolError(f"unrecognized argument '{bad}'")

    passes = _build_pipeline(items)  # option errors are not located in the input
    state["file"] = "<stdin>" if path in (None, "-") else path
    if args.print_pipeline:
        write_output(None, ",".join(str(p) for p in passes) + "\n")
        return 0

    # ---- read input
    text = read_input(path)

    # ---- parse (and verify)
    ctx, module = parse_source(text, state["file"], allow_unregistered=args.allow_unregistered_dialect)

    # ---- passes, re-verifying after each
    try:
        for p in passes:
            try:
                p.apply(ctx, module)
            except MemoptError:
                raise
            except DiagnosticException as e:
                raise ToolError(f"{p.name}: {one_line(str(e))}") from None
            verify_located(module)
    except MemoptError as e:
        raise located(e) from None

    # ---- print
    out = io.StringIO()
    printer = MemoPrinter(stream=out, print_generic_format=args.print_op_generic)
    printer.print_op(module)
    printer.print_metadata(ctx.loaded_dialects)
    out.write("\n")
    result = out.getvalue()
    write_output(args.output_file, result)
    if args.summary:
        # Imported here, not at the top: the summary reads plans through memopt.api, which imports
        # the planning passes; a run without --summary (most) starts without them.
        from memopt.tools.summary import summary_lines

        sys.stderr.write("".join(f"{PROG}: summary: {line}\n" for line in summary_lines(module)))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool(PROG, _run, argv)


entry = process_entry(main)
"""The ``memopt-opt`` console script: :func:`main` as a whole process (see :func:`process_entry`)."""


if __name__ == "__main__":
    entry()

