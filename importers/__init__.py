"""memopt.importers: ONNX and TFLite models into the memopt dialect.

``import_model(path, input_shapes)`` (in :mod:`memopt.importers.api`) is the entry point; the
format readers (:mod:`.onnx_import`, :mod:`.tflite_import`) only parse their format and drive the
shared :class:`~memopt.importers.common.ModuleBuilder`, which owns names, symbols and regions.
"""

from .api import ImportResult, detect_format, import_model
from .common import ModelImportError

__all__ = ["ImportResult", "ModelImportError", "detect_format", "import_model"]
