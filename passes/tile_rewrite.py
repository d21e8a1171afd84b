"""The rewrite of the ``tile`` pass (:mod:`memopt.passes.tile`): a run of spatial ops computed
patch by patch — which ops form a run and how each reads along H and W (:func:`spec_of`), and
:func:`tile_ops` / :func:`tile_run`, which replace the run by its patches. The pass's docstring
says what the rewrite produces."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, StringAttr, TensorType, i64
from xdsl.ir import Block, Operation, SSAValue

from memopt.diagnostics import MemoptError, copy_location
from memopt.dialects.memopt import IDENT_ATTR, ComputeOp, ViewOp, element_byte_size
from memopt.dialects.walk import walk
from memopt.executor import window as win
from memopt.executor.memopt_ops import op_identities
from memopt.executor.kernels import ELEMENTWISE_KINDS, normalize_kind
from memopt.passes.names import tensor_name
from memopt.passes.tile_record import record_run
from memopt.passes.tile_stream import home_of, reload_after, reload_rows, streamable
from memopt.planning.tiling import Interval, Resample, Window, hull, receptive, split

ELEMENTWISE = ELEMENTWISE_KINDS | {"add", "sub", "mul", "max", "min", "relu", "neg", "sigmoid", "tanh", "div"}
"""Kinds whose output cell reads the same cell of its inputs (broadcast as numpy does)."""
CONCAT = frozenset({"concat", "concatenation", "concatenate"})
"""Kinds joining their inputs along one axis (tiled when it is the channel axis)."""
GRID = re.compile(r"^([1-9][0-9]*)(?:x([1-9][0-9]*))?$")


@dataclass
class _Spec:
    """How one op of the run reads its inputs along H and W."""

    op: ComputeOp
    windows: tuple[Window | Resample, Window | Resample]
    spatial: list[int]
    """Operands cut with the patch (the others are read whole: weights, broadcast operands)."""
    layout_of_pads: str
    """What a patch's attributes say of where it is: "window" (conv/pool ``pads``), "pad" (a
    pad's ``pads``), "origin" (a resize's or depth-to-space's ``origin``/``extent``), ""."""


def _name(v: SSAValue) -> str:
    return tensor_name(v) or v.name_hint or "?"


def _shape(v: SSAValue) -> list[int]:
    t = v.type
    assert isinstance(t, TensorType)
    return list(t.get_shape())


def value_hw(v: SSAValue, h: int, w: int) -> tuple[int, int]:
    """The H and W axes of ``v`` read beside a 4-D result whose axes they are (numpy aligns
    a lower-rank operand to the result's last axes)."""
    lost = 4 - len(_shape(v))
    return h - lost, w - lost


def activations(block: Block) -> set[SSAValue]:
    """The values of ``block`` computed from its arguments (not from constants alone)."""
    active: set[SSAValue] = set(block.args)
    for op in block.ops:
        reads = list(op.operands) + [v for r in op.regions for inner in r.walk() for v in inner.operands]
        if any(v in active for v in reads):
            active.update(op.results)
    return active


def _array(values) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(x) for x in values])


def _find(f: func.FuncOp, name: str, what: str) -> Operation:
    found = [op for op in walk(f.body) if op.results and any(_name(r) == name or r.name_hint == name for r in op.results)]
    if not found:
        raise MemoptError(f"tile: {what}={name}: no op of '@{f.sym_name.data}' writes a tensor named '{name}'", f)
    if len(found) > 1:
        raise MemoptError(f"tile: {what}={name}: {len(found)} ops write a tensor named '{name}'", found[1])
    return found[0]


def _span(first: Operation, last: Operation) -> tuple[Block, list[Operation], int, int]:
    """The block of ``first`` and ``last``, its ops, and their positions (first before last)."""
    block = first.parent_block()
    if block is None or last.parent_block() is not block:
        raise MemoptError("tile: first and last are not in the same block", last)
    ops = list(block.ops)
    i, j = ops.index(first), ops.index(last)
    if i > j:
        raise MemoptError(f"tile: first={_name(first.results[0])} comes after last={_name(last.results[0])}", first)
    return block, ops, i, j


def _members(first: Operation, last: Operation, layout_of) -> list[Operation]:
    """The run: ``last`` and the ops from ``first`` on (one block) whose result a member reads
    as a spatial operand (so a weight's dequantize is not one: a convolution reads it whole)."""
    block, ops, i, j = _span(first, last)
    active = activations(block)
    wanted: set[SSAValue] = set()
    members: list[Operation] = []
    for op in reversed(ops[i: j + 1]):
        if op is not last and not any(r in wanted for r in op.results):
            continue
        members.append(op)
        spec = _spec(op, layout_of(op))
        wanted.update(op.operands[k] for k in spec.spatial if op.operands[k] in active)
    members.reverse()
    if members[0] is not first:
        raise MemoptError(f"tile: last={_name(last.results[0])} does not read what first={_name(first.results[0])} "
                          "writes: not one run", first)
    inside = set(members)
    for op in members:
        for r in op.results:
            if op is last and r.index == 0:
                continue
            for use in r.uses:
                user = use.operation
                if block.find_ancestor_op_in_block(user) not in inside:
                    raise MemoptError(
                        f"tile: '{_name(r)}', written inside the run, is read by '{_kind(user)}' after it: the run must "
                        f"end where its only result leaves it (cut it there: last={_name(r)})", user)
    return members


def _kind(op: Operation) -> str:
    return op.kind.data if isinstance(op, ComputeOp) else op.name


def _hw(layout: str) -> tuple[int, int]:
    return (1, 2) if layout == "NHWC" else (2, 3)


def _spec(op: Operation, layout: str) -> _Spec:
    """How ``op`` reads along H and W, or a one-line error saying why it cannot be cut."""
    if not isinstance(op, ComputeOp) or len(op.outputs) != 1 or len(_shape(op.outputs[0])) != 4:
        raise MemoptError(f"tile: '{_kind(op)}' ({_name(op.results[0]) if op.results else 'no result'}) is not "
                          "spatial: a run holds compute ops with one 4-D result", op)
    kind = normalize_kind(op.kind.data)
    attrs = dict(op.attributes)
    out = _shape(op.outputs[0])
    h, w = _hw(layout)
    if kind in win.CONV_KINDS or kind in win.POOL_KINDS:
        x = _shape(op.inputs[0]) if op.inputs else []
        if len(x) != 4:
            raise MemoptError(f"tile: '{op.kind.data}' ({_name(op.outputs[0])}) reads no 4-D input", op)
        if kind in win.CONV_KINDS:
            wt = _shape(op.inputs[1]) if len(op.inputs) > 1 else []
            if len(wt) != 4:
                raise MemoptError(f"tile: '{op.kind.data}' ({_name(op.outputs[0])}) has no 4-D filter", op)
            k = (wt[1], wt[2]) if layout == "NHWC" else (wt[2], wt[3])
        else:
            kernel = tuple(win.ints(attrs, "kernel") or ())
            if len(kernel) != 2:
                raise MemoptError(f"tile: '{op.kind.data}' ({_name(op.outputs[0])}) has no kernel attribute", op)
            k = (kernel[0], kernel[1])
        params = win.window_params(attrs, (x[h], x[w]), (out[h], out[w]), k)
        if params is None:
            raise MemoptError(f"tile: '{op.kind.data}' ({_name(op.outputs[0])}): its strides, dilations and pads do "
                              "not give its output's extent", op)
        s, d, p = params
        return _Spec(op, (Window(k[0], s[0], d[0], p[0]), Window(k[1], s[1], d[1], p[1])), [0], "window")
    if kind == "pad":
        p = win.ints(attrs, "pads")
        x = _shape(op.inputs[0]) if op.inputs else []
        if p is None or len(p) != 8 or len(x) != 4 or min(p[h], p[w], p[h + 4], p[w + 4]) < 0:
            raise MemoptError(f"tile: '{op.kind.data}' ({_name(op.outputs[0])}) has no non-negative pads attribute "
                              "(its paddings must be constant)", op)
        return _Spec(op, (Window(1, 1, 1, p[h]), Window(1, 1, 1, p[w])), [0], "pad")
    if kind in ELEMENTWISE:
        return _Spec(op, (Window(), Window()), _broadcast_operands(op, out, h, w), "")
    if kind in CONCAT:
        if any(len(_shape(v)) != 4 or (_shape(v)[h], _shape(v)[w]) != (out[h], out[w]) for v in op.inputs):
            raise MemoptError(f"tile: '{op.kind.data}' ({_name(op.outputs[0])}) joins along H or W: only a "
                              "concatenation of channels is tiled", op)
        return _Spec(op, (Window(), Window()), list(range(len(op.inputs))), "")
    if kind in win.LRN_KINDS or kind in win.SHUFFLE_KINDS:
        return _Spec(op, (Window(), Window()), [0], "")
    x = _shape(op.inputs[0]) if op.inputs else []
    if kind in win.RESIZE_KINDS | win.DEPTH_TO_SPACE_KINDS and len(x) == 4:
        mode = "block" if kind in win.DEPTH_TO_SPACE_KINDS else win.text(attrs, "mode")
        if mode == "block" and (out[h] % x[h] or out[w] % x[w]):
            mode = ""
        if mode in ("nearest", "linear", "block"):
            transform, rounding = win.text(attrs, "coordinates", "asymmetric"), win.text(attrs, "rounding", "floor")
            return _Spec(op, (Resample(mode, x[h], out[h], transform, rounding),
                              Resample(mode, x[w], out[w], transform, rounding)), [0], "origin")
    if kind in win.SPACE_TO_DEPTH_KINDS and len(x) == 4:
        bs = (win.ints(attrs, "block_size") or [0])[0]
        if bs > 0 and (x[h], x[w]) == (out[h] * bs, out[w] * bs):
            return _Spec(op, (Window(bs, bs), Window(bs, bs)), [0], "")
    raise MemoptError(f"tile: '{op.kind.data}' ({_name(op.outputs[0])}) is not spatial: a run holds convolutions, "
                      "depthwise convolutions, pooling, constant pads, resizes, depth-to-space, channel "
                      "concatenations, channel shuffles, LRN and element-wise ops (with their attributes)", op)


def _broadcast_operands(op: ComputeOp, out: list[int], h: int, w: int) -> list[int]:
    """The operands of an element-wise op cut with the patch: those spanning the output's H and W
    (an operand broadcast along them, such as a per-channel one, is read whole; so is one of
    rank 0 or 1, which ONNX's BatchNormalization reads per channel)."""
    spatial = []
    for i, v in enumerate(op.inputs):
        shape = _shape(v)
        if len(shape) <= 1:
            continue
        vh, vw = value_hw(v, h, w)
        extent = (shape[vh] if vh >= 0 else 1, shape[vw] if vw >= 0 else 1)
        if extent == (out[h], out[w]) and vh >= 0 and vw >= 0:
            spatial.append(i)
        elif extent != (1, 1):
            raise MemoptError(f"tile: '{op.kind.data}' ({_name(op.outputs[0])}) reads operand #{i} of "
                              f"{extent[0]}x{extent[1]} cells for an output of {out[h]}x{out[w]}", op)
    return spatial


def _layout(first: Operation, last: Operation) -> str:
    """The layout of the windowed ops from ``first`` to ``last``."""
    _, ops, i, j = _span(first, last)
    layouts = {win.text(dict(op.attributes), "layout", "NCHW") for op in ops[i: j + 1]
               if isinstance(op, ComputeOp) and normalize_kind(op.kind.data) in win.CONV_KINDS | set(win.POOL_KINDS)}
    if not layouts:
        raise MemoptError("tile: the run has no convolution or pooling to take its layout from", first)
    if len(layouts) > 1:
        raise MemoptError(f"tile: the run mixes layouts ({', '.join(sorted(layouts))})", first)
    return layouts.pop()


class _Emitter:
    """Writes the tiled run before ``anchor``."""

    def __init__(self, block: Block, anchor: Operation, layout: str):
        self.block, self.anchor = block, anchor
        self.h, self.w = _hw(layout)
        self.extra = 0

    def put(self, op: Operation, ident: int, like: Operation) -> Operation:
        op.attributes[IDENT_ATTR] = IntegerAttr(ident, i64)
        copy_location(like, op)
        self.block.insert_op_before(op, self.anchor)
        return op

    def slice(self, v: SSAValue, have: tuple[Interval, Interval], want: tuple[Interval, Interval],
              ident: int, like: Operation) -> SSAValue:
        """``v`` (holding cells ``have``) cut to ``want``."""
        if have == want:
            return v
        shape = _shape(v)
        offsets = [0] * len(shape)
        sizes = list(shape)
        vh, vw = value_hw(v, self.h, self.w)
        for axis, hv, wt in ((vh, have[0], want[0]), (vw, have[1], want[1])):
            offsets[axis] = wt[0] - hv[0]
            sizes[axis] = wt[1] - wt[0]
        t = v.type
        assert isinstance(t, TensorType)
        rt = TensorType(t.element_type, sizes)
        hint = f"{v.name_hint or 'x'}.rows{want[0][0]}_{want[0][1]}"
        item = element_byte_size(t.element_type) if _whole_bytes(t) else 0
        if item and _contiguous(shape, offsets, sizes):
            strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
            view = ViewOp(v, rt, sum(o * s for o, s in zip(offsets, strides)) * item)
            view.results[0].name_hint = hint
            copy_location(like, view)
            self.block.insert_op_before(view, self.anchor)
            return view.results[0]
        op = ComputeOp("extract_slice", [v], [rt], cost=math.prod(sizes), attributes={"offsets": _array(offsets)})
        op.results[0].name_hint = hint
        return self.put(op, ident, like).results[0]


def _whole_bytes(t: TensorType) -> bool:
    from xdsl.dialects.builtin import IntegerType

    e = t.element_type
    return not (isinstance(e, IntegerType) and e.width.data % 8)


def _contiguous(shape: list[int], offsets: list[int], sizes: list[int]) -> bool:
    """Whether the block ``offsets``/``sizes`` of a row-major ``shape`` is one run of bytes."""
    cut = [i for i in range(len(shape)) if sizes[i] != shape[i]]
    if not cut:
        return True
    j = cut[0]
    return all(sizes[i] == 1 for i in range(j)) and all(sizes[i] == shape[i] for i in range(j + 1, len(shape)))


def parse_grid(grid: str) -> tuple[int, int]:
    m = GRID.match(grid.strip())
    if m is None:
        raise MemoptError(f"tile: grid must be ROWS or ROWSxCOLS (positive integers, e.g. 4 or 2x2), got '{grid}'")
    return int(m.group(1)), int(m.group(2) or 1)


def tile_run(f: func.FuncOp, first_name: str, last_name: str, grid: tuple[int, int],
             stream: str | None = None) -> tuple[int, int, int]:
    """Rewrite the run of ``f`` from ``first_name`` to ``last_name`` in ``grid`` patches; returns
    (ops in the run, its cost, the extra cost of the halos)."""
    return tile_ops(f, _find(f, first_name, "first"), _find(f, last_name, "last"), grid, stream)


def tile_ops(f: func.FuncOp, first: Operation, last: Operation, grid: tuple[int, int],
             stream: str | None = None, layout: str | None = None) -> tuple[int, int, int]:
    """:func:`tile_run` on the run from op ``first`` to op ``last``; with ``stream`` (a memory
    name) every input the run may stream is read stripe by stripe from its home in that memory
    (:mod:`memopt.passes.tile_stream`); ``layout``: the function's, for a run of element-wise
    ops alone (else its windowed ops')."""
    last_name = _name(last.results[0])
    label = f"{_name(first.results[0])}..{last_name}"
    layout = layout or _layout(first, last)
    members = _members(first, last, lambda op: layout)
    specs = {op: _spec(op, layout) for op in members}
    h, w = _hw(layout)
    out_shape = _shape(last.results[0])
    rows, cols = grid
    if rows > out_shape[h] or cols > out_shape[w]:
        raise MemoptError(f"tile: grid {rows}x{cols} has more patches than '{last_name}' has cells "
                          f"({out_shape[h]}x{out_shape[w]})", last)
    ident = op_identities(f)
    block = last.parent_block()
    assert block is not None
    ops = list(block.ops)
    for op in ops[ops.index(first): ops.index(last)]:
        if op not in specs and op in ident:  # stays in place: keeps its identity, the ops after the run theirs
            op.attributes[IDENT_ATTR] = IntegerAttr(ident[op], i64)
    made: set[SSAValue] = {r for op in members for r in op.results}
    full = {}
    for op in members:
        for v in [op.operands[k] for k in specs[op].spatial] + list(op.results):
            vh, vw = value_hw(v, h, w)
            full[v] = ((0, _shape(v)[vh]), (0, _shape(v)[vw]))
    homes = _homes(members, specs, made, block, h, w, stream)
    em = _Emitter(block, last, layout)
    base_cost = sum(op.cost.value.data for op in members if isinstance(op, ComputeOp) and op.cost is not None)
    tiled_cost = 0
    acc: SSAValue | None = None
    patches = [(r, c) for r in split(out_shape[h], rows) for c in split(out_shape[w], cols)]
    for p, (rr, cc) in enumerate(patches):
        need = _patch_needs(members, specs, full, last, rr, cc)
        now: dict[SSAValue, SSAValue] = {}
        stripes: dict[SSAValue, SSAValue] = {}
        for op in members:
            spec = specs[op]
            got = need.get(op.results[0])
            if got is None:
                continue
            assert isinstance(op, ComputeOp)
            operands = list(op.operands)
            pads = []
            for i in spec.spatial:
                v = op.operands[i]
                ext = full[v]
                reads = [receptive(spec.windows[a], got[a], ext[a][1]) for a in (0, 1)]
                have = need[v] if v in made else ext
                src = now[v] if v in made else v
                if v in homes:
                    if v not in stripes:
                        stripes[v] = reload_rows(homes[v], need[v][0], value_hw(v, h, w)[0], block, last)
                    have, src = (need[v][0], ext[1]), stripes[v]
                operands[i] = em.slice(src, have, (reads[0].cells, reads[1].cells), ident[op], op)
                pads = reads
            new, cost = _patch_op(op, spec, operands, got, pads, full, (h, w), p)
            tiled_cost += cost or 0
            em.put(new, ident[op], op)
            now[op.results[0]] = new.results[0]
        acc = _insert_patch(em, acc, now[last.results[0]], last, ident[last], (rr[0], cc[0]), (h, w))
    assert acc is not None and acc.owner is not None
    if "names" in last.attributes:
        acc.owner.attributes["names"] = last.attributes["names"]  # type: ignore[union-attr]
    acc.name_hint = last.results[0].name_hint
    last.results[0].replace_all_uses_with(acc)
    for op in reversed(members):
        op.detach()
        op.erase()
    for v, home in homes.items():
        reload_after(v, home, acc.owner, block)  # type: ignore[arg-type]
    record_run(f, label, len(members), grid, base_cost, tiled_cost - base_cost, [_name(v) for v in homes])
    return len(members), base_cost, tiled_cost - base_cost


def _patch_needs(members: list[Operation], specs: dict, full: dict, last: Operation, rr: Interval,
                 cc: Interval) -> dict[SSAValue, tuple[Interval, Interval]]:
    """The cells of every value of the run that the patch (``rr``, ``cc``) of ``last``'s result
    needs: from the last op back, each op's windows widen what it computes to what it reads."""
    need: dict[SSAValue, tuple[Interval, Interval]] = {last.results[0]: (rr, cc)}
    for op in reversed(members):
        spec = specs[op]
        got = need.get(op.results[0])
        if got is None:
            continue
        for i in spec.spatial:
            v = op.operands[i]
            ext = full[v]
            reads = [receptive(spec.windows[a], got[a], ext[a][1]).cells for a in (0, 1)]
            prev = need.get(v)
            need[v] = (hull(prev[0] if prev else None, reads[0]), hull(prev[1] if prev else None, reads[1]))
    return need


def _patch_op(op: ComputeOp, spec, operands: list[SSAValue], got: tuple[Interval, Interval], pads: list,
              full: dict, hw: tuple[int, int], p: int) -> tuple[ComputeOp, int | None]:
    """``op`` computing the cells ``got`` of its result, patch ``p``, from ``operands`` (its
    windowed inputs sliced, read with ``pads``): its padding or origin for the patch, its cost (a
    share of the whole op's by cells) beside it."""
    h, w = hw
    attrs = dict(op.attributes)
    if spec.layout_of_pads == "window":
        attrs["pads"] = _array([pads[0].pad_begin, pads[1].pad_begin, pads[0].pad_end, pads[1].pad_end])
    elif spec.layout_of_pads == "pad":
        full_pads = win.ints(attrs, "pads") or []
        for axis, rd in ((h, pads[0]), (w, pads[1])):
            full_pads[axis], full_pads[axis + 4] = rd.pad_begin, rd.pad_end
        attrs["pads"] = _array(full_pads)
    elif spec.layout_of_pads == "origin":
        x_ext = full[op.operands[spec.spatial[0]]]
        attrs["origin"] = _array([got[0][0], got[1][0], pads[0].cells[0], pads[1].cells[0]])
        attrs["extent"] = _array([x_ext[0][1], x_ext[1][1], full[op.results[0]][0][1],
                                  full[op.results[0]][1][1]])
    shape = _shape(op.results[0])
    shape[h], shape[w] = got[0][1] - got[0][0], got[1][1] - got[1][0]
    rt = TensorType(op.results[0].type.element_type, shape)  # type: ignore[attr-defined]
    share = math.prod(shape) / max(1, math.prod(_shape(op.results[0])))
    cost = math.ceil(op.cost.value.data * share) if op.cost is not None else None
    hints = op.inplace_indices()
    inplace = [k if k >= 0 and operands[k].type == rt else -1 for k in hints]
    if "names" in attrs:
        attrs["names"] = ArrayAttr([StringAttr(f"{_name(op.results[0])}.p{p}")])
    new = ComputeOp(op.kind, operands, [rt], cost=cost,
                    inplace=inplace if any(k >= 0 for k in inplace) else None, attributes=attrs)
    new.results[0].name_hint = f"{op.results[0].name_hint or 'v'}.p{p}"
    return new, cost


def _insert_patch(em: _Emitter, acc: SSAValue | None, patch: SSAValue, last: Operation, ident: int,
                  corner: tuple[int, int], hw: tuple[int, int]) -> SSAValue:
    """The tiled result with ``patch`` inserted at ``corner`` (its first patch: into an empty
    tensor of the result's type)."""
    out_t = last.results[0].type
    assert isinstance(out_t, TensorType)
    if acc is None:
        empty = ComputeOp("empty", [], [out_t], cost=0)
        empty.results[0].name_hint = f"{last.results[0].name_hint or 'v'}.tiled"
        acc = em.put(empty, ident, last).results[0]
    offsets = [0] * 4
    offsets[hw[0]], offsets[hw[1]] = corner
    ins = ComputeOp("insert_slice", [patch, acc], [out_t], cost=math.prod(_shape(patch)),
                    inplace=[1], attributes={"offsets": _array(offsets)})
    ins.results[0].name_hint = f"{last.results[0].name_hint or 'v'}.tiled"
    return em.put(ins, ident, last).results[0]


def stream_inputs(members: list[Operation], specs: dict, block: Block, h: int, w: int,
                  active: set[SSAValue] | None = None) -> list[SSAValue]:
    """The inputs of the run ``members`` it may stream from an off-chip home (in first-read
    order); ``active``: :func:`activations` of ``block``, when known."""
    made = {r for op in members for r in op.results}
    inside = set(members)
    active = activations(block) if active is None else active
    out: list[SSAValue] = []
    for op in members:
        for k in specs[op].spatial:
            v = op.operands[k]
            if v not in made and v in active and v not in out and streamable(v, value_hw(v, h, w)[0], inside, block):
                out.append(v)
    return out


def stream_names(first: Operation, last: Operation, layout: str | None = None) -> list[str]:
    """The names of the inputs the run from ``first`` to ``last`` may stream."""
    layout = layout or _layout(first, last)
    members = _members(first, last, lambda op: layout)
    block = last.parent_block()
    assert block is not None
    h, w = _hw(layout)
    return [_name(v) for v in stream_inputs(members, {op: _spec(op, layout) for op in members}, block, h, w)]


def _homes(members, specs, made, block: Block, h: int, w: int, stream: str | None) -> dict[SSAValue, SSAValue]:
    if stream is None:
        return {}
    return {v: home_of(v, stream) for v in stream_inputs(members, specs, block, h, w)}


# Public names for the choice (memopt.passes.tile_options, memopt.passes.tile_fit).
hw_axes = _hw
op_name = _name
spec_of = _spec
Spec = _Spec


__all__ = ["CONCAT", "ELEMENTWISE", "activations", "hw_axes", "op_name", "parse_grid", "spec_of", "stream_inputs", "stream_names",
           "tile_ops", "tile_run", "value_hw"]
