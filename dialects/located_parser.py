"""The parser every memopt tool reads MLIR text with: xDSL's, locating each op it parses.

xDSL 0.74 does not attach source locations to parsed operations. :class:`LocatedParser`
records the (line, col) of every operation it parses in the table of :mod:`.errors`, where
``locate`` finds them for messages; beside that it refuses an unknown op at the op's name, reads
ops with properties xDSL's definitions lack, and keeps large programs fast to read (memoised
types, splat constants kept as one element, a linear string-literal pattern).
"""

from __future__ import annotations

import bisect
import math
import re

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRLexer

from .errors import set_location


class LocatedParser(Parser):
    """An xDSL parser recording the (line, col) at which each operation starts."""

    # A string literal as xDSL 0.74's lexer reads it, without the nested quantifier
    # (``(?:[^"...]+|...)*``) whose backtracking is exponential in the length of an unclosed
    # literal: ``"Relu(%a : ...`` cut before its closing quote took minutes to be refused.
    # One character per repetition, and the two alternatives never start with the same
    # character, so a failed match backtracks once per character.
    _STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        assert isinstance(self.lexer, MLIRLexer)  # typed as the generic lexer it derives from
        self.lexer._unescaped_characters_regex = self._STRING_LITERAL

    def line_col(self, offset: int) -> tuple[int, int]:
        """(line, col), 1-based, of a character offset: a bisection in the line-start table,
        built once. xDSL's ``Span.get_location`` counts the newlines from the start of the file
        for every call, which made parsing quadratic in the number of ops."""
        starts = getattr(self, "_line_starts", None)
        if starts is None:
            text = self.lexer.input.content
            starts = [0]
            pos = text.find("\n")
            while pos >= 0:
                starts.append(pos + 1)
                pos = text.find("\n", pos + 1)
            self._line_starts = starts
        k = bisect.bisect_right(starts, offset) - 1
        return k + 1, offset - starts[k] + 1

    # A shaped type as it is spelled thousands of times in a large program: `tensor<1x64xf32>`,
    # `memref<256xi8, 1>` (no nested attributes, so the text alone determines the type).
    _SIMPLE_TYPE = re.compile(r"(?:tensor|memref|vector)<[0-9x?]*(?:[fiu]|bf|si|ui)[0-9]+(?:, ?[0-9]+)?>")

    def parse_optional_type(self):
        """xDSL's type parser, with the simple shaped types memoised by their text. Why: the
        lexer costs about 0.1 ms per token, and a program's types repeat (a 1,000-op chain
        spells ~2,000 types, a few dozen distinct): looking the text up and skipping it halves
        the parse time of large programs. Anything else goes to xDSL unchanged."""
        return self._memoised(self._SIMPLE_TYPE, "_type_memo", super().parse_optional_type)

    _SIMPLE_LIST = rf"\((?:{_SIMPLE_TYPE.pattern}(?:\s*,\s*{_SIMPLE_TYPE.pattern})*)?\)"
    _SIMPLE_FUNCTION_TYPE = re.compile(rf"{_SIMPLE_LIST}\s*->\s*(?:{_SIMPLE_TYPE.pattern}|{_SIMPLE_LIST})")

    def parse_optional_function_type(self):
        """xDSL's function-type parser, with ``(tensor<..>, ..) -> tensor<..>`` memoised by its
        text like the simple types above. Why: every ``memopt.compute`` spells one, and the
        brackets, commas and arrow around its types are a third of a large program's tokens."""
        return self._memoised(self._SIMPLE_FUNCTION_TYPE, "_function_type_memo",
                              super().parse_optional_function_type)

    def _memoised(self, pattern: re.Pattern, memo: str, parse):
        """``parse()``'s result for the text ``pattern`` matches here, looked up by that text and
        skipped when seen before; recorded only when xDSL consumed exactly that text."""
        start = self._current_token.span.start
        content = self.lexer.input.content
        m = pattern.match(content, start)
        if m is None:
            return parse()
        text = m.group(0)
        cache = self.__dict__.setdefault(memo, {})
        hit = cache.get(text)
        if hit is not None:
            self._resume_from(m.end())
            return hit
        result = parse()
        if result is not None and self._current_token.span.start >= m.end() and \
                not content[m.end():self._current_token.span.start].strip():
            cache[text] = result
        return result

    _SPLAT = re.compile(r'<\s*(?:[-+]?[0-9][0-9.eE+-]*|true|false|"0x[0-9A-Fa-f]{2,16}")\s*>')

    def parse_dense_int_or_fp_elements_attr(self, type):
        """A splat ``dense<0.02> : tensor<25088x4096xf32>`` kept as its one element (xDSL's
        attribute prints it back the same: one value is a splat), not expanded to every element.
        Why: bufferized models hold splat constants of hundreds of millions of elements, which
        took xDSL minutes and gigabytes to pack; nothing in memopt needs them expanded."""
        start = self._current_token.span.start
        m = self._SPLAT.match(self.lexer.input.content, start)
        if m is None:
            return super().parse_dense_int_or_fp_elements_attr(type)
        full, end = type, m.end()
        if full is None:
            self._resume_from(m.end())
            self.parse_punctuation(":", " in dense attribute")
            full = self._parse_dense_literal_type()
            end = self._current_token.span.start
        if math.prod(full.get_shape()) <= 1:
            self._resume_from(start)
            return super().parse_dense_int_or_fp_elements_attr(type)
        self._resume_from(start)
        one = super().parse_dense_int_or_fp_elements_attr(TensorType(full.element_type, [1]))
        self._resume_from(end)
        return DenseIntOrFPElementsAttr(full, one.data)

    def parse_type(self):
        result = self.parse_optional_type()
        if result is None:
            return super().parse_type()  # xDSL's own error
        return result

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        op = super().parse_operation()
        set_location(op, *self.line_col(start))
        if op.properties and isinstance(op, IRDLOperation):
            _undefined_properties_as_attributes(op)
        return op

    def _get_op_by_name(self, name: str) -> type[Operation]:
        op_type = self.ctx.get_optional_op(
            name, dialect_stack=self._parser_state.dialect_stack
        )
        if op_type is not None:
            return op_type
        # Point at the op name token (already consumed), not at the next token.
        end = self._current_token.span.start
        content = self.lexer.input.content
        start = content.rfind(name, 0, end)
        if start > 0 and content[start - 1] == '"':
            start -= 1
        where = Span(start, start + len(name), self.lexer.input) if start >= 0 else None
        dialect = name.split(".", 1)[0] if "." in name else None
        if dialect is not None and dialect not in self.ctx.registered_dialect_names:
            msg = f"unknown operation '{name}': dialect '{dialect}' is not registered"
        else:
            msg = f"unknown operation '{name}'"
        self.raise_error(msg, where)


def _undefined_properties_as_attributes(op: IRDLOperation) -> None:
    """An op with properties upstream prints that xDSL's definition lacks (``memref.load``'s
    ``invariant``, ...) keeps them, verifies without them, and prints in the generic form, the
    one form in which upstream reads them back. Why: xDSL refuses the op otherwise ("property
    'invariant' is not defined by the operation"), and upstream refuses them in the attribute
    dictionary of the custom form."""
    defined = op.get_irdl_definition().properties
    if any(k not in defined for k in op.properties):
        op.__class__ = _foreign_properties_twin(type(op))


_TWINS: dict[type[IRDLOperation], type[IRDLOperation]] = {}


def _foreign_properties_twin(cls: type[IRDLOperation]) -> type[IRDLOperation]:
    twin = _TWINS.get(cls)
    if twin is None:
        defined = cls.get_irdl_definition().properties

        def verify_(self: IRDLOperation) -> None:
            foreign = {k: self.properties.pop(k) for k in list(self.properties) if k not in defined}
            try:
                cls.verify_(self)
            finally:
                self.properties.update(foreign)

        twin = type(cls.__name__, (cls,), {"print": Operation.print, "verify_": verify_})
        _TWINS[cls] = twin
    return twin


__all__ = ["LocatedParser"]
