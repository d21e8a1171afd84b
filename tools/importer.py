"""``memopt-import``: ONNX / TFLite models into the memopt dialect.

    memopt-import MODEL.onnx|MODEL.tflite [-o OUT.mlir] [--input-shape NAME=1x576 ...] [--keep-static-if]

Every failure is one line on stderr, ``memopt-import: error: FILE: message``, exit code 1
(internal errors: exit code 2).
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence
from typing import NoReturn

PROG = "memopt-import"


class _Usage(Exception):
    pass


class _ArgParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        raise _Usage(message)


def _parser() -> _ArgParser:
    p = _ArgParser(prog=PROG, description="Import an ONNX or TFLite model into the memopt dialect.",
                   allow_abbrev=False)
    p.add_argument("model", help="model file (.onnx or .tflite)")
    p.add_argument("-o", "--output-file", default=None, help="output file (default: stdout)")
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=DIMS",
                   help="static shape of a graph input with symbolic dimensions, e.g. input=1x576 "
                        "(repeatable; NAME= for a scalar)")
    p.add_argument("--format", choices=("onnx", "tflite"), default=None,
                   help="model format (default: from the file's contents and extension)")
    p.add_argument("--keep-static-if", action="store_true",
                   help="keep an ONNX If whose condition is known at import (a shape test) as "
                        "memopt.if instead of inlining the taken branch")
    return p


def _one_line(msg: object) -> str:
    return " ".join(str(msg).split())


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    where = ""
    try:
        args = _parser().parse_args(argv)
        where = f"{args.model}: "
        from xdsl.printer import Printer

        from memopt.importers.api import import_model
        from memopt.importers.common import parse_input_shapes

        shapes = parse_input_shapes(args.input_shape)
        result = import_model(args.model, shapes, args.format, keep_static_if=args.keep_static_if)
        for w in result.warnings:
            sys.stderr.write(f"{PROG}: warning: {args.model}: {_one_line(w)}\n")
        out = io.StringIO()
        Printer(stream=out).print_op(result.module)
        out.write("\n")
        if args.output_file in (None, "-"):
            sys.stdout.write(out.getvalue())
        else:
            try:
                with open(args.output_file, "w", encoding="utf-8") as f:
                    f.write(out.getvalue())
            except OSError as e:
                raise _Usage(f"could not write output file '{args.output_file}': {e.strerror}") from None
        return 0
    except _Usage as e:
        sys.stderr.write(f"{PROG}: error: {_one_line(e)}\n")
        return 1
    except SystemExit as e:  # --help
        return e.code if isinstance(e.code, int) else 0
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: error: interrupted\n")
        return 130
    except BaseException as e:  # noqa: BLE001 - never a traceback
        from memopt.importers.common import ModelImportError

        if isinstance(e, ModelImportError):
            sys.stderr.write(f"{PROG}: error: {where}{_one_line(e)}\n")
            return 1
        sys.stderr.write(f"{PROG}: error: {where}internal error: {type(e).__name__}: {_one_line(e)}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
