"""Perfect loop nests of element loads and stores, executed as the linalg op they came from.

``--convert-linalg-to-loops`` and ``--convert-linalg-to-affine-loops`` turn every linalg op into
a perfect nest whose innermost body loads elements, computes, and stores elements; executed
element by element, a model's convolution is 10^9 interpreted ops. Such a nest is a
``linalg.generic`` in all but name: its loops are the dims, each load and store an operand at an
affine indexing map, and the body its payload. It runs through :func:`.linalg_semantics.run_generic`
(the reductions in the loops' own lexicographic order: the values are those of the sequential
nest, bit for bit) when the nest is provably that:

* loops ``scf.for``/``affine.for`` without iter_args, bounds defined outside the nest;
* the innermost body: loads, stores, ``affine.apply`` and scalar ``arith``/``math``;
* indices affine in the induction variables (and values defined outside the nest);
* each stored memref stored once, at distinct dims (a projected permutation: the parallel dims),
  and loaded, if at all, only before that store at the very same indices (an accumulator);
* at run time, no memref loaded belongs to a buffer stored (else the nest runs element by
  element, as written).

What is read is checked as any read (the region the loads reach), what is written is exactly
the region the stores reach, an input clobbered by the nest's output is caught. Ops count once
per sequential point of the nest (vectorised work is not interpreted work).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import affine, arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap

from memopt.diagnostics import MemoptError

from . import linalg_semantics as sem
from .affine_maps import map_function
from .core import Code, Compiler
from .linalg_loops import linear_form
from .memref_machine import Machine
from .memref_scalar import scalar_function
from .memref_values import Ref, Unsupported, value_dtype


@dataclass
class Access:
    """One load or store: its memref's slot, its indices (dims: loops, symbols: outside values),
    and the slot of the loaded value or of the value stored."""

    op: Operation
    memref: int
    exprs: tuple[AffineExpr, ...]
    value: int


@dataclass
class Nest:
    loops: list[Operation]
    ivs: tuple[int, ...]  # the loops whose induction variable the payload uses
    symbols: tuple[int, ...]
    loads: list[Access]
    stores: list[Access]
    body: Code
    iv_types: list  # numpy dtype of each integer-typed induction variable (None: index)

    @property
    def accumulated(self) -> set[int]:
        return {s.memref for s in self.stores}


ENABLED = True
"""Whether nests run vectorised (tests turn it off to compare with element-by-element runs)."""


class _NotANest(Exception):
    pass


def raise_nest(c: Compiler, op: Operation) -> Nest | None:
    """``op``'s perfect nest as a generic op, or None when it is not one (see the module)."""
    if not ENABLED:
        return None
    try:
        return _raise(c, op)
    except _NotANest:
        return None


def _loop_body(loop: Operation) -> Block:
    """A loop's body block (a verified loop has one)."""
    body = loop.regions[0].blocks.first
    assert body is not None
    return body


def _perfect(op: Operation) -> list[Operation]:
    loops = [op]
    while True:
        ops = list(_loop_body(loops[-1]).ops)
        if _loop(loops[-1]) is None:
            raise _NotANest
        if len(ops) == 2 and ops[0].name in ("scf.for", "affine.for"):
            loops.append(ops[0])
        else:
            return loops


def _loop(op: Operation):
    """The bound operands of a loop without iter_args (None for one with)."""
    if isinstance(op, scf.ForOp) and not op.iter_args:
        return (op.lb, op.ub, op.step)
    if isinstance(op, affine.ForOp) and not op.inits:
        return (*op.lowerBoundOperands, *op.upperBoundOperands)
    return None


def _raise(c: Compiler, op: Operation) -> Nest:
    loops = _perfect(op)
    inner = _loop_body(loops[-1])
    ivs: list[SSAValue] = [_loop_body(lp).args[0] for lp in loops]
    if any(v in ivs for lp in loops for v in _loop(lp)):
        raise _NotANest  # a bound depending on an outer loop: not a box
    trace = _Indices(ivs)
    loads, stores, computed = [], [], []
    for o in inner.ops:
        if o is inner.last_op:
            continue
        if o.name in ("memref.load", "affine.load"):
            loads.append(Access(o, c.slot(o.operands[0]), trace.of_access(o), c.slot(o.results[0])))
        elif o.name in ("memref.store", "affine.store"):
            stores.append(Access(o, c.slot(o.operands[1]), trace.of_access(o), c.slot(o.operands[0])))
        elif o.name == "affine.apply" or _is_scalar(o):
            trace.note(o)
            computed.append(o)
        else:
            raise _NotANest
    if not stores:
        raise _NotANest
    _check_accesses(loads, stores, list(inner.ops))
    needed = _payload(computed, [s.op.operands[0] for s in stores])
    used_ivs = [k for k, v in enumerate(ivs) if any(v in o.operands for o in needed)]
    body = Code(c.slots_of([ivs[k] for k in used_ivs]), [c.step(o) for o in needed], None, (), op)
    types = [None if isinstance(ivs[k].type, IndexType) else value_dtype(ivs[k].type) for k in used_ivs]
    return Nest(loops, tuple(used_ivs), c.slots_of(trace.symbols), loads, stores, body, types)


def _payload(computed: list[Operation], stored: list[SSAValue]) -> list[Operation]:
    """The ops the stored values depend on, in order (index arithmetic feeding only loads and
    stores is the indexing maps' business)."""
    needed, wanted = [], set(stored)
    for o in reversed(computed):
        if any(r in wanted for r in o.results):
            needed.append(o)
            wanted.update(o.operands)
    return needed[::-1]


def _is_scalar(op: Operation) -> bool:
    try:
        return scalar_function(op) is not None
    except Unsupported:
        return False


class _Indices:
    """Index values as affine expressions of the loops' induction variables (dims) and of
    values defined outside the nest (symbols)."""

    def __init__(self, ivs: list[SSAValue]):
        self.ivs = ivs
        self.symbols: list[SSAValue] = []
        self.exprs: dict[SSAValue, AffineExpr] = {}

    def of(self, v: SSAValue) -> AffineExpr:
        if v in self.ivs:
            return AffineExpr.dimension(self.ivs.index(v))
        if v in self.exprs:
            return self.exprs[v]
        owner = v.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            return AffineExpr.constant(owner.value.value.data)
        if isinstance(owner, Operation) and owner.parent_block() is self.ivs[-1].owner:
            raise _NotANest  # computed in the body by something not affine
        if v not in self.symbols:
            self.symbols.append(v)
        return AffineExpr.symbol(self.symbols.index(v))

    def note(self, op: Operation) -> None:
        """Record the expression of an index computed in the body (apply, add, mul, sub)."""
        if op.name == "affine.apply":
            assert isinstance(op, affine.ApplyOp)  # chosen by its name
            amap = op.map.data
            args = [self.of(v) for v in op.operands]
            self.exprs[op.results[0]] = amap.results[0].replace_dims_and_symbols(
                args[:amap.num_dims], args[amap.num_dims:])
        elif op.name in ("arith.addi", "arith.subi", "arith.muli") and str(op.results[0].type) == "index":
            try:
                a, b = self.of(op.operands[0]), self.of(op.operands[1])
            except _NotANest:
                return
            self.exprs[op.results[0]] = a + b if op.name == "arith.addi" else a - b if op.name == "arith.subi" else a * b

    def of_access(self, op: Operation) -> tuple[AffineExpr, ...]:
        indices = op.operands[2:] if op.name.endswith("store") else op.operands[1:]
        args = [self.of(v) for v in indices]
        if isinstance(op, (affine.LoadOp, affine.StoreOp)) and op.map is not None:
            amap = op.map.data
            return tuple(e.replace_dims_and_symbols(args[:amap.num_dims], args[amap.num_dims:]) for e in amap.results)
        return tuple(args)


def _check_accesses(loads: list[Access], stores: list[Access], order: list[Operation]) -> None:
    """Each stored memref stored once at a projected permutation of the dims; loaded only
    before its store, at its indices."""
    stored = {}
    for s in stores:
        if s.memref in stored:
            raise _NotANest
        dims = [e.position for e in s.exprs if isinstance(e, AffineDimExpr)]
        if len(dims) != len(set(dims)) or any(not isinstance(e, AffineDimExpr) and e.used_dims() for e in s.exprs):
            raise _NotANest
        stored[s.memref] = s
    for ld in loads:
        st = stored.get(ld.memref)
        if st is not None and (ld.exprs != st.exprs or order.index(ld.op) > order.index(st.op)):
            raise _NotANest


# ---------------------------------------------------------------------- execution

def nest_step(c: Compiler, nest: Nest, fallback):
    """The step running ``nest`` vectorised, or element by element (``fallback``) when a memref
    it loads belongs to a buffer it stores."""
    bounds = [_bounds(c, lp) for lp in nest.loops]
    op = nest.loops[0]

    def step(m: Machine, frame, op=op):
        boxes = [b(frame) for b in bounds]
        if any(len(r) == 0 for r in boxes):
            return
        refs = {a.memref: frame[a.memref] for a in (*nest.loads, *nest.stores)}
        if not _independent(nest, refs):
            return fallback(m, frame)
        _run(m, frame, nest, boxes, refs, op)
    return step


def _bounds(c: Compiler, loop: Operation):
    """``frame -> range`` of one loop's induction values."""
    if isinstance(loop, scf.ForOp):
        lb, ub, st = c.slots_of((loop.lb, loop.ub, loop.step))

        def scf_range(frame) -> range:
            s = int(frame[st])
            if s <= 0:
                raise MemoptError(f"scf.for with step {s} (must be positive)", loop)
            return range(int(frame[lb]), int(frame[ub]), s)
        return scf_range
    assert isinstance(loop, affine.ForOp)  # a nest's loops are scf.for or affine.for
    lbs = map_function(loop.lowerBoundMap.data, c.slots_of(loop.lowerBoundOperands))
    ubs = map_function(loop.upperBoundMap.data, c.slots_of(loop.upperBoundOperands))
    step = loop.step.value.data
    return lambda frame: range(int(max(lbs(frame))), int(min(ubs(frame))), step)


def _independent(nest: Nest, refs: dict[int, Ref]) -> bool:
    stored = [refs[s.memref] for s in nest.stores]
    owners = [r.owner for r in stored]
    if len(set(owners)) != len(owners):
        return False
    accumulated = nest.accumulated
    return not any(refs[ld.memref].owner in owners for ld in nest.loads if ld.memref not in accumulated)


def _run(m: Machine, frame: list, nest: Nest, boxes: list[range], refs: dict, op: Operation) -> None:
    n = len(boxes)
    syms = [AffineExpr.constant(int(frame[s])) for s in nest.symbols]
    dims = [AffineExpr.constant(r.start) + AffineExpr.dimension(k) * r.step for k, r in enumerate(boxes)]
    place = lambda exprs: tuple(e.replace_dims_and_symbols(dims, syms) for e in exprs)  # noqa: E731
    outs, out_maps = [], []
    for s in nest.stores:
        ref, amap = _output_region(refs[s.memref], place(s.exprs), boxes, s.op)
        outs.append(ref)
        out_maps.append(amap)
    inputs, in_maps, arg_of = _inputs(m, nest, refs, place, boxes, op)
    accumulated = {s.memref: k for k, s in enumerate(nest.stores)}
    out_values = []
    for s, ref in zip(nest.stores, outs):
        read = any(ld.memref == s.memref for ld in nest.loads)
        out_values.append(m.read(ref, s.op) if read else ref.values())
    kinds = ["parallel" if any(isinstance(e, AffineDimExpr) and e.position == d for a in out_maps for e in a.results)
             else "reduction" for d in range(n)]
    dummy = np.broadcast_to(np.zeros((), np.bool_), tuple(len(r) for r in boxes))
    maps = [AffineMap.identity(n), *in_maps, *out_maps]
    body = _body(m, frame, nest, boxes, arg_of, accumulated, len(inputs))
    results = sem.run_generic(maps, kinds, [dummy, *inputs], out_values, body)
    for k, (s, ref, value) in enumerate(zip(nest.stores, outs, results)):
        m.write(ref, value, s.op, k)
    for ref in _input_refs(refs, nest):
        m.check_owner(ref, op)


def _input_refs(refs: dict, nest: Nest) -> list[Ref]:
    accumulated = nest.accumulated
    return [refs[ld.memref] for ld in nest.loads if ld.memref not in accumulated]


def _output_region(ref: Ref, exprs: tuple[AffineExpr, ...], boxes: list[range], op: Operation):
    """The part of ``ref`` the store reaches, as a view, and the store's map into it."""
    offsets, sizes, strides, results = [], [], [], []
    for e, n in zip(exprs, ref.sizes):
        form = _linear(e, len(boxes))
        if form is None:
            raise MemoptError("a store of a loop nest at a non-affine index", op)
        coeffs, const = form
        used = [k for k, x in enumerate(coeffs) if x]
        if used:
            k = used[0]
            offsets.append(const)
            sizes.append(len(boxes[k]))
            strides.append(coeffs[k])
            results.append(AffineExpr.dimension(k))
        else:
            offsets.append(const)
            sizes.append(1)
            strides.append(1)
            results.append(AffineExpr.constant(0))
    _check_box(ref, offsets, sizes, strides, op, "stores")
    view = ref.derive(ref.base, ref.offset + sum(o * s for o, s in zip(offsets, ref.strides)), sizes,
                      [a * b for a, b in zip(ref.strides, strides)])
    return view, AffineMap(len(boxes), 0, tuple(results))


def _inputs(m: Machine, nest: Nest, refs: dict, place, boxes: list[range], op: Operation):
    """Each distinct (memref, indices) loaded, read over the box its indices reach."""
    inputs: list[np.ndarray] = []
    maps: list[AffineMap] = []
    arg_of: dict[int, int] = {}
    seen: dict[tuple, int] = {}
    accumulated = nest.accumulated
    for ld in nest.loads:
        if ld.memref in accumulated:
            continue
        key = (ld.memref, ld.exprs)
        if key not in seen:
            view, amap = _input_region(refs[ld.memref], place(ld.exprs), boxes, ld.op)
            seen[key] = len(inputs)
            inputs.append(m.read(view, ld.op))
            maps.append(amap)
        arg_of[ld.value] = seen[key]
    return inputs, maps, arg_of


def _input_region(ref: Ref, exprs: tuple[AffineExpr, ...], boxes: list[range], op: Operation):
    """The box of ``ref`` the load's indices reach (the whole memref when they are not linear),
    and the load's map shifted into it."""
    n = len(boxes)
    lows, highs = [], []
    for e in exprs:
        form = _linear(e, n)
        if form is None:
            lows, highs = [0] * len(ref.sizes), [s - 1 for s in ref.sizes]
            break
        coeffs, const = form
        lo = const + sum(min(0, c * (len(r) - 1)) for c, r in zip(coeffs, boxes))
        hi = const + sum(max(0, c * (len(r) - 1)) for c, r in zip(coeffs, boxes))
        lows.append(lo)
        highs.append(hi)
    sizes = [h - lo + 1 for lo, h in zip(lows, highs)]
    _check_box(ref, lows, sizes, [1] * len(sizes), op, "loads")
    view = ref.derive(ref.base, ref.offset + sum(o * s for o, s in zip(lows, ref.strides)), sizes, ref.strides)
    shifted = tuple(e - AffineExpr.constant(lo) for e, lo in zip(exprs, lows))
    return view, AffineMap(n, 0, shifted)


def _check_box(ref: Ref, offsets, sizes, strides, op: Operation, what: str) -> None:
    for o, s, st, n in zip(offsets, sizes, strides, ref.sizes):
        if o < 0 or o + (s - 1) * st >= n:
            raise MemoptError(f"the loop nest's {what} reach [{o}, {o + (s - 1) * st}] of a dim of buffer "
                              f"'{ref.name}' of size {n}", op)


def _linear(e: AffineExpr, n: int):
    try:
        return linear_form(e, n)
    except ValueError:
        return None


def _body(m: Machine, frame: list, nest: Nest, boxes: list[range], arg_of: dict, accumulated: dict, n_in: int):
    """The payload: loaded values bound from the generic's arguments, induction variables from
    ``index``; the values stored, one per output."""
    code, loads, stores = nest.body, nest.loads, nest.stores

    def body(args, index):
        for k, s, dt in zip(nest.ivs, code.args, nest.iv_types):
            r = boxes[k]
            iv = index(k) if r.step == 1 and r.start == 0 else index(k) * r.step + r.start
            frame[s] = iv if dt is None else iv.astype(dt)
        for ld in loads:
            k = accumulated.get(ld.memref)
            frame[ld.value] = args[1 + n_in + k] if k is not None else args[1 + arg_of[ld.value]]
        m.run_block(code, frame)
        return [frame[s.value] for s in stores]
    return body


__all__ = ["Nest", "nest_step", "raise_nest"]
