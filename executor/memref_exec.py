"""Proof by execution for upstream MLIR (``func``/``memref``/``scf``/``arith``/``linalg``) plans.

A planned upstream function holds its buffers as ``memref.view``s of one ``i8`` arena — whether
memopt's ``plan-memory`` or upstream MLIR's ``static-memory-planner-analysis`` made the plan. The
*unplanned* reading of the same IR gives every such view its own fresh storage; the *planned*
reading places it in the arena as written. Both run; every buffer write is recorded in order
(digest of the bytes written), and every read must see the bytes its last write left — a plan
that lets one buffer clobber another live one is caught at the clobbered buffer's next read, and
named. Kernels are the executor's pseudo-kernels (:mod:`memopt.executor.kernels`): deterministic
functions of every input byte.

What writes what: ``func.call @kernel(ins..., outs...)`` to a declaration follows the
destination-passing convention of bufferized code — the last memref operand is written, the
others are read (``memopt.outs = N`` on the call says that the last ``N`` are written); linalg
ops write their ``outs`` and read their ``ins``; ``memref.copy`` reads its source and writes its
target; ``memref.load``/``store`` (and ``affine.load``/``store``, their maps applied) read/write one
element. ``scf.for`` and ``affine.for`` run their trip counts,
``scf.if`` its condition's branch, ``arith`` constants and integer arithmetic on scalars are
evaluated. Anything else is refused, located: never silently skipped.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import affine, arith, func, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from memopt.diagnostics import MemoptError, locate
from memopt.passes.upstream_lifetime import element_bytes

from .data import crc_seed, element_kind, sample
from .kernels import mix


def _bytes_of(t: MemRefType) -> int:
    n = element_bytes(t) or 1
    for d in t.get_shape():
        if d < 0:
            raise ValueError("dynamic")
        n *= d
    return n


def _info(t: MemRefType):
    from .data import TensorInfo

    return TensorInfo(tuple(t.get_shape()), element_kind(t.element_type), _bytes_of(t))


def _digest(a: np.ndarray) -> bytes:
    return hashlib.blake2b(memoryview(np.ascontiguousarray(a)), digest_size=16).digest()


def _is_arena(alloc: Operation) -> bool:
    """An ``i8`` alloc holding planned buffers: marked ``memopt.arena`` by memopt's plan; in a
    function without that mark, upstream MLIR's planner's arena: an ``i8`` alloc with an
    ``alignment`` (its planner always sets one) viewed more than once. (Views of an unaligned
    alloc are reshapes of one buffer, as ``lower-to-memref`` emits them, not planned buffers.)"""
    if not isinstance(alloc, memref.AllocOp) or len(alloc.results[0].type.get_shape()) != 1:
        return False
    if "memopt.arena" in alloc.attributes:
        return True
    f = alloc.parent_op()
    while f is not None and not isinstance(f, func.FuncOp):
        f = f.parent_op()
    if f is None or any("memopt.arena" in o.attributes for o in f.body.walk()):
        return False
    if alloc.alignment is None:
        return False
    return sum(1 for u in alloc.results[0].uses if isinstance(u.operation, memref.ViewOp)) > 1


def _is_arena_arg(v: SSAValue) -> bool:
    """The caller-provided arena of ``plan-memory{arena=arg}`` (named by ``memopt.arena_arg``)."""
    if not isinstance(v, BlockArgument):
        return False
    f = v.owner.parent_op()
    k = f.attributes.get("memopt.arena_arg") if isinstance(f, func.FuncOp) else None
    return isinstance(k, IntegerAttr) and k.value.data == v.index


def _arena_view(op: Operation) -> bool:
    return isinstance(op, memref.ViewOp) and (_is_arena_arg(op.source) or _is_arena(op.source.owner))


@dataclass
class _Run:
    module: ModuleOp
    planned: bool
    seed: int

    def __post_init__(self):
        self.env: dict[SSAValue, object] = {}
        self.writes: list[tuple[Operation, int, bytes]] = []
        self.reads = 0
        self.checker = None
        self.written: set[int] = set()  # id() of the arrays written (or given as arguments)
        self.globals: dict[str, np.ndarray] = {}
        self.root_of: dict[int, int] = {}  # id() of a view's array -> id() of the storage it is a view of
        self.branches: bool | None = None  # force every scf.if's branch (None: its condition decides)
        self.pending: dict[tuple[int, int], tuple[np.ndarray, Operation]] = {}  # DMA in flight: tag -> bytes

    # ------------------------------------------------------------------ storage
    def storage(self, op: Operation) -> None:
        r = op.results[0]
        t = r.type
        if isinstance(op, (memref.AllocOp, memref.AllocaOp)):
            dyn = iter(int(self.env[v]) for v in op.dynamic_sizes)
            n = element_bytes(t) or 1
            for d in t.get_shape():
                n *= next(dyn) if d < 0 else d
            rng = np.random.default_rng(crc_seed("garbage", n))  # what the planned arena holds before writes
            self.env[r] = rng.integers(0, 256, n).astype(np.uint8)
        elif _arena_view(op) and not self.planned:
            self.env[r] = np.full(_bytes_of(t), 0xA5, np.uint8)  # unplanned: its own storage
        else:  # a view of the arena at its byte offset
            base = self.env[op.source]
            off = int(self.env[op.byte_shift])
            n = _bytes_of(t)
            if off < 0 or off + n > len(base):
                raise MemoptError(f"view [{off}, {off + n}) is outside its {len(base)}-byte source", op)
            self.env[r] = base[off: off + n]
            self.root_of[id(self.env[r])] = self.root_of.get(id(base), id(base))

    # ------------------------------------------------------------------ effects
    def read(self, v: SSAValue, op: Operation) -> np.ndarray:
        data = self.env.get(v)
        if not isinstance(data, np.ndarray):
            raise MemoptError("cannot execute a read of an unknown buffer", op)
        self.reads += 1
        self.check_in_flight(data, op, "read")
        if self.root_of.get(id(data), id(data)) not in self.written:
            raise MemoptError(f"buffer '{_name(v)}' is read before anything is written to it (its bytes are undefined)", op)
        if self.checker is not None:
            self.checker.on_read(v, data, op)
        return data

    def write(self, v: SSAValue, data: np.ndarray, op: Operation, k: int) -> None:
        dst = self.env[v]
        assert isinstance(dst, np.ndarray)
        self.check_in_flight(dst, op, "written")
        dst[:] = data
        self.written.add(self.root_of.get(id(dst), id(dst)))
        d = _digest(dst)
        self.writes.append((op, k, d))
        if self.checker is not None:
            self.checker.on_write(v, dst, op, k, d)

    def kernel(self, op: Operation, kind: str, ins: list[SSAValue], outs: list[SSAValue]) -> None:
        datas = [self.read(v, op).copy() for v in ins if isinstance(v.type, MemRefType)]
        from .data import TensorInfo

        infos = []
        for v in outs:
            t = v.type
            infos.append(TensorInfo(tuple(t.get_shape()), element_kind(t.element_type), _bytes_of(t)))
        ident = crc_seed(kind, len(self.writes))
        results = mix(kind, ident, datas, infos)
        srcs = [self.env[v] for v in ins if isinstance(v.type, MemRefType)]
        for k, (v, data) in enumerate(zip(outs, results)):
            dst = self.env[v]
            if any(np.shares_memory(dst, x) for x in srcs if x is not dst):
                # Written over a buffer it reads (a plan error for these kernels): a real kernel
                # writes while it reads, so compute each chunk from the inputs as they are now.
                chunks = 8
                n = len(dst)
                for c in range(chunks):
                    lo, hi = n * c // chunks, n * (c + 1) // chunks
                    now = [x.copy() for x in srcs]
                    dst[lo:hi] = mix(kind, ident, now, infos)[k][lo:hi]
                data = dst.copy()
            self.write(v, data, op, k)

    def check_in_flight(self, data: np.ndarray, op: Operation, what: str) -> None:
        for dst, start in self.pending.values():
            if np.shares_memory(data, dst):
                raise MemoptError(f"bytes a DMA is still writing (started at {_where(start)}) are {what} "
                                  "before its memref.dma_wait", op)

    def dma_start(self, op: memref.DmaStartOp) -> None:
        """The transfer lands at once (the earliest it may): a plan whose staging bytes are
        still read by an earlier op is caught at that read; reading them before the wait is
        refused (:meth:`check_in_flight`)."""
        src, dst = self.read(op.src, op), self.env[op.dest]
        n = int(self.env[op.num_elements])
        es = _element_width(op.src.type)
        ed = _element_width(op.dest.type)
        s0 = _flat(self, op.src_indices, op.src.type) * es
        d0 = _flat(self, op.dest_indices, op.dest.type) * ed
        if s0 + n * es > len(src) or d0 + n * es > len(dst):
            raise MemoptError(f"dma_start of {n} elements runs past its source or destination", op)
        self.check_in_flight(dst[d0:d0 + n * es], op, "written")
        view = dst[d0:d0 + n * es]
        view[:] = src[s0:s0 + n * es]
        self.written.add(self.root_of.get(id(dst), id(dst)))
        d = _digest(view)
        self.writes.append((op, 0, d))
        if self.checker is not None:
            self.checker.on_write(op.dest, view, op, 0, d)
        key = (id(self.env[op.tag]), _flat(self, op.tag_indices, op.tag.type))
        if key in self.pending:
            raise MemoptError("dma_start reuses a tag whose transfer was not waited for", op)
        self.pending[key] = (view, op)

    def dma_wait(self, op: memref.DmaWaitOp) -> None:
        key = (id(self.env[op.tag]), _flat(self, op.tag_indices, op.tag.type))
        if self.pending.pop(key, None) is None:
            raise MemoptError("dma_wait on a tag with no transfer in flight", op)

    def load(self, op: memref.LoadOp):
        """One element of a buffer, as a Python number (``i1``: its low bit)."""
        return self.load_at(op.memref, _flat(self, op.indices, op.memref.type), op)

    def load_at(self, buf: SSAValue, flat: int, op: Operation):
        """Element ``flat`` (row-major) of ``buf``, read by ``op``."""
        t = buf.type
        data = self.read(buf, op)
        kind = element_kind(t.element_type)
        width = kind.itemsize or 1
        raw = data[flat * width:(flat + 1) * width]
        if kind.family == "bool" or kind.dtype is None:
            return int(raw[0]) & 1
        return np.frombuffer(raw.tobytes(), dtype=kind.dtype)[0].item()

    def store_at(self, buf: SSAValue, flat: int, value, op: Operation) -> None:
        """Write ``value`` into element ``flat`` (row-major) of ``buf``, by ``op``."""
        kind = element_kind(buf.type.element_type)
        width = kind.itemsize or 1
        raw = (np.array([value], dtype=kind.dtype).view(np.uint8) if kind.dtype is not None
               else np.array([int(value) & 0xFF], dtype=np.uint8))
        dst = self.env[buf]
        self.check_in_flight(dst, op, "written")
        dst[flat * width:(flat + 1) * width] = raw[:width]
        self.written.add(self.root_of.get(id(dst), id(dst)))
        # Only the element's bytes (and where they go) are compared: the rest of the buffer may
        # still be undefined, and undefined bytes differ between the planned and unplanned runs.
        d = _digest(np.concatenate([np.frombuffer(flat.to_bytes(8, "little"), np.uint8), raw[:width]]))
        self.writes.append((op, 0, d))
        if self.checker is not None:
            self.checker.on_write(buf, dst, op, 0, d, whole=False)

    def affine_flat(self, op) -> int:
        """The row-major element an ``affine.load``/``affine.store`` touches (its map applied)."""
        return _row_major(_affine(self, op.map.data, op.indices), op.memref.type.get_shape())

    # ------------------------------------------------------------------ ops
    def run_block(self, block: Block) -> None:
        for op in block.ops:
            self.run_op(op)

    def alias(self, op: Operation) -> None:
        """An aliasing op: its result is the same bytes as its source (``cast``,
        ``expand_shape``, ``collapse_shape``), or a contiguous part of them (``subview``,
        ``reinterpret_cast`` with static offsets, sizes and strides); anything else is refused."""
        src_v = op.operands[0]
        base = self.env[src_v]
        t = op.results[0].type
        if isinstance(op, (memref.CastOp, memref.ExpandShapeOp, memref.CollapseShapeOp)):
            self.env[op.results[0]] = base
            return
        width = element_bytes(t) or 1
        offsets = [int(x) for x in op.static_offsets.get_values()]
        sizes = [int(x) for x in op.static_sizes.get_values()]
        strides = [int(x) for x in op.static_strides.get_values()]
        if any(x < 0 for x in offsets + sizes + strides):
            raise MemoptError(f"cannot execute '{op.name}' with dynamic offsets, sizes or strides", op)
        if isinstance(op, memref.SubviewOp):
            src_shape = list(src_v.type.get_shape())
            src_strides = [1] * len(src_shape)
            for k in range(len(src_shape) - 2, -1, -1):
                src_strides[k] = src_strides[k + 1] * src_shape[k + 1]
            start = sum(o * st for o, st in zip(offsets, src_strides))
            inner = all(sz == d and s == 1 for sz, d, s in zip(sizes[1:], src_shape[1:], strides[1:]))
            if not inner or (sizes and strides[0] != 1 and sizes[0] > 1):
                raise MemoptError(f"cannot execute a non-contiguous '{op.name}'", op)
        else:
            start = offsets[0] if offsets else 0
        n = width
        for d in sizes:
            n *= d
        lo = start * width
        if lo + n > len(base):
            raise MemoptError(f"'{op.name}' [{lo}, {lo + n}) is outside its {len(base)}-byte source", op)
        self.env[op.results[0]] = base[lo:lo + n]
        self.root_of[id(self.env[op.results[0]])] = self.root_of.get(id(base), id(base))

    def run_region_block(self, region, args: list) -> list:
        """Run the first block of ``region`` with ``args``; the terminator's operand values."""
        block = region.blocks[0]
        for a, v in zip(block.args, args):
            self.env[a] = v
        self.run_block(block)
        return [self.env[v] for v in block.last_op.operands] if block.last_op is not None else []

    def run_op(self, op: Operation) -> None:
        if isinstance(op, (memref.AllocOp, memref.AllocaOp, memref.ViewOp)):
            self.storage(op)
        elif isinstance(op, (memref.CastOp, memref.ExpandShapeOp, memref.CollapseShapeOp, memref.SubviewOp,
                             memref.ReinterpretCastOp)):
            self.alias(op)
        elif isinstance(op, memref.StoreOp):
            if isinstance(op.value.type, MemRefType):
                raise MemoptError("cannot execute a memref stored into a memref", op)
            self.store_at(op.memref, _flat(self, op.indices, op.memref.type), self.env[op.value], op)
        elif isinstance(op, scf.IndexSwitchOp):
            cases = [int(c) for c in op.cases.get_values()]
            if self.branches is not None:  # forced: the first case, or the default
                region = op.case_regions[0] if self.branches and cases else op.default_region
            else:
                arg = int(self.env[op.arg])
                region = op.case_regions[cases.index(arg)] if arg in cases else op.default_region
            outs = self.run_region_block(region, [])
            for r, v in zip(op.results, outs):
                self.env[r] = v
        elif isinstance(op, scf.WhileOp):
            values = [self.env[v] for v in op.arguments]
            for _ in range(1_000_000):
                cond_op = op.before_region.blocks[0].last_op
                outs = self.run_region_block(op.before_region, values)
                if not int(self.env[cond_op.condition]):
                    for r, v in zip(op.results, outs[1:]):
                        self.env[r] = v
                    break
                values = self.run_region_block(op.after_region, outs[1:])
            else:
                raise MemoptError("scf.while ran a million iterations: refusing to go on", op)
        elif isinstance(op, scf.ConditionOp):
            pass
        elif isinstance(op, memref.DeallocOp):
            pass
        elif isinstance(op, memref.GetGlobalOp):
            key = op.name_.root_reference.data
            if key not in self.globals:  # weights: bytes seeded by the global's name, read-only
                t = op.results[0].type
                rng = np.random.default_rng(crc_seed("global", key))
                self.globals[key] = sample(rng, _info(t))
                self.written.add(id(self.globals[key]))
            self.env[op.results[0]] = self.globals[key]
        elif isinstance(op, arith.ConstantOp):
            v = op.value
            if isinstance(v, IntegerAttr):
                self.env[op.result] = v.value.data
            elif hasattr(v, "value") and isinstance(getattr(v.value, "data", None), float):
                self.env[op.result] = v.value.data
            else:
                self.env[op.result] = 0
        elif type(op) in _INDEX_ARITH:
            a, b = int(self.env[op.lhs]), int(self.env[op.rhs])
            self.env[op.result] = _INDEX_ARITH[type(op)](a, b)
        elif isinstance(op, arith.SelectOp):
            self.env[op.result] = self.env[op.lhs] if int(self.env[op.cond]) else self.env[op.rhs]
        elif isinstance(op, affine.ApplyOp):
            (self.env[op.result],) = _affine(self, op.map.data, op.mapOperands)
        elif isinstance(op, func.CallOp):
            mems = [v for v in op.arguments if isinstance(v.type, MemRefType)]
            n_out = op.attributes.get("memopt.outs")
            n_out = n_out.value.data if isinstance(n_out, IntegerAttr) else 1
            self.kernel(op, op.callee.root_reference.data, mems[: len(mems) - n_out], mems[len(mems) - n_out:])
        elif isinstance(op, memref.DmaStartOp):
            self.dma_start(op)
        elif isinstance(op, memref.DmaWaitOp):
            self.dma_wait(op)
        elif isinstance(op, memref.LoadOp):
            self.env[op.res] = self.load(op)
        elif isinstance(op, (arith.CmpiOp, arith.CmpfOp)):
            a, b = self.env[op.lhs], self.env[op.rhs]
            pred = op.predicate.value.data
            name = (arith.CMPI_COMPARISON_OPERATIONS if isinstance(op, arith.CmpiOp) else arith.CMPF_COMPARISON_OPERATIONS)[pred]
            self.env[op.result] = int(_compare(name, a, b))
        elif isinstance(op, memref.CopyOp):
            self.write(op.destination, self.read(op.source, op).copy(), op, 0)
        elif op.name.startswith("linalg.") and hasattr(op, "inputs") and hasattr(op, "outputs"):
            outs = list(op.outputs)
            if op.name == "linalg.copy" and len(op.inputs) == 1:  # exact: the same bytes
                self.write(outs[0], self.read(op.inputs[0], op).copy(), op, 0)
            else:
                self.kernel(op, op.name, list(op.inputs) + [v for v in outs if _reads_outs(op)], outs)
        elif isinstance(op, scf.ForOp):
            lb, ub, step = (int(self.env[v]) for v in (op.lb, op.ub, op.step))
            body = op.body.blocks[0]
            carried = [self.env[v] for v in op.iter_args]
            for i in range(lb, ub, step):
                self.env[body.args[0]] = i
                for a, c in zip(body.args[1:], carried):
                    self.env[a] = c  # a carried memref aliases the buffer passed in
                self.run_block(body)
                carried = [self.env[v] for v in body.last_op.operands]
            for r, c in zip(op.results, carried):
                self.env[r] = c
        elif isinstance(op, scf.IfOp):
            c = self.env.get(op.cond)
            if c is None:
                raise MemoptError("cannot execute an scf.if whose condition is not known", op)
            take = self.branches if self.branches is not None else bool(int(c))
            region = op.true_region if take else op.false_region
            if region.blocks:
                self.run_block(region.blocks[0])
        elif isinstance(op, affine.ForOp):
            lb = max(_affine(self, op.lowerBoundMap.data, op.lowerBoundOperands))
            ub = min(_affine(self, op.upperBoundMap.data, op.upperBoundOperands))
            body = op.body.blocks[0]
            carried = [self.env[v] for v in op.inits]
            for i in range(lb, ub, op.step.value.data):
                self.env[body.args[0]] = i
                for a, c in zip(body.args[1:], carried):
                    self.env[a] = c
                self.run_block(body)
                carried = [self.env[v] for v in body.last_op.operands]
            for r, c in zip(op.results, carried):
                self.env[r] = c
        elif isinstance(op, affine.LoadOp):
            self.env[op.result] = self.load_at(op.memref, self.affine_flat(op), op)
        elif isinstance(op, affine.StoreOp):
            self.store_at(op.memref, self.affine_flat(op), self.env[op.value], op)
        elif op.name in _MATH:
            self.env[op.results[0]] = float(_MATH[op.name](float(self.env[op.operands[0]])))
        elif isinstance(op, memref.RankOp):
            self.env[op.rank] = len(op.source.type.get_shape())
        elif isinstance(op, (scf.YieldOp, affine.YieldOp, func.ReturnOp)):
            pass  # a yield passes buffers on (scf.for reads them back); a return ends the run
        else:
            raise MemoptError(f"cannot execute operation '{op.name}' on memrefs (not supported yet)", op)

    def run(self, f: func.FuncOp) -> None:
        block = f.body.blocks[0]
        for k, a in enumerate(block.args):
            t = a.type
            if isinstance(t, MemRefType) and _is_arena_arg(a):
                rng = np.random.default_rng(crc_seed("garbage", _bytes_of(t)))  # scratch: undefined bytes
                self.env[a] = rng.integers(0, 256, _bytes_of(t)).astype(np.uint8)
            elif isinstance(t, MemRefType):
                info_kind = element_kind(t.element_type)
                from .data import TensorInfo

                rng = np.random.default_rng(crc_seed("arg", k, self.seed))
                self.env[a] = sample(rng, TensorInfo(tuple(t.get_shape()), info_kind, _bytes_of(t)))
                self.written.add(id(self.env[a]))
            else:
                self.env[a] = self.seed % 2  # scalars (e.g. an i1 condition): from the seed
        self.run_block(block)
        if self.pending:
            _, start = next(iter(self.pending.values()))
            raise MemoptError("a DMA transfer is never waited for", start)


class _Checker:
    """Planned run: every write must match the reference's, every read its buffer's last write."""

    def __init__(self, reference: list[tuple[Operation, int, bytes]]):
        self.reference = reference
        self.position = 0
        self.current: dict[SSAValue, bytes] = {}

    def on_write(self, v, dst, op, k, d, whole: bool = True):
        """``d`` digests the whole buffer, or (``whole=False``, one element stored) that
        element's bytes: then the buffer's later reads are not compared whole (what is read
        from it shows in what is written from it, which is compared)."""
        ref = self.reference[self.position] if self.position < len(self.reference) else None
        if ref is None or ref[0] is not op or ref[1] != k or ref[2] != d:
            raise MemoptError(f"buffer '{_name(v)}' differs between planned and unplanned execution", op)
        self.position += 1
        if whole:
            self.current[v] = d
        else:
            self.current.pop(v, None)

    def on_read(self, v, data, op):
        want = self.current.get(v)
        if want is not None and _digest(data) != want:
            raise MemoptError(
                f"buffer '{_name(v)}' differs between planned and unplanned execution (overwritten before its use)", op
            )


def _reads_outs(op: Operation) -> bool:
    """Whether a linalg op reads its ``outs`` before writing them: a ``linalg.generic`` when its
    payload uses the output block arguments, ``linalg.fill`` never, other named ops (matmul
    accumulates into C) always."""
    if op.name == "linalg.fill":
        return False
    if op.name == "linalg.generic" and op.regions and op.regions[0].blocks:
        args = op.regions[0].blocks[0].args
        n_out = len(op.outputs)
        return any(a.uses for a in args[len(args) - n_out:])
    return True


_INDEX_ARITH = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.DivUIOp: lambda a, b: a // b,
    arith.RemUIOp: lambda a, b: a % b,
}
"""Integer arithmetic on index values (addresses, loop counts, iteration parities)."""


def _element_width(t: MemRefType) -> int:
    return element_bytes(t) or 1


_MATH = {"math.exp": np.exp, "math.tanh": np.tanh, "math.sqrt": np.sqrt, "math.absf": np.abs}
"""Scalar math ops the executor evaluates (their values flow into stores, whose bytes count)."""


def _affine(run: _Run, amap, operands) -> tuple[int, ...]:
    """``amap`` applied to its operands' values (dimensions first, then symbols)."""
    values = [int(run.env[v]) for v in operands]
    return amap.eval(values[:amap.num_dims], values[amap.num_dims:])


def _flat(run: _Run, indices, t: MemRefType) -> int:
    return _row_major([int(run.env[i]) for i in indices], t.get_shape())


def _row_major(indices, shape) -> int:
    """The row-major position of the element at ``indices`` in a buffer of ``shape``."""
    flat = 0
    for i, d in zip(indices, shape):
        flat = flat * d + i
    return flat


def _where(op: Operation) -> str:
    loc = locate(op)
    return f"line {loc[0]}" if loc else f"'{op.name}'"


def _compare(pred: str, a, b) -> bool:
    """``arith.cmpi``/``cmpf`` on Python numbers (ordered and unordered float predicates alike:
    the pseudo-kernels' values are never NaN-sensitive conditions)."""
    if pred in ("eq", "oeq", "ueq"):
        return a == b
    if pred in ("ne", "one", "une"):
        return a != b
    if pred in ("slt", "ult", "olt"):
        return a < b
    if pred in ("sle", "ule", "ole"):
        return a <= b
    if pred in ("sgt", "ugt", "ogt"):
        return a > b
    if pred in ("sge", "uge", "oge"):
        return a >= b
    if pred == "true":
        return True
    return False


def _name(v: SSAValue) -> str:
    return f"%{v.name_hint}" if v.name_hint else "a buffer"


@dataclass(frozen=True)
class MemrefCheck:
    function: str
    writes: int
    reads: int
    arena_views: int


def check_memref_function(module: ModuleOp, f: func.FuncOp, seed: int = 0) -> MemrefCheck:
    """Run ``f`` with its arena views unplanned and planned; raise a located MemoptError at the
    first buffer whose bytes differ.

    With ``scf.if``s, the run is repeated with every branch forced to ``then`` and to ``else``
    as well as as the conditions decide, so both sides of every branch run against the plan
    (branches share bytes only when exclusive — each forced run is one consistent path)."""
    policies: list[bool | None] = [None]
    if any(isinstance(op, scf.IfOp) for op in f.body.walk()):
        policies += [True, False]
    writes = reads = 0
    for policy in policies:
        ref = _Run(module, False, seed)
        ref.branches = policy
        ref.run(f)
        planned = _Run(module, True, seed)
        planned.branches = policy
        planned.checker = _Checker(ref.writes)
        planned.run(f)
        writes += len(ref.writes)
        reads += planned.reads
    views = sum(1 for op in f.body.walk() if _arena_view(op))
    return MemrefCheck(f.sym_name.data, writes, reads, views)


def is_memref_function(f: func.FuncOp) -> bool:
    return any(isinstance(op, (memref.AllocOp, memref.AllocaOp, memref.ViewOp)) for op in f.body.walk())


__all__ = ["MemrefCheck", "check_memref_function", "is_memref_function"]
