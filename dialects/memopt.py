"""The ``memopt`` xDSL dialect.

Types / attributes
    !memopt.token                                   DMA completion token (``TokenType``)
    #memopt.plan<arena_size = N, lower_bound = M, strategy = "s">   (``PlanAttr``)

Operations (custom syntax; every op also round-trips through the generic form)
    memopt.global @w : tensor<16x3x3x3xf32>
    memopt.global @b : tensor<2xf32> = dense<[1.0, 2.0]> : tensor<2xf32>
    %w = memopt.get_global @w : tensor<16x3x3x3xf32>
    %v = memopt.view %src[offset 64] : tensor<4x4xf32> -> tensor<8xf32>
    %y = memopt.compute "conv2d"(%x, %w) {cost = 1000 : i64} : (tensor<..>, tensor<..>) -> tensor<..>
    %r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) { ... memopt.yield %a : tensor<4xf32> } else { ... }
    %r:2 = memopt.loop 4 iter_args(%a = %x, %b = %y) : tensor<4xf32>, tensor<8xf32> { ... memopt.yield ... }
    memopt.yield %a, %b : tensor<4xf32>, tensor<8xf32>
    memopt.dma_buffer @alloc0 size 4096
    %t = memopt.dma_start @w into @alloc0[offset 0] : !memopt.token
    %w2 = memopt.dma_wait %t : tensor<16x3x3x3xf32>

Planner annotations are plain discardable builtin attributes, written and read by the plan's
writer and readers only (names: :mod:`memopt.dialects.plan_attr_names`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    AnyFloat,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    i64,
)
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    OpResult,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
    operand_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    NoMemoryEffect,
    OpTrait,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

REMAT_ATTR = "memopt.remat"
"""On a recomputed op (``rematerialize``): the identity of the op it recomputes."""

IDENT_ATTR = "memopt.ident"
"""On an op a rewrite moved or cut (``tile``): the identity of the original op it computes part
of; the ops after it are numbered from there on, as in the original program."""


# --------------------------------------------------------------------------- helpers


def element_byte_size(elem: Attribute) -> int:
    """Bytes used by one element of the given type (i1 -> 1, index -> 8)."""
    if isinstance(elem, IndexType):
        return 8
    if isinstance(elem, IntegerType):
        return max(1, (elem.width.data + 7) // 8)
    if isinstance(elem, AnyFloat):
        return max(1, (elem.bitwidth + 7) // 8)
    raise ValueError(f"unsupported element type: {elem}")


def byte_size(t: TensorType) -> int:
    """Size in bytes of a statically shaped tensor (elements x bytes per element)."""
    if not isinstance(t, TensorType):
        raise ValueError(f"expected a tensor type, got {t}")
    n = 1
    for d in t.get_shape():
        if d < 0:
            raise ValueError(f"dynamic shape not supported: {t}")
        n *= d
    return n * element_byte_size(t.element_type)


def _is_supported_element(elem: Attribute) -> bool:
    return isinstance(elem, IndexType | IntegerType | AnyFloat)


def check_tensor_type(t: Attribute, what: str = "value") -> TensorType:
    """Raise a VerifyException unless ``t`` is a static tensor with a supported
    element type. Returns ``t``."""
    if not isinstance(t, TensorType):
        raise VerifyException(f"{what} must be a builtin tensor type, got {t}")
    if any(d < 0 for d in t.get_shape()):
        raise VerifyException(f"dynamic shape not supported: {t}")
    if not _is_supported_element(t.element_type):
        raise VerifyException(f"unsupported element type {t.element_type} in {t}")
    return t


def _i64(v: int | IntegerAttr) -> IntegerAttr:
    return v if isinstance(v, IntegerAttr) else IntegerAttr(v, i64)


def _lookup(op: Operation, sym: SymbolRefAttr) -> tuple[bool, Operation | None]:
    """Returns (has_symbol_table, op). If there is no enclosing symbol table the
    lookup is skipped (detached IR being built)."""
    anchor: Operation | None = op
    while anchor is not None and not anchor.has_trait(SymbolTable):
        anchor = anchor.parent_op()
    if anchor is None:
        return False, None
    return True, SymbolTable.lookup_symbol(op, sym)


def _print_extra_attrs(printer: Printer, attrs: Mapping[str, Attribute]) -> None:
    printer.print_op_attributes(attrs)


# --------------------------------------------------------------------------- types / attrs


class OffArena(OpTrait):
    """The op reads a weight off chip or stages one on its way in (``get_global``, ``dma_start``,
    ``dma_wait``): it neither makes nor reads storage of the on-chip arena, and neither do views
    of its results."""


@irdl_attr_definition
class TokenType(ParametrizedAttribute, TypeAttribute):
    """``!memopt.token``: completion token of an asynchronous DMA transfer."""

    name = "memopt.token"


@irdl_attr_definition
class PlanAttr(ParametrizedAttribute):
    """``#memopt.plan<arena_size = 1024, lower_bound = 1000, strategy = "large-first">``"""

    name = "memopt.plan"

    arena_size: IntAttr
    lower_bound: IntAttr
    strategy: StringAttr

    @staticmethod
    def get(arena_size: int, lower_bound: int, strategy: str) -> PlanAttr:
        return PlanAttr(IntAttr(arena_size), IntAttr(lower_bound), StringAttr(strategy))

    def verify(self) -> None:
        if self.arena_size.data < 0 or self.lower_bound.data < 0:
            raise VerifyException("memopt.plan sizes must be non-negative")

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(f"arena_size = {self.arena_size.data}, ")
            printer.print_string(f"lower_bound = {self.lower_bound.data}, ")
            printer.print_string("strategy = ")
            printer.print_string_literal(self.strategy.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            parser.parse_keyword("arena_size")
            parser.parse_punctuation("=")
            arena = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation(",")
            parser.parse_keyword("lower_bound")
            parser.parse_punctuation("=")
            lb = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation(",")
            parser.parse_keyword("strategy")
            parser.parse_punctuation("=")
            strategy = parser.parse_str_literal()
        return (IntAttr(arena), IntAttr(lb), StringAttr(strategy))


# --------------------------------------------------------------------------- symbols


@irdl_op_definition
class GlobalOp(IRDLOperation):
    """``memopt.global @w : tensor<...> [= dense<...> : tensor<...>]``"""

    name = "memopt.global"

    sym_name = prop_def(StringAttr)
    type = prop_def(TensorType)
    value = opt_prop_def(DenseIntOrFPElementsAttr)

    traits = traits_def(SymbolOpInterface())

    def __init__(
        self,
        sym_name: str | StringAttr,
        type: TensorType,
        value: DenseIntOrFPElementsAttr | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if isinstance(sym_name, str):
            sym_name = StringAttr(sym_name)
        super().__init__(
            properties={"sym_name": sym_name, "type": type, "value": value},
            attributes=attributes,
        )

    def verify_(self) -> None:
        check_tensor_type(self.type, "global type")
        if self.value is not None and self.value.type != self.type:
            raise VerifyException(
                f"initial value type {self.value.type} does not match global type {self.type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> GlobalOp:
        sym = parser.parse_symbol_name()
        parser.parse_punctuation(":")
        type_pos = parser.pos
        t = parser.parse_type()
        if not isinstance(t, TensorType):
            parser.raise_error(
                f"memopt.global type must be a tensor, got {t}", type_pos, parser.pos
            )
        value: DenseIntOrFPElementsAttr | None = None
        if parser.parse_optional_punctuation("="):
            pos = parser.pos
            parsed = parser.parse_attribute()
            if not isinstance(parsed, DenseIntOrFPElementsAttr):
                parser.raise_error(
                    "expected dense elements attribute as global value", pos, parser.pos
                )
            value = parsed
        attrs = parser.parse_optional_attr_dict()
        return cls(sym, t, value, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" : ")
        printer.print_attribute(self.type)
        if self.value is not None:
            printer.print_string(" = ")
            printer.print_attribute(self.value)
        _print_extra_attrs(printer, self.attributes)


@irdl_op_definition
class GetGlobalOp(IRDLOperation):
    """``%w = memopt.get_global @w : tensor<...>``"""

    name = "memopt.get_global"

    name_ = prop_def(SymbolRefAttr, prop_name="name")
    result = result_def(TensorType)

    traits = traits_def(NoMemoryEffect(), OffArena())

    assembly_format = "$name `:` type($result) attr-dict"

    def __init__(self, name: str | SymbolRefAttr, result_type: TensorType):
        if isinstance(name, str):
            name = SymbolRefAttr(name)
        super().__init__(properties={"name": name}, result_types=[result_type])

    @property
    def global_name(self) -> SymbolRefAttr:
        return self.name_

    def verify_(self) -> None:
        check_tensor_type(self.result.type, "result")
        has_table, target = _lookup(self, self.name_)
        if not has_table:
            return
        if target is None:
            raise VerifyException(f"symbol {self.name_} not found in the enclosing module")
        if not isinstance(target, GlobalOp):
            raise VerifyException(
                f"symbol {self.name_} refers to '{target.name}', expected 'memopt.global'"
            )
        if target.type != self.result.type:
            raise VerifyException(
                f"result type {self.result.type} does not match type {target.type} "
                f"of global {self.name_}"
            )


@irdl_op_definition
class DmaBufferOp(IRDLOperation):
    """``memopt.dma_buffer @alloc0 size 4096``"""

    name = "memopt.dma_buffer"

    sym_name = prop_def(StringAttr)
    size = prop_def(IntegerAttr[I64])

    traits = traits_def(SymbolOpInterface())

    def __init__(
        self,
        sym_name: str | StringAttr,
        size: int | IntegerAttr,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if isinstance(sym_name, str):
            sym_name = StringAttr(sym_name)
        super().__init__(
            properties={"sym_name": sym_name, "size": _i64(size)}, attributes=attributes
        )

    def verify_(self) -> None:
        if self.size.value.data < 0:
            raise VerifyException(f"buffer size must be non-negative, got {self.size.value.data}")

    @classmethod
    def parse(cls, parser: Parser) -> DmaBufferOp:
        sym = parser.parse_symbol_name()
        parser.parse_keyword("size")
        size = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict()
        return cls(sym, size, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(f" size {self.size.value.data}")
        _print_extra_attrs(printer, self.attributes)


@irdl_op_definition
class DmaStartOp(IRDLOperation):
    """``%t = memopt.dma_start @w into @alloc0[offset 0] : !memopt.token``"""

    name = "memopt.dma_start"

    src = prop_def(SymbolRefAttr)
    dst = prop_def(SymbolRefAttr)
    offset = prop_def(IntegerAttr[I64])
    token = result_def(TokenType)

    traits = traits_def(OffArena())

    def __init__(
        self,
        src: str | SymbolRefAttr,
        dst: str | SymbolRefAttr,
        offset: int | IntegerAttr = 0,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if isinstance(src, str):
            src = SymbolRefAttr(src)
        if isinstance(dst, str):
            dst = SymbolRefAttr(dst)
        super().__init__(
            properties={"src": src, "dst": dst, "offset": _i64(offset)},
            result_types=[TokenType()],
            attributes=attributes,
        )

    def verify_(self) -> None:
        off = self.offset.value.data
        if off < 0:
            raise VerifyException(f"dma offset must be non-negative, got {off}")
        has_table, g = _lookup(self, self.src)
        if not has_table:
            return
        if not isinstance(g, GlobalOp):
            raise VerifyException(
                f"dma source {self.src} does not refer to a memopt.global"
            )
        _, buf = _lookup(self, self.dst)
        if not isinstance(buf, DmaBufferOp):
            raise VerifyException(
                f"dma destination {self.dst} does not refer to a memopt.dma_buffer"
            )
        size = byte_size(check_tensor_type(g.type, "global type"))
        cap = buf.size.value.data
        if off + size > cap:
            raise VerifyException(
                f"dma of {self.src} ({size} bytes) at offset {off} does not fit in "
                f"{self.dst} ({cap} bytes)"
            )

    @classmethod
    def parse(cls, parser: Parser) -> DmaStartOp:
        src = parser.parse_attribute()
        if not isinstance(src, SymbolRefAttr):
            parser.raise_error("expected symbol reference as dma source")
        parser.parse_keyword("into")
        dst = parser.parse_attribute()
        if not isinstance(dst, SymbolRefAttr):
            parser.raise_error("expected symbol reference as dma destination")
        parser.parse_punctuation("[")
        parser.parse_keyword("offset")
        off = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parser.parse_type()
        if not isinstance(t, TokenType):
            parser.raise_error(f"expected !memopt.token, got {t}", pos, parser.pos)
        return cls(src, dst, off, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.src)
        printer.print_string(" into ")
        printer.print_attribute(self.dst)
        printer.print_string(f"[offset {self.offset.value.data}]")
        _print_extra_attrs(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.token.type)


@irdl_op_definition
class DmaWaitOp(IRDLOperation):
    """``%w = memopt.dma_wait %t : tensor<...>``"""

    name = "memopt.dma_wait"

    token = operand_def(TokenType)
    result = result_def(TensorType)

    traits = traits_def(OffArena())

    assembly_format = "$token attr-dict `:` type($result)"

    def __init__(self, token: SSAValue | Operation, result_type: TensorType):
        super().__init__(operands=[token], result_types=[result_type])

    def verify_(self) -> None:
        check_tensor_type(self.result.type, "result")
        owner = self.token.owner
        if not isinstance(owner, DmaStartOp):
            raise VerifyException("token must be produced by a memopt.dma_start")
        has_table, g = _lookup(owner, owner.src)
        if not has_table or g is None:
            return  # reported by the dma_start verifier
        if isinstance(g, GlobalOp) and g.type != self.result.type:
            raise VerifyException(
                f"result type {self.result.type} does not match type {g.type} "
                f"of global {owner.src}"
            )


# --------------------------------------------------------------------------- values


@irdl_op_definition
class ViewOp(IRDLOperation):
    """``%v = memopt.view %src[offset 64] : tensor<4x4xf32> -> tensor<8xf32>``
    (``[offset N]`` is omitted when N == 0). ``offset`` is in bytes."""

    name = "memopt.view"

    source = operand_def(TensorType)
    offset = prop_def(IntegerAttr[I64])
    result = result_def(TensorType)

    traits = traits_def(NoMemoryEffect())

    def __init__(
        self,
        source: SSAValue | Operation,
        result_type: TensorType,
        offset: int | IntegerAttr = 0,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[source],
            result_types=[result_type],
            properties={"offset": _i64(offset)},
            attributes=attributes,
        )

    def verify_(self) -> None:
        src_t = check_tensor_type(self.source.type, "view source")
        res_t = check_tensor_type(self.result.type, "view result")
        off = self.offset.value.data
        if off < 0:
            raise VerifyException(f"view offset must be non-negative, got {off}")
        if off + byte_size(res_t) > byte_size(src_t):
            raise VerifyException(
                f"view out of range: offset {off} + {byte_size(res_t)} bytes exceeds "
                f"source size {byte_size(src_t)} bytes"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ViewOp:
        src = parser.parse_unresolved_operand()
        off = 0
        if parser.parse_optional_punctuation("["):
            parser.parse_keyword("offset")
            off = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_t = parser.parse_type()
        parser.parse_punctuation("->")
        res_t = parser.parse_type()
        src_v = parser.resolve_operand(src, src_t)
        return cls(src_v, res_t, off, attrs)  # type: ignore[arg-type]

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        if self.offset.value.data != 0:
            printer.print_string(f"[offset {self.offset.value.data}]")
        _print_extra_attrs(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


MEMORY_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


@irdl_op_definition
class CopyOp(IRDLOperation):
    """``%h = memopt.copy %t to "dram" : tensor<64xf32>`` — a whole-tensor copy between memories.

    With ``to "<memory>"`` the result lives in that (off-chip) memory of the target: a *spill*,
    the tensor's home while nothing on chip needs it. Without it the result is on chip: a
    *reload* before a use. ``plan-memory{spill=auto}`` inserts both; every memory gets its own
    arena, so the copy is where a tensor changes arenas, written in the IR rather than implied.
    """

    name = "memopt.copy"

    input = operand_def(TensorType)
    memory = opt_prop_def(StringAttr)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue | Operation, memory: str | None = None,
                 attributes: Mapping[str, Attribute] | None = None):
        value = SSAValue.get(input)
        super().__init__(
            operands=[value], result_types=[value.type],
            properties={"memory": StringAttr(memory)} if memory is not None else {},
            attributes=attributes,
        )

    def verify_(self) -> None:
        check_tensor_type(self.input.type, "copy input")
        if self.input.type != self.result.type:
            raise VerifyException(f"copy result type {self.result.type} differs from its input's {self.input.type}")
        if self.memory is not None and not MEMORY_NAME.fullmatch(self.memory.data):
            raise VerifyException(f"memory name '{self.memory.data}' is not an identifier")

    @classmethod
    def parse(cls, parser: Parser) -> CopyOp:
        src = parser.parse_unresolved_operand()
        memory = None
        if parser.parse_optional_keyword("to"):
            memory = parser.parse_str_literal("memory name")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls(parser.resolve_operand(src, t), memory, attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        if self.memory is not None:
            printer.print_string(" to ")
            printer.print_string_literal(self.memory.data)
        _print_extra_attrs(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


def memory_of(value: SSAValue) -> str | None:
    """The memory a tensor value lives in: the ``to`` memory of the ``memopt.copy`` that made
    it (views inherit their source's), None for on chip."""
    while isinstance(value, OpResult):
        op = value.op
        if isinstance(op, CopyOp):
            return op.memory.data if op.memory is not None else None
        if isinstance(op, ViewOp):
            value = op.source
            continue
        return None
    return None


@irdl_op_definition
class ComputeOp(IRDLOperation):
    """``%y = memopt.compute "kind"(%a, %b) {cost = 10 : i64, inplace = array<i64: 0>}
    : (tensor<..>, tensor<..>) -> tensor<..>``

    ``cost`` and ``inplace`` are properties; in the custom syntax they are printed
    first in the attribute dictionary, followed by discardable attributes."""

    name = "memopt.compute"

    kind = prop_def(StringAttr)
    cost = opt_prop_def(IntegerAttr)
    inplace = opt_prop_def(DenseArrayBase)

    inputs = var_operand_def()
    outputs = var_result_def()

    traits = traits_def(NoMemoryEffect())

    _PROP_IN_DICT: ClassVar[tuple[str, ...]] = ("cost", "inplace")

    def __init__(
        self,
        kind: str | StringAttr,
        inputs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        cost: int | IntegerAttr | None = None,
        inplace: Sequence[int] | DenseArrayBase | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if isinstance(kind, str):
            kind = StringAttr(kind)
        if isinstance(cost, int):
            cost = _i64(cost)
        if inplace is not None and not isinstance(inplace, DenseArrayBase):
            inplace = DenseArrayBase.from_list(i64, list(inplace))
        super().__init__(
            operands=[inputs],
            result_types=[result_types],
            properties={"kind": kind, "cost": cost, "inplace": inplace},
            attributes=attributes,
        )

    def inplace_indices(self) -> tuple[int, ...]:
        """One entry per result: operand index it may overwrite, or -1."""
        if self.inplace is None:
            return tuple(-1 for _ in self.outputs)
        return tuple(int(v) for v in self.inplace.get_values())

    def verify_(self) -> None:
        for i, v in enumerate(self.inputs):
            check_tensor_type(v.type, f"operand #{i}")
        for i, r in enumerate(self.outputs):
            check_tensor_type(r.type, f"result #{i}")
        if self.cost is not None and self.cost.value.data < 0:
            raise VerifyException(f"cost must be non-negative, got {self.cost.value.data}")
        if self.inplace is None:
            return
        if not isinstance(self.inplace.elt_type, IntegerType) or self.inplace.elt_type.width.data != 64:
            raise VerifyException("inplace must be an array<i64: ...>")
        idx = self.inplace.get_values()
        if len(idx) != len(self.outputs):
            raise VerifyException(
                f"inplace has {len(idx)} entries but the op has {len(self.outputs)} results"
            )
        for res, k in enumerate(idx):
            if k == -1:
                continue
            if not 0 <= k < len(self.inputs):
                raise VerifyException(
                    f"inplace index {k} of result #{res} is not a valid operand index "
                    f"(op has {len(self.inputs)} operands)"
                )
            in_t = self.inputs[k].type
            out_t = self.outputs[res].type
            assert isinstance(in_t, TensorType) and isinstance(out_t, TensorType)
            if byte_size(in_t) < byte_size(out_t):
                raise VerifyException(
                    f"result #{res} ({byte_size(out_t)} bytes) cannot overwrite operand "
                    f"#{k} ({byte_size(in_t)} bytes)"
                )

    @classmethod
    def parse(cls, parser: Parser) -> ComputeOp:
        kind = parser.parse_str_literal("(operation kind)")
        unresolved = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        ft = parser.parse_function_type()
        assert isinstance(ft, FunctionType)
        in_types = ft.inputs.data
        if len(in_types) != len(unresolved):
            parser.raise_error(
                f"expected {len(unresolved)} operand types, got {len(in_types)}",
                pos,
                parser.pos,
            )
        operands = parser.resolve_operands(unresolved, in_types, pos)
        props: dict[str, Attribute] = {}
        for key in cls._PROP_IN_DICT:
            if key in attrs:
                props[key] = attrs.pop(key)
        op = cls(kind, operands, ft.outputs.data, attributes=attrs)
        for key, val in props.items():
            op.properties[key] = val
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.kind.data)
        printer.print_string("(")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(")")
        merged: dict[str, Attribute] = {}
        for key in self._PROP_IN_DICT:
            if key in self.properties:
                merged[key] = self.properties[key]
        for key, val in self.attributes.items():
            if key not in merged:
                merged[key] = val
        _print_extra_attrs(printer, merged)
        printer.print_string(" : ")
        printer.print_function_type(self.inputs.types, self.outputs.types)


# --------------------------------------------------------------------------- control flow


def _check_yield(region: Region, expected: Sequence[Attribute], what: str) -> None:
    if len(region.blocks) != 1:
        raise VerifyException(f"{what} region must have exactly one block")
    block = region.block
    term = block.last_op
    if not isinstance(term, YieldOp):
        raise VerifyException(f"{what} region must be terminated by memopt.yield")
    got = tuple(term.values.types)
    if got != tuple(expected):
        raise VerifyException(
            f"{what} region yields ({', '.join(str(t) for t in got)}) but "
            f"({', '.join(str(t) for t in expected)}) is expected"
        )


def _parse_region_with_yield(parser: Parser, region: Region) -> Region:
    """If the region's single block has no terminator, add an empty yield."""
    if not region.blocks:
        region.add_block(Block())
    block = region.blocks.last
    assert block is not None
    last = block.last_op
    if last is None or not last.has_trait(IsTerminator):
        block.add_op(YieldOp())
    return region


@irdl_op_definition
class IfOp(IRDLOperation):
    """``%r = memopt.if %c : tensor<i1> -> (tensor<4xf32>) { ... } else { ... }``"""

    name = "memopt.if"

    cond = operand_def(TensorType)
    outputs = var_result_def()
    then_region = region_def()
    else_region = region_def()

    def __init__(
        self,
        cond: SSAValue | Operation,
        result_types: Sequence[Attribute],
        then_region: Region | Sequence[Block] | Sequence[Operation],
        else_region: Region | Sequence[Block] | Sequence[Operation] | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if else_region is None:
            else_region = Region()
        super().__init__(
            operands=[cond],
            result_types=[result_types],
            regions=[then_region, else_region],
            attributes=attributes,
        )

    def verify_(self) -> None:
        check_tensor_type(self.cond.type, "condition")
        for i, r in enumerate(self.outputs):
            check_tensor_type(r.type, f"result #{i}")
        res_types = tuple(self.outputs.types)
        for name, region in (("then", self.then_region), ("else", self.else_region)):
            if name == "else" and not region.blocks:
                if res_types:
                    raise VerifyException(
                        "else region may only be empty when memopt.if has no results"
                    )
                continue
            if region.blocks and region.blocks.first is not None and region.blocks.first.args:
                raise VerifyException(f"{name} region must not have block arguments")
            _check_yield(region, res_types, name)

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        unresolved = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        cond_t = parser.parse_type()
        cond = parser.resolve_operand(unresolved, cond_t)
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            result_types = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_type
            )
        then_r = _parse_region_with_yield(parser, parser.parse_region())
        else_r = Region()
        if parser.parse_optional_keyword("else"):
            else_r = _parse_region_with_yield(parser, parser.parse_region())
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls(cond, result_types, then_r, else_r, attrs.data if attrs else None)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cond)
        printer.print_string(" : ")
        printer.print_attribute(self.cond.type)
        if self.outputs:
            printer.print_string(" -> (")
            printer.print_list(self.outputs.types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(self.then_region, print_entry_block_args=False)
        if self.else_region.blocks:
            printer.print_string(" else ")
            printer.print_region(self.else_region, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class LoopOp(IRDLOperation):
    """``%r:2 = memopt.loop 4 iter_args(%a = %x, %b = %y) : tensor<4xf32>, tensor<8xf32> {
    ... memopt.yield %a2, %b2 : tensor<4xf32>, tensor<8xf32> }``"""

    name = "memopt.loop"

    trip_count = prop_def(IntegerAttr[I64])
    init = var_operand_def()
    outputs = var_result_def()
    body = region_def()

    def __init__(
        self,
        trip_count: int | IntegerAttr,
        init: Sequence[SSAValue | Operation],
        body: Region | Sequence[Block] | Block,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        if isinstance(body, Block):
            body = [body]
        super().__init__(
            operands=[init],
            result_types=[[SSAValue.get(v).type for v in init]],
            properties={"trip_count": _i64(trip_count)},
            regions=[body],
            attributes=attributes,
        )

    def verify_(self) -> None:
        if self.trip_count.value.data < 0:
            raise VerifyException(
                f"trip count must be non-negative, got {self.trip_count.value.data}"
            )
        init_types = tuple(self.init.types)
        for i, t in enumerate(init_types):
            check_tensor_type(t, f"loop-carried value #{i}")
        if tuple(self.outputs.types) != init_types:
            raise VerifyException("loop result types must equal the iter_args types")
        if len(self.body.blocks) != 1:
            raise VerifyException("loop body must have exactly one block")
        arg_types = tuple(a.type for a in self.body.block.args)
        if arg_types != init_types:
            raise VerifyException(
                "loop body block arguments must match the iter_args types"
            )
        _check_yield(self.body, init_types, "loop body")

    @classmethod
    def parse(cls, parser: Parser) -> LoopOp:
        trip = parser.parse_integer(allow_boolean=False)
        names: list[Parser.UnresolvedArgument] = []
        inits: list[UnresolvedOperand] = []
        types: list[Attribute] = []
        pos = parser.pos
        if parser.parse_optional_keyword("iter_args"):

            def parse_assign() -> None:
                names.append(parser.parse_argument(expect_type=False))
                parser.parse_punctuation("=")
                inits.append(parser.parse_unresolved_operand())

            parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_assign)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_type
            )
            if len(types) != len(names):
                parser.raise_error(
                    f"expected {len(names)} iter_args types, got {len(types)}",
                    pos,
                    parser.pos,
                )
        operands = parser.resolve_operands(inits, types, pos)
        args = [n.resolve(t) for n, t in zip(names, types)]
        body = _parse_region_with_yield(parser, parser.parse_region(args))
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls(trip, operands, body, attrs.data if attrs else None)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.trip_count.value.data}")
        block_args = self.body.block.args if self.body.blocks else ()
        if self.init:
            printer.print_string(" iter_args(")

            def print_assign(i: int) -> None:
                printer.print_ssa_value(block_args[i])
                printer.print_string(" = ")
                printer.print_operand(self.init[i])

            printer.print_list(range(len(self.init)), print_assign)
            printer.print_string(") : ")
            printer.print_list(self.init.types, printer.print_attribute)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes, print_keyword=True)


class _YieldParent(HasParent):
    """HasParent(IfOp, LoopOp) with a hash that is stable across runs, so that the
    order in which traits are verified (a frozenset) -- and hence which error is
    reported first -- is deterministic."""

    def __hash__(self) -> int:
        return 0x6D656D6F


@irdl_op_definition
class YieldOp(IRDLOperation):
    """``memopt.yield %a, %b : tensor<4xf32>, tensor<8xf32>``"""

    name = "memopt.yield"

    values = var_operand_def()

    traits = lazy_traits_def(lambda: (IsTerminator(), _YieldParent(IfOp, LoopOp)))

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[values])


Memopt = Dialect(
    "memopt",
    [
        GlobalOp,
        GetGlobalOp,
        ViewOp,
        ComputeOp,
        IfOp,
        LoopOp,
        YieldOp,
        DmaBufferOp,
        DmaStartOp,
        DmaWaitOp,
        CopyOp,
    ],
    [TokenType, PlanAttr],
)

__all__ = [
    "OffArena",
    "IDENT_ATTR",
    "CopyOp",
    "memory_of",
    "ComputeOp",
    "DmaBufferOp",
    "DmaStartOp",
    "DmaWaitOp",
    "GetGlobalOp",
    "GlobalOp",
    "IfOp",
    "LoopOp",
    "Memopt",
    "PlanAttr",
    "TokenType",
    "ViewOp",
    "YieldOp",
    "byte_size",
    "check_tensor_type",
    "element_byte_size",
]
