"""Training graphs (forward + backward) for rematerialization and pool benchmarks, in code.

Inference graphs free most activations right after their consumer; training keeps every
activation the backward pass reads, which is where rematerialization pays. :func:`with_backward`
derives the backward schedule of any forward :class:`~memopt.planning.remat.RematGraph` the way
reverse-mode autodiff does: a loss op seeds the gradient of the output, then for every forward op
in reverse order one backward op reads the gradients of its outputs and the op's saved inputs
and writes the gradients of its inputs (twice the forward cost, as a rule of thumb for
convolutions and matmuls); a tensor read by several ops gets one partial gradient per reader,
summed by an ``add`` op before its producer's backward runs. Function inputs get no gradient.

The forward generators:

* :func:`linear_chain` — Checkmate's canonical ``gen_linear_graph``: ``n`` unit-cost, unit-size
  layers in a chain (its optimum under a budget is known: Griewank's revolve);
* :func:`resnet` — residual blocks (conv, relu, conv, add with the skip), stages that halve the
  resolution and double the channels, MAC costs, ``float32`` bytes;
* :func:`unet` — an encoder whose every level is kept for the decoder (long skip connections);
* :func:`transformer` — pre-norm blocks: layer norm, QKV projection, attention scores
  (``heads × seq²``), softmax, context, output projection, residual; layer norm, 4× MLP, GELU,
  projection, residual.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from .remat import RematGraph, RematOp


@dataclass
class _Builder:
    sizes: list[int] = field(default_factory=list)
    ops: list[RematOp] = field(default_factory=list)
    inputs: list[int] = field(default_factory=list)

    def tensor(self, size: int) -> int:
        self.sizes.append(int(size))
        return len(self.sizes) - 1

    def input(self, size: int) -> int:
        t = self.tensor(size)
        self.inputs.append(t)
        return t

    def op(self, name: str, cost: float, inputs: list[int], size: int) -> int:
        t = self.tensor(size)
        self.ops.append(RematOp(name, float(cost), tuple(inputs), (t,)))
        return t

    def graph(self, outputs: list[int]) -> RematGraph:
        return RematGraph(tuple(self.sizes), tuple(self.ops), tuple(self.inputs), tuple(outputs))


def with_backward(forward: RematGraph, backward_factor: float = 2.0) -> RematGraph:
    """``forward`` followed by its backward pass (see module docstring); the results are the
    gradients of the forward inputs' consumers' first layer (what an optimizer step reads) —
    here, simply the last gradient computed."""
    sizes = list(forward.sizes)
    ops = list(forward.ops)
    inputs = set(forward.inputs)
    parts: dict[int, list[int]] = {}

    def new(size: int) -> int:
        sizes.append(size)
        return len(sizes) - 1

    last = None
    for out in forward.outputs:
        g = new(sizes[out])
        ops.append(RematOp(f"loss_grad{out}", float(sizes[out] // 4 or 1), (out,), (g,)))
        parts.setdefault(out, []).append(g)
        last = g
    for k in range(len(forward.ops) - 1, -1, -1):
        op = forward.ops[k]
        grads = []
        for o in op.outputs:
            ps = parts.get(o, [])
            if not ps:
                continue
            if len(ps) > 1:
                g = new(sizes[o])
                ops.append(RematOp(f"add_grad{o}", float(len(ps) * (sizes[o] // 4 or 1)), tuple(ps), (g,)))
            else:
                g = ps[0]
            grads.append(g)
        if not grads:
            continue
        outs = []
        for x in op.inputs:
            if x in inputs:
                continue
            gx = new(sizes[x])
            outs.append(gx)
            parts.setdefault(x, []).append(gx)
        if not outs:
            outs = [new(0)]  # a weight-gradient-only op: nothing on chip
        ops.append(RematOp(f"{op.name}_grad", backward_factor * op.cost, tuple(grads) + op.inputs, tuple(outs)))
        last = outs[0]
    return RematGraph(tuple(sizes), tuple(ops), forward.inputs, (last,) if last is not None else ())


def linear_chain(n: int) -> RematGraph:
    """Checkmate's ``gen_linear_graph(n)`` forward and backward: unit costs and sizes."""
    b = _Builder()
    x = b.input(1)
    for i in range(n):
        x = b.op(f"f{i + 1}", 1, [x], 1)
    return with_backward(b.graph([x]), backward_factor=1.0)


F32 = 4


@lru_cache(None)
def _advance(l: int, c: int) -> int:
    """Griewank's revolve: fewest forward steps to reverse ``l`` steps from a checkpoint with
    ``c`` free slots (the first forward sweep paid)."""
    if l <= 1:
        return 0
    if c == 0:
        return l * (l - 1) // 2
    return min(j + _advance(l - j, c - 1) + _advance(j, c) for j in range(1, l))


@lru_cache(None)
def revolve(l: int, c: int) -> int:
    """The fewest recomputations that reverse :func:`linear_chain`'s ``l`` layers with ``c``
    checkpoint slots beyond the working set (Griewank's binomial checkpointing, the first forward
    sweep free: it is the forward pass itself) — the known optimum the remat planners are tested
    against."""
    if l <= 1:
        return 0
    if c == 0:
        return (l - 1) * (l - 2) // 2
    return min([revolve(l, c - 1)] + [revolve(l - j, c - 1) + _advance(j, c) for j in range(1, l)])


def resnet(blocks_per_stage: int = 3, stages: int = 3, channels: int = 16, hw: int = 32, batch: int = 8) -> RematGraph:
    """A CIFAR-style ResNet (ResNet-20 with the defaults) forward and backward."""
    b = _Builder()
    x = b.input(batch * 3 * hw * hw * F32)
    c = channels
    x = b.op("stem", batch * hw * hw * c * 3 * 9, [x], batch * c * hw * hw * F32)
    for s in range(stages):
        for k in range(blocks_per_stage):
            down = s > 0 and k == 0
            h = hw // 2 if down else hw
            cin = c
            cout = c * 2 if down else c
            act = batch * cout * h * h * F32
            a = b.op(f"s{s}b{k}.conv1", batch * h * h * cout * cin * 9, [x], act)
            a = b.op(f"s{s}b{k}.relu1", act // F32, [a], act)
            a = b.op(f"s{s}b{k}.conv2", batch * h * h * cout * cout * 9, [a], act)
            skip = b.op(f"s{s}b{k}.proj", batch * h * h * cout * cin, [x], act) if down else x
            x = b.op(f"s{s}b{k}.add", act // F32, [a, skip], act)
            x = b.op(f"s{s}b{k}.relu2", act // F32, [x], act)
            hw, c = h, cout
    x = b.op("pool", batch * c * hw * hw, [x], batch * c * F32)
    x = b.op("fc", batch * c * 10, [x], batch * 10 * F32)
    return with_backward(b.graph([x]))


def unet(depth: int = 4, channels: int = 16, hw: int = 64, batch: int = 4) -> RematGraph:
    """A U-Net forward and backward: every encoder level is read again by the decoder."""
    b = _Builder()
    x = b.input(batch * 3 * hw * hw * F32)
    c, cin = channels, 3
    skips = []
    for d in range(depth):
        act = batch * c * hw * hw * F32
        x = b.op(f"enc{d}.conv1", batch * hw * hw * c * cin * 9, [x], act)
        x = b.op(f"enc{d}.conv2", batch * hw * hw * c * c * 9, [x], act)
        skips.append((x, c, hw))
        x = b.op(f"enc{d}.pool", act // F32, [x], act // 4)
        hw //= 2
        cin, c = c, c * 2
    x = b.op("mid.conv", batch * hw * hw * c * cin * 9, [x], batch * c * hw * hw * F32)
    for d in range(depth - 1, -1, -1):
        skip, sc, shw = skips[d]
        up = b.op(f"dec{d}.up", batch * shw * shw * sc * c, [x], batch * sc * shw * shw * F32)
        cat = b.op(f"dec{d}.concat", batch * 2 * sc * shw * shw, [up, skip], batch * 2 * sc * shw * shw * F32)
        x = b.op(f"dec{d}.conv", batch * shw * shw * sc * 2 * sc * 9, [cat], batch * sc * shw * shw * F32)
        c, hw = sc, shw
    x = b.op("head", batch * hw * hw * c, [x], batch * hw * hw * F32)
    return with_backward(b.graph([x]))


def transformer(layers: int = 4, seq: int = 128, dim: int = 256, heads: int = 4, batch: int = 4) -> RematGraph:
    """Pre-norm transformer blocks forward and backward (a BERT-style encoder stack)."""
    b = _Builder()
    tok = batch * seq * dim * F32
    x = b.input(tok)
    for i in range(layers):
        n = b.op(f"l{i}.ln1", batch * seq * dim * 5, [x], tok)
        qkv = b.op(f"l{i}.qkv", batch * seq * dim * 3 * dim, [n], 3 * tok)
        scores = b.op(f"l{i}.scores", batch * heads * seq * seq * (dim // heads), [qkv], batch * heads * seq * seq * F32)
        probs = b.op(f"l{i}.softmax", batch * heads * seq * seq * 5, [scores], batch * heads * seq * seq * F32)
        ctx = b.op(f"l{i}.context", batch * heads * seq * seq * (dim // heads), [probs, qkv], tok)
        att = b.op(f"l{i}.proj", batch * seq * dim * dim, [ctx], tok)
        x = b.op(f"l{i}.res1", batch * seq * dim, [att, x], tok)
        n = b.op(f"l{i}.ln2", batch * seq * dim * 5, [x], tok)
        h = b.op(f"l{i}.up", batch * seq * dim * 4 * dim, [n], 4 * tok)
        h = b.op(f"l{i}.gelu", batch * seq * 4 * dim * 8, [h], 4 * tok)
        h = b.op(f"l{i}.down", batch * seq * 4 * dim * dim, [h], tok)
        x = b.op(f"l{i}.res2", batch * seq * dim, [h, x], tok)
    return with_backward(b.graph([x]))


TRAINING_GRAPHS = {
    "linear-chain-32": lambda: linear_chain(32),
    "resnet-20": lambda: resnet(),
    "unet-4": lambda: unet(),
    "transformer-4": lambda: transformer(),
}
"""The generated training graphs of ``bench/remat.py`` (and ``bench/pool.py``), by name."""


__all__ = ["TRAINING_GRAPHS", "linear_chain", "resnet", "revolve", "to_mlir", "transformer", "unet", "with_backward"]


def to_mlir(graph: RematGraph, name: str = "main", views: bool = False) -> str:
    """``graph`` as a memopt-dialect function (text): tensors as ``tensor<Nxi8>``, each op a
    ``memopt.compute`` with its ``cost``; inputs are the arguments, outputs the results. With
    ``views``, every other read of a multi-reader tensor goes through a ``memopt.view`` (an alias,
    as a reshape is), so rewrites must re-apply views on recomputed tensors."""
    def ty(t: int) -> str:
        return f"tensor<{max(graph.sizes[t], 1)}xi8>"

    args = ", ".join(f"%t{t}: {ty(t)}" for t in graph.inputs)
    outs = ", ".join(ty(t) for t in graph.outputs)
    lines = [f"func.func @{name}({args}) -> ({outs}) {{"]
    n_views = 0
    reads: dict[int, int] = {}
    for op in graph.ops:
        names = []
        for t in op.inputs:
            reads[t] = reads.get(t, 0) + 1
            if views and reads[t] % 2 == 0:
                lines.append(f"  %v{n_views} = memopt.view %t{t} : {ty(t)} -> {ty(t)}")
                names.append(f"%v{n_views}")
                n_views += 1
            else:
                names.append(f"%t{t}")
        res = ", ".join(f"%t{t}" for t in op.outputs)
        sig = f"({', '.join(ty(t) for t in op.inputs)}) -> ({', '.join(ty(t) for t in op.outputs)})"
        kind = op.name.replace('"', "")
        lines.append(f'  {res} = memopt.compute "{kind}"({", ".join(names)}) {{cost = {int(op.cost)} : i64}} : {sig}')
    lines.append(f"  func.return {', '.join(f'%t{t}' for t in graph.outputs)} : {outs}")
    lines.append("}")
    return "\n".join(lines) + "\n"
