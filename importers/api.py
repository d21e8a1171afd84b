"""One entry point for every model format: :func:`import_model`."""

from __future__ import annotations

import os
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp, StringAttr

from .common import ModelImportError, read_model_file
from .onnx_import import import_onnx
from .tflite_import import import_tflite

FORMATS = ("onnx", "tflite")


@dataclass
class ImportResult:
    """The imported module and a few counts (for reports and benchmarks)."""

    module: ModuleOp
    format: str
    ops: int
    tensors: int
    warnings: list[str]


def detect_format(path: str, data: bytes | None = None) -> str:
    """``tflite`` when the file carries the TFLite flatbuffer identifier ``TFL3``, ``onnx`` for
    ``.onnx`` files; otherwise by extension."""
    ext = os.path.splitext(path)[1].lower()
    if data is None:
        data = read_model_file(path, 8)
    if data[4:8] == b"TFL3" or ext == ".tflite":
        return "tflite"
    if ext == ".onnx":
        return "onnx"
    raise ModelImportError("unknown model format (expected a .onnx or .tflite file)")


_READERS = {"onnx": "onnx", "tflite": "tflite"}
"""The PyPI package each model format is read with (dependencies of memopt)."""


def _require(fmt: str) -> None:
    """Say exactly what to install when a format's reader is missing, before reading the model
    (a missing reader is not a corrupt model)."""
    import importlib.util

    package = _READERS.get(fmt)
    if package is not None and importlib.util.find_spec(package) is None:
        raise ModelImportError(f"reading .{fmt} models needs the '{package}' package, which is not installed: "
                               f"pip install {package}  (or reinstall memopt: pip install -e .)")


def import_model(
    path: str, input_shapes: dict[str, tuple[int, ...]] | None = None, format: str | None = None,
    *, keep_static_if: bool = False, dims: dict[str, int] | None = None,
    trip_counts: dict[str, int] | None = None,
) -> ImportResult:
    """Import an ONNX or TFLite model into a verified memopt module (raises ModelImportError).

    ``keep_static_if`` (ONNX): keep an ``If`` whose condition is known at import as a
    ``memopt.if`` rather than inlining its taken branch (see
    :func:`memopt.importers.onnx_import.import_onnx`); TFLite has no such folding, so the
    option changes nothing there. ``dims`` (ONNX) fixes symbolic dimensions by name everywhere
    they appear in the graph inputs (``{"batch": 1}``); TFLite dimensions have no names
    (``input_shapes`` sizes its dynamic inputs).
    ``trip_counts`` (ONNX) gives the trip count of a ``Loop`` whose count is a run-time value, by
    node name or first output (required when the Loop has scan outputs)."""
    fmt = format or detect_format(path)
    _require(fmt)
    if fmt == "onnx":
        module, b = import_onnx(path, input_shapes, keep_static_if=keep_static_if, dims=dims, trip_counts=trip_counts)
    elif fmt == "tflite":
        if dims:
            raise ModelImportError("--dim does not apply to TFLite models: their dynamic dimensions have no "
                                   "names; give each dynamic input its shape with --input-shape NAME=DIMS")
        module, b = import_tflite(path, input_shapes)
    else:
        raise ModelImportError(f"unknown model format '{fmt}' (expected one of: {', '.join(FORMATS)})")
    module.attributes["memopt.source"] = StringAttr(os.path.basename(path))
    try:
        module.verify()
    except Exception as e:  # the importer's own bug, or a model construct it mis-read
        msg = " ".join(str(e).split())
        raise ModelImportError(f"imported IR does not verify: {msg[:300]}") from None
    return ImportResult(module, fmt, b.n_ops, len(b.decls), list(b.warnings))


__all__ = ["FORMATS", "ImportResult", "detect_format", "import_model"]
