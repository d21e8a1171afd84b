"""ShuffleNet's channel shuffle as one spatial op, so a ``tile`` run can hold it.

ONNX and TFLite write the shuffle as a reshape that splits the channels into ``groups`` x
C/groups, a transpose swapping those two axes, and a reshape back: ``memopt.view``,
``memopt.compute "Transpose" {perm}`` (``"TRANSPOSE"``: the TFLite importer reads its constant
perm into the attribute), ``memopt.view``. Its 5-D middle is no op a run can cut, yet each output cell
reads only the same cell of the input, channels permuted. :func:`fuse_channel_shuffles` replaces
each such triple by ``memopt.compute "channel_shuffle" {groups, layout}`` (the executor's kernel
computes the same bytes as the triple), keeping the transpose's cost, identity and the final
view's tensor name.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, StringAttr, TensorType, i64
from xdsl.ir import Attribute, Operation

from memopt.diagnostics import copy_location
from memopt.dialects.memopt import IDENT_ATTR, ComputeOp, ViewOp
from memopt.executor import window as win
from memopt.executor.memopt_ops import op_identities
from memopt.executor.kernels import normalize_kind


def _shape(v) -> list[int]:
    return list(v.type.get_shape()) if isinstance(v.type, TensorType) else []


def _shuffle(t: Operation) -> tuple[ViewOp, ViewOp, int, str] | None:
    """(split view, merge view, groups, layout) when ``t`` is the transpose of a channel shuffle."""
    if not isinstance(t, ComputeOp) or normalize_kind(t.kind.data) != "transpose" or len(t.inputs) != 1 \
            or len(t.outputs) != 1:
        return None
    split, perm = t.inputs[0].owner, win.ints(dict(t.attributes), "perm")
    users = list(t.outputs[0].uses)
    if not isinstance(split, ViewOp) or perm is None or len(users) != 1 or len(list(split.result.uses)) != 1:
        return None
    merge = users[0].operation
    if not isinstance(merge, ViewOp):
        return None
    x, mid, y = _shape(split.source), _shape(split.result), _shape(merge.result)
    if len(x) != 4 or len(mid) != 5 or x != y or split.offset.value.data or merge.offset.value.data:
        return None
    for c, layout in ((1, "NCHW"), (3, "NHWC")):
        swap = list(range(5))
        swap[c], swap[c + 1] = c + 1, c
        if (perm == swap and mid[:c] == x[:c] and mid[c + 2:] == x[c + 1:] and mid[c] * mid[c + 1] == x[c]
                and _shape(t.outputs[0]) == [mid[p] for p in perm]):
            return split, merge, mid[c], layout
    return None


def fuse_channel_shuffles(f: func.FuncOp) -> int:
    """Replace every channel shuffle of ``f``'s body by one ``channel_shuffle`` op; returns how many."""
    ident = op_identities(f)
    found = [(t, s) for t in list(f.body.blocks[0].ops) if isinstance(t, ComputeOp) and (s := _shuffle(t)) is not None]
    for t, (split, merge, groups, layout) in found:
        attrs: dict[str, Attribute] = {"groups": IntegerAttr(groups, i64), "layout": StringAttr(layout),
                                       IDENT_ATTR: IntegerAttr(ident[t], i64)}
        if "names" in merge.attributes:
            attrs["names"] = merge.attributes["names"]
        op = ComputeOp("channel_shuffle", [split.source], [merge.result.type],
                       cost=t.cost.value.data if t.cost is not None else None, attributes=attrs)
        op.results[0].name_hint = merge.result.name_hint
        copy_location(t, op)
        block = t.parent_block()
        assert block is not None
        block.insert_op_before(op, merge)
        merge.result.replace_all_uses_with(op.results[0])
        for dead in (merge, t, split):
            dead.detach()
            dead.erase()
    return len(found)


__all__ = ["fuse_channel_shuffles"]
