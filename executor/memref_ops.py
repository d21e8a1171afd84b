"""``memref`` and ``bufferization`` ops: allocation, views, element access, copies, deallocation.

A view never copies: ``view``, ``subview`` (static or dynamic offsets, sizes and strides,
rank-reducing), ``reinterpret_cast``, ``cast``, ``memory_space_cast``, ``expand_shape``,
``collapse_shape`` and ``extract_strided_metadata`` make another descriptor of the same bytes
(:mod:`.memref_values`). A ``memref.view`` of an arena is the one exception: it is a planned
buffer, its own storage in unplanned execution, its place in the arena in planned execution.

Deallocation frees storage (a later access is an error); freeing a planned buffer (a view of
the arena) is an error: its bytes are the arena's. ``bufferization.dealloc`` frees each buffer
whose condition holds unless it aliases a retained value, and answers, per retained value,
whether ownership of it passed (MLIR's semantics).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, MemRefType
from xdsl.ir import Operation

from memopt.diagnostics import MemoptError
from memopt.dialects.ownership import DeallocOp
from memopt.dialects.walk import walk

from .core import Compiler
from .data import crc_seed
from .memref_arena import is_arena_alloc, is_arena_view
from .memref_machine import Machine, where
from .memref_program import compiles
from .memref_values import DYNAMIC, Ref, Unsupported, contiguous_strides, elem_of, nbytes_of


def mixed(static, slots, frame) -> list[int]:
    """Static values with each dynamic slot (``?``) taken from the next dynamic operand."""
    dyn = iter(slots)
    return [int(frame[next(dyn)]) if v == DYNAMIC else int(v) for v in static]


def memref_type(v, op: Operation) -> MemRefType:
    t = v.type
    if not isinstance(t, MemRefType):
        raise MemoptError(f"cannot execute '{op.name}' on a value of type {t} (only ranked memrefs execute)", op)
    return t


def elem_for(t: MemRefType, op: Operation):
    try:
        return elem_of(t.element_type)
    except Unsupported as e:
        raise MemoptError(f"cannot execute '{op.name}': {e}", op) from None


def fresh(m: Machine, sizes, elem, name: str, op: Operation, arena: bool = False) -> Ref:
    """A new buffer of its own storage, row-major."""
    st = m.allocate(nbytes_of(sizes, elem), name, op, arena=arena)
    return Ref(st, 0, 0, sizes, contiguous_strides(sizes), elem, st.ident, name)


# ---------------------------------------------------------------------- allocation

@compiles("memref.alloc", "memref.alloca")
def alloc(c: Compiler, op: Operation):
    assert isinstance(op, (memref.AllocOp, memref.AllocaOp))  # registered under their names
    t = memref_type(op.results[0], op)
    elem, shape = elem_for(t, op), list(t.get_shape())
    dyn, r, name = c.slots_of(op.operands[: len(op.dynamic_sizes)]), c.slot(op.results[0]), c.name(op.results[0])
    arena = is_arena_alloc(op)

    def step(m: Machine, frame, op=op):
        sizes = mixed(shape, dyn, frame)
        if any(s < 0 for s in sizes):
            raise MemoptError(f"'{op.name}' of a negative size {sizes}", op)
        frame[r] = fresh(m, sizes, elem, name, op, arena)
    return step


@compiles("bufferization.clone")
def clone(c: Compiler, op: Operation):
    a, r, name = c.slot(op.operands[0]), c.slot(op.results[0]), c.name(op.results[0])

    def step(m: Machine, frame, op=op):
        src: Ref = frame[a]
        values = m.read(src, op)
        frame[r] = ref = fresh(m, src.sizes, src.elem, name, op)
        m.write(ref, values, op)
    return step


@compiles("memref.get_global")
def get_global(c: Compiler, op: Operation):
    assert isinstance(op, memref.GetGlobalOp)  # registered under its name
    key, r = op.name_.root_reference.data, c.slot(op.results[0])
    decl = _global_decl(c, key)

    def step(m: Machine, frame, op=op):
        ref = m.globals.get(key)
        if ref is None:
            ref = m.globals[key] = global_storage(m, op, key, decl)
        frame[r] = ref
    return step


def _global_decl(c: Compiler, key: str):
    table = c.program.fact("globals", lambda: {o.sym_name.data: o for o in walk(c.program.module)
                                               if isinstance(o, memref.GlobalOp)})
    return table.get(key)


def global_storage(m: Machine, op: Operation, key: str, decl) -> Ref:
    """A global's bytes: its dense value, or (uninitialized) values seeded by its name."""
    t = memref_type(op.results[0], op)
    elem = elem_for(t, op)
    sizes = list(t.get_shape())
    init = decl.initial_value if decl is not None else None
    count = int(np.prod(sizes, dtype=np.int64))
    if isinstance(init, DenseIntOrFPElementsAttr):
        values = dense_values(init, elem, count)
    else:
        values = sample_values(np.random.default_rng(crc_seed("global", key)), elem, count)
    ref = fresh(m, sizes, elem, f"@{key}", op)
    ref.array()[...] = elem.encode(values.reshape(sizes))
    if ref.storage.shadow is not None:
        ref.storage.shadow[:] = ref.owner
    ref.storage.constant = decl is not None and decl.constant is not None
    return ref


def dense_values(init: DenseIntOrFPElementsAttr, elem, count: int) -> np.ndarray:
    """The elements of a dense attribute (a splat repeated) as values of ``elem``."""
    if elem.name in ("i1", "bf16"):
        vals = np.asarray(init.get_values(), dtype=np.float32 if elem.name == "bf16" else np.int64)
        vals = np.bitwise_and(vals, 1).astype(np.bool_) if elem.name == "i1" else vals
    else:
        vals = np.frombuffer(init.data.data, dtype=elem.storage)
    if vals.size == 1 and count != 1:
        vals = np.full(count, vals[0], dtype=vals.dtype)
    if vals.size != count:
        raise Unsupported(f"a dense value of {vals.size} elements for {count}")
    return vals


def sample_values(rng: np.random.Generator, elem, count: int) -> np.ndarray:
    """Deterministic, small, finite values of ``elem`` (inputs, weights without a value)."""
    if elem.value.kind == "f":
        return (rng.integers(-64, 64, count) / 64.0).astype(elem.value)
    if elem.value.kind == "b":
        return rng.integers(0, 2, count).astype(np.bool_)
    return rng.integers(-8, 8, count).astype(elem.value)


# ---------------------------------------------------------------------- views

@compiles("memref.view")
def view(c: Compiler, op: Operation):
    assert isinstance(op, memref.ViewOp)  # registered under its name
    t = memref_type(op.results[0], op)
    elem, shape = elem_for(t, op), list(t.get_shape())
    a, shift_slot, dyn = c.slot(op.source), c.slot(op.byte_shift), c.slots_of(op.sizes)
    r, name, planned = c.slot(op.results[0]), c.name(op.results[0]), is_arena_view(op)

    def step(m: Machine, frame, op=op):
        src: Ref = frame[a]
        sizes, shift = mixed(shape, dyn, frame), int(frame[shift_slot])
        n, whole = nbytes_of(sizes, elem), nbytes_of(src.sizes, src.elem)
        if shift < 0 or shift + n > whole:
            raise MemoptError(f"view [{shift}, {shift + n}) is outside its {whole}-byte source", op)
        if not planned:
            frame[r] = src.derive(src.start + shift, 0, sizes, contiguous_strides(sizes), elem)
        elif m.planned:
            if src.storage.freed is not None:
                raise MemoptError(f"'{src.name}' is viewed after it was deallocated (at {where(src.storage.freed)})", op)
            owner = m.new_owner(name, op)
            frame[r] = Ref(src.storage, src.start + shift, 0, sizes, contiguous_strides(sizes), elem, owner, name, True)
        else:
            ref = fresh(m, sizes, elem, name, op)
            ref.planned = True
            frame[r] = ref
    return step


@compiles("memref.subview")
def subview(c: Compiler, op: Operation):
    assert isinstance(op, memref.SubviewOp)  # registered under its name
    static = [list(x.get_values()) for x in (op.static_offsets, op.static_sizes, op.static_strides)]
    dyn = [c.slots_of(x) for x in (op.offsets, op.sizes, op.strides)]
    keep = rank_reduction(static[1], list(memref_type(op.results[0], op).get_shape()), op)
    a, r = c.slot(op.source), c.slot(op.results[0])

    def step(m: Machine, frame, op=op):
        src: Ref = frame[a]
        offsets, sizes, strides = (mixed(s, d, frame) for s, d in zip(static, dyn))
        check_subview(src, offsets, sizes, strides, op)
        offset = src.offset + sum(o * s for o, s in zip(offsets, src.strides))
        new = [x * y for x, y in zip(src.strides, strides)]
        frame[r] = src.derive(src.base, offset, [sizes[k] for k in keep], [new[k] for k in keep])
    return step


def check_subview(src: Ref, offsets, sizes, strides, op: Operation) -> None:
    if len(offsets) != len(src.sizes):
        raise MemoptError(f"subview of {len(offsets)} offsets on a rank-{len(src.sizes)} memref", op)
    for o, s, st, n in zip(offsets, sizes, strides, src.sizes):
        last = o + (s - 1) * st
        if s < 0 or o < 0 or (s > 0 and not 0 <= last < n):
            raise MemoptError(f"subview offsets {offsets}, sizes {sizes}, strides {strides} run outside the "
                              f"source's shape {list(src.sizes)}", op)


def rank_reduction(sizes: list[int], result_shape: list[int], op: Operation) -> list[int]:
    """The dims a subview keeps: its static sizes matched to the result type's shape in order,
    static unit dims that do not match dropped (MLIR's rank-reduction rule)."""
    keep, j = [], 0
    for i, s in enumerate(sizes):
        if j < len(result_shape) and result_shape[j] == s:
            keep.append(i)
            j += 1
        elif s != 1:
            raise MemoptError(f"subview sizes {sizes} do not reduce to the result shape {result_shape}", op)
    if j != len(result_shape):
        raise MemoptError(f"subview sizes {sizes} do not reduce to the result shape {result_shape}", op)
    return keep


@compiles("memref.reinterpret_cast")
def reinterpret_cast(c: Compiler, op: Operation):
    assert isinstance(op, memref.ReinterpretCastOp)  # registered under its name
    static = [list(x.get_values()) for x in (op.static_offsets, op.static_sizes, op.static_strides)]
    dyn = [c.slots_of(x) for x in (op.offsets, op.sizes, op.strides)]
    a, r = c.slot(op.source), c.slot(op.results[0])

    def step(m: Machine, frame, op=op):
        src: Ref = frame[a]
        offsets, sizes, strides = (mixed(s, d, frame) for s, d in zip(static, dyn))
        ref = src.derive(src.base, offsets[0] if offsets else 0, sizes, strides)
        if not ref.in_bounds():
            raise MemoptError(f"reinterpret_cast to offset {offsets}, sizes {sizes}, strides {strides} runs "
                              f"outside its {src.storage.nbytes}-byte storage", op)
        frame[r] = ref
    return step


@compiles("memref.cast", "memref.memory_space_cast", "memref.assume_alignment")
def same_bytes(c: Compiler, op: Operation):
    a, r = c.slot(op.operands[0]), c.slot(op.results[0])

    def step(m: Machine, frame, op=op):
        frame[r] = frame[a]
    return step


@compiles("memref.expand_shape")
def expand_shape(c: Compiler, op: Operation):
    assert isinstance(op, memref.ExpandShapeOp)  # registered under its name
    static = list(op.static_output_shape.get_values()) if op.static_output_shape is not None \
        else list(memref_type(op.results[0], op).get_shape())
    dyn, groups = c.slots_of(op.output_shape), _groups(op)
    a, r = c.slot(op.operands[0]), c.slot(op.results[0])

    def step(m: Machine, frame, op=op):
        src: Ref = frame[a]
        shape = mixed(static, dyn, frame)
        sizes, strides = [], []
        for k, group in enumerate(groups):
            part = [shape[d] for d in group]
            if int(np.prod(part, dtype=np.int64)) != src.sizes[k]:
                raise MemoptError(f"expand_shape of dim {k} ({src.sizes[k]}) into {part}", op)
            sizes += part
            strides += [src.strides[k] * s for s in contiguous_strides(part)]
        frame[r] = src.derive(src.base, src.offset, sizes, strides)
    return step


@compiles("memref.collapse_shape")
def collapse_shape(c: Compiler, op: Operation):
    assert isinstance(op, memref.CollapseShapeOp)  # registered under its name
    groups, a, r = _groups(op), c.slot(op.operands[0]), c.slot(op.results[0])

    def step(m: Machine, frame, op=op):
        src: Ref = frame[a]
        sizes, strides = [], []
        for group in groups:
            dims = [d for d in group if src.sizes[d] != 1] or [group[-1]]
            for x, y in zip(dims, dims[1:]):
                if src.strides[x] != src.strides[y] * src.sizes[y]:
                    raise MemoptError(f"collapse_shape of non-contiguous dims {group} (strides "
                                      f"{[src.strides[d] for d in group]})", op)
            sizes.append(int(np.prod([src.sizes[d] for d in group], dtype=np.int64)))
            strides.append(src.strides[dims[-1]])
        frame[r] = src.derive(src.base, src.offset, sizes, strides)
    return step


def _groups(op: memref.CollapseShapeOp | memref.ExpandShapeOp) -> list[list[int]]:
    return [[int(x.value.data) for x in g.data] for g in op.reassociation.data]


@compiles("memref.extract_strided_metadata")
def extract_strided_metadata(c: Compiler, op: Operation):
    a, rs = c.slot(op.operands[0]), c.slots_of(op.results)

    def step(m: Machine, frame, op=op):
        src: Ref = frame[a]
        if len(rs) != 2 + 2 * len(src.sizes):
            raise MemoptError(f"extract_strided_metadata of a rank-{len(src.sizes)} memref with {len(rs)} results", op)
        for s, v in zip(rs, [src.derive(src.base, 0, [], []), src.offset, *src.sizes, *src.strides]):
            frame[s] = v
    return step


@compiles("memref.extract_aligned_pointer_as_index")
def aligned_pointer(c: Compiler, op: Operation):
    """A stand-in address: distinct storages far apart, the aligned pointer's byte in it."""
    a, r = c.slot(op.operands[0]), c.slot(op.results[0])

    def step(m: Machine, frame, op=op):
        ref: Ref = frame[a]
        frame[r] = (ref.storage.ident << 40) + ref.base
    return step


@compiles("memref.dim")
def dim(c: Compiler, op: Operation):
    a, k_slot, r = c.slot(op.operands[0]), c.slot(op.operands[1]), c.slot(op.results[0])

    def step(m: Machine, frame, op=op):
        ref: Ref = frame[a]
        k = int(frame[k_slot])
        if not 0 <= k < len(ref.sizes):
            raise MemoptError(f"memref.dim {k} of a rank-{len(ref.sizes)} memref", op)
        frame[r] = ref.sizes[k]
    return step


@compiles("memref.rank")
def rank(c: Compiler, op: Operation):
    a, r = c.slot(op.operands[0]), c.slot(op.results[0])

    def step(m: Machine, frame, op=op):
        frame[r] = len(frame[a].sizes)
    return step


# ---------------------------------------------------------------------- elements

def element(m: Machine, ref: Ref, idx: tuple, op: Operation, what: str) -> None:
    """Refuse an element access out of bounds, to freed storage, or to bytes a DMA writes."""
    if len(idx) != len(ref.sizes) or any(not 0 <= i < n for i, n in zip(idx, ref.sizes)):
        raise MemoptError(f"element {list(idx)} of buffer '{ref.name}' (shape {list(ref.sizes)}) is {what} "
                          "out of bounds", op)
    if ref.storage.freed is not None:
        raise MemoptError(f"buffer '{ref.name}' is {what} after it was deallocated (at {where(ref.storage.freed)})", op)
    if ref.arr is None:
        m.access(ref, op, what)
    if m.pending:
        at = ref.start + sum(i * s for i, s in zip(idx, ref.strides)) * ref.elem.itemsize
        m.check_in_flight(ref, op, what, (at, at + ref.elem.itemsize))


def load(m: Machine, ref: Ref, idx: tuple, op: Operation):
    """Element ``idx`` of ``ref`` as a value (index: a Python int)."""
    for i, n in zip(idx, ref.sizes):
        if not 0 <= i < n:
            element(m, ref, idx, op, "read")
    if ref.storage.freed is not None or m.pending or ref.arr is None or len(idx) != len(ref.sizes):
        element(m, ref, idx, op, "read")
    m.checker.reads += 1
    sh = ref.sh
    if sh is not None and sh[idx].tobytes() != ref.expect:
        stamps = sh[idx]
        m.bad_read(ref, op, stamps.reshape((1,) * len(idx) + stamps.shape), idx)
    arr = ref.arr
    assert arr is not None  # element() refused a view without elements (out of its storage)
    v = arr[idx]
    name = ref.elem.name
    if name == "index":
        return int(v)
    return ref.elem.decode(v)[()] if name == "bf16" else v


def store(m: Machine, ref: Ref, idx: tuple, value, op: Operation) -> None:
    """Write ``value`` into element ``idx`` of ``ref``; stamp and log it."""
    for i, n in zip(idx, ref.sizes):
        if not 0 <= i < n:
            element(m, ref, idx, op, "written")
    st = ref.storage
    if st.freed is not None or m.pending or ref.arr is None or len(idx) != len(ref.sizes):
        element(m, ref, idx, op, "written")
    if st.constant:
        raise MemoptError(f"buffer '{ref.name}' is a constant global: it cannot be written", op)
    arr = ref.arr
    assert arr is not None  # element() refused a view without elements (out of its storage)
    arr[idx] = ref.elem.encode(value) if ref.elem.name == "bf16" else value
    if ref.sh is not None:
        ref.sh[idx] = ref.owner
    m.last_writer[ref.owner] = op
    m.record(op, 0, (idx, arr[idx].tobytes()), ref)


@compiles("memref.load")
def memref_load(c: Compiler, op: Operation):
    a, idx, r = c.slot(op.operands[0]), c.slots_of(op.operands[1:]), c.slot(op.results[0])

    def step(m: Machine, frame, op=op):
        frame[r] = load(m, frame[a], tuple([frame[s] for s in idx]), op)
    return step


@compiles("memref.store")
def memref_store(c: Compiler, op: Operation):
    assert isinstance(op, memref.StoreOp)  # registered under its name
    if isinstance(op.value.type, MemRefType):
        raise MemoptError("cannot execute a memref stored into a memref", op)
    v, a, idx = c.slot(op.operands[0]), c.slot(op.operands[1]), c.slots_of(op.operands[2:])

    def step(m: Machine, frame, op=op):
        store(m, frame[a], tuple([frame[s] for s in idx]), frame[v], op)
    return step


@compiles("memref.copy")
def copy(c: Compiler, op: Operation):
    a, b = c.slot(op.operands[0]), c.slot(op.operands[1])

    def step(m: Machine, frame, op=op):
        src, dst = frame[a], frame[b]
        if src.sizes != dst.sizes:
            raise MemoptError(f"memref.copy from shape {list(src.sizes)} to {list(dst.sizes)}", op)
        m.write(dst, m.read(src, op), op)
        m.check_owner(src, op)
    return step


# ---------------------------------------------------------------------- deallocation

def release(m: Machine, ref: Ref, op: Operation) -> None:
    if ref.planned:
        raise MemoptError(f"'{op.name}' frees '{ref.name}', a planned buffer: its bytes are the arena's "
                          "(planned buffers are never deallocated)", op)
    m.free(ref.storage, op)


@compiles("memref.dealloc")
def dealloc(c: Compiler, op: Operation):
    a = c.slot(op.operands[0])

    def step(m: Machine, frame, op=op):
        release(m, frame[a], op)
    return step


@compiles("bufferization.dealloc")
def ownership_dealloc(c: Compiler, op: Operation):
    assert isinstance(op, DeallocOp)  # registered under its name (memopt's definition of it)
    refs, conds = c.slots_of(op.memrefs), c.slots_of(op.conditions)
    kept, rs = c.slots_of(op.retained), c.slots_of(op.results)

    def step(m: Machine, frame, op=op):
        pairs = [(frame[a], bool(frame[k])) for a, k in zip(refs, conds)]
        retained = [frame[s] for s in kept]
        for ref, cond in pairs:
            if cond and not any(x.owner == ref.owner for x in retained) and ref.storage.freed is None:
                release(m, ref, op)
        for s, x in zip(rs, retained):
            frame[s] = np.bool_(any(cond and ref.owner == x.owner for ref, cond in pairs))
    return step


__all__ = ["load", "mixed", "store"]
