"""Control flow of upstream programs: ``scf``, ``cf`` and ``func.call``.

Regions run with their block arguments bound and hand back what their terminator yields:
``scf.for`` (iter_args carried, results bound), ``scf.while`` (before/after regions),
``scf.if``/``scf.index_switch``/``scf.execute_region`` (their yields become results), multi-block
regions through ``cf.br``/``cf.cond_br``, ``cf.assert``. A loop whose trip count times its body
is already known to exceed ``--max-ops`` is refused before it starts.

``func.call`` of a function with a body runs that body in a frame of its own (memrefs are passed
by reference, as compiled code does). A call of a declaration is an external kernel, run by
the stand-in convention of lowered memopt programs: the last memref operand (the last
``memopt.outs = N``) is written, the others read, and every written byte is a deterministic
function of every byte read (:func:`memopt.executor.kernels.mix`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable

import numpy as np
from xdsl.dialects import affine, arith, cf, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType
from xdsl.ir import Block, Operation, Region

from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import REMAT_ATTR

from .core import Compiler
from .data import TensorInfo, crc_seed, element_kind
from .kernels import mix
from .memref_machine import Machine
from .memref_nest import nest_step, raise_nest
from .memref_program import compiles
from .memref_values import nbytes_of

MAX_DEPTH = 200


def region_runner(c: Compiler, region: Region):
    """``run(m, frame) -> yielded values`` for ``region``, from its entry block (following
    ``cf`` branches)."""
    if not region.blocks:
        return lambda m, frame: []
    if len(region.blocks) == 1:
        code = c.code(_entry(region))

        def run_one(m: Machine, frame, args=()):
            m.run_block(code, frame, args)
            return [frame[s] for s in code.yields]
        return run_one
    return lambda m, frame, args=(): run_blocks(m, c, region, frame, args)


def _entry(region: Region) -> Block:
    """The entry block of a region that has blocks."""
    block = region.blocks.first
    assert block is not None
    return block


def run_blocks(m: Machine, c: Compiler, region: Region, frame: list, args) -> list:
    block = _entry(region)
    while True:
        code = c.code(block)
        term = m.run_block(code, frame, args)
        if term is None:
            return []
        values = [frame[s] for s in code.yields]
        if term.name == "cf.br":
            assert isinstance(term, cf.BranchOp)  # chosen by its name
            block, args = term.successor, values
        elif term.name == "cf.cond_br":
            assert isinstance(term, cf.ConditionalBranchOp)  # chosen by its name
            take = bool(frame[c.slot(term.cond)])
            n = len(term.then_arguments)
            block = term.successors[0 if take else 1]
            args = values[1:1 + n] if take else values[1 + n:]
        else:
            return values


def bind(frame: list, slots, values) -> None:
    for s, v in zip(slots, values):
        frame[s] = v


# ---------------------------------------------------------------------- loops

def block_cost(c: Compiler, block: Block) -> int:
    """Ops one run of ``block`` executes, loops with constant bounds unrolled (others counted
    once): what a loop's trips are multiplied by before it starts."""
    def compute() -> int:
        cost = 1
        for op in block.ops:
            inner = sum(block_cost(c, b) for r in op.regions for b in r.blocks)
            cost += 1 + inner * constant_trips(op)
        return cost
    return c.program.fact(("cost", id(block)), compute)


def constant_trips(op: Operation) -> int:
    """Trip count of a loop with constant bounds (1 for anything else)."""
    if isinstance(op, affine.ForOp) and not op.lowerBoundOperands and not op.upperBoundOperands:
        lbs, ubs = op.lowerBoundMap.data.eval([], []), op.upperBoundMap.data.eval([], [])
        if lbs and ubs:
            return max(0, -(-(min(ubs) - max(lbs)) // op.step.value.data))
    if isinstance(op, scf.ForOp):
        bounds = [v.owner for v in (op.lb, op.ub, op.step)]
        known = [b.value.value.data for b in bounds
                 if isinstance(b, arith.ConstantOp) and isinstance(b.value, IntegerAttr)]
        if len(known) == len(bounds):
            lb, ub, step = known
            return max(0, -(-(ub - lb) // step)) if step > 0 else 1
    return 1


def expect(m: Machine, trips: int, cost: int, op: Operation) -> None:
    """Refuse a loop known to exceed ``max_ops`` before running it."""
    if m.ops + trips * cost > m.limits.max_ops:
        raise MemoptError(f"executing this loop ({trips} trips of about {cost} ops) runs more than "
                          f"{m.limits.max_ops} ops (--max-ops)", op)


def loop_runner(c: Compiler, op: Operation, body: Block, inits, results):
    """``run(m, frame, ivs)``: the body once per induction value, iter_args carried."""
    code = c.code(body)
    iv, carried_slots = code.args[0], code.args[1:]
    init_slots, result_slots, yields, steps = c.slots_of(inits), c.slots_of(results), code.yields, code.steps
    cost, n, limit_op = block_cost(c, body), code.n, op

    def run(m: Machine, frame, ivs, trips: int) -> None:
        expect(m, trips, cost, limit_op)
        for s, t in zip(carried_slots, init_slots):
            frame[s] = frame[t]
        for i in ivs:
            frame[iv] = i
            m.ops += n
            if m.ops > m.limits.max_ops:
                m.count(0, limit_op)
            for step in steps:
                step(m, frame)
            if yields:
                values = [frame[s] for s in yields]
                for s, v in zip(carried_slots, values):
                    frame[s] = v
        for s, t in zip(result_slots, carried_slots):
            frame[s] = frame[t]
    return run


@compiles("scf.for")
def scf_for(c: Compiler, op: Operation):
    assert isinstance(op, scf.ForOp)  # registered under its name
    return vectorised(c, op, lambda: scf_for_step(c, op))


def scf_for_step(c: Compiler, op: scf.ForOp):
    """The loop run iteration by iteration."""
    lb, ub, st = c.slots_of((op.lb, op.ub, op.step))
    run = loop_runner(c, op, _entry(op.body), op.iter_args, op.results)
    typed = not isinstance(op.lb.type, IndexType)

    def step(m: Machine, frame, op=op):
        a, b, s = int(frame[lb]), int(frame[ub]), int(frame[st])
        if s <= 0:
            raise MemoptError(f"scf.for with step {s} (must be positive)", op)
        ivs: Iterable[int | np.generic] = range(a, b, s)
        if typed:  # an integer-typed loop: its induction value is of that type
            dt = np.asarray(frame[lb]).dtype
            ivs = (dt.type(i) for i in ivs)
        run(m, frame, ivs, max(0, -(-(b - a) // s)))
    return step


def vectorised(c: Compiler, op: Operation, iterated):
    """The step of loop ``op``: when it heads a perfect nest of element accesses, the nest run
    as one vectorised op (:mod:`.memref_nest`), else ``iterated()``, the loop run iteration by
    iteration (compiled only when needed: also the nest's fallback)."""
    nest = raise_nest(c, op)
    if nest is None:
        return iterated()
    compiled: list[Callable[[Machine, list], object]] = []

    def fallback(m: Machine, frame) -> None:
        if not compiled:
            compiled.append(iterated())
        compiled[0](m, frame)
    return nest_step(c, nest, fallback)


@compiles("scf.while")
def scf_while(c: Compiler, op: Operation):
    assert isinstance(op, scf.WhileOp)  # registered under its name
    before, after = c.code(_entry(op.before_region)), c.code(_entry(op.after_region))
    inits, results = c.slots_of(op.arguments), c.slots_of(op.results)
    cond = c.slot(before.term.condition)

    def step(m: Machine, frame, op=op):
        values = [frame[s] for s in inits]
        while True:
            m.run_block(before, frame, values)
            outs = [frame[s] for s in before.yields[1:]]
            if not bool(frame[cond]):
                bind(frame, results, outs)
                return
            m.run_block(after, frame, outs)
            values = [frame[s] for s in after.yields]
    return step


@compiles("scf.parallel")
def scf_parallel(c: Compiler, op: Operation):
    """Its iterations one after the other, in index order: one schedule the parallel loop
    allows (buffers are never planned per parallel iteration, so no schedule shares them)."""
    assert isinstance(op, scf.ParallelOp)  # registered under its name
    if op.results:
        raise MemoptError("cannot execute an scf.parallel with reductions", op)
    los, his, steps = c.slots_of(op.lowerBound), c.slots_of(op.upperBound), c.slots_of(op.step)
    code = c.code(_entry(op.body))
    cost = block_cost(c, _entry(op.body))

    def step(m: Machine, frame, op=op):
        ranges = [range(int(frame[a]), int(frame[b]), int(frame[s])) for a, b, s in zip(los, his, steps)]
        if any(r.step <= 0 for r in ranges):
            raise MemoptError("scf.parallel with a step that is not positive", op)
        expect(m, int(np.prod([len(r) for r in ranges], dtype=np.int64)), cost, op)
        for point in itertools.product(*ranges):
            m.run_block(code, frame, point)
    return step


# ---------------------------------------------------------------------- branches

@compiles("scf.if")
def scf_if(c: Compiler, op: Operation):
    assert isinstance(op, scf.IfOp)  # registered under its name
    cond, results = c.slot(op.cond), c.slots_of(op.results)
    then, other = region_runner(c, op.true_region), region_runner(c, op.false_region)

    def step(m: Machine, frame, op=op):
        run = then if m.branch(op, bool(frame[cond])) else other
        bind(frame, results, run(m, frame))
    return step


@compiles("scf.index_switch")
def scf_index_switch(c: Compiler, op: Operation):
    assert isinstance(op, scf.IndexSwitchOp)  # registered under its name
    cases = [int(x) for x in op.cases.get_values()]
    runners = [region_runner(c, r) for r in op.case_regions]
    default, arg, results = region_runner(c, op.default_region), c.slot(op.arg), c.slots_of(op.results)

    def step(m: Machine, frame, op=op):
        k = int(frame[arg])
        # its ways, for forcing: each case in order, then the default
        way = m.choose(op, cases.index(k) if k in cases else len(cases), len(cases) + 1)
        run = runners[way] if way < len(runners) else default
        bind(frame, results, run(m, frame))
    return step


@compiles("scf.execute_region", "memref.alloca_scope")
def execute_region(c: Compiler, op: Operation):
    run, results = region_runner(c, op.regions[0]), c.slots_of(op.results)

    def step(m: Machine, frame, op=op):
        bind(frame, results, run(m, frame))
    return step


@compiles("cf.assert")
def cf_assert(c: Compiler, op: Operation):
    assert isinstance(op, cf.AssertOp)  # registered under its name
    a, msg = c.slot(op.arg), op.msg.data

    def step(m: Machine, frame, op=op):
        if not bool(frame[a]):
            raise MemoptError(f"assertion failed: {msg}", op)
    return step


# ---------------------------------------------------------------------- calls

@compiles("func.call")
def call(c: Compiler, op: Operation):
    assert isinstance(op, func.CallOp)  # registered under its name
    name = op.callee.root_reference.data
    callee = c.program.functions.get(name)
    if callee is None:
        raise MemoptError(f"call of '@{name}', which the module does not define", op)
    args, results = c.slots_of(op.arguments), c.slots_of(op.results)
    if not callee.body.blocks:
        return kernel_step(c, op, args)

    def step(m: Machine, frame, op=op):
        bind(frame, results, call_body(m, callee, [frame[s] for s in args], op))
    return step


def call_body(m: Machine, f: func.FuncOp, args: list, op: Operation | None) -> list:
    """Run ``f``'s body with ``args`` in a frame of its own; its return values."""
    if m.depth >= MAX_DEPTH:
        raise MemoptError(f"calls nest deeper than {MAX_DEPTH} (recursion?)", op)
    c = m.program.compiler(f)
    m.depth += 1
    try:
        return region_runner(c, f.body)(m, [None] * c.size, args)
    finally:
        m.depth -= 1


def kernel_step(c: Compiler, op: func.CallOp, args: tuple[int, ...]):
    """An external kernel: reads its leading memrefs, writes its last ``memopt.outs`` (1). The IR
    does not say which operands an external function reads: a leading memref holding bytes
    nothing wrote (in the unplanned run) is taken as one it writes first, not as a read of
    undefined bytes; the planned run replays that decision. Its stand-in is seeded by the
    callee and the number of kernels run before it; a recomputation (``memopt.remat = K``, kept
    by ``lower-to-memref``) takes the seed of kernel ``K``, the one it copies in a straight-line
    program, and is not counted, so a rematerialized program computes the original's bytes."""
    name = op.callee.root_reference.data
    if op.results:
        raise MemoptError(f"cannot execute a call of declaration '@{name}' that returns values (only "
                          "out-parameter kernels run)", op)
    mems = [k for k, v in enumerate(op.arguments) if isinstance(v.type, MemRefType)]
    outs_attr = op.attributes.get("memopt.outs")
    n = outs_attr.value.data if isinstance(outs_attr, IntegerAttr) else 1
    ins, outs = mems[: len(mems) - n], mems[len(mems) - n:]
    kinds = {k: element_kind(t.element_type) for k, v in enumerate(op.arguments) if isinstance(t := v.type, MemRefType)}
    remat = op.attributes.get(REMAT_ATTR)
    copies = remat.value.data if isinstance(remat, IntegerAttr) else None

    def step(m: Machine, frame, op=op):
        unwritten = [k for k in ins if m.decide(not m.defined(frame[args[k]]))]
        srcs = [frame[args[k]] for k in ins if k not in unwritten]
        written = outs + unwritten
        dsts = [frame[args[k]] for k in written]
        datas = [np.ascontiguousarray(_checked(m, r, op)).reshape(-1).view(np.uint8) for r in srcs]
        infos = [TensorInfo(r.sizes, kinds[k], nbytes_of(r.sizes, r.elem)) for r, k in zip(dsts, written)]
        results = mix(name, crc_seed(name, m.kernels if copies is None else copies), datas, infos)
        m.kernels += copies is None
        for k, (ref, raw) in enumerate(zip(dsts, results)):
            m.write(ref, ref.elem.decode(np.frombuffer(raw.tobytes(), ref.elem.storage).reshape(ref.sizes)), op, k)
        for ref in srcs:
            m.check_owner(ref, op)
    return step


def _checked(m: Machine, ref, op: Operation) -> np.ndarray:
    """``ref``'s stored elements, read through the checked path."""
    m.read(ref, op)
    return ref.array()


__all__ = ["bind", "block_cost", "call_body", "expect", "loop_runner", "region_runner"]
