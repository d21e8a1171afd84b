"""Splitting a convolution by output channels when its filter is dequantized at run time.

A model stored in float16 or int8 (MediaPipe's) dequantizes each filter into the arena just before
its convolution; a wide head (a 1404-channel landmark regressor) then holds a dequantized filter
larger than every feature map, which no spatial patch can shrink. Computed in groups of output
channels — each group dequantizing only its rows of the filter (and bias) and writing its
channels into the output — the convolution holds one group's filter at a time, at no extra MACs.

A convolution qualifies when its groups are 1 and its filter (and its bias, if it has one that is
computed) is a one-operand dequantize of a constant read by that convolution alone. The rewrite
keeps every op's ``memopt.ident`` (the executor's stand-in kernels are element-wise for a
dequantize, so a group's rows are the whole's; the convolution is the real windowed kernel, each
output channel summed in the same order), so ``memopt-run --against`` proves it bit-exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, IntegerType, StringAttr, TensorType, i64
from xdsl.ir import Block, Operation, SSAValue

from memopt.diagnostics import copy_location
from memopt.dialects.memopt import IDENT_ATTR, ComputeOp, ViewOp, element_byte_size
from memopt.executor import window as win
from memopt.executor.memopt_ops import op_identities
from memopt.executor.kernels import normalize_kind
from memopt.planning.tiling import split

DEQUANTIZE = frozenset({"dequantize"})
"""Kinds that dequantize a constant element by element (one operand)."""


@dataclass(frozen=True)
class ChannelSplit:
    """A convolution and the dequantize ops of its filter (and bias) it would be split with."""

    conv: ComputeOp
    weight: ComputeOp
    bias: ComputeOp | None

    @property
    def ops(self) -> list[ComputeOp]:
        return [op for op in (self.weight, self.bias) if op is not None] + [self.conv]


def _shape(v: SSAValue) -> list[int]:
    t = v.type
    return list(t.get_shape()) if isinstance(t, TensorType) else []


def _dequantized(v: SSAValue, reader: Operation, active: set[SSAValue]) -> ComputeOp | None:
    """The dequantize of a constant that writes ``v`` for ``reader`` alone, or None."""
    op = v.owner
    if (not isinstance(op, ComputeOp) or normalize_kind(op.kind.data) not in DEQUANTIZE or len(op.inputs) != 1
            or len(op.outputs) != 1 or op.inputs[0] in active or any(u.operation is not reader for u in v.uses)):
        return None
    return op


def channel_split_of(op: Operation, active: set[SSAValue]) -> ChannelSplit | None:
    """``op`` as a :class:`ChannelSplit`, or None when it is not one."""
    if (not isinstance(op, ComputeOp) or normalize_kind(op.kind.data) not in {"conv", "conv2d"}
            or len(op.outputs) != 1 or len(op.inputs) not in (2, 3) or len(_shape(op.outputs[0])) != 4):
        return None
    if (win.ints(dict(op.attributes), "groups") or [1])[0] != 1 or len(_shape(op.inputs[1])) != 4:
        return None
    weight = _dequantized(op.inputs[1], op, active)
    if weight is None or _shape(weight.inputs[0])[0] != _shape(op.inputs[1])[0]:
        return None
    bias = None
    if len(op.inputs) == 3:
        bias = _dequantized(op.inputs[2], op, active)
        if bias is None and op.inputs[2] in active:
            return None
    return ChannelSplit(op, weight, bias)


def _array(values) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(x) for x in values])


def _rows(block: Block, anchor: Operation, v: SSAValue, lo: int, hi: int, like: Operation) -> SSAValue:
    """Rows ``lo..hi`` of ``v`` along its first axis (a view: they are contiguous)."""
    t = v.type
    assert isinstance(t, TensorType)
    shape = _shape(v)
    e = t.element_type
    rt = TensorType(e, [hi - lo] + shape[1:])
    if isinstance(e, IntegerType) and e.width.data % 8:
        op: Operation = ComputeOp("extract_slice", [v], [rt], cost=math.prod(rt.get_shape()),
                                  attributes={"offsets": _array([lo] + [0] * (len(shape) - 1))})
    else:
        op = ViewOp(v, rt, lo * math.prod(shape[1:]) * element_byte_size(e))
    op.results[0].name_hint = f"{v.name_hint or 'w'}.ch{lo}"
    copy_location(like, op)
    block.insert_op_before(op, anchor)
    return op.results[0]


def split_channels(f: func.FuncOp, s: ChannelSplit, parts: int, layout: str) -> int:
    """Rewrite ``s`` in ``parts`` groups of output channels; returns the extra MACs (none)."""
    ident = op_identities(f)
    block = s.conv.parent_block()
    assert block is not None
    ops = list(block.ops)
    for op in ops[ops.index(s.weight): ops.index(s.conv)]:
        if op not in s.ops and op in ident:
            op.attributes[IDENT_ATTR] = IntegerAttr(ident[op], i64)
    out = s.conv.outputs[0]
    out_t = out.type
    assert isinstance(out_t, TensorType)
    axis = 3 if layout == "NHWC" else 1
    channels = _shape(out)[axis]

    def put(op: Operation, like: Operation, hint: str) -> SSAValue:
        op.attributes[IDENT_ATTR] = IntegerAttr(ident[like], i64)
        op.results[0].name_hint = hint
        copy_location(like, op)
        block.insert_op_before(op, s.conv)
        return op.results[0]

    def part(op: ComputeOp, operands: list[SSAValue], rt: TensorType, share: float, hint: str) -> SSAValue:
        cost = math.ceil(op.cost.value.data * share) if op.cost is not None else None
        attrs = dict(op.attributes)
        if "names" in attrs:
            attrs["names"] = ArrayAttr([StringAttr(hint)])
        return put(ComputeOp(op.kind, operands, [rt], cost=cost, attributes=attrs), op, hint)

    acc: SSAValue | None = None
    name = out.name_hint or "v"
    for lo, hi in split(channels, parts):
        share = (hi - lo) / channels
        deq = []
        for d in (s.weight, s.bias):
            if d is None:
                continue
            src = _rows(block, s.conv, d.inputs[0], lo, hi, d)
            rt = TensorType(d.outputs[0].type.element_type, [hi - lo] + _shape(d.outputs[0])[1:])  # type: ignore[attr-defined]
            deq.append(part(d, [src], rt, share, f"{d.outputs[0].name_hint or 'w'}.ch{lo}"))
        operands = [s.conv.inputs[0], deq[0]]
        if len(s.conv.inputs) == 3:
            operands.append(deq[1] if s.bias is not None else _rows(block, s.conv, s.conv.inputs[2], lo, hi, s.conv))
        shape = _shape(out)
        shape[axis] = hi - lo
        y = part(s.conv, operands, TensorType(out_t.element_type, shape), share, f"{name}.ch{lo}")
        if acc is None:
            acc = put(ComputeOp("empty", [], [out_t], cost=0), s.conv, f"{name}.split")
        offsets = [0] * 4
        offsets[axis] = lo
        acc = put(ComputeOp("insert_slice", [y, acc], [out_t], cost=math.prod(shape), inplace=[1],
                            attributes={"offsets": _array(offsets)}), s.conv, f"{name}.split")
    assert acc is not None and acc.owner is not None
    if "names" in s.conv.attributes:
        acc.owner.attributes["names"] = s.conv.attributes["names"]  # type: ignore[union-attr]
    acc.name_hint = out.name_hint
    out.replace_all_uses_with(acc)
    for op in reversed(s.ops):
        op.detach()
        op.erase()
    return 0


__all__ = ["DEQUANTIZE", "ChannelSplit", "channel_split_of", "split_channels"]
