"""Every ``linalg`` structured op upstream MLIR prints, read and written as upstream does.

Why: bufferized programs hold dozens of linalg ops (every named convolution, pooling,
matmul variant, ``map``, ``reduce``, ``softmax`` ...) and xDSL 0.74 knows a handful, each with
its own strict definition. For memory planning and execution a structured op is the same thing
whatever its name: it reads its ``ins``, reads and writes its ``outs``, and its body (when it has
one) is scalar code over their elements. So one class serves every ``linalg.<name>``
(:func:`structured_op`), keeping what it was given — operands split by ``operandSegmentSizes``,
properties, attributes, the body — and printing it back the way it was read: the custom form
clause by clause (``{attrs}``, ``dimension(1)``, ``ins(...)``, ``outs(...)``,
``permutation = [...]``, a body with its arguments), or the generic form.

Custom forms read (upstream's ``LinalgOps.cpp`` printers)::

    linalg.matmul ins(%a, %b : memref<8x64xf32>, memref<64x8xf32>) outs(%c : memref<8x8xf32>)
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = ...} ins(...) outs(...)
    linalg.matmul indexing_maps = [#map, #map1, #map2] ins(...) outs(...)
    linalg.transpose ins(...) outs(...) permutation = [1, 0]
    linalg.softmax dimension(1) ins(...) outs(...) -> tensor<2x16xf32>
    linalg.map { arith.addf } ins(%a, %b : ...) outs(%c : ...)
    linalg.map ins(%a : ...) outs(%c : ...) (%in: f32, %init: f32) { ... linalg.yield %x : f32 }
    linalg.reduce { arith.addf } ins(...) outs(...) dimensions = [1]
    linalg.generic {indexing_maps = [...], iterator_types = [...]} ins(...) outs(...) attrs = {...} { ^bb0(...): ... }

A short body (``{ arith.addf }``) is expanded into the region it stands for, so every map and
reduce has a body to execute; it is printed in the long form, which upstream reads too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xdsl.dialects.builtin import (
    I64, ArrayAttr, ContainerType, DenseArrayBase, DictionaryAttr, IndexTypeConstr, IntegerAttr, ShapedType, i32, i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, result_def, traits_def
from xdsl.utils.mlir_lexer import MLIRTokenKind

SEGMENTS = "operandSegmentSizes"


@irdl_op_definition
class IndexOp(IRDLOperation):
    """``linalg.index <dim> : index``: the current iteration's index along loop ``dim``, in the
    body of any structured op (xDSL's own allows only ``linalg.generic``)."""

    name = "linalg.index"
    dim = prop_def(IntegerAttr[I64])
    result = result_def(IndexTypeConstr)
    assembly_format = "$dim attr-dict `:` type($result)"


class StructuredOp(Operation):
    """A ``linalg`` structured op of any name: ``ins``, ``outs``, optional body."""

    name = "linalg.structured"
    traits = traits_def()
    syntax: tuple | None = None
    """The clauses of its custom form as read, in order (None: an op built by a pass, printed
    with every attribute in a leading dictionary)."""

    # ------------------------------------------------------------------ operands
    @property
    def segments(self) -> tuple[int, int]:
        seg = self.properties.get(SEGMENTS) or self.attributes.get(SEGMENTS)
        if isinstance(seg, DenseArrayBase) and len(seg.get_values()) == 2:
            n_in, n_out = seg.get_values()
            return int(n_in), int(n_out)
        return len(self.operands) - 1, 1  # a malformed op: the last operand as its out

    @property
    def inputs(self) -> Sequence[SSAValue]:
        return self.operands[: self.segments[0]]

    @property
    def outputs(self) -> Sequence[SSAValue]:
        n_in, n_out = self.segments
        return self.operands[n_in : n_in + n_out]

    @property
    def body(self) -> Block | None:
        return self.regions[0].blocks.first if self.regions and self.regions[0].blocks else None

    @property
    def kind(self) -> str:
        """The name after ``linalg.`` (``matmul``, ``conv_2d_nhwc_hwcf`` ...)."""
        return self.name.removeprefix("linalg.")

    def attr(self, key: str) -> Attribute | None:
        """An inherent or discardable attribute, wherever it was written."""
        return self.properties.get(key) or self.attributes.get(key)

    # ------------------------------------------------------------------ parsing
    @classmethod
    def parse(cls, parser: Parser) -> StructuredOp:
        clauses = _Clauses(parser)
        clauses.read()
        return clauses.build(cls.pretty)

    def print(self, printer: Printer) -> None:
        _print_clauses(self, printer)

    # ------------------------------------------------------------------ twins
    pretty: type[StructuredOp]
    """The twin printed in the custom form (what the custom parser builds)."""
    generic: type[StructuredOp]
    """The twin printed in the generic form (what the context hands the generic parser)."""

    def clone(self, *args, **kwargs):  # type: ignore[override]
        op = super().clone(*args, **kwargs)
        op.syntax = self.syntax
        return op


_CLASSES: dict[str, type[StructuredOp]] = {}


def structured_op(name: str) -> type[StructuredOp]:
    """The class the context gives for ``linalg.<name>``: its generic-printing twin, whose
    custom parser builds the pretty-printing one (an op prints in the form it was read in)."""
    cls = _CLASSES.get(name)
    if cls is None:
        pretty = type(_class_name(name), (StructuredOp,), {"name": name})
        generic = type(_class_name(name) + "Generic", (pretty,), {"print": Operation.print})
        setattr(pretty, "pretty", pretty)
        setattr(pretty, "generic", generic)
        _CLASSES[name] = cls = generic
    return cls


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.replace(".", "_").split("_")) + "Op"


# ---------------------------------------------------------------------- custom form


_KEYWORD_OPERAND_LISTS = ("ins", "outs")


class _Clauses:
    """The clauses of one structured op's custom form, read in order."""

    def __init__(self, parser: Parser):
        self.parser = parser
        self.syntax: list[tuple] = []
        self.props: dict[str, Attribute] = {}
        self.attrs: dict[str, Attribute] = {}
        self.ins: list[SSAValue] = []
        self.outs: list[SSAValue] = []
        self.short: tuple[str, dict[str, Attribute]] | None = None
        self.body_args: list | None = None
        self.region: Region | None = None
        self.result_types: list[Attribute] = []

    def read(self) -> None:
        p = self.parser
        while True:
            tok = p._current_token
            if tok.kind == MLIRTokenKind.L_BRACE:
                if _brace_holds_attributes(p):
                    self.read_dict()
                elif not self.seen_operands():
                    self.read_short_body()
                else:
                    self.read_region(None)
            elif tok.kind == MLIRTokenKind.L_PAREN and self.seen_operands() and self.region is None:
                self.read_body_args()
            elif tok.kind == MLIRTokenKind.LESS and not self.seen_operands():
                self.read_angle_kind()
            elif tok.kind == MLIRTokenKind.ARROW:
                p._consume_token()
                self.result_types = _type_list(p)
                self.syntax.append(("results",))
            elif tok.kind == MLIRTokenKind.BARE_IDENT and "." not in tok.text and self.keyword_clause(tok.text):
                continue
            else:
                return

    def seen_operands(self) -> bool:
        return any(c[0] in _KEYWORD_OPERAND_LISTS for c in self.syntax)

    def read_angle_kind(self) -> None:
        """``linalg.elementwise <add>``: the op's ``kind`` (``#linalg.elementwise_kind<add>``)."""
        p = self.parser
        p.parse_punctuation("<")
        word = p.parse_identifier()
        p.parse_punctuation(">")
        self.props["kind"] = Parser(p.ctx, f"#linalg.elementwise_kind<{word}>").parse_attribute()
        self.syntax.append(("<>", "kind"))

    def read_dict(self) -> None:
        attrs = self.parser.parse_optional_attr_dict()
        self.attrs.update(attrs)
        self.syntax.append(("dict", tuple(attrs)))

    def read_short_body(self) -> None:
        """``{ arith.addf }`` or ``{ arith.addf {fastmath = ...} }``: the body's one op."""
        p = self.parser
        p.parse_punctuation("{")
        tok = p._current_token
        if tok.kind != MLIRTokenKind.BARE_IDENT:
            p.raise_error("expected an operation name or an attribute dictionary")
        name = p._consume_token().text
        attrs = p.parse_optional_attr_dict()
        p.parse_punctuation("}")
        self.short = (name, attrs)

    def keyword_clause(self, word: str) -> bool:
        """``ins(...)``/``outs(...)``, ``word = attribute``, ``word(attribute)``; False when the
        identifier begins no clause (the op has ended)."""
        p = self.parser
        start = p.pos
        p._consume_token()
        if word in _KEYWORD_OPERAND_LISTS and p._current_token.kind == MLIRTokenKind.L_PAREN:
            values = _operand_list(p)
            (self.ins if word == "ins" else self.outs).extend(values)
            self.syntax.append((word,))
            return True
        if p.parse_optional_punctuation("=") is not None:
            value = p.parse_attribute()
            if word == "attrs" and isinstance(value, DictionaryAttr):
                self.attrs.update(value.data)
                self.syntax.append(("attrs", tuple(value.data)))
            else:
                self.props[word] = _array_of_ints(value)
                self.syntax.append(("kw=", word, _is_bracket_list(value)))
            return True
        if p._current_token.kind == MLIRTokenKind.L_PAREN:
            p._consume_token()
            self.props[word] = p.parse_attribute()
            p.parse_punctuation(")")
            self.syntax.append(("kw()", word))
            return True
        p._resume_from(start)
        return False

    def read_body_args(self) -> None:
        p = self.parser
        self.body_args = p.parse_comma_separated_list(p.Delimiter.PAREN, lambda: p.parse_argument())
        self.read_region(self.body_args)

    def read_region(self, args) -> None:
        self.region = self.parser.parse_region(args)
        self.syntax.append(("region", args is not None))

    def build(self, cls: type[StructuredOp]) -> StructuredOp:
        props = dict(self.props)
        props[SEGMENTS] = DenseArrayBase.from_list(i32, [len(self.ins), len(self.outs)])
        regions = [self.region] if self.region is not None else []
        if self.short is not None:
            regions = [_short_body(self.parser, cls.name.removeprefix("linalg."), *self.short, self.ins, self.outs)]
        op = cls.create(
            operands=[*self.ins, *self.outs], result_types=self.result_types,
            properties=props, attributes=self.attrs, regions=regions)
        syntax = list(self.syntax)
        if self.short is not None:  # printed long: the body after every other clause
            at = next((k for k, c in enumerate(syntax) if c[0] == "results"), len(syntax))
            syntax.insert(at, ("region", True))
        op.syntax = tuple(syntax)
        return op


def _brace_holds_attributes(p: Parser) -> bool:
    """Whether the ``{`` at hand opens an attribute dictionary (``{}``, ``{name = ...}``,
    ``{name, ...}``, ``{name}``, ``{"name" = ...}``) rather than a region or a short body."""
    start = p.pos
    p._consume_token()
    first = p._consume_token()
    after = p._current_token
    p._resume_from(start)
    if first.kind == MLIRTokenKind.R_BRACE:
        return True
    if first.kind not in (MLIRTokenKind.BARE_IDENT, MLIRTokenKind.STRING_LIT):
        return False
    if first.kind == MLIRTokenKind.BARE_IDENT and first.text.partition(".")[0] in _SCALAR_DIALECTS:
        return False  # a short body: `{ arith.addf }`
    return after.kind in (MLIRTokenKind.EQUAL, MLIRTokenKind.COMMA, MLIRTokenKind.R_BRACE)


_SCALAR_DIALECTS = ("arith", "math", "complex", "index")
"""Dialects whose ops a short body (``linalg.map { arith.addf }``) names."""


def _operand_list(p: Parser) -> list[SSAValue]:
    """``(%a, %b : T1, T2)`` (or ``()``)."""
    p.parse_punctuation("(")
    if p.parse_optional_punctuation(")") is not None:
        return []
    names: list[UnresolvedOperand] = p.parse_comma_separated_list(p.Delimiter.NONE, p.parse_unresolved_operand)
    p.parse_punctuation(":")
    types = p.parse_comma_separated_list(p.Delimiter.NONE, p.parse_type)
    p.parse_punctuation(")")
    if len(types) != len(names):
        p.raise_error(f"expected {len(names)} types, got {len(types)}")
    return [p.resolve_operand(n, t) for n, t in zip(names, types)]


def _type_list(p: Parser) -> list[Attribute]:
    if p._current_token.kind == MLIRTokenKind.L_PAREN:
        return p.parse_comma_separated_list(p.Delimiter.PAREN, p.parse_type)
    return p.parse_comma_separated_list(p.Delimiter.NONE, p.parse_type)


def _is_bracket_list(value: Attribute) -> bool:
    return isinstance(value, ArrayAttr)


def _array_of_ints(value: Attribute) -> Attribute:
    """``[1, 0]`` as upstream stores it (``array<i64: 1, 0>``) when it is a list of integers."""
    if not isinstance(value, ArrayAttr) or not value.data:
        return value
    ints = [v.value.data for v in value.data if isinstance(v, IntegerAttr)]
    return DenseArrayBase.from_list(i64, ints) if len(ints) == len(value.data) else value


def element_type(t: Attribute) -> Attribute:
    """The element type of a shaped type (memref, tensor, vector), else the type itself."""
    return t.get_element_type() if isinstance(t, ShapedType) and isinstance(t, ContainerType) else t


def _short_body(p: Parser, kind: str, name: str, attrs: Mapping[str, Attribute], ins, outs) -> Region:
    """The region ``{ arith.addf }`` stands for: one block whose arguments are the elements of
    ``ins`` then ``outs``, applying the op to the input elements (``map``) or to the input
    element and the accumulator (``reduce``), and yielding its result."""
    block = Block(arg_types=[element_type(v.type) for v in [*ins, *outs]])
    operands = list(block.args) if kind == "reduce" else list(block.args[: len(ins)])
    op_type = p.ctx.get_op(name)
    props, rest = _split_props(op_type, attrs)
    result_type = element_type(outs[0].type) if outs else block.args[0].type
    op = op_type.create(operands=operands, result_types=[result_type], properties=props, attributes=rest)
    block.add_op(op)
    block.add_op(p.ctx.get_op("linalg.yield").create(operands=[op.results[0]]))
    return Region(block)


def _split_props(op_type: type[Operation], attrs: Mapping[str, Attribute]) -> tuple[dict, dict]:
    from xdsl.irdl import IRDLOperation

    if not issubclass(op_type, IRDLOperation):
        return {}, dict(attrs)
    names = op_type.get_irdl_definition().properties.keys()
    return {k: v for k, v in attrs.items() if k in names}, {k: v for k, v in attrs.items() if k not in names}


# ---------------------------------------------------------------------- printing


def _print_clauses(op: StructuredOp, printer: Printer) -> None:
    syntax = op.syntax or _default_syntax(op)
    placed = {k for c in syntax if c[0] in ("dict", "attrs") for k in c[1]}
    placed |= {c[1] for c in syntax if c[0] in ("kw=", "kw()")} | {SEGMENTS}
    unplaced = [k for k in {**op.properties, **op.attributes} if k not in placed]
    first_dict = next((k for k, c in enumerate(syntax) if c[0] in ("dict", "attrs")), None)
    for k, clause in enumerate(syntax):
        extra = unplaced if k == first_dict else []
        _print_clause(op, printer, clause, extra)


def _default_syntax(op: StructuredOp) -> tuple:
    """The clauses of an op built without a custom syntax: every attribute in a leading
    dictionary (where upstream's parsers of named and generic ops read them)."""
    syntax: list[tuple] = [("dict", ()), ("ins",), ("outs",)]
    if op.regions:
        syntax.append(("region", op.kind in ("map", "reduce")))
    if op.results:
        syntax.append(("results",))
    return tuple(syntax)


def _print_clause(op: StructuredOp, printer: Printer, clause: tuple, extra: list[str]) -> None:
    kind = clause[0]
    if kind in ("dict", "attrs"):
        every = {**op.properties, **op.attributes}
        shown = {k: every[k] for k in (*clause[1], *extra) if k in every}
        if shown or kind == "attrs":
            printer.print_string(" attrs = " if kind == "attrs" else " ")
            printer.print_attr_dict(shown)
    elif kind in _KEYWORD_OPERAND_LISTS:
        values = op.inputs if kind == "ins" else op.outputs
        printer.print_string(f" {kind}(")
        printer.print_list(values, printer.print_operand)
        if values:
            printer.print_string(" : ")
            printer.print_list([v.type for v in values], printer.print_attribute)
        printer.print_string(")")
    elif kind == "kw=":
        _print_keyword_value(op, printer, clause[1], clause[2])
    elif kind == "kw()":
        value = op.attr(clause[1])
        printer.print_string(f" {clause[1]}(")
        if isinstance(value, IntegerAttr):
            printer.print_string(str(value.value.data))  # `dimension(1)`: the integer alone
        else:
            assert value is not None, f"{op.name}: its {clause[1]} attribute is gone"
            printer.print_attribute(value)
        printer.print_string(")")
    elif kind == "<>":
        value = op.attr(clause[1])
        body = getattr(getattr(value, "value", None), "data", None)  # an unregistered attribute's `add`
        assert isinstance(body, str), f"{op.name}: its kind is not an elementwise kind: {value}"
        printer.print_string(f" <{body}>")
    elif kind == "region" and op.regions:
        _print_region(op, printer, clause[1])
    elif kind == "results" and op.results:
        printer.print_string(" -> ")
        printer.print_list([r.type for r in op.results], printer.print_attribute)


def _print_keyword_value(op: StructuredOp, printer: Printer, word: str, bracketed: bool) -> None:
    value: Any = op.attr(word)
    printer.print_string(f" {word} = ")
    if bracketed and isinstance(value, DenseArrayBase):
        printer.print_string("[" + ", ".join(str(v) for v in value.get_values()) + "]")
    else:
        printer.print_attribute(value)


def _print_region(op: StructuredOp, printer: Printer, with_args: bool) -> None:
    block = op.body
    if with_args and block is not None:
        printer.print_string(" (")
        printer.print_list(block.args, printer.print_block_argument)
        printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(op.regions[0], print_entry_block_args=False)
    else:
        printer.print_string(" ")
        printer.print_region(op.regions[0])
