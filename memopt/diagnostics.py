"""Located diagnostics for memopt tools: where passes and tools import them from.

Each job lives in its own module of the dialect layer, under every module that reads IR; this
one gathers their public names:

* :mod:`memopt.dialects.errors` — :class:`MemoptError`, the error located at an op, and the
  table of op locations (:func:`locate`, :func:`where` ...);
* :mod:`memopt.dialects.located_parser` — :class:`LocatedParser`, the parser recording them;
* :mod:`memopt.dialects.wording` — xDSL's messages on one line, in memopt's wording;
* :mod:`memopt.dialects.verify` — the located IR verifiers (:func:`verify_located`).

Passes report errors with ``raise MemoptError("message", op)``; the driver prints
``memopt-opt: error: FILE:LINE:COL: message`` using the op's recorded location.
"""

from __future__ import annotations

from memopt.dialects.errors import (
    MemoptError, copy_location, locate, own_location, set_location, set_source_name, where,
)
from memopt.dialects.located_parser import LocatedParser
from memopt.dialects.verify import check_dominance, check_structure, check_type_sizes, verify_located
from memopt.dialects.wording import exception_message, parse_error_location, parse_error_message

__all__ = [
    "LocatedParser",
    "MemoptError",
    "check_dominance",
    "check_structure",
    "check_type_sizes",
    "copy_location",
    "exception_message",
    "locate",
    "own_location",
    "parse_error_location",
    "parse_error_message",
    "set_location",
    "set_source_name",
    "verify_located",
    "where",
]
