"""xDSL's printer with the shaped types memoised.

Why: printing ``tensor<1x64xf32>`` walks the type's parameters and issues a dozen small writes;
a large program prints the same few dozen types thousands of times, which made printing a
fifth of ``memopt-opt``'s run time on a 1,000-op program. The text of a type depends on the
type alone, so it is rendered once per printer and then written as one string. Output is
byte-identical to xDSL's (``tests/unit/test_printer.py``).
"""

from __future__ import annotations

import io

from xdsl.dialects.builtin import MemRefType, TensorType, VectorType
from xdsl.ir import Attribute
from xdsl.printer import Printer

_SHAPED = (TensorType, MemRefType, VectorType)


class MemoPrinter(Printer):
    """A :class:`xdsl.printer.Printer` that renders each distinct shaped type once."""

    def print_attribute(self, attribute: Attribute) -> None:
        if not isinstance(attribute, _SHAPED):
            return super().print_attribute(attribute)
        memo = self.__dict__.setdefault("_type_text", {})
        text = memo.get(attribute)
        if text is None:
            stream, self.stream = self.stream, io.StringIO()
            line, column = self._current_line, self._current_column
            try:
                super().print_attribute(attribute)
                text = self.stream.getvalue()
            finally:
                self.stream = stream
                self._current_line, self._current_column = line, column
            if "\n" in text:  # never expected for a type; print it the ordinary way
                return super().print_attribute(attribute)
            memo[attribute] = text
        self.print_string(text)
