"""``memopt-import``: ONNX / TFLite models into the memopt dialect.

    memopt-import MODEL.onnx|MODEL.tflite [-o OUT.mlir] [--input-shape NAME=1x576 ...] [--dim SYMBOL=N ...]
                  [--keep-static-if]

Every failure is one line on stderr, ``memopt-import: error: FILE: message``, exit code 1
(internal errors: exit code 2).
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import sys
from collections.abc import Sequence

from xdsl.printer import Printer

from memopt.cli import ArgParser, ToolError, one_line, process_entry, run_tool, write_output
from memopt.importers.api import import_model
from memopt.importers.common import ModelImportError, parse_dims, parse_input_shapes

PROG = "memopt-import"


def _parser() -> ArgParser:
    p = ArgParser(prog=PROG, description="Import an ONNX or TFLite model into the memopt dialect.",
                  allow_abbrev=False)
    p.add_argument("model", help="model file (.onnx or .tflite)")
    p.add_argument("-o", "--output-file", default=None, help="output file (default: stdout)")
    p.add_argument("--input-shape", action="append", default=[], metavar="NAME=DIMS",
                   help="static shape of a graph input with symbolic (ONNX) or dynamic (TFLite, -1 in its "
                        "shape signature) dimensions, e.g. input=1x576 (repeatable; NAME= for a scalar)")
    p.add_argument("--dim", action="append", default=[], metavar="SYMBOL=N",
                   help="fix a symbolic dimension by its name wherever it appears in the graph inputs, "
                        "e.g. batch=1 (ONNX Runtime's free-dimension override; repeatable; ONNX only: "
                        "TFLite dimensions have no names)")
    p.add_argument("--trip-count", action="append", default=[], metavar="LOOP=N",
                   help="trip count of an ONNX Loop known only at run time (by node name or first output; "
                        "required when it has scan outputs; repeatable)")
    p.add_argument("--format", choices=("onnx", "tflite"), default=None,
                   help="model format (default: from the file's contents and extension)")
    p.add_argument("--keep-static-if", action="store_true",
                   help="keep an ONNX If whose condition is known at import (a shape test) as "
                        "memopt.if instead of inlining the taken branch")
    return p


@contextlib.contextmanager
def _model_path(model: str, fmt: str | None):
    """The model's path; ``-`` reads standard input into a temporary file (a TFLite model is
    recognised by its contents, an ONNX one needs ``--format onnx``)."""
    if model != "-":
        yield model
        return

    data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
    if not data:
        raise ModelImportError("standard input is empty (expected a .onnx or .tflite model)")
    if fmt is None and data[4:8] != b"TFL3":
        raise ModelImportError("a model on standard input needs --format onnx (TFLite models are recognised)")
    suffix = ".tflite" if (fmt or "tflite") == "tflite" else ".onnx"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "stdin" + suffix)
        with open(path, "wb") as fh:
            fh.write(data)
        yield path


def _run(argv: list[str], state: dict) -> int:
    args = _parser().parse_args(argv)
    state["file"] = args.model

    try:
        shapes = parse_input_shapes(args.input_shape)
        dims = parse_dims(args.dim, "--dim")
        trips = parse_dims(args.trip_count, "--trip-count")
        with _model_path(args.model, args.format) as path:
            result = import_model(path, shapes, args.format, keep_static_if=args.keep_static_if, dims=dims,
                                  trip_counts=trips)
    except ModelImportError as e:
        raise ToolError(" ".join(str(e).split())) from None
    for w in result.warnings:
        sys.stderr.write(f"{PROG}: warning: {args.model}: {one_line(w)}\n")
    out = io.StringIO()
    Printer(stream=out).print_op(result.module)
    out.write("\n")
    write_output(args.output_file, out.getvalue())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_tool(PROG, _run, argv)


entry = process_entry(main)
"""The ``memopt-import`` console script: :func:`main` as a whole process (see :func:`process_entry`)."""


if __name__ == "__main__":
    entry()
