"""Located diagnostics for memopt tools: the located parser, message wording, IR verifiers.

xDSL 0.74 does not attach source locations to parsed operations. ``LocatedParser``
records the (line, col) of every operation it parses in the table of
:mod:`memopt.dialects.errors`, where :func:`locate` looks an operation (or its nearest located
ancestor) up; that module's names (:class:`MemoptError`, :func:`locate`, :func:`where` ...) are
re-exported here.

Passes report errors with ``raise MemoptError("message", op)``; the driver prints
``memopt-opt: error: FILE:LINE:COL: message`` using the op's recorded location.
"""

from __future__ import annotations

import bisect
import math
import re

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, MemRefType, ModuleOp, TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.lexer import Span
from memopt.dialects.errors import (  # noqa: F401 - re-exported: passes and tools import them from here
    MemoptError, copy_location, locate, own_location, set_location, set_source_name, where,
)
from memopt.dialects.isolation import linear_isolation
from memopt.dialects.walk import walk, walk_regions_first
from memopt.planning.numbers import INT64_MAX

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


_TWINS: dict[type, type] = {}


def _foreign_properties_twin(cls: type) -> type:
    twin = _TWINS.get(cls)
    if twin is None:
        defined = cls.get_irdl_definition().properties

        def verify_(self) -> None:
            foreign = {k: self.properties.pop(k) for k in list(self.properties) if k not in defined}
            try:
                cls.verify_(self)
            finally:
                self.properties.update(foreign)

        twin = type(cls.__name__, (cls,), {"print": Operation.print, "verify_": verify_})
        _TWINS[cls] = twin
    return twin


def parse_error_location(e: ParseError) -> tuple[int, int]:
    loc = e.span.get_location()
    return loc.line, loc.col


def _clear_wording(msg: str) -> str:
    """xDSL's wordings made clear: its integer range is half-open and mixes the signed minimum
    with the unsigned bound (``[-128, 256)``); its wrong-kind attribute message names no kind;
    a string literal ends at its line's end, not only at the file's."""
    msg = msg.replace("End of file reached before closing string literal.",
                      "string literal not closed before the end of its line")
    msg = re.sub(r"in the range \[(-?\d+), (\d+)\)",
                 lambda m: f"in the range [{m.group(1)}, {int(m.group(2)) - 1}] (signless: signed or unsigned)", msg)
    if "does not verify: " in msg:  # an operand/result: "...: i1 should be of base attribute tensor"
        msg = re.sub(r"does not verify: (.+) should be of base attribute (\w+)$",
                     lambda m: f"does not verify: {m.group(1)} has the wrong kind (expected {m.group(2)})", msg)
    else:
        msg = re.sub(r"^(.*) should be of base attribute (\w+)$",
                     lambda m: f"attribute value {m.group(1)} has the wrong kind (expected {m.group(2)})", msg)
    return msg


def parse_error_message(e: ParseError) -> str:
    """The one-line message of a parse error (no source excerpt / caret art)."""
    parts = [line.strip() for line in str(e.msg).splitlines() if line.strip()]
    return _clear_wording(" ".join(parts)) if parts else "parse error"


def exception_message(e: BaseException) -> str:
    """An exception's message on one line (lines joined by spaces)."""
    text = str(e.args[0]) if e.args and isinstance(e.args[0], str) else str(e)
    parts = [line.strip() for line in text.splitlines() if line.strip()]
    return _clear_wording(" ".join(parts)) if parts else type(e).__name__


def check_dominance(module: ModuleOp) -> None:
    """Reject SSA uses that do not follow their definition (xDSL does not check dominance).

    Every value used by an op must be defined earlier in the same block or in an enclosing
    block (block arguments of an enclosing block count as defined at its start). A plan built
    on an IR that breaks this would silently drop the early use from the value's lifetime.
    A use in another block of a multi-block region (cf branches) is CFG dominance: not checked
    here. One walk with the values in scope, so deep nesting costs no more than its ops.
    """
    in_scope: set[SSAValue] = set()
    current: dict[Region, Block] = {}  # the block of each enclosing region the walk is inside
    stack: list[tuple[str, Operation | Block]] = [("op", module)]
    while stack:
        what, item = stack.pop()
        if what == "op":
            assert isinstance(item, Operation)
            _check_operands(item, in_scope, current)
            stack.append(("results", item))
            stack.extend(("enter", block) for region in reversed(item.regions) for block in reversed(region.blocks))
        elif what == "results":  # after an op's regions: its results come into scope
            assert isinstance(item, Operation)
            in_scope.update(item.results)
        elif what == "enter":
            assert isinstance(item, Block)
            current[item.parent] = item
            in_scope.update(item.args)
            stack.append(("leave", item))
            stack.extend(("op", op) for op in reversed(list(item.ops)))
        else:  # leaving a block: its values go out of scope
            assert isinstance(item, Block)
            in_scope.difference_update(item.args)
            in_scope.difference_update(r for op in item.ops for r in op.results)
            if current.get(item.parent) is item:
                del current[item.parent]


def _check_operands(user: Operation, in_scope: set[SSAValue], current: dict[Region, Block]) -> None:
    for value in user.operands:
        if value in in_scope:
            continue
        if isinstance(value, BlockArgument):
            home = value.block
        elif isinstance(value, OpResult):
            home = value.op.parent_block()
        else:
            continue
        region = home.parent if home is not None else None
        inside = current.get(region) if region is not None else None
        if inside is not None and inside is not home:
            continue  # a use in another block of a multi-block region: CFG dominance
        name = f"value '%{value.name_hint}'" if value.name_hint else "a value"
        if inside is None:
            raise MemoptError(f"{name} is used outside the region that defines it", user)
        raise MemoptError(f"{name} is used before it is defined", user)


def check_type_sizes(module: ModuleOp) -> None:
    """Reject shaped types (tensor, memref) whose byte size does not fit a signed 64-bit integer:
    every size downstream is an ``int64``; a larger one would overflow in numpy or wrap in an
    ``i64`` attribute. Located at the op that defines the value."""
    def check(t, op: Operation) -> None:
        if not isinstance(t, TensorType | MemRefType):
            return
        n = 1
        for d in t.get_shape():
            if d < 0:
                return  # dynamic: left to the passes that care
            n *= d
        bits = getattr(t.element_type, "bitwidth", 8) or 8
        if n * -(-bits // 8) > INT64_MAX:
            raise MemoptError(f"type {t} holds {n} elements, beyond the 64-bit byte range", op)

    for op in walk(module):
        for r in op.results:
            check(r.type, op)
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    check(a.type, op)


def _redefinition(table: Operation, msg: str) -> Operation | None:
    """For a symbol table's 'Redefinition of symbol "X"': the second definition of X (where the
    error is), else None."""
    m = re.search(r'Redefinition of symbol "([^"]+)"', msg)
    if m is None:
        return None
    seen = 0
    for region in table.regions:
        for block in region.blocks:
            for op in block.ops:
                sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
                if getattr(sym, "data", None) == m.group(1):
                    seen += 1
                    if seen == 2:
                        return op
    return None


def verify_located(module: ModuleOp) -> None:
    """Verify ``module`` op by op (innermost first) and raise a MemoptError located at
    the first op that fails to verify."""
    with linear_isolation():
        _verify_ops(module)
    check_type_sizes(module)
    check_dominance(module)
    check_structure(module)


def _verify_ops(module: ModuleOp) -> None:
    for op in walk_regions_first(module):
        try:
            op.verify(verify_nested_ops=False)
        except (DiagnosticException, ValueError, TypeError) as e:
            name = op.name
            msg = exception_message(e)
            prefix = "Operation does not verify: "
            if msg.startswith(prefix):
                msg = msg[len(prefix) :]
            if msg.startswith(f"'{name}' "):
                msg = msg[len(name) + 3 :]
            msg = _clear_wording(msg)
            raise MemoptError(f"'{name}' op {msg}", _redefinition(op, msg) or op) from e


def check_structure(module: ModuleOp) -> None:
    """The block/region invariants that only xDSL's nested verification checks (parent
    pointers, an empty block where a terminator is expected), without verifying every op a
    second time: ``module.verify()`` re-runs each op's verifier, which doubled the cost of
    verification on large programs."""
    for op in walk(module):
        for region in op.regions:
            for block in region.blocks:
                if block.parent is not region:
                    raise MemoptError("parent pointer of block does not refer to containing region", op)
                if block.first_op is None:
                    if len(region.blocks) == 1 and not op.has_trait(NoTerminator):
                        raise MemoptError(
                            f"'{op.name}' op contains an empty block in a single-block region "
                            "that expects at least a terminator", op)
                    continue
                for inner in block.ops:
                    if inner.parent is not block:
                        raise MemoptError("parent pointer of operation does not refer to containing block", inner)


__all__ = [
    "LocatedParser",
    "MemoptError",
    "check_dominance",
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
