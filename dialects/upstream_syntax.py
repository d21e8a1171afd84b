"""Upstream MLIR's custom syntax for the memref ops that xDSL 0.74 reads only in generic form.

Why: memopt's users pipe what ``mlir-opt`` and ``iree-opt`` print into ``memopt-opt``, and
upstream prints ``memref.global``, ``memref.copy``, ``memref.cast`` (and the DMA ops memopt's
own ``insert-dma`` emits) in their custom form, which xDSL rejects ("Operation memref.copy does
not have a custom format"). Each class here is xDSL's op with a parser for upstream's form
added; printing is unchanged (generic, which upstream reads back), so memopt's output stays the
same bytes. :func:`memref_dialect` is xDSL's ``memref`` dialect with these ops in place;
:func:`add_implicit_terminators` puts back the ``scf.yield`` upstream elides where xDSL's parser
does not.

Forms read (as upstream's ``MemRefOps.td`` declares them)::

    memref.global "private" constant @w : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]> alignment = 64
    memref.global @buf : memref<16xi8> = uninitialized {alignment = 64 : i64}   (older upstream)
    memref.copy %a, %b : memref<4xf32> to memref<4xf32, 1>
    %c = memref.cast %a : memref<4xf32> to memref<?xf32>
    %d = memref.memory_space_cast %a : memref<4xf32, 1> to memref<4xf32>
    memref.dma_start %w[%i], %buf[%j], %n, %tag[%k] : memref<64xi8, 1>, memref<64xi8>, memref<1xi32>
    memref.dma_wait %tag[%k], %n : memref<1xi32>
    %r = memref.rank %a : memref<4xf32>
    %p = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index
"""

from __future__ import annotations

from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, StringAttr, TensorType, UnitAttr
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException
from memopt.dialects.walk import walk


def _indexed(parser: Parser) -> tuple[UnresolvedOperand, list[UnresolvedOperand]]:
    """``%m[%i, %j]`` (the brackets may be empty)."""
    base = parser.parse_unresolved_operand()
    indices = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
    return base, indices


def _resolve_indices(parser: Parser, operands: list[UnresolvedOperand]) -> list[SSAValue]:
    return [parser.resolve_operand(u, IndexType()) for u in operands]


def _source_to_dest(parser: Parser) -> tuple[SSAValue, Attribute, dict[str, Attribute]]:
    """``%src attr-dict : T1 to T2`` (the cast ops): the source, the result type, attributes."""
    source = parser.parse_unresolved_operand()
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    source_type = parser.parse_type()
    parser.parse_keyword("to")
    return parser.resolve_operand(source, source_type), parser.parse_type(), attrs


class GlobalOp(memref.GlobalOp):
    @classmethod
    def parse(cls, parser: Parser) -> GlobalOp:
        visibility = parser.parse_optional_str_literal() or "public"
        constant = UnitAttr() if parser.parse_optional_keyword("constant") else None
        at = parser.pos
        sym_name = parser.parse_symbol_name()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        if parser.parse_optional_punctuation("=") is None:
            parser.raise_error(
                f"memref.global @{sym_name.data} has no initial value: external declarations are not "
                "supported (give it '= uninitialized' or '= dense<...>')", at)
        initial: Attribute
        if parser.parse_optional_keyword("uninitialized"):
            initial = UnitAttr()
        elif parser.parse_optional_keyword("dense") and isinstance(type_, MemRefType):
            # upstream elides the literal's type: the memref's shape and element type
            initial = parser.parse_dense_int_or_fp_elements_attr(
                TensorType(type_.element_type, type_.get_shape()))
        else:
            initial = parser.parse_attribute()
        alignment: Attribute | None = None
        if parser.parse_optional_keyword("alignment"):  # today's upstream: `alignment = 64`
            parser.parse_punctuation("=")
            alignment = IntegerAttr(parser.parse_integer(allow_boolean=False), 64)
        attrs = parser.parse_optional_attr_dict()
        alignment = attrs.pop("alignment", alignment)  # older upstream: {alignment = 64 : i64}
        if alignment is not None and not isinstance(alignment, IntegerAttr):
            parser.raise_error("memref.global: alignment must be an integer attribute")
        op = cls.build(properties={
            "sym_name": sym_name, "sym_visibility": StringAttr(visibility), "type": type_,
            "initial_value": initial, "constant": constant, "alignment": alignment,
        }, attributes=attrs)
        return op


class CopyOp(memref.CopyOp):
    def verify_(self) -> None:
        """Upstream's rule: shapes that agree wherever both are static (a dynamic ``?`` matches
        any size), and the same element type; xDSL asks for identical shapes."""
        source, dest = self.source.type, self.destination.type
        assert isinstance(source, MemRefType) and isinstance(dest, MemRefType)
        a, b = source.get_shape(), dest.get_shape()
        if len(a) != len(b) or any(x >= 0 and y >= 0 and x != y for x, y in zip(a, b)):
            raise VerifyException(f"source and destination shapes differ: {list(a)} and {list(b)}")
        if source.get_element_type() != dest.get_element_type():
            raise VerifyException("source and destination element types differ")

    @classmethod
    def parse(cls, parser: Parser) -> CopyOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        target = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_keyword("to")
        target_type = parser.parse_type()
        op = cls(parser.resolve_operand(source, source_type), parser.resolve_operand(target, target_type))
        op.attributes.update(attrs)
        return op


class CastOp(memref.CastOp):
    @classmethod
    def parse(cls, parser: Parser) -> CastOp:
        source, dest_type, attrs = _source_to_dest(parser)
        return cls.build(operands=[source], result_types=[dest_type], attributes=attrs)


class MemorySpaceCastOp(memref.MemorySpaceCastOp):
    @classmethod
    def parse(cls, parser: Parser) -> MemorySpaceCastOp:
        source, dest_type, attrs = _source_to_dest(parser)
        return cls.build(operands=[source], result_types=[dest_type], attributes=attrs)


class DmaStartOp(memref.DmaStartOp):
    @classmethod
    def parse(cls, parser: Parser) -> DmaStartOp:
        src, src_idx = _indexed(parser)
        parser.parse_punctuation(",")
        dest, dest_idx = _indexed(parser)
        parser.parse_punctuation(",")
        num = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tag, tag_idx = _indexed(parser)
        if parser.parse_optional_punctuation(",") is not None:
            parser.raise_error("memref.dma_start with a stride is not supported (xDSL's op has no stride operands)")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_t = parser.parse_type()
        parser.parse_punctuation(",")
        dest_t = parser.parse_type()
        parser.parse_punctuation(",")
        tag_t = parser.parse_type()
        op = cls.get(parser.resolve_operand(src, src_t), _resolve_indices(parser, src_idx),
                     parser.resolve_operand(dest, dest_t), _resolve_indices(parser, dest_idx),
                     parser.resolve_operand(num, IndexType()),
                     parser.resolve_operand(tag, tag_t), _resolve_indices(parser, tag_idx))
        op.attributes.update(attrs)
        return op


class DmaWaitOp(memref.DmaWaitOp):
    @classmethod
    def parse(cls, parser: Parser) -> DmaWaitOp:
        tag, tag_idx = _indexed(parser)
        parser.parse_punctuation(",")
        num = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        tag_t = parser.parse_type()
        op = cls.get(parser.resolve_operand(tag, tag_t), _resolve_indices(parser, tag_idx),
                     parser.resolve_operand(num, IndexType()))
        op.attributes.update(attrs)
        return op


class RankOp(memref.RankOp):
    @classmethod
    def parse(cls, parser: Parser) -> RankOp:
        source = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.build(operands=[parser.resolve_operand(source, parser.parse_type())],
                         result_types=[IndexType()], attributes=attrs)


class ExtractAlignedPointerAsIndexOp(memref.ExtractAlignedPointerAsIndexOp):
    @classmethod
    def parse(cls, parser: Parser) -> ExtractAlignedPointerAsIndexOp:
        source = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        return cls.build(operands=[parser.resolve_operand(source, source_type)],
                         result_types=[result_type], attributes=attrs)


UPSTREAM_FORMS = (GlobalOp, CopyOp, CastOp, MemorySpaceCastOp, DmaStartOp, DmaWaitOp, RankOp,
                  ExtractAlignedPointerAsIndexOp)


def add_implicit_terminators(module: Operation) -> None:
    """Give every block of a result-less op with an implicit terminator (``scf.index_switch``,
    ``scf.if``, ``scf.for``, ``scf.parallel``) the terminator upstream elides in print.

    Why: upstream prints ``scf.index_switch``'s cases without their empty ``scf.yield``, and
    xDSL 0.74's parser does not put it back (its ``scf.if``/``scf.for`` parsers do), so the
    module failed to verify ("func.call terminates block in single-block region but is not a
    terminator"). Ops with results are left alone: their yields carry values and must be written.
    """
    for op in walk(module):
        trait = op.get_trait(SingleBlockImplicitTerminator)
        if trait is None or op.results:
            continue
        for region in op.regions:
            for block in region.blocks:
                last = block.last_op
                if last is None or not last.has_trait(IsTerminator):
                    block.add_op(trait.op_type.create())


def _alloc_parse(cls, parser: Parser):
    """``memref.alloc(%d)[%s] alignment = 64 {attrs} : T`` (today's upstream) or
    ``{alignment = 64 : i64}`` in the dictionary (older upstream)."""
    sizes = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
    symbols = parser.parse_optional_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
    alignment: Attribute | None = None
    if parser.parse_optional_keyword("alignment"):
        parser.parse_punctuation("=")
        alignment = IntegerAttr(parser.parse_integer(allow_boolean=False), 64)
    attrs = parser.parse_optional_attr_dict()
    alignment = attrs.pop("alignment", alignment)
    parser.parse_punctuation(":")
    result_type = parser.parse_type()
    index = IndexType()
    return cls.build(operands=[[parser.resolve_operand(u, index) for u in sizes],
                               [parser.resolve_operand(u, index) for u in symbols or []]],
                     result_types=[result_type], properties={"alignment": alignment} if alignment else {},
                     attributes=attrs)


def _alloc_print(op, printer: Printer) -> None:
    """Upstream's form: the alignment as a keyword, never in the dictionary (upstream's strict
    property parsing rejects ``{alignment = 64 : i64}``: 'inherent attribute ... attr-dict')."""
    printer.print_string("(")
    printer.print_list(op.dynamic_sizes, printer.print_operand)
    printer.print_string(")")
    if op.symbol_operands:
        printer.print_string("[")
        printer.print_list(op.symbol_operands, printer.print_operand)
        printer.print_string("]")
    if op.alignment is not None:
        printer.print_string(f" alignment = {op.alignment.value.data}")
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(op.memref.type)


class AllocOp(memref.AllocOp):
    @classmethod
    def parse(cls, parser: Parser) -> AllocOp:
        return _alloc_parse(cls, parser)

    def print(self, printer: Printer) -> None:
        _alloc_print(self, printer)


class AllocaOp(memref.AllocaOp):
    @classmethod
    def parse(cls, parser: Parser) -> AllocaOp:
        return _alloc_parse(cls, parser)

    def print(self, printer: Printer) -> None:
        _alloc_print(self, printer)


UPSTREAM_PRINTS = (AllocOp, AllocaOp)
"""Ops xDSL reads and prints in a form upstream refuses (``{alignment = 64 : i64}``), replaced
by upstream's form."""


class ParallelOp(scf.ParallelOp):
    """``scf.parallel (%i, %j) = (%a, %b) to (%c, %d) step (%e, %f) [init (%x) -> T] { ... }``."""

    @classmethod
    def parse(cls, parser: Parser) -> ParallelOp:
        ivs = parser.parse_comma_separated_list(parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False))
        parser.parse_punctuation("=")
        lower = _index_list(parser)
        parser.parse_keyword("to")
        upper = _index_list(parser)
        parser.parse_keyword("step")
        steps = _index_list(parser)
        inits: list[SSAValue] = []
        if parser.parse_optional_keyword("init"):
            names = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
            parser.parse_punctuation("->")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            inits = [parser.resolve_operand(n, t) for n, t in zip(names, types)]
        body = parser.parse_region([iv.resolve(IndexType()) for iv in ivs])
        attrs = parser.parse_optional_attr_dict()
        op = cls(lower, upper, steps, body, inits)
        op.attributes.update(attrs)
        block = body.blocks[0]
        if block.last_op is None or not block.last_op.has_trait(IsTerminator):
            block.add_op(scf.ReduceOp())  # upstream elides an empty scf.reduce
        return op


def _index_list(parser: Parser) -> list[SSAValue]:
    return parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, lambda: parser.resolve_operand(parser.parse_unresolved_operand(), IndexType()))


def scf_dialect() -> Dialect:
    """xDSL's ``scf`` dialect with upstream's custom form of ``scf.parallel``."""
    ops = [ParallelOp if op.name == "scf.parallel" else op for op in scf.Scf.operations]
    return Dialect("scf", ops, list(scf.Scf.attributes))


def memref_dialect() -> Dialect:
    """xDSL's ``memref`` dialect, its ops without a custom parser replaced by the ones above."""
    custom = {op.name: op for op in (*UPSTREAM_FORMS, *UPSTREAM_PRINTS)}
    ops = [custom.get(op.name, op) for op in memref.MemRef.operations]
    return Dialect("memref", ops, list(memref.MemRef.attributes))
