"""xDSL's printer with the shaped types memoised.

Why: printing ``tensor<1x64xf32>`` walks the type's parameters and issues a dozen small writes;
a large program prints the same few dozen types thousands of times, which made printing a
fifth of ``memopt-opt``'s run time on a 1,000-op program. The text of a type depends on the
type alone, so it is rendered once per printer and then written as one string. Output is
byte-identical to xDSL's (``tests/unit/test_printer.py``).
"""

from __future__ import annotations

import io
from collections.abc import Iterable

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
            text = self._render(lambda: super(MemoPrinter, self).print_attribute(attribute))
            if text is None:  # never expected for a type; print it the ordinary way
                return super().print_attribute(attribute)
            memo[attribute] = text
        self.print_string(text)

    def print_function_type(self, input_types: Iterable[Attribute], output_types: Iterable[Attribute]) -> None:
        """The same memo for a whole ``(..) -> ..`` type: every ``memopt.compute`` prints one,
        and a program repeats a few dozen of them."""
        inputs, outputs = tuple(input_types), tuple(output_types)
        if not all(isinstance(t, _SHAPED) for t in inputs + outputs):
            return super().print_function_type(inputs, outputs)
        memo = self.__dict__.setdefault("_function_type_text", {})
        key = (inputs, outputs)
        text = memo.get(key)
        if text is None:
            text = self._render(lambda: super(MemoPrinter, self).print_function_type(inputs, outputs))
            if text is None:
                return super().print_function_type(inputs, outputs)
            memo[key] = text
        self.print_string(text)

    def _render(self, emit) -> str | None:
        """The text ``emit`` prints, captured without moving this printer's position; None
        if it spans lines (its text then depends on the indentation)."""
        stream, self.stream = self.stream, io.StringIO()
        line, column = self._current_line, self._current_column
        try:
            emit()
            text = self.stream.getvalue()
        finally:
            self.stream = stream
            self._current_line, self._current_column = line, column
        return None if "\n" in text else text
