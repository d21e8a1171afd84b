"""``bufferization.dealloc``: the ownership bookkeeping upstream's buffer deallocation inserts.

Why: ``ownership-based-buffer-deallocation`` frees buffers with
``bufferization.dealloc (%a, %b : T, U) if (%c1, %c2) retain (%r : V)`` — free each ``%a`` whose
condition holds unless it aliases a retained value; its results are the updated ownership of
each retained value. It is not a use of the buffers it names: planning ends a buffer at its
last real use and takes planned buffers out of the list (xDSL 0.74 has no such op).
"""

from __future__ import annotations

from xdsl.dialects.builtin import MemRefType, i1
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import AttrSizedOperandSegments, IRDLOperation, irdl_op_definition, var_operand_def, var_result_def
from xdsl.parser import Parser
from xdsl.printer import Printer


@irdl_op_definition
class DeallocOp(IRDLOperation):
    name = "bufferization.dealloc"

    memrefs = var_operand_def(MemRefType)
    conditions = var_operand_def(i1)
    retained = var_operand_def(MemRefType)
    updated_conditions = var_result_def(i1)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, memrefs, conditions, retained, attributes: dict[str, Attribute] | None = None):
        super().__init__(operands=[memrefs, conditions, retained], result_types=[[i1] * len(retained)],
                         attributes=attributes or {})

    @classmethod
    def parse(cls, parser: Parser) -> DeallocOp:
        memrefs = _typed_list(parser)
        parser.parse_keyword("if")
        conditions = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.resolve_operand(parser.parse_unresolved_operand(), i1))
        retained: list[SSAValue] = []
        if parser.parse_optional_keyword("retain"):
            retained = _typed_list(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls(memrefs, conditions, retained, attrs)

    def print(self, printer: Printer) -> None:
        _print_typed_list(printer, self.memrefs)
        printer.print_string(" if (")
        printer.print_list(self.conditions, printer.print_operand)
        printer.print_string(")")
        if self.retained:
            printer.print_string(" retain")
            _print_typed_list(printer, self.retained)
        printer.print_op_attributes(self.attributes)


def _typed_list(parser: Parser) -> list[SSAValue]:
    """``(%a, %b : T, U)`` or ``()``."""
    parser.parse_punctuation("(")
    if parser.parse_optional_punctuation(")") is not None:
        return []
    names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    if len(names) != len(types):
        parser.raise_error(f"expected {len(names)} types, got {len(types)}")
    return [parser.resolve_operand(n, t) for n, t in zip(names, types)]


def _print_typed_list(printer: Printer, values) -> None:
    printer.print_string(" (")
    printer.print_list(values, printer.print_operand)
    if values:
        printer.print_string(" : ")
        printer.print_list([v.type for v in values], printer.print_attribute)
    printer.print_string(")")
