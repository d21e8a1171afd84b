"""The ``affine`` dialect: maps evaluated on index values, affine loops, conditions and accesses.

Maps are compiled to Python functions by :mod:`.affine_maps`. ``affine.for`` runs from the
largest lower bound to the smallest upper bound; ``affine.load``/``affine.store`` apply their map
to their indices.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr
from xdsl.ir import Operation
from xdsl.ir.affine import AffineConstraintKind, AffineMap

from memopt.diagnostics import MemoptError

from .affine_maps import map_function, source
from .core import Compiler
from .memref_control import bind, loop_runner, region_runner, vectorised
from .memref_machine import Machine
from .memref_ops import load, store
from .memref_program import compiles

def map_of(op: Operation, key: str = "map") -> AffineMap:
    attr = op.properties.get(key) or op.attributes.get(key)
    if attr is None:
        raise MemoptError(f"'{op.name}' without its '{key}' (print it in generic form)", op)
    assert isinstance(attr, AffineMapAttr)  # the op verified its map
    return attr.data


@compiles("affine.apply")
def affine_apply(c: Compiler, op: Operation):
    fn, r = map_function(map_of(op), c.slots_of(op.operands)), c.slot(op.results[0])

    def step(m: Machine, frame, op=op):
        frame[r] = fn(frame)[0]
    return step


@compiles("affine.min", "affine.max")
def affine_min_max(c: Compiler, op: Operation):
    fn, r = map_function(map_of(op), c.slots_of(op.operands)), c.slot(op.results[0])
    pick, vector = (min, np.minimum) if op.name == "affine.min" else (max, np.maximum)

    def step(m: Machine, frame, op=op):
        values = fn(frame)
        scalar = all(np.ndim(v) == 0 for v in values)
        frame[r] = pick(values) if scalar else vector.reduce(np.broadcast_arrays(*values))
    return step


def index_function(c: Compiler, op: affine.LoadOp | affine.StoreOp) -> Callable[[list], tuple]:
    slots = c.slots_of(op.indices)
    amap = op.map.data if op.map is not None else AffineMap.identity(len(slots))
    return map_function(amap, slots)


@compiles("affine.load")
def affine_load(c: Compiler, op: Operation):
    assert isinstance(op, affine.LoadOp)  # registered under its name
    a, idx, r = c.slot(op.memref), index_function(c, op), c.slot(op.results[0])

    def step(m: Machine, frame, op=op):
        frame[r] = load(m, frame[a], idx(frame), op)
    return step


@compiles("affine.store")
def affine_store(c: Compiler, op: Operation):
    assert isinstance(op, affine.StoreOp)  # registered under its name
    a, v, idx = c.slot(op.memref), c.slot(op.value), index_function(c, op)

    def step(m: Machine, frame, op=op):
        store(m, frame[a], idx(frame), frame[v], op)
    return step


@compiles("affine.for")
def affine_for(c: Compiler, op: Operation):
    assert isinstance(op, affine.ForOp)  # registered under its name
    return vectorised(c, op, lambda: affine_for_step(c, op))


def affine_for_step(c: Compiler, op: affine.ForOp):
    """The loop run iteration by iteration."""
    lbs = map_function(op.lowerBoundMap.data, c.slots_of(op.lowerBoundOperands))
    ubs = map_function(op.upperBoundMap.data, c.slots_of(op.upperBoundOperands))
    step_size = op.step.value.data
    body = op.body.blocks.first
    assert body is not None  # the op verified its body
    run = loop_runner(c, op, body, op.inits, op.results)

    def step(m: Machine, frame, op=op):
        lb, ub = int(max(lbs(frame))), int(min(ubs(frame)))
        run(m, frame, range(lb, ub, step_size), max(0, -(-(ub - lb) // step_size)))
    return step


@compiles("affine.if")
def affine_if(c: Compiler, op: Operation):
    assert isinstance(op, affine.IfOp)  # registered under its name
    cset = op.condition.data
    names = [f"f[{s}]" for s in c.slots_of(op.operands)]
    dims, syms = names[:cset.num_dims], names[cset.num_dims:]
    tests = {AffineConstraintKind.eq: "== 0", AffineConstraintKind.ge: ">= 0", AffineConstraintKind.le: "<= 0"}
    clauses = [f"({source(k.lhs, dims, syms)} - {source(k.rhs, dims, syms)}) {tests[k.kind]}"
               for k in cset.constraints] or ["True"]
    holds = eval(f"lambda f: {' and '.join(clauses)}")  # noqa: S307 - generated from the set alone
    then, other = region_runner(c, op.regions[0]), region_runner(c, op.regions[1])
    results = c.slots_of(op.results)

    def step(m: Machine, frame, op=op):
        run = then if m.branch(op, bool(holds(frame))) else other
        bind(frame, results, run(m, frame))
    return step


__all__ = ["map_function", "map_of", "source"]
