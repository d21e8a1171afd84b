"""Running one upstream function from the outside: its arguments, its run, its results.

Arguments are made the same way for every run of a given ``--seed``: a memref argument gets
storage of its own holding small deterministic values (seeded by its position and the seed),
laid out as its type says (row-major when the type leaves strides or offset dynamic); the
caller-provided arena of ``plan-memory{arena=arg}`` is scratch, never written; an ``i1`` is the
seed's parity, an ``index`` 4 plus the seed modulo 4; other scalars are small seeded values. A
dynamic dimension takes its size from ``--input-shape NAME=AxB`` (NAME the argument's SSA name,
e.g. ``arg0``, or ``#0``, its position); without one the run is refused, naming the argument and
the flag.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, MemRefType, NoneAttr, UnrankedMemRefType
from xdsl.ir import BlockArgument, Operation

from memopt.diagnostics import MemoptError

from .data import crc_seed
from .memref_arena import is_arena_arg
from .memref_control import call_body
from .memref_dma import never_waited
from .memref_machine import Machine, where
from .memref_ops import sample_values
from .memref_values import DYNAMIC, Ref, Unsupported, contiguous_strides, elem_of, type_layout


def shape_of(a: BlockArgument, t: MemRefType, shapes: dict, f: func.FuncOp) -> list[int]:
    """The argument's shape: its type's, dynamic dims from ``--input-shape``."""
    shape = list(t.get_shape())
    if DYNAMIC not in shape:
        return shape
    name = a.name_hint or f"#{a.index}"
    given = shapes.get(name, shapes.get(f"#{a.index}"))
    if given is None:
        raise MemoptError(f"argument %{name} of @{f.sym_name.data} has a dynamic shape ({t}): give it with "
                          f"--input-shape {name}={'x'.join('N' if d == DYNAMIC else str(d) for d in shape)}", f)
    if len(given) != len(shape) or any(d != DYNAMIC and d != g for d, g in zip(shape, given)):
        raise MemoptError(f"--input-shape {name}={'x'.join(map(str, given))} does not fit argument %{name} of "
                          f"type {t}", f)
    return list(given)


def layout_of(t: MemRefType, sizes: list[int]) -> tuple[list[int], int]:
    """Strides and offset of an argument: its type's when static, else row-major from 0."""
    if isinstance(t.layout, NoneAttr):
        return contiguous_strides(sizes), 0
    stated, offset = type_layout(t)
    strides = [s for s in stated if s is not None and s != DYNAMIC]
    if len(strides) < len(stated) or offset is None or offset == DYNAMIC:
        return contiguous_strides(sizes), 0
    return strides, offset


def memref_argument(m: Machine, a: BlockArgument, f: func.FuncOp) -> Ref:
    t = a.type
    assert isinstance(t, MemRefType)
    sizes = shape_of(a, t, m.shapes, f)
    try:
        elem = elem_of(t.element_type)
        strides, offset = layout_of(t, sizes)
    except Unsupported as e:
        raise MemoptError(f"cannot execute @{f.sym_name.data}: argument #{a.index} has {e}", f) from None
    span = offset + sum((n - 1) * s for n, s in zip(sizes, strides)) + 1 if all(sizes) else 0
    name = m.program.compiler(f).name(a)
    arena = is_arena_arg(a)
    st = m.allocate(max(span, 0) * elem.itemsize, name, f, arena=arena)
    ref = Ref(st, 0, offset, sizes, strides, elem, st.ident, name)
    if not arena:
        rng = np.random.default_rng(crc_seed("arg", a.index, m.seed))
        flat = np.ndarray((span,), elem.storage, buffer=st.data)
        flat[...] = elem.encode(sample_values(rng, elem, span))
        if st.shadow is not None:
            st.shadow[:] = st.ident
    return ref


def scalar_argument(m: Machine, a: BlockArgument, f: func.FuncOp):
    t = a.type
    if isinstance(t, IndexType):
        return 4 + m.seed % 4
    try:
        elem = elem_of(t)
    except Unsupported as e:
        raise MemoptError(f"cannot execute @{f.sym_name.data}: argument #{a.index} has {e}", f) from None
    if elem.name == "i1":
        return np.bool_(m.seed % 2)
    rng = np.random.default_rng(crc_seed("arg", a.index, m.seed))
    return sample_values(rng, elem, 1)[0]


def arguments(m: Machine, f: func.FuncOp) -> list:
    values = []
    for a in f.body.blocks[0].args:
        t = a.type
        if isinstance(t, MemRefType) and isinstance(t.element_type, (MemRefType, UnrankedMemRefType)):
            raise MemoptError(f"cannot execute @{f.sym_name.data}: argument #{a.index} is a memref of memrefs "
                              f"({t})", f)
        if isinstance(t, UnrankedMemRefType):
            raise MemoptError(f"cannot execute @{f.sym_name.data}: argument #{a.index} is an unranked memref "
                              f"({t}); give a ranked type", f)
        values.append(memref_argument(m, a, f) if isinstance(t, MemRefType) else scalar_argument(m, a, f))
    return values


def run_function(m: Machine, f: func.FuncOp) -> list:
    """Run ``f`` with generated arguments; its results (returned memrefs checked as reads)."""
    with np.errstate(all="ignore"):
        try:
            args = m.arguments = arguments(m, f)
            results = call_body(m, f, args, f)
        except MemoptError:
            raise
        except RecursionError:
            raise MemoptError("calls or regions nest too deeply to execute", f) from None
        except Exception as e:  # noqa: BLE001 - every failure is a located one-line error
            raise located(e, failing_op(e) or f) from None
    never_waited(m)
    ret = f.body.blocks[-1].last_op
    assert ret is not None  # a verified function's body ends in its return
    for r in results:
        if isinstance(r, Ref):
            if r.storage.freed is not None:
                raise MemoptError(f"@{f.sym_name.data} returns '{r.name}', whose storage is deallocated (at "
                                  f"{where(r.storage.freed)}) before the return", ret)
            m.check_owner(r, ret)
    return results


def failing_op(e: Exception) -> Operation | None:
    """The op whose step raised ``e``: the innermost frame of the traceback with an ``op``."""
    found, tb = None, e.__traceback__
    while tb is not None:
        op = tb.tb_frame.f_locals.get("op")
        if isinstance(op, Operation):
            found = op
        tb = tb.tb_next
    return found


def located(e: Exception, op: Operation) -> MemoptError:
    detail = str(e) if isinstance(e, Unsupported) else f"{type(e).__name__}: {e}"
    return MemoptError(f"cannot execute '{op.name}': {detail}", op)


__all__ = ["arguments", "run_function"]
