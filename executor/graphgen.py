"""Random well-formed memopt programs, for fuzzing the planner against the executor.

:func:`generate` turns a :class:`random.Random` (hypothesis's ``st.randoms()`` in the property
tests, so failures shrink; a seeded one in ``bench/fuzz.py``) into the text of a module with one
function that exercises everything the lifetime analysis must get right: chains and fan-out of
compute ops with one or two results, ``inplace`` hints, views (of activations, of weights, of
views), weights through ``get_global``, nested ``memopt.if`` (with and without results, empty
``else``) and ``memopt.loop`` (zero to three trips, swapped carried values, carried views), a
condition computed in the graph, several returned values (arguments and weights included), and,
with ``dma=True``, weights staged through ``alloc0``/``alloc1`` with ping-pong prefetch.

Generated DMA is correct by construction: a ``dma_wait`` result is read only by the compute op
that directly follows its wait, before the next ``dma_start`` into the same buffer.

Text, not builder calls: a failing case is then a self-contained reproducer to paste into a
file and run through ``memopt-opt``/``memopt-run``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

TYPES = (
    ("tensor<4xf32>", 16),
    ("tensor<8xf32>", 32),
    ("tensor<3xf32>", 12),
    ("tensor<2x8xf32>", 64),
    ("tensor<6xf16>", 12),
    ("tensor<5xi8>", 5),
    ("tensor<3xi32>", 12),
)
"""Tensor types the generator uses (few, so that same-typed values meet often), with byte sizes."""
ELEM_BYTES = {"f32": 4, "f16": 2, "i8": 1, "i32": 4, "i1": 1}
COND = "tensor<i1>"
KINDS = ("mix", "conv", "pool", "gather", "norm")
ELEMENTWISE = ("add", "mul", "sub")
UNARY = ("relu", "neg")


@dataclass(frozen=True)
class GenConfig:
    """Knobs of :func:`generate` (defaults: small graphs for the fast fuzz profile)."""

    max_ops: int = 10
    """Ops per block (before regions are counted)."""
    max_depth: int = 2
    """Nesting depth of if/loop regions."""
    dma: bool = False
    """Stage some weights through ``memopt.dma_buffer`` ping-pong buffers."""


@dataclass
class Val:
    name: str
    type: str
    weight: bool = False  # off-chip (get_global or a view of one)

    @property
    def nbytes(self) -> int:
        return type_bytes(self.type)


def type_bytes(t: str) -> int:
    if t == COND:
        return 1
    dims, elem = t[len("tensor<"):-1].rsplit("x", 1)
    n = 1
    for d in dims.split("x"):
        n *= int(d)
    return n * ELEM_BYTES[elem]


def elem_bytes(t: str) -> int:
    return 1 if t == COND else ELEM_BYTES[t[:-1].rsplit("x", 1)[1]]


def flat_type(t: str, count: int) -> str:
    return f"tensor<{count}x{t[:-1].rsplit('x', 1)[1]}>"


@dataclass
class _Gen:
    rng: random.Random
    cfg: GenConfig
    lines: list[str] = field(default_factory=list)
    globals: dict[str, str] = field(default_factory=dict)
    dma_size: dict[str, int] = field(default_factory=dict)
    counter: int = 0
    pingpong: int = 0

    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"%{prefix}{self.counter}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("  " * indent + text)

    # ------------------------------------------------------------------ picking values

    def pick(self, scope: list[Val], pred=lambda v: True) -> Val | None:
        cands = [v for v in scope if pred(v)]
        if not cands:
            return None
        if self.rng.random() < 0.6:  # prefer recent values: chains, and short lifetimes
            back = 0
            while back < len(cands) - 1 and self.rng.random() < 0.5:
                back += 1
            return cands[-1 - back]
        return self.rng.choice(cands)

    def rand_type(self) -> str:
        return self.rng.choice(TYPES)[0]

    def weight(self, t: str, indent: int) -> Val:
        """A get_global of an existing or new global of type ``t``."""
        same = [g for g, gt in self.globals.items() if gt == t]
        if same and self.rng.random() < 0.4:
            g = self.rng.choice(same)
        else:
            g = f"@g{len(self.globals)}"
            self.globals[g] = t
        name = self.fresh("w")
        self.emit(indent, f"{name} = memopt.get_global {g} : {t}")
        return Val(name, t, weight=True)

    def value_of_type(self, scope: list[Val], t: str, indent: int) -> Val:
        """A value of type ``t``: from scope, else made by a compute op."""
        v = self.pick(scope, lambda v: v.type == t)
        if v is not None and self.rng.random() < 0.8:
            return v
        return self.compute(scope, indent, out_types=[t])[0]

    # ------------------------------------------------------------------ ops

    def compute(self, scope: list[Val], indent: int, out_types: list[str] | None = None,
                extra: list[Val] | None = None) -> list[Val]:
        rng = self.rng
        r = rng.random()
        if out_types is None and r < 0.3:
            x = self.pick(scope, lambda v: v.type != COND) or self.weight(self.rand_type(), indent)
            y = self.pick(scope, lambda v: v.type == x.type and v is not x)
            if y is None:
                y = self.weight(x.type, indent)
            kind, ins, outs = rng.choice(ELEMENTWISE), [x, y], [x.type]
        elif out_types is None and r < 0.45:
            x = self.pick(scope, lambda v: v.type != COND) or self.weight(self.rand_type(), indent)
            kind, ins, outs = rng.choice(UNARY), [x], [x.type]
        else:
            n_in = rng.randint(1, 3)
            ins = []
            for _ in range(n_in):
                v = self.pick(scope) if rng.random() < 0.85 else None
                ins.append(v if v is not None else self.weight(self.rand_type(), indent))
            if out_types is None:
                outs = [COND] if rng.random() < 0.1 else [self.rand_type() for _ in range(rng.choice((1, 1, 1, 2)))]
            else:
                outs = out_types
            kind = rng.choice(KINDS)
        ins = ins + (extra or [])
        attrs = []
        if rng.random() < 0.4 and kind in ELEMENTWISE + UNARY:
            # Only element-wise kinds may claim in place: the executor writes in-place results
            # element by element, so a hint on a kernel reading other elements is (rightly) a
            # failed proof, not a planner bug.
            inplace = []
            for t in outs:
                ok = [k for k, v in enumerate(ins) if v.type == t and not v.weight]
                inplace.append(rng.choice(ok) if ok and rng.random() < 0.7 else -1)
            if any(k >= 0 for k in inplace):
                attrs.append(f"inplace = array<i64: {', '.join(map(str, inplace))}>")
        if rng.random() < 0.2:
            attrs.append(f"cost = {rng.randint(1, 1000)} : i64")
        res = [Val(self.fresh("c" if t == COND else "v"), t) for t in outs]
        if len(res) == 1:
            lhs = res[0].name
        else:
            base = self.fresh("m")
            lhs = f"{base}:{len(res)}"
            for k, v in enumerate(res):
                v.name = f"{base}#{k}"
        attr_text = f" {{{', '.join(attrs)}}}" if attrs else ""
        in_types = ", ".join(v.type for v in ins)
        out_text = outs[0] if len(outs) == 1 else f"({', '.join(outs)})"
        self.emit(indent, f'{lhs} = memopt.compute "{kind}"({", ".join(v.name for v in ins)}){attr_text} : ({in_types}) -> {out_text}')
        return res

    def view(self, scope: list[Val], indent: int) -> Val | None:
        src = self.pick(scope, lambda v: v.type != COND)
        if src is None:
            return None
        eb = elem_bytes(src.type)
        total = src.nbytes // eb
        count = self.rng.randint(1, total)
        fits = [t for t, n in TYPES if n <= src.nbytes]
        if fits and self.rng.random() < 0.5:
            # reinterpret as another listed type that fits
            t = self.rng.choice(fits)
            nbytes = type_bytes(t)
        else:
            t = flat_type(src.type, count)
            nbytes = count * eb
        step = elem_bytes(t)
        slots = (src.nbytes - nbytes) // step
        off = self.rng.randint(0, slots) * step
        name = self.fresh("view")
        where = f"[offset {off}]" if off else ""
        self.emit(indent, f"{name} = memopt.view {src.name}{where} : {src.type} -> {t}")
        return Val(name, t, weight=src.weight)

    def dma_chain(self, scope: list[Val], indent: int) -> list[Val]:
        """1-3 compute ops, each reading a weight staged by DMA, with ping-pong prefetch."""
        n = self.rng.randint(1, 3)
        weights = []
        for _ in range(n):
            t = self.rand_type()
            same = [g for g, gt in self.globals.items() if gt == t]
            g = self.rng.choice(same) if same and self.rng.random() < 0.3 else f"@g{len(self.globals)}"
            self.globals[g] = t
            weights.append((g, t))
        out: list[Val] = []

        def start(k: int) -> tuple[str, str]:
            g, t = weights[k]
            buf = f"@alloc{(self.pingpong + k) % 2}"
            off = 16 * self.rng.randint(0, 2)
            self.dma_size[buf] = max(self.dma_size.get(buf, 0), off + type_bytes(t))
            tok = self.fresh("t")
            self.emit(indent, f"{tok} = memopt.dma_start {g} into {buf}[offset {off}] : !memopt.token")
            return tok, t

        pending = start(0)
        for k in range(n):
            tok, t = pending
            w = Val(self.fresh("dw"), t, weight=True)
            self.emit(indent, f"{w.name} = memopt.dma_wait {tok} : {t}")
            if k + 1 < n:
                pending = start(k + 1)  # prefetch into the other buffer while computing
            if self.rng.random() < 0.3:
                v = self.view([w], indent)
                w = v if v is not None else w
            res = self.compute(scope, indent, out_types=[self.rand_type()], extra=[w])
            scope.extend(res)
            out.extend(res)
        self.pingpong += n
        return out

    # ------------------------------------------------------------------ regions

    def if_op(self, scope: list[Val], depth: int, indent: int) -> list[Val]:
        cond = self.pick(scope, lambda v: v.type == COND)
        assert cond is not None
        n_res = self.rng.choice((0, 1, 1, 2))
        types = [self.rand_type() for _ in range(n_res)]
        names = [self.fresh("r") for _ in types]
        if len(names) > 1:
            base = self.fresh("rr")
            names = [f"{base}#{k}" for k in range(len(types))]
            lhs = f"{base}:{len(types)} = "
        else:
            lhs = f"{names[0]} = " if names else ""
        res_text = f" -> ({', '.join(types)})" if types else ""
        self.emit(indent, f"{lhs}memopt.if {cond.name} : {COND}{res_text} {{")
        self.region(scope, depth, indent, types)
        if types or self.rng.random() < 0.6:
            self.emit(indent, "} else {")
            self.region(scope, depth, indent, types)
        self.emit(indent, "}")
        return [Val(n, t) for n, t in zip(names, types)]

    def loop_op(self, scope: list[Val], depth: int, indent: int) -> list[Val]:
        n = self.rng.choice((1, 1, 2))
        inits = []
        for _ in range(n):
            v = self.pick(scope, lambda v: v.type != COND)
            inits.append(v if v is not None else self.weight(self.rand_type(), indent))
        args = [Val(self.fresh("a"), v.type) for v in inits]
        trip = self.rng.choice((0, 1, 2, 3))
        names = [self.fresh("l") for _ in inits]
        if len(names) > 1:
            base = self.fresh("ll")
            names = [f"{base}#{k}" for k in range(len(inits))]
            lhs = f"{base}:{len(names)}"
        else:
            lhs = names[0]
        assigns = ", ".join(f"{a.name} = {v.name}" for a, v in zip(args, inits))
        types = [v.type for v in inits]
        self.emit(indent, f"{lhs} = memopt.loop {trip} iter_args({assigns}) : {', '.join(types)} {{")
        self.region(scope + args, depth, indent, types)
        self.emit(indent, "}")
        return [Val(nm, t) for nm, t in zip(names, types)]

    def region(self, scope: list[Val], depth: int, indent: int, yield_types: list[str]) -> None:
        inner = list(scope)
        self.block(inner, depth + 1, indent + 1, self.rng.randint(0, max(1, self.cfg.max_ops // 2)))
        ys = [self.value_of_type(inner, t, indent + 1) for t in yield_types]
        if ys:
            self.emit(indent + 1, f"memopt.yield {', '.join(v.name for v in ys)} : {', '.join(yield_types)}")
        else:
            self.emit(indent + 1, "memopt.yield")

    def block(self, scope: list[Val], depth: int, indent: int, n_ops: int) -> None:
        for _ in range(n_ops):
            r = self.rng.random()
            nested = depth < self.cfg.max_depth
            if nested and r < 0.12:
                scope.extend(self.if_op(scope, depth, indent))
            elif nested and r < 0.24:
                scope.extend(self.loop_op(scope, depth, indent))
            elif r < 0.36:
                v = self.view(scope, indent)
                if v is not None:
                    scope.append(v)
            elif r < 0.42:
                scope.append(self.weight(self.rand_type(), indent))
            elif self.cfg.dma and r < 0.52:
                self.dma_chain(scope, indent)
            else:
                scope.extend(self.compute(scope, indent))


def generate(rng: random.Random, cfg: GenConfig = GenConfig()) -> str:
    """The text of a random, well-formed module (see module docstring)."""
    g = _Gen(rng, cfg)
    n_args = rng.randint(1, 3)
    args = [Val(f"%x{k}", g.rand_type()) for k in range(n_args)] + [Val("%c0", COND)]
    scope = list(args)
    g.block(scope, 0, 2, rng.randint(2, cfg.max_ops))
    n_ret = rng.randint(1, 3)
    rets = [g.pick(scope) or scope[0] for _ in range(n_ret)]
    g.emit(2, f"func.return {', '.join(v.name for v in rets)} : {', '.join(v.type for v in rets)}")
    head = ["builtin.module {"]
    for name, t in g.globals.items():
        head.append(f"  memopt.global {name} : {t}")
    for buf in sorted(g.dma_size):
        head.append(f"  memopt.dma_buffer {buf} size {g.dma_size[buf]}")
    sig = ", ".join(f"{v.name}: {v.type}" for v in args)
    ret_t = ", ".join(v.type for v in rets)
    head.append(f"  func.func @main({sig}) -> ({ret_t}) {{")
    return "\n".join(head + g.lines + ["  }", "}", ""])


__all__ = ["GenConfig", "TYPES", "generate"]
