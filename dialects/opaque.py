"""Ops memopt does not know, of any dialect, read and written back unchanged.

Why: a compiler flow's IR holds ops from dialects no planner can list in advance; refusing the
whole file at the first one is what a user cannot work around. An unknown op is kept as an
:class:`OpaqueOp` and treated conservatively by every analysis (it reads and writes every memref
operand, whole; its memref results alias its memref operands), with a ``remark:`` per op name.

Generic form (``"d.op"(%a) <{...}> ({...}) {...} : (T) -> T``) is read exactly, as xDSL's
unregistered ops are. The custom form of an op memopt has no grammar for is read from its
text: one line (brackets may span lines, regions may not), whose ``%values`` are its operands
in order; the bound results (``%r =``, ``%r:2 =``) say how many results it has and the types
after its last top-level ``:`` say which (a function type's outputs, the types after ``->``, or
the last types listed). It prints back as written, with its operands' current names and
attribute aliases spelled out (the printer does not print the alias table).
"""

from __future__ import annotations

import re

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.irdl import traits_def
from xdsl.traits import IsTerminator
from xdsl.utils.mlir_lexer import MLIRTokenKind

_OPEN = {"(": ")", "[": "]", "{": "}", "<": ">"}
_CLOSE = {v: k for k, v in _OPEN.items()}


class OpaqueOp(Operation):
    """An op memopt has no definition of; ``template`` is its custom form's text after the
    name, split around its operands (None: printed generic)."""

    name = "builtin.opaque"
    traits = traits_def()
    template: tuple[str, ...] | None = None

    @classmethod
    def has_trait(cls, trait, *, value_if_unregistered: bool = True) -> bool:  # type: ignore[override]
        """Only "it may end its block": nothing is known of it, and it may be a terminator
        (analyses judge it by position, as an unregistered op)."""
        return trait is IsTerminator or isinstance(trait, IsTerminator)

    @classmethod
    def parse(cls, parser: Parser) -> OpaqueOp:
        return _read_custom(cls.pretty, parser)

    def print(self, printer: Printer) -> None:
        assert self.template is not None
        for k, piece in enumerate(self.template):
            printer.print_string(piece)
            if k < len(self.operands):
                printer.print_operand(self.operands[k])

    def clone(self, *args, **kwargs):  # type: ignore[override]
        op = super().clone(*args, **kwargs)
        op.template = self.template
        return op

    pretty: type[OpaqueOp]
    generic: type[OpaqueOp]


_CLASSES: dict[str, type[OpaqueOp]] = {}


def opaque_op(name: str) -> type[OpaqueOp]:
    """The class the context gives for unknown op ``name`` (its generic-printing twin; the
    custom parser builds the twin that prints the text back)."""
    cls = _CLASSES.get(name)
    if cls is None:
        stem = re.sub(r"\W", "_", name)
        pretty = type(f"Opaque_{stem}", (OpaqueOp,), {"name": name})
        generic = type(f"Opaque_{stem}_generic", (pretty,), {"print": Operation.print})
        setattr(pretty, "pretty", pretty)
        setattr(pretty, "generic", generic)
        _CLASSES[name] = cls = generic
    return cls


def _read_custom(cls: type[OpaqueOp], parser: Parser) -> OpaqueOp:
    text = parser.lexer.input.content
    start = parser._current_token.span.start
    end = _op_end(text, start, parser)
    pieces, operands = _split_operands(parser, text, start, end)
    n_results = _bound_results(text, start)
    types = _result_types(parser, text, start, end, n_results) if n_results else []
    parser._resume_from(end)
    op = Operation.create.__func__(cls, operands=operands, result_types=types)  # type: ignore[attr-defined]
    op.template = tuple(pieces)
    return op


def _op_end(text: str, start: int, parser: Parser) -> int:
    """Where the op's text ends: the end of its line, or of the line where its last bracket
    closes. A region (``{`` then a new line) is refused: its grammar is the op's own."""
    depth: list[str] = []
    k = start
    while k < len(text):
        c = text[k]
        if c == '"':
            k = _skip_string(text, k)
            continue
        if c == "-" and text.startswith("->", k):
            k += 2
            continue
        if c in _OPEN:
            if c == "{" and text[k + 1 : text.find("\n", k) if "\n" in text[k:] else len(text)].strip() == "":
                parser.raise_error("memopt cannot read this op's custom form with a region; "
                                   "print the input in generic form (--mlir-print-op-generic)", k, k + 1)
            depth.append(c)
        elif c in _CLOSE and depth and depth[-1] == _CLOSE[c]:
            depth.pop()
        elif c == "\n" and not depth:
            return k
        k += 1
    return len(text)


def _skip_string(text: str, k: int) -> int:
    k += 1
    while k < len(text) and text[k] != '"':
        k += 2 if text[k] == "\\" else 1
    return k + 1


def _split_operands(parser: Parser, text: str, start: int, end: int) -> tuple[list[str], list[SSAValue]]:
    """The op's text cut around its ``%value`` uses (one more piece than operands), and those
    values (already defined: the custom form gives no types to resolve a forward reference
    with). Attribute aliases (``#map``) are spelled out."""
    pieces: list[str] = []
    operands: list[SSAValue] = []
    run, last = " ", start  # the run of text since the last operand; a space after the op name
    parser._resume_from(start)
    while parser._current_token.span.start < end and parser._current_token.kind != MLIRTokenKind.EOF:
        tok = parser._current_token
        if tok.kind == MLIRTokenKind.PERCENT_IDENT:
            operand = parser.parse_unresolved_operand()
            values = parser.ssa_values.get(operand.operand_name)
            if values is None or operand.index >= len(values):
                parser.raise_error(f"'{tok.text}' is used before it is defined in an op memopt reads only "
                                   "in generic form", tok.span)
            pieces.append(run + text[last : tok.span.start])
            operands.append(values[operand.index])
            run, last = "", tok.span.start + len(_USE.match(text, tok.span.start).group(0))  # type: ignore[union-attr]
            continue
        if tok.kind in (MLIRTokenKind.HASH_IDENT, MLIRTokenKind.EXCLAMATION_IDENT) \
                and tok.text in parser.attribute_aliases:
            run += text[last : tok.span.start] + _attribute_text(parser.attribute_aliases[tok.text])
            last = tok.span.end
        elif tok.kind == MLIRTokenKind.CARET_IDENT:
            parser.raise_error("memopt cannot read the custom form of an unknown op with successors; "
                               "print the input in generic form (--mlir-print-op-generic)", tok.span)
        parser._consume_token()
    pieces.append(run + text[last:end].rstrip())
    return pieces, operands


_USE = re.compile(r"%[\w$.-]+(?:#\d+)?")


def _attribute_text(attr: Attribute) -> str:
    import io

    out = io.StringIO()
    Printer(stream=out).print_attribute(attr)
    return out.getvalue()


_RESULTS = re.compile(r"((?:%[\w$.-]+(?::\d+)?\s*,\s*)*%[\w$.-]+(?::\d+)?)\s*=\s*(?:\"[^\"]*\"|[\w.$-]+)\s*$")


def _bound_results(text: str, name_end: int) -> int:
    """How many results the op's ``%r, %s:2 =`` prefix binds (0 without one)."""
    line_start = text.rfind("\n", 0, name_end) + 1
    m = _RESULTS.search(text[line_start:name_end])
    if m is None:
        return 0
    return sum(int(r.partition(":")[2] or 1) for r in re.split(r"\s*,\s*", m.group(1)))


def _result_types(parser: Parser, text: str, start: int, end: int, n: int) -> list[Attribute]:
    colon = _last_top_level_colon(text, start, end)
    if colon is None:
        parser.raise_error(f"cannot tell the types of this unknown op's {n} result(s): no ':' in its "
                           "custom form; print it in generic form (--mlir-print-op-generic)", start, end)
    parser._resume_from(colon + 1)
    types: list[Attribute] = []
    while parser._current_token.span.start < end:
        if parser._current_token.kind == MLIRTokenKind.ARROW:
            parser._consume_token()
            types = []
            continue
        if parser._current_token.kind == MLIRTokenKind.L_PAREN:
            types.extend(parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type))
            continue
        types.append(parser.parse_type())
        parser.parse_optional_punctuation(",")
    if len(types) < n:
        parser.raise_error(f"this unknown op binds {n} results but its custom form names {len(types)} type(s); "
                           "print it in generic form (--mlir-print-op-generic)", start, end)
    return types[-n:]


def _last_top_level_colon(text: str, start: int, end: int) -> int | None:
    depth = 0
    found = None
    k = start
    while k < end:
        c = text[k]
        if c == '"':
            k = _skip_string(text, k)
            continue
        if c in "([{<":
            depth += 1
        elif c in ")]}>" and not (c == ">" and text[k - 1] == "-"):
            depth -= 1
        elif c == ":" and depth == 0:
            found = k
        k += 1
    return found
