"""A linalg op's body evaluated over many iteration points at once.

``linalg.generic``/``map``/``reduce`` bodies are scalar code; :mod:`.linalg_semantics` calls the
function :func:`body_function` makes with every block argument as an array over a set of points
and ``index(d)`` for ``linalg.index``. Each op of the body is evaluated once on those arrays by
the very steps that evaluate scalars (:mod:`.memref_scalar`, :mod:`.memref_affine`), so a body
means the same whether its program kept the linalg op or lowered it to loops. A load in a body
(a gather) reads the elements its index arrays name, checked like any read. Values defined
outside the body (constants) are used as they are.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import AffineMapAttr
from xdsl.ir import Block, Operation

from memopt.diagnostics import MemoptError
from memopt.dialects.structured import IndexOp

from .affine_maps import map_function
from .core import Code, Compiler
from .memref_machine import Machine
from .memref_values import Ref


def body_code(c: Compiler, block: Block) -> Code:
    """``block`` compiled for arrays: ``linalg.index`` and loads have steps of their own."""
    def compile_body() -> Code:
        term = block.last_op
        steps = [_step(c, op) for op in block.ops if op is not term]
        return Code(c.slots_of(block.args), steps, term, c.slots_of(term.operands) if term else (),
                    block.parent_op())
    return c.program.fact(("body", id(block)), compile_body)


def body_function(m: Machine, c: Compiler, block: Block, frame: list) -> Callable:
    """``body(args, index)``: the values ``block`` yields for block arguments ``args``."""
    code = body_code(c, block)

    def body(args, index):
        m.index = index
        m.run_block(code, frame, args)
        return [frame[s] for s in code.yields]
    return body


def _step(c: Compiler, op: Operation):
    if op.name == "linalg.index":
        assert isinstance(op, IndexOp)  # the parsing context's linalg.index
        dim, r = op.dim.value.data, c.slot(op.results[0])

        def index(m: Machine, frame, op=op):
            assert m.index is not None  # set while a body is evaluated
            frame[r] = m.index(dim)
        return index
    if op.name in ("memref.load", "affine.load"):
        return _gather(c, op)
    return c.step(op)


def _gather(c: Compiler, op: Operation):
    """A load at index arrays: every element they name, bounds- and ownership-checked."""
    a, r = c.slot(op.operands[0]), c.slot(op.results[0])
    slots = c.slots_of(op.operands[1:])
    amap = op.properties.get("map") if op.name == "affine.load" else None
    assert amap is None or isinstance(amap, AffineMapAttr)
    idx_fn = map_function(amap.data, slots) if amap is not None else (lambda f: tuple(f[s] for s in slots))

    def step(m: Machine, frame, op=op):
        ref: Ref = frame[a]
        idx = np.broadcast_arrays(*[np.asarray(i, np.int64) for i in idx_fn(frame)]) if slots else []
        for k, (i, n) in enumerate(zip(idx, ref.sizes)):
            if i.size and (i.min() < 0 or i.max() >= n):
                raise MemoptError(f"a load in a linalg body reads dim {k} of buffer '{ref.name}' at "
                                  f"{int(i.min())}..{int(i.max())}, outside [0, {n})", op)
        m.access(ref, op, "read")
        m.checker.reads += 1
        at = tuple(idx)
        if ref.sh is not None and ref.sh[at].size and not (ref.sh[at] == ref.owner).all():
            m.bad_read(ref, op, ref.sh[at])
        frame[r] = ref.elem.decode(ref.array()[at])[()]
    return step


__all__ = ["body_code", "body_function"]
