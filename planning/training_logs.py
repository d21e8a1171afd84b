"""Eager training-iteration logs of real architectures, as :class:`~memopt.planning.remat.RematGraph`.

:mod:`memopt.planning.training` derives backward passes of toy forward graphs: one output per op,
no parameters, no in-place ops, no views. A log of a real PyTorch training step (what
``torch.profiler``, ``__torch_dispatch__`` or a torch-mlir conversion records) has all of these, and
each changes what a memory planner or a rematerializer can do:

* **in-place ops** — ``relu_`` after batch norm, ``add_`` for residual adds and for gradient
  accumulation, ``masked_fill_`` on attention scores, the optimizer's ``sgd_`` on every parameter:
  the output takes the storage of the input it overwrites (``RematOp.inplace``). A log only has
  them where the overwritten value dies at that op (autograd refuses to overwrite a saved tensor),
  and so does every log here (checked when a log is built);
* **multi-output ops** — ``native_batch_norm``/``native_layer_norm`` return their output plus small
  saved statistics (mean, inverse std: a few bytes per channel or row) that only the backward
  reads; ``max_pool2d_with_indices`` returns int64 indices; the fused LSTM cell returns ``h``,
  ``c`` and its saved gates; ``nll_loss_forward`` the loss and its total weight; backward ops
  return input and parameter gradients together;
* **views** — flatten/reshape/transpose before a linear layer, ``chunk`` of the QKV projection,
  per-step slices of the LSTM's input gates, slices of a concatenation's gradient; views of
  arguments (every linear layer's transposed weight, a slice of the position embedding, a step of
  the input sequence). A view is no tensor: its readers read its source's storage, often hundreds
  of ops after the view was taken (the backward reads what the forward saved through it);
* **arguments** — parameters, the input batch, labels, an attention mask, initial LSTM state and a
  one-byte learning rate: pinned, never recomputable;
* **autograd's schedule** — backward nodes run in reverse creation order, each reading what
  autograd saves for it (conv: input and weight; ``relu_``: its output; batch norm: input, mean,
  invstd, weight; matmul: both operands; add: nothing; softmax: its output), partial gradients
  are summed as soon as the second one arrives, and a parameter's gradient is consumed by its
  in-place ``sgd_`` update as soon as it is complete (an optimizer fused into the backward). The
  function's results are the updated parameters and the loss.

Architectures (:data:`LOGS`): :func:`resnet` (18/34/50), :func:`densenet` (DenseNet-BC),
:func:`inception` (GoogLeNet with batch norm), :func:`unet`, :func:`transformer` (a pre-norm GPT)
and :func:`lstm` (a language model). Each is ``name(seed=0, **knobs)``: a knob left ``None`` is
drawn from ``seed`` (depth, width, resolution or sequence length, batch — realistic ranges), so
fresh seeds give different logs of the same shape of network and a seed always the same log;
:data:`SMALL` holds knobs of a small log of each (kilobytes, a hundred or two ops) to execute.
Costs are MACs (convolution ``N·H·W·Cout·Cin·k²/groups``, matmul ``M·K·N``, element-wise ops one
per element; a backward conv or matmul twice its forward); sizes are bytes (float32 activations).

A log is a :class:`TrainingLog`: a ``RematGraph`` (tensor ids: the arguments in order, then op
results in schedule order — the numbering ``remat_graph`` gives the printed program) that also
keeps what the graph abstracts away (op kinds, operands with their views, dtypes, shapes).
:func:`logs_to_mlir` prints one as a memopt-dialect function that ``memopt-opt`` parses and plans
and ``memopt-run --check`` executes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .remat import RematGraph, RematOp

ITEM = {"f32": 4, "i32": 4, "i64": 8, "i8": 1}
"""Bytes per element of the dtypes a log uses."""


@dataclass(frozen=True)
class LogView:
    """A ``memopt.view``: ``size`` bytes of value ``source`` from byte ``offset`` on."""

    source: int
    """A value id: a tensor id, or ``len(sizes) + j`` for view ``j`` (a view of a view)."""
    offset: int
    size: int
    before: int
    """Index of the op it is printed before (where the program takes it)."""
    name: str
    shape: tuple[int, ...] = ()


@dataclass(frozen=True)
class TrainingLog(RematGraph):
    """A training-iteration log: the remat graph plus what printing it as IR needs.

    Values are tensors (ids ``0 .. len(sizes)-1``) and views (id ``len(sizes) + j``)."""

    arch: str = ""
    knobs: tuple[tuple[str, int], ...] = ()
    """The architecture's knobs as drawn (or given)."""
    kinds: tuple[str, ...] = ()
    """Per op: its kind (``convolution``, ``relu_``, ``native_batch_norm_backward`` ...)."""
    operands: tuple[tuple[int, ...], ...] = ()
    """Per op: the values it reads, in operand order (a view where it reads through one);
    ``ops[k].inputs`` are their root tensors, deduplicated."""
    views: tuple[LogView, ...] = ()
    dtypes: tuple[str, ...] = ()
    """Per tensor: ``f32``, ``i32``, ``i64`` or ``i8``."""
    shapes: tuple[tuple[int, ...], ...] = ()
    """Per tensor: its logical shape (the printed types are flat)."""
    params: tuple[int, ...] = ()
    """The parameter arguments (each updated by one ``sgd_``)."""
    forward_ops: int = 0
    """Ops ``0 .. forward_ops-1`` are the forward pass (through the loss), the rest backward."""

    def root(self, value: int) -> int:
        """The tensor a value reads (itself, or the root of a view chain)."""
        n = len(self.sizes)
        while value >= n:
            value = self.views[value - n].source
        return value

    def value_size(self, value: int) -> int:
        n = len(self.sizes)
        return self.views[value - n].size if value >= n else self.sizes[value]

    def inplace_operands(self, k: int) -> tuple[int, ...]:
        """Op ``k``'s ``inplace`` hint as the IR has it: per output, an operand index or -1."""
        op = self.ops[k]
        if not op.inplace:
            return tuple(-1 for _ in op.outputs)
        return tuple(self.operands[k].index(t) if t >= 0 else -1 for t in op.inplace)


# --------------------------------------------------------------------------------- the tape


@dataclass
class _Op:
    kind: str
    operands: list[int]
    outputs: list[int]
    cost: int
    inplace: list[int]
    may: bool = False
    """An accumulation: in place on an operand that dies here if there is one, else not."""


@dataclass
class _Node:
    inputs: list[int]
    outputs: list[int]
    backward: Callable[[list], dict]


class _Tape:
    """Records forward ops and autograd nodes; :meth:`backward` runs the engine."""

    def __init__(self) -> None:
        self.shape: list[tuple[int, ...]] = []
        self.dtype: list[str] = []
        self.name: list[str] = []
        self.src: list[tuple[int, int] | None] = []
        self.before: dict[int, int] = {}
        self.used: set[str] = set()
        self.args: list[int] = []
        self.params: list[int] = []
        self.ops: list[_Op] = []
        self.nodes: list[_Node] = []
        self.req: set[int] = set()
        self.results: list[int] = []
        self.lr = self.arg("lr", (1,), "i8")
        self.forward_ops = 0

    # values -----------------------------------------------------------------------------
    def _value(self, shape, dtype: str, name: str, src=None) -> int:
        name = re.sub(r"[^A-Za-z0-9_.$-]", "_", name)
        if not name or not name[0].isalpha():
            name = "v" + name
        base, k = name, 1
        while name in self.used:
            name = f"{base}.{k}"
            k += 1
        self.used.add(name)
        self.shape.append(tuple(int(d) for d in shape))
        self.dtype.append(dtype)
        self.name.append(name)
        self.src.append(src)
        return len(self.shape) - 1

    def nbytes(self, v: int) -> int:
        return math.prod(self.shape[v]) * ITEM[self.dtype[v]]

    def elems(self, v: int) -> int:
        return math.prod(self.shape[v])

    def root(self, v: int) -> int:
        while (src := self.src[v]) is not None:
            v = src[0]
        return v

    def source(self, v: int) -> tuple[int, int]:
        """The (value, byte offset) view ``v`` is of."""
        src = self.src[v]
        assert src is not None, "not a view"
        return src

    def arg(self, name: str, shape, dtype: str = "f32") -> int:
        v = self._value(shape, dtype, name)
        self.args.append(v)
        return v

    def param(self, name: str, shape) -> int:
        v = self.arg(name, shape)
        self.params.append(v)
        self.req.add(v)
        return v

    def raw_view(self, x: int, shape, offset: int = 0, name: str | None = None) -> int:
        """A view without autograd (one the backward takes of what it reads)."""
        v = self._value(shape, self.dtype[x], name or f"{self.name[x]}.view", (x, offset))
        assert offset >= 0 and offset + self.nbytes(v) <= self.nbytes(x), (self.name[x], offset)
        self.before[v] = len(self.ops)
        return v

    def emit(self, kind: str, operands, outs, cost, inplace=None, may: bool = False) -> list[int]:
        """An op reading ``operands`` and writing new tensors ``outs`` = [(shape, dtype, name)]."""
        ys = [self._value(s, d, n) for s, d, n in outs]
        for x in operands:
            assert x < len(self.shape)
        self.ops.append(_Op(kind, list(operands), ys, int(max(cost, 1)), list(inplace or [-1] * len(ys)), may))
        return ys

    def node(self, inputs, outputs, backward) -> None:
        inputs = [x for x in dict.fromkeys(inputs) if x is not None and x in self.req]
        if not inputs:
            return
        self.req.update(outputs)
        self.nodes.append(_Node(inputs, list(outputs), backward))

    # autograd views ----------------------------------------------------------------------
    def view(self, x: int, shape, name: str | None = None) -> int:
        """A reshape/transpose/flatten view (same bytes); its backward views the gradient."""
        v = self.raw_view(x, shape, 0, name)
        self.node([x], [v], lambda gs: {x: self.raw_view(gs[0], self.shape[x], 0, f"{self.name[x]}.grad")})
        return v

    def slice_(self, x: int, shape, offset: int, name: str) -> int:
        """A slice (narrow/select) view; its backward writes the gradient into zeros."""
        v = self.raw_view(x, shape, offset, name)

        def bw(gs):
            return {x: self.emit("slice_backward", [gs[0]], [(self.shape[x], "f32", f"{self.name[x]}.grad")],
                                 self.elems(x))[0]}
        self.node([x], [v], bw)
        return v

    def split(self, x: int, names: list[str], shape, join: str) -> list[int]:
        """``chunk``/``unbind`` into contiguous views, one per name; backward: ``join`` (cat/stack)."""
        step = self.nbytes(x) // len(names)
        vs = [self.raw_view(x, shape, k * step, nm) for k, nm in enumerate(names)]

        def bw(gs):
            gs = [g if g is not None else self.emit("zeros", [], [(shape, "f32", f"{nm}.zeros")], 1)[0]
                  for nm, g in zip(names, gs)]
            return {x: self.emit(join, gs, [(self.shape[x], "f32", f"{self.name[x]}.grad")], self.elems(x))[0]}
        self.node([x], vs, bw)
        return vs

    # the engine ---------------------------------------------------------------------------
    def backward(self, loss: int) -> None:
        """Seed ``loss``'s gradient, run every node in reverse creation order, sum partial
        gradients as they arrive, update each parameter once its gradient is complete."""
        self.forward_ops = len(self.ops)
        grads: dict[int, int] = {loss: self.emit("ones_like", [loss], [((1,), "f32", "loss.grad")], 1)[0]}
        pending: dict[int, int] = {}
        for nd in self.nodes:
            for x in nd.inputs:
                if x in self.params:
                    pending[x] = pending.get(x, 0) + 1
        updated: dict[int, int] = {}
        for nd in reversed(self.nodes):
            gs = [grads.pop(y, None) for y in nd.outputs]
            got = nd.backward(gs) if any(g is not None for g in gs) else {}
            for x in nd.inputs:
                g = got.get(x)
                if g is not None:
                    if x in grads:
                        grads[x] = self.emit("add", [grads[x], g], [(self.shape[x], "f32", f"{self.name[x]}.grad")],
                                             self.elems(x), may=True)[0]
                    else:
                        grads[x] = g
                if x in pending:
                    pending[x] -= 1
                    if pending[x] == 0 and x in grads:
                        g = grads.pop(x)
                        updated[x] = self.emit("sgd_", [x, g, self.lr], [(self.shape[x], "f32", f"{self.name[x]}.new")],
                                               self.elems(x), inplace=[0])[0]
        assert set(updated) == set(self.params), "a parameter got no gradient"
        self.results = [updated[p] for p in self.params] + [loss]

    # finishing ----------------------------------------------------------------------------
    def finish(self, arch: str, knobs: dict) -> TrainingLog:
        last: dict[int, int] = {}
        for k, op in enumerate(self.ops):
            for x in op.operands:
                last[self.root(x)] = k
        results = set(self.results)
        args = set(self.args)

        def dies(x: int, k: int, out: int) -> bool:
            return (self.src[x] is None and x not in results and last.get(x) == k
                    and self.nbytes(x) >= self.nbytes(out) and self.dtype[x] == self.dtype[out])

        for k, op in enumerate(self.ops):
            if op.may:
                ok = [j for j, x in enumerate(op.operands) if x not in args and dies(x, k, op.outputs[0])]
                if ok:
                    if ok[0] != 0:
                        op.operands.reverse()  # x.add_(y): the tensor taken is the first operand
                    op.inplace, op.kind = [0], op.kind + "_"
            for j, y in zip(op.inplace, op.outputs):
                if j >= 0:
                    assert dies(op.operands[j], k, y), f"{op.kind} overwrites {self.name[op.operands[j]]}, read later"
        # canonical numbering: arguments, then results in schedule order (the IR tracer's)
        order = list(self.args) + [y for op in self.ops for y in op.outputs]
        tid = {v: i for i, v in enumerate(order)}
        n = len(order)
        view_vals = sorted(self.before)  # creation order = print order
        vid = {v: n + j for j, v in enumerate(view_vals)}

        def canon(v: int) -> int:
            return tid[v] if v in tid else vid[v]

        views = tuple(LogView(canon(self.source(v)[0]), self.source(v)[1], self.nbytes(v), self.before[v],
                              self.name[v], self.shape[v]) for v in view_vals)
        ops = []
        for op in self.ops:
            reads = tuple(dict.fromkeys(tid[self.root(x)] for x in op.operands))
            inplace = tuple(tid[op.operands[j]] if j >= 0 else -1 for j in op.inplace)
            name = f"{self.name[op.outputs[0]]}:{op.kind}"
            ops.append(RematOp(name, float(op.cost), reads, tuple(tid[y] for y in op.outputs),
                               inplace=inplace if any(t >= 0 for t in inplace) else ()))
        return TrainingLog(
            sizes=tuple(self.nbytes(v) for v in order), ops=tuple(ops), inputs=tuple(range(len(self.args))),
            outputs=tuple(tid[v] for v in self.results), names=tuple(self.name[v] for v in order),
            arch=arch, knobs=tuple((k, int(v)) for k, v in knobs.items()),
            kinds=tuple(op.kind for op in self.ops),
            operands=tuple(tuple(canon(x) for x in op.operands) for op in self.ops),
            views=views, dtypes=tuple(self.dtype[v] for v in order), shapes=tuple(self.shape[v] for v in order),
            params=tuple(tid[p] for p in self.params), forward_ops=self.forward_ops,
        )

    # layers -------------------------------------------------------------------------------
    def conv(self, x: int, cout: int, k: int, stride: int = 1, name: str = "conv", bias: bool = False,
             groups: int = 1) -> int:
        n, c, h, w = self.shape[x]
        pad = k // 2
        ho, wo = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        wt = self.param(f"{name}.weight", (cout, c // groups, k, k))
        b = self.param(f"{name}.bias", (cout,)) if bias else None
        macs = n * ho * wo * cout * c * k * k // groups
        (y,) = self.emit("convolution", [x, wt] + ([b] if b is not None else []), [((n, cout, ho, wo), "f32", name)], macs)
        self._conv_node("convolution_backward", x, wt, b, y, macs)
        return y

    def conv_transpose(self, x: int, cout: int, name: str) -> int:
        """A 2×2 stride-2 transposed convolution with bias (U-Net's up-sampling)."""
        n, c, h, w = self.shape[x]
        wt = self.param(f"{name}.weight", (c, cout, 2, 2))
        b = self.param(f"{name}.bias", (cout,))
        macs = n * h * w * c * cout * 4
        (y,) = self.emit("conv_transpose2d", [x, wt, b], [((n, cout, 2 * h, 2 * w), "f32", name)], macs)
        self._conv_node("conv_transpose2d_backward", x, wt, b, y, macs)
        return y

    def _conv_node(self, kind: str, x: int, wt: int, b: int | None, y: int, macs: int) -> None:
        def bw(gs):
            want_x = x in self.req
            outs = ([(self.shape[x], "f32", f"{self.name[x]}.grad")] if want_x else []) + \
                [(self.shape[wt], "f32", f"{self.name[wt]}.grad")] + \
                ([(self.shape[b], "f32", f"{self.name[b]}.grad")] if b is not None else [])
            r = self.emit(kind, [gs[0], x, wt], outs, macs * (2 if want_x else 1))
            got = dict(zip(([x] if want_x else []) + [wt] + ([b] if b is not None else []), r))
            return got
        self.node([x, wt, b], [y], bw)

    def _norm(self, x: int, kind: str, pshape, stats, name: str) -> int:
        wt = self.param(f"{name}.weight", pshape)
        b = self.param(f"{name}.bias", pshape)
        e = self.elems(x)
        y, mean, inv = self.emit(kind, [x, wt, b], [(self.shape[x], "f32", name), (stats, "f32", f"{name}.mean"),
                                                    (stats, "f32", f"{name}.invstd")], 2 * e)

        def bw(gs):
            gx, gw, gb = self.emit(kind + "_backward", [gs[0], x, wt, mean, inv],
                                   [(self.shape[x], "f32", f"{self.name[x]}.grad"), (pshape, "f32", f"{name}.weight.grad"),
                                    (pshape, "f32", f"{name}.bias.grad")], 3 * e)
            return {x: gx, wt: gw, b: gb}
        self.node([x, wt, b], [y], bw)
        return y

    def batch_norm(self, x: int, name: str) -> int:
        c = self.shape[x][1]
        return self._norm(x, "native_batch_norm", (c,), (c,), name)

    def layer_norm(self, x: int, name: str) -> int:
        d = self.shape[x][-1]
        return self._norm(x, "native_layer_norm", (d,), (self.elems(x) // d,), name)

    def relu_(self, x: int, name: str) -> int:
        (y,) = self.emit("relu_", [x], [(self.shape[x], "f32", name)], self.elems(x), inplace=[0])
        self.node([x], [y], lambda gs: {x: self.emit("threshold_backward", [gs[0], y],
                                                     [(self.shape[x], "f32", f"{name}.grad")], self.elems(x))[0]})
        return y

    def add_(self, a: int, b: int, name: str) -> int:
        """``a.add_(b)``: a residual add over ``a`` (which dies here); backward passes through."""
        (y,) = self.emit("add_", [a, b], [(self.shape[a], "f32", name)], self.elems(a), inplace=[0])
        self.node([a, b], [y], lambda gs: {a: gs[0], b: gs[0]})
        return y

    def unary(self, kind: str, x: int, name: str, saves_output: bool, inplace: bool = False, mask: int | None = None) -> int:
        """An element-wise op; its backward reads its output or its input (and ``mask``)."""
        extra = [mask] if mask is not None else []
        (y,) = self.emit(kind, [x] + extra, [(self.shape[x], "f32", name)], self.elems(x), inplace=[0] if inplace else None)
        bkind = {"_softmax": "_softmax_backward_data", "_log_softmax": "_log_softmax_backward_data",
                 "gelu": "gelu_backward", "masked_fill_": "masked_fill"}[kind]

        def bw(gs):
            saved = [] if mask is not None else [y if saves_output else x]
            return {x: self.emit(bkind, [gs[0]] + saved + extra, [(self.shape[x], "f32", f"{name}.grad")],
                                 self.elems(x))[0]}
        self.node([x], [y], bw)
        return y

    def max_pool(self, x: int, k: int, stride: int, name: str) -> int:
        n, c, h, w = self.shape[x]
        pad = k // 2 if k % 2 else 0
        ho, wo = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        y, idx = self.emit("max_pool2d_with_indices", [x], [((n, c, ho, wo), "f32", name), ((n, c, ho, wo), "i64", f"{name}.indices")],
                           n * c * ho * wo * k * k)
        self.node([x], [y], lambda gs: {x: self.emit("max_pool2d_with_indices_backward", [gs[0], x, idx],
                                                     [(self.shape[x], "f32", f"{name}.grad")], self.elems(x))[0]})
        return y

    def avg_pool(self, x: int, name: str, out_hw: int | None = None) -> int:
        """2×2 average pooling, or global (adaptive) average pooling when ``out_hw`` is 1."""
        n, c, h, w = self.shape[x]
        shape = (n, c, 1, 1) if out_hw == 1 else (n, c, h // 2, w // 2)
        kind = "_adaptive_avg_pool2d" if out_hw == 1 else "avg_pool2d"
        (y,) = self.emit(kind, [x], [(shape, "f32", name)], self.elems(x))
        self.node([x], [y], lambda gs: {x: self.emit(kind + "_backward", [gs[0], x],
                                                     [(self.shape[x], "f32", f"{name}.grad")], self.elems(x))[0]})
        return y

    def cat(self, xs: list[int], name: str, kind: str = "cat") -> int:
        """``cat`` along channels (or ``stack``); backward: a slice view of the gradient per input."""
        xs = list(xs)
        first = self.shape[xs[0]]
        if kind == "stack":
            shape = (len(xs),) + first
        else:
            shape = (first[0], sum(self.shape[x][1] for x in xs)) + first[2:]
        (y,) = self.emit(kind, xs, [(shape, "f32", name)], math.prod(shape))

        def bw(gs):
            got, off = {}, 0
            for x in xs:
                got[x] = self.raw_view(gs[0], self.shape[x], off, f"{self.name[x]}.grad")
                off += self.nbytes(x)
            return got
        self.node(xs, [y], bw)
        return y

    def linear(self, x: int, out: int, name: str, bias: bool = True, wt: int | None = None, b: int | None = None) -> int:
        """``F.linear``: ``addmm(b, x, W.t())`` on a 2-D view of ``x``; ``wt`` a transposed weight
        view to reuse (an RNN's), else one is taken of a new ``W``."""
        if wt is None:
            w = self.param(f"{name}.weight", (out, self.shape[x][-1]))
            wt = self.view(w, (self.shape[x][-1], out), f"{name}.weight.t")
            b = self.param(f"{name}.bias", (out,)) if bias else None
        lead = self.shape[x][:-1]
        x2 = x if len(lead) == 1 else self.view(x, (math.prod(lead), self.shape[x][-1]), f"{self.name[x]}.flat")
        y = self.addmm(x2, wt, b, name)
        return y if len(lead) == 1 else self.view(y, lead + (out,), f"{name}.unflat")

    def addmm(self, x: int, wt: int, b: int | None, name: str) -> int:
        m, k = self.shape[x]
        n = self.shape[wt][1]
        macs = m * k * n
        ops = ([b] if b is not None else []) + [x, wt]
        (y,) = self.emit("addmm" if b is not None else "mm", ops, [((m, n), "f32", name)], macs)

        def bw(gs):
            g = gs[0]
            got = {}
            if x in self.req:
                got[x] = self.emit("mm", [g, wt], [((m, k), "f32", f"{self.name[x]}.grad")], macs)[0]
            xt = self.raw_view(x, (k, m), 0, f"{self.name[x]}.t")
            got[wt] = self.emit("mm", [xt, g], [((k, n), "f32", f"{self.name[wt]}.grad")], macs)[0]
            if b is not None:
                got[b] = self.emit("sum", [g], [((n,), "f32", f"{self.name[b]}.grad")], m * n)[0]
            return got
        self.node([b, x, wt], [y], bw)
        return y

    def bmm(self, a: int, b: int, name: str) -> int:
        bt, m, k = self.shape[a]
        n = self.shape[b][2]
        macs = bt * m * k * n
        (y,) = self.emit("bmm", [a, b], [((bt, m, n), "f32", name)], macs)

        def bw(gs):
            g = gs[0]
            btr = self.raw_view(b, (bt, n, k), 0, f"{self.name[b]}.t")
            ga = self.emit("bmm", [g, btr], [((bt, m, k), "f32", f"{self.name[a]}.grad")], macs)[0]
            atr = self.raw_view(a, (bt, k, m), 0, f"{self.name[a]}.t")
            gb = self.emit("bmm", [atr, g], [((bt, k, n), "f32", f"{self.name[b]}.grad")], macs)[0]
            return {a: ga, b: gb}
        self.node([a, b], [y], bw)
        return y

    def embedding(self, w: int, ids: int, name: str) -> int:
        e = self.shape[w][1]
        (y,) = self.emit("embedding", [w, ids], [(self.shape[ids] + (e,), "f32", name)], self.elems(ids) * e)
        self.node([w], [y], lambda gs: {w: self.emit("embedding_dense_backward", [gs[0], ids],
                                                     [(self.shape[w], "f32", f"{self.name[w]}.grad")],
                                                     self.elems(w) + self.elems(ids) * e)[0]})
        return y

    def cross_entropy(self, logits: int, labels: int, name: str = "loss", kind: str = "nll_loss") -> int:
        """``log_softmax`` then ``nll_loss`` (loss and total weight) — the loss tensor."""
        logp = self.unary("_log_softmax", logits, f"{name}.logp", saves_output=True)
        loss, total = self.emit(f"{kind}_forward", [logp, labels], [((1,), "f32", name), ((1,), "f32", f"{name}.total_weight")],
                                self.elems(logp))
        self.node([logp], [loss], lambda gs: {logp: self.emit(f"{kind}_backward", [gs[0], logp, labels, total],
                                                              [(self.shape[logp], "f32", f"{name}.logp.grad")],
                                                              self.elems(logp))[0]})
        return loss


def _draw(seed: int, given: dict, choices: dict) -> dict:
    """Every knob drawn from ``seed`` in a fixed order; a given (non-None) knob wins."""
    rng = np.random.default_rng(seed)
    out = {}
    for k, options in choices.items():
        drawn = options[int(rng.integers(len(options)))]
        out[k] = given[k] if given.get(k) is not None else drawn
    return out


# ---------------------------------------------------------------------------- architectures


def resnet(seed: int = 0, depth: int | None = None, width: int | None = None, resolution: int | None = None,
           batch: int | None = None, classes: int | None = None) -> TrainingLog:
    """torchvision's ResNet-18/34 (basic blocks) or -50 (bottlenecks): conv-bn-``relu_``, a 3×3
    max pool with indices, residual ``add_``, global average pool, flatten (a view), fc. The seed
    draws depth 18, 34 or 50; 10 and 26 (basic and bottleneck blocks, one or two per stage) may be
    given for small logs."""
    kn = _draw(seed, dict(depth=depth, width=width, resolution=resolution, batch=batch, classes=classes),
               dict(depth=(18, 34, 50), width=range(32, 65, 8), resolution=range(64, 225, 16),
                    batch=range(4, 33, 4), classes=(10, 100, 1000)))
    blocks = {10: (1, 1, 1, 1), 18: (2, 2, 2, 2), 26: (2, 2, 2, 2), 34: (3, 4, 6, 3), 50: (3, 4, 6, 3)}[kn["depth"]]
    bottleneck = kn["depth"] in (26, 50)
    t = _Tape()
    n, hw = kn["batch"], kn["resolution"]
    x = t.arg("input", (n, 3, hw, hw))
    labels = t.arg("labels", (n,), "i32")

    def cbr(x, c, k, s, name, relu=True):
        y = t.batch_norm(t.conv(x, c, k, s, f"{name}.conv"), f"{name}.bn")
        return t.relu_(y, f"{name}.relu") if relu else y

    x = cbr(x, kn["width"], 7, 2, "stem")
    x = t.max_pool(x, 3, 2, "maxpool")
    cin = kn["width"]
    for s, nb in enumerate(blocks):
        c = kn["width"] * 2 ** s
        for b in range(nb):
            p = f"layer{s + 1}.{b}"
            stride = 2 if s > 0 and b == 0 else 1
            cout = c * 4 if bottleneck else c
            if bottleneck:
                y = cbr(x, c, 1, 1, f"{p}.1")
                y = cbr(y, c, 3, stride, f"{p}.2")
                y = cbr(y, cout, 1, 1, f"{p}.3", relu=False)
            else:
                y = cbr(x, c, 3, stride, f"{p}.1")
                y = cbr(y, c, 3, 1, f"{p}.2", relu=False)
            skip = cbr(x, cout, 1, stride, f"{p}.down", relu=False) if stride > 1 or cin != cout else x
            x = t.relu_(t.add_(y, skip, f"{p}.add"), f"{p}.relu")
            cin = cout
    x = t.avg_pool(x, "avgpool", out_hw=1)
    x = t.view(x, (n, cin), "flatten")
    loss = t.cross_entropy(t.linear(x, kn["classes"], "fc"), labels)
    t.backward(loss)
    return t.finish("resnet", kn)


def densenet(seed: int = 0, depth: int | None = None, growth: int | None = None, resolution: int | None = None,
             batch: int | None = None, classes: int | None = None) -> TrainingLog:
    """DenseNet-BC (CIFAR layout: three dense blocks of ``(depth-4)/6`` layers): every layer
    concatenates all earlier features (``cat``, read again by batch norm's backward), bn-``relu_``-
    1×1 conv (4·growth), bn-``relu_``-3×3 conv (growth); transitions halve channels and resolution.
    The concatenations' backward hands each feature a slice view of their gradient, summed as
    they arrive."""
    kn = _draw(seed, dict(depth=depth, growth=growth, resolution=resolution, batch=batch, classes=classes),
               dict(depth=(40, 52, 64, 76), growth=range(8, 25, 4), resolution=range(32, 65, 8),
                    batch=range(8, 65, 8), classes=(10, 100)))
    layers = (kn["depth"] - 4) // 6
    k = kn["growth"]
    t = _Tape()
    n, hw = kn["batch"], kn["resolution"]
    x = t.arg("input", (n, 3, hw, hw))
    labels = t.arg("labels", (n,), "i32")
    x = t.conv(x, 2 * k, 3, 1, "conv0")
    for blk in range(3):
        feats = [x]
        for i in range(layers):
            p = f"block{blk + 1}.layer{i + 1}"
            y = t.cat(feats, f"{p}.cat")
            y = t.relu_(t.batch_norm(y, f"{p}.norm1"), f"{p}.relu1")
            y = t.conv(y, 4 * k, 1, 1, f"{p}.conv1")
            y = t.relu_(t.batch_norm(y, f"{p}.norm2"), f"{p}.relu2")
            feats.append(t.conv(y, k, 3, 1, f"{p}.conv2"))
        x = t.cat(feats, f"block{blk + 1}.out")
        c = t.shape[x][1]
        if blk < 2:
            p = f"trans{blk + 1}"
            x = t.relu_(t.batch_norm(x, f"{p}.norm"), f"{p}.relu")
            x = t.conv(x, c // 2, 1, 1, f"{p}.conv")
            x = t.avg_pool(x, f"{p}.pool")
    x = t.relu_(t.batch_norm(x, "norm5"), "relu5")
    c = t.shape[x][1]
    x = t.view(t.avg_pool(x, "avgpool", out_hw=1), (n, c), "flatten")
    loss = t.cross_entropy(t.linear(x, kn["classes"], "classifier"), labels)
    t.backward(loss)
    return t.finish("densenet", kn)


_GOOGLENET = (  # 1x1, 3x3 reduce, 3x3, "5x5" reduce, "5x5" (a 3x3, as torchvision), pool proj
    ("3a", 64, 96, 128, 16, 32, 32), ("3b", 128, 128, 192, 32, 96, 64),
    ("4a", 192, 96, 208, 16, 48, 64), ("4b", 160, 112, 224, 24, 64, 64), ("4c", 128, 128, 256, 24, 64, 64),
    ("4d", 112, 144, 288, 32, 64, 64), ("4e", 256, 160, 320, 32, 128, 128),
    ("5a", 256, 160, 320, 32, 128, 128), ("5b", 384, 192, 384, 48, 128, 128),
)


def inception(seed: int = 0, modules4: int | None = None, width: int | None = None, resolution: int | None = None,
              batch: int | None = None, classes: int | None = None) -> TrainingLog:
    """GoogLeNet with batch norm (torchvision's, no auxiliary heads): a stem, inception modules
    3a-3b, ``modules4`` of 4a-4e, 5a-5b — four branches (1×1; 1×1→3×3; 1×1→3×3; 3×3 max pool→1×1)
    read the same input (four partial gradients) and are concatenated. ``width`` is the channel
    width in percent of GoogLeNet's."""
    kn = _draw(seed, dict(modules4=modules4, width=width, resolution=resolution, batch=batch, classes=classes),
               dict(modules4=(2, 3, 4, 5), width=range(25, 101, 5), resolution=range(64, 225, 16),
                    batch=range(4, 33, 4), classes=(10, 100, 1000)))
    t = _Tape()
    n, hw = kn["batch"], kn["resolution"]

    def ch(c: int) -> int:
        return max(4, c * kn["width"] // 100)

    x = t.arg("input", (n, 3, hw, hw))
    labels = t.arg("labels", (n,), "i32")

    def basic(x, c, k, s, name):
        return t.relu_(t.batch_norm(t.conv(x, ch(c), k, s, f"{name}.conv"), f"{name}.bn"), f"{name}.relu")

    x = basic(x, 64, 7, 2, "conv1")
    x = t.max_pool(x, 3, 2, "maxpool1")
    x = basic(x, 64, 1, 1, "conv2")
    x = basic(x, 192, 3, 1, "conv3")
    x = t.max_pool(x, 3, 2, "maxpool2")
    mods = list(_GOOGLENET[:2]) + list(_GOOGLENET[2:2 + kn["modules4"]]) + list(_GOOGLENET[7:])
    for name, c1, c3r, c3, c5r, c5, pp in mods:
        if name == "4a" or name == "5a":
            x = t.max_pool(x, 3, 2, f"maxpool{name[0]}")
        p = f"inception{name}"
        b1 = basic(x, c1, 1, 1, f"{p}.branch1")
        b2 = basic(basic(x, c3r, 1, 1, f"{p}.branch2.0"), c3, 3, 1, f"{p}.branch2.1")
        b3 = basic(basic(x, c5r, 1, 1, f"{p}.branch3.0"), c5, 3, 1, f"{p}.branch3.1")
        b4 = basic(t.max_pool(x, 3, 1, f"{p}.branch4.pool"), pp, 1, 1, f"{p}.branch4.1")
        x = t.cat([b1, b2, b3, b4], f"{p}.cat")
    c = t.shape[x][1]
    x = t.view(t.avg_pool(x, "avgpool", out_hw=1), (n, c), "flatten")
    loss = t.cross_entropy(t.linear(x, kn["classes"], "fc"), labels)
    t.backward(loss)
    return t.finish("inception", kn)


def unet(seed: int = 0, levels: int | None = None, width: int | None = None, resolution: int | None = None,
         batch: int | None = None, classes: int | None = None) -> TrainingLog:
    """U-Net: double (conv-bn-``relu_``) blocks, max pools with indices going down, transposed
    convolutions going up, each decoder level concatenating the encoder's output of its
    resolution (kept from the start of the forward to the end of the backward), a 1×1 head and a
    per-pixel cross entropy over views of the logits and the labels."""
    kn = _draw(seed, dict(levels=levels, width=width, resolution=resolution, batch=batch, classes=classes),
               dict(levels=(3, 4, 5), width=range(16, 65, 8), resolution=range(64, 257, 32),
                    batch=range(1, 9), classes=(2, 3, 5, 21)))
    t = _Tape()
    n, hw, lv = kn["batch"], kn["resolution"], kn["levels"]
    hw = max(hw // 2 ** lv, 1) * 2 ** lv
    x = t.arg("input", (n, 3, hw, hw))
    labels = t.arg("labels", (n, hw, hw), "i32")

    def double(x, c, name):
        for i in (1, 2):
            x = t.relu_(t.batch_norm(t.conv(x, c, 3, 1, f"{name}.conv{i}"), f"{name}.bn{i}"), f"{name}.relu{i}")
        return x

    c = kn["width"]
    x = double(x, c, "inc")
    skips = []
    for d in range(lv):
        skips.append(x)
        x = double(t.max_pool(x, 2, 2, f"down{d + 1}.pool"), c * 2 ** (d + 1), f"down{d + 1}")
    for d in range(lv - 1, -1, -1):
        cs = c * 2 ** d
        up = t.conv_transpose(x, cs, f"up{lv - d}.up")
        x = double(t.cat([skips[d], up], f"up{lv - d}.cat"), cs, f"up{lv - d}")
    logits = t.conv(x, kn["classes"], 1, 1, "outc", bias=True)
    # the per-pixel loss as segmentation code writes it: cross_entropy(logits.permute(0, 2, 3, 1)
    # .reshape(-1, classes), labels.view(-1)) — a view of the logits and one of the labels
    flat = t.view(logits, (n * hw * hw, kn["classes"]), "outc.flat")
    loss = t.cross_entropy(flat, t.raw_view(labels, (n * hw * hw,), 0, "labels.flat"))
    t.backward(loss)
    return t.finish("unet", kn)


def transformer(seed: int = 0, layers: int | None = None, seq: int | None = None, dim: int | None = None,
                batch: int | None = None, vocab: int | None = None) -> TrainingLog:
    """A pre-norm GPT: token embedding plus a slice (view) of the position embedding; per block
    layer norm, QKV projection ``chunk``-ed (views) and reshaped per head (views), ``bmm`` scores,
    causal ``masked_fill_`` (a one-byte mask argument), softmax, ``bmm`` context, a transposing
    view and its ``clone``, the output projection, residual ``add_``; layer norm, 4× MLP with GELU,
    residual ``add_``; a final layer norm, the LM head and the token cross entropy. Heads are
    64 wide."""
    kn = _draw(seed, dict(layers=layers, seq=seq, dim=dim, batch=batch, vocab=vocab),
               dict(layers=range(3, 13), seq=range(64, 257, 32), dim=range(128, 513, 64),
                    batch=range(2, 17, 2), vocab=range(1000, 8001, 500)))
    t = _Tape()
    b, s, d = kn["batch"], kn["seq"], kn["dim"]
    h = max(d // 64, 1)
    hd = d // h
    ids = t.arg("input_ids", (b, s), "i32")
    labels = t.arg("labels", (b * s,), "i32")
    mask = t.arg("causal_mask", (s, s), "i8")
    wte = t.param("wte.weight", (kn["vocab"], d))
    wpe = t.param("wpe.weight", (2 * s, d))
    tok = t.embedding(wte, ids, "tok_emb")
    pos = t.slice_(wpe, (s, d), 0, "pos_emb")
    (x,) = t.emit("add", [tok, pos], [((b, s, d), "f32", "emb")], b * s * d)
    t.node([tok, pos], [x], lambda gs: {tok: gs[0], pos: t.emit("sum", [gs[0]], [((s, d), "f32", "pos_emb.grad")], b * s * d)[0]})
    x = t.view(x, (b * s, d), "emb.flat")  # the residual stream: one row per token
    for i in range(kn["layers"]):
        p = f"h{i}"
        y = t.layer_norm(x, f"{p}.ln_1")
        qkv = t.linear(y, 3 * d, f"{p}.attn.qkv")
        q, k, v = t.split(qkv, [f"{p}.attn.{c}" for c in "qkv"], (b, s, d), "cat")
        qh = t.view(q, (b * h, s, hd), f"{p}.attn.q_heads")
        kt = t.view(k, (b * h, hd, s), f"{p}.attn.k_heads_t")
        vh = t.view(v, (b * h, s, hd), f"{p}.attn.v_heads")
        sc = t.bmm(qh, kt, f"{p}.attn.scores")
        sc = t.unary("masked_fill_", sc, f"{p}.attn.masked", saves_output=False, inplace=True, mask=mask)
        pr = t.unary("_softmax", sc, f"{p}.attn.probs", saves_output=True)
        ctx = t.bmm(pr, vh, f"{p}.attn.ctx")
        ctx = t.view(ctx, (b, s, h, hd), f"{p}.attn.ctx_t")
        (cc,) = t.emit("clone", [ctx], [((b, s, h, hd), "f32", f"{p}.attn.ctx_contig")], b * s * d)
        t.node([ctx], [cc], lambda gs, ctx=ctx: {ctx: gs[0]})
        cc = t.view(cc, (b * s, d), f"{p}.attn.merged")
        a = t.linear(cc, d, f"{p}.attn.proj")
        x = t.add_(a, x, f"{p}.res1")
        y = t.layer_norm(x, f"{p}.ln_2")
        u = t.unary("gelu", t.linear(y, 4 * d, f"{p}.mlp.fc"), f"{p}.mlp.gelu", saves_output=False)
        x = t.add_(t.linear(u, d, f"{p}.mlp.proj"), x, f"{p}.res2")
    y = t.layer_norm(x, "ln_f")
    loss = t.cross_entropy(t.linear(y, kn["vocab"], "lm_head", bias=False), labels)
    t.backward(loss)
    return t.finish("transformer", kn)


def lstm(seed: int = 0, layers: int | None = None, steps: int | None = None, hidden: int | None = None,
         batch: int | None = None, vocab: int | None = None) -> TrainingLog:
    """An LSTM language model as ATen runs it on CPU: per layer, the input projection of the whole
    sequence at once (``addmm`` over a flattening view, the transposed ``W_ih`` a view of the
    argument), ``unbind`` into per-step slices of the gates (views), then per step ``mm`` with
    the transposed ``W_hh`` and the fused cell returning ``h``, ``c`` and its saved gates; the
    steps' ``h`` are stacked for the next layer. Initial states are arguments; the LM head reads a
    view of the last layer's stacked outputs."""
    kn = _draw(seed, dict(layers=layers, steps=steps, hidden=hidden, batch=batch, vocab=vocab),
               dict(layers=(1, 2, 2, 3), steps=range(24, 49, 4), hidden=range(128, 513, 64),
                    batch=range(8, 65, 8), vocab=range(1000, 10001, 1000)))
    if kn["layers"] * kn["steps"] > 96 and layers is None:
        kn["layers"] = max(1, 96 // kn["steps"])
    t = _Tape()
    T, b, hid, nl = kn["steps"], kn["batch"], kn["hidden"], kn["layers"]
    ids = t.arg("input_ids", (T, b), "i32")
    labels = t.arg("labels", (T * b,), "i32")
    state = [(t.arg(f"h0.{l}", (b, hid)), t.arg(f"c0.{l}", (b, hid))) for l in range(nl)]
    emb = t.embedding(t.param("encoder.weight", (kn["vocab"], hid)), ids, "emb")
    x = emb
    for l in range(nl):
        p = f"rnn.l{l}"
        w_ih = t.param(f"{p}.weight_ih", (4 * hid, hid))
        w_hh = t.param(f"{p}.weight_hh", (4 * hid, hid))
        b_ih = t.param(f"{p}.bias_ih", (4 * hid,))
        b_hh = t.param(f"{p}.bias_hh", (4 * hid,))
        w_iht = t.view(w_ih, (hid, 4 * hid), f"{p}.weight_ih.t")
        w_hht = t.view(w_hh, (hid, 4 * hid), f"{p}.weight_hh.t")
        xs = t.view(x, (T * b, hid), f"{p}.input.flat")
        ig = t.addmm(xs, w_iht, b_ih, f"{p}.igates")
        steps_ = t.split(ig, [f"{p}.t{s}.igates" for s in range(T)], (b, 4 * hid), "stack")
        hh, cc = state[l]
        outs = []
        for s, igs in enumerate(steps_):
            q = f"{p}.t{s}"
            hg = t.addmm(hh, w_hht, None, f"{q}.hgates")
            hn, cn, ws = t.emit("_thnn_fused_lstm_cell", [igs, hg, cc, b_hh],
                                [((b, hid), "f32", f"{q}.h"), ((b, hid), "f32", f"{q}.c"),
                                 ((b, 4 * hid), "f32", f"{q}.workspace")], 4 * b * hid)

            def bw(gs, igs=igs, hg=hg, cc=cc, cn=cn, ws=ws, q=q, b_hh=b_hh):
                grads = [g for g in gs if g is not None]
                outs_ = [((b, 4 * hid), "f32", f"{q}.gates.grad")] + \
                    ([((b, hid), "f32", f"{q}.cx.grad")] if cc in t.req else []) + [((4 * hid,), "f32", f"{q}.bias.grad")]
                r = t.emit("_thnn_fused_lstm_cell_backward", grads + [cc, cn, ws], outs_, 6 * b * hid)
                got = {igs: r[0], hg: r[0], b_hh: r[-1]}
                if cc in t.req:
                    got[cc] = r[1]
                return got
            t.node([igs, hg, cc, b_hh], [hn, cn], bw)
            outs.append(hn)
            hh, cc = hn, cn
        x = t.cat(outs, f"{p}.output", kind="stack")
    y = t.view(x, (T * b, hid), "output.flat")
    loss = t.cross_entropy(t.linear(y, kn["vocab"], "decoder"), labels)
    t.backward(loss)
    return t.finish("lstm", kn)


LOGS: dict[str, Callable[..., TrainingLog]] = {
    "resnet": resnet, "densenet": densenet, "inception": inception, "unet": unet,
    "transformer": transformer, "lstm": lstm,
}
"""The architectures, by name: each ``f(seed=0, **knobs) -> TrainingLog``."""

SMALL: dict[str, dict] = {
    "resnet": dict(depth=10, width=4, resolution=16, batch=2, classes=4),
    "densenet": dict(depth=16, growth=4, resolution=8, batch=2, classes=4),
    "inception": dict(modules4=0, width=4, resolution=16, batch=2, classes=4),
    "unet": dict(levels=2, width=4, resolution=16, batch=1, classes=2),
    "transformer": dict(layers=1, seq=8, dim=16, batch=2, vocab=16),
    "lstm": dict(layers=2, steps=3, hidden=8, batch=2, vocab=16),
}
"""Knobs of a small log of each architecture (kilobytes, fast to execute)."""


# --------------------------------------------------------------------------------- printing


def _type(size: int, dtype: str) -> str:
    item = ITEM[dtype]
    assert size % item == 0, (size, dtype)
    return f"tensor<{max(size // item, 1)}x{dtype}>"


def logs_to_mlir(graph: RematGraph, name: str = "main", numeric: bool = False) -> str:
    """``graph`` (a :class:`TrainingLog`, or any ``RematGraph`` whose sizes are multiples of 4
    or 1) as a memopt-dialect function: arguments its inputs, results its outputs, one
    ``memopt.compute`` per op (``%a, %b = ...`` for several results, ``cost`` and ``inplace``),
    each view a ``memopt.view`` where the log takes it. Types are flat: ``tensor<Nxf32>`` (N =
    bytes / 4; ``i32``/``i64`` per the log's dtypes), ``tensor<1xi8>`` for one-byte tensors.
    SSA names are the log's tensor names, or with ``numeric`` ``%argK`` and ``%0``, ``%1``, … as
    converted real logs have them."""
    log = graph if isinstance(graph, TrainingLog) else None
    n = len(graph.sizes)
    names = graph.names if len(graph.names) == n else ()
    if names and (len(set(names)) < n or not all(re.fullmatch(r"[A-Za-z_$.-][\w$.-]*", s) for s in names)):
        names = ()  # not all valid, distinct SSA names: %tK

    def dtype(t: int) -> str:
        if log is not None and log.dtypes:
            return log.dtypes[t]
        return "i8" if graph.sizes[t] % 4 else "f32"

    views = log.views if log is not None else ()
    vtype: dict[int, str] = {}
    for t in range(n):
        vtype[t] = _type(graph.sizes[t], dtype(t))
    for j, v in enumerate(views):
        assert log is not None  # views come from a log
        vtype[n + j] = _type(v.size, dtype(log.root(n + j)))

    ssa: dict[int, str] = {}
    counter = 0

    def fresh(v: int) -> str:
        nonlocal counter
        if numeric:
            s = f"%{counter}"
            counter += 1
        elif v < n:
            s = f"%{names[v]}" if names else f"%t{v}"
        else:
            s = f"%{views[v - n].name}"
        ssa[v] = s
        return s

    for i, t in enumerate(graph.inputs):
        ssa[t] = f"%arg{i}" if numeric else (f"%{names[t]}" if names else f"%t{t}")
    args = ", ".join(f"{ssa[t]}: {vtype[t]}" for t in graph.inputs)
    outs = ", ".join(vtype[t] for t in graph.outputs)
    lines = [f"func.func @{name}({args}) -> ({outs}) {{"]
    by_op: dict[int, list[int]] = {}
    for j, v in enumerate(views):
        by_op.setdefault(v.before, []).append(n + j)

    def emit_views(k: int) -> None:
        for v in by_op.get(k, ()):
            lv = views[v - n]
            off = f"[offset {lv.offset}]" if lv.offset else ""
            src = ssa[lv.source]
            lhs = fresh(v)
            lines.append(f"  {lhs} = memopt.view {src}{off} : {vtype[lv.source]} -> {vtype[v]}")

    for k, op in enumerate(graph.ops):
        emit_views(k)
        operands = log.operands[k] if log is not None else op.inputs
        kind = log.kinds[k] if log is not None else op.name.replace('"', "")
        if log is not None:
            inplace = log.inplace_operands(k)
        else:
            inplace = tuple(op.inputs.index(t) if t >= 0 else -1 for t in op.inplace) if op.inplace else ()
        attrs = f"cost = {int(op.cost)} : i64"
        if any(j >= 0 for j in inplace):
            attrs += f", inplace = array<i64: {', '.join(map(str, inplace))}>"
        lhs = ", ".join(fresh(t) for t in op.outputs)
        ins = ", ".join(vtype[v] for v in operands)
        res = ", ".join(vtype[t] for t in op.outputs)
        res = res if len(op.outputs) == 1 else f"({res})"
        lines.append(f'  {lhs} = memopt.compute "{kind}"({", ".join(ssa[v] for v in operands)}) {{{attrs}}} : ({ins}) -> {res}')
    emit_views(len(graph.ops))
    lines.append(f"  func.return {', '.join(ssa[t] for t in graph.outputs)} : {outs}")
    lines.append("}")
    return "\n".join(lines) + "\n"


__all__ = ["ITEM", "LOGS", "SMALL", "LogView", "TrainingLog", "densenet", "inception", "logs_to_mlir", "lstm",
           "resnet", "transformer", "unet"]
