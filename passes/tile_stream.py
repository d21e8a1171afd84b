"""Streaming a tiled run's inputs from off-chip memory, stripe by stripe (Arm Vela's cascading
reads its input feature map from DRAM the same way).

A run tiled by :mod:`memopt.passes.tile_rewrite` reads each input it does not compute from that
input held whole on chip, for as long as the run lasts. When the input itself is what does not
fit (a camera image as large as half the capacity, a skip connection beside a decoder), the
run may instead read it from an off-chip home: ``%h = memopt.copy %x to "dram"`` right after
``%x`` is defined, and, per patch, the rows the patch needs — a ``memopt.view`` of the home (the
rows of a tensor whose later axes are whole are one block of bytes) reloaded on chip by
``memopt.copy`` (then cut to the patch's columns on chip). Every reader of ``%x`` outside the run
after it reads a whole reload made right before it, as ``plan-memory{spill=auto}``'s reloads.
So ``%x`` is on chip only where it is made and where an untiled op reads it, and the program
says so in ops lifetime analysis, ``plan-memory``, ``verify-plan`` and ``memopt-run`` know.
"""

from __future__ import annotations

import math

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from memopt.diagnostics import copy_location
from memopt.dialects.memopt import ComputeOp, CopyOp, ViewOp, element_byte_size

Rows = tuple[int, int]


def stripe_contiguous(t: TensorType, h: int) -> bool:
    """Whether rows ``[a, b)`` along axis ``h`` of ``t`` are one block of bytes (every axis
    before ``h`` has one cell) and its elements are whole bytes."""
    e = t.element_type
    if isinstance(e, IntegerType) and e.width.data % 8:
        return False
    shape = list(t.get_shape())
    return 0 <= h < len(shape) and all(n == 1 for n in shape[:h])


def streamable(v: SSAValue, h: int, members: set[Operation], block: Block) -> bool:
    """Whether the run of ``members`` may read ``v`` stripe by stripe from an off-chip home:
    ``v`` is a tensor of ``block`` (an argument or a result of one of its ops) whose row stripes
    are contiguous, and every reader is an op of ``block`` (not a region's, not a view, not the
    return: those read it in place) — a member, or an op a whole reload can feed."""
    t = v.type
    if not isinstance(t, TensorType) or not stripe_contiguous(t, h):
        return False
    if isinstance(v, BlockArgument):
        if v.block is not block:
            return False
    elif not isinstance(v, OpResult) or v.op.parent_block() is not block:
        return False
    for use in v.uses:
        user = use.operation
        if user in members:
            continue
        if user.parent_block() is not block or user.regions or isinstance(user, (ViewOp, func.ReturnOp)):
            return False
    return True


def homeable(v: SSAValue, block: Block) -> bool:
    """Whether ``v`` may live in an off-chip home between its readers, each reading a whole
    reload: a tensor of ``block`` every reader of which is an op of ``block`` (a view of it too:
    the view then views the reload), not a region op, not the return."""
    if not isinstance(v.type, TensorType):
        return False
    if isinstance(v, BlockArgument):
        if v.block is not block:
            return False
    elif not isinstance(v, OpResult) or v.op.parent_block() is not block or v.op.regions:
        return False
    return all(u.operation.parent_block() is block and not u.operation.regions
               and not isinstance(u.operation, func.ReturnOp) for u in v.uses)


def home_crossing(f: func.FuncOp, steps_over: list[tuple[int, int]], memory: str) -> list[SSAValue]:
    """Give an off-chip home to every homeable value of ``f``'s body alive but not read at a
    step of ``steps_over`` (half-open step ranges of the joint numbering where the program is
    over its capacity): each reader after the home reads a whole reload. Returns them."""
    from memopt.passes.lifetime import analyze_function

    block = f.body.blocks[0]
    lf = analyze_function(f, mode="joint")
    num = lf.numbering
    chosen: list[tuple[SSAValue, int]] = []  # (value, the first step it waits off chip)
    for buf, v in zip(lf.problem.buffers, lf.owner):
        if not homeable(v, block) or _inside_run(v) or any(
                isinstance(u.operation, CopyOp) and u.operation.memory is not None for u in v.uses):
            continue
        reads = _read_steps(v, num)
        made = num.begin[v.op] if isinstance(v, OpResult) else -1
        gap = next((s for lo, hi in steps_over for s in range(max(lo, buf.start, made + 1), min(hi, buf.end))
                    if s not in reads), None)
        if gap is not None:
            chosen.append((v, gap))
    ops = list(block.ops)
    for v, gap in chosen:
        home = home_of(v, memory)
        assert isinstance(home, OpResult)
        # the readers before the first step it waits off chip read it in place; later ones, reloads
        before = [op for op in ops if op in num.begin and num.begin[op] < gap]
        reload_after(v, home, before[-1] if before else home.op, block)
    return [v for v, _ in chosen]


def _inside_run(v: SSAValue) -> bool:
    """Whether ``v`` is a tiled run's own: a copy or view (a stripe, a reload), a patch inserted
    into the run's output, or that output while patches are still being inserted into it (the
    output the run leaves behind is not)."""
    if not isinstance(v, OpResult):
        return False
    if isinstance(v.op, (CopyOp, ViewOp)):
        return True
    return any(isinstance(u.operation, ComputeOp) and u.operation.kind.data == "insert_slice" for u in v.uses)


def _read_steps(v: SSAValue, num) -> set[int]:
    """The steps at which an op reads ``v`` (directly or through views of it)."""
    steps: set[int] = set()
    todo = [v]
    while todo:
        x = todo.pop()
        for u in x.uses:
            op = u.operation
            if isinstance(op, ViewOp):
                todo.append(op.results[0])
            elif op in num.begin:
                steps.update(range(num.begin[op], num.end[op] + 1))
    return steps


def home_of(v: SSAValue, memory: str) -> SSAValue:
    """``v``'s off-chip home in ``memory``: the copy made right after its definition (made now
    unless an earlier run made it)."""
    for use in v.uses:
        user = use.operation
        if isinstance(user, CopyOp) and user.memory is not None and user.memory.data == memory:
            return user.result
    home = CopyOp(v, memory)
    home.result.name_hint = f"{v.name_hint or 'x'}.home"
    if isinstance(v, BlockArgument):
        first = v.block.first_op
        assert first is not None
        copy_location(first, home)
        v.block.insert_op_before(home, first)
    else:
        assert isinstance(v, OpResult)
        copy_location(v.op, home)
        block = v.op.parent_block()
        assert block is not None
        block.insert_op_after(home, v.op)
    return home.result


def reload_rows(home: SSAValue, rows: Rows, h: int, block: Block, anchor: Operation) -> SSAValue:
    """Rows ``rows`` of ``home`` (axis ``h``) copied on chip before ``anchor``: a view of the
    home (off chip, as the home) reloaded by ``memopt.copy``."""
    t = home.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    sizes = list(shape)
    sizes[h] = rows[1] - rows[0]
    rt = TensorType(t.element_type, sizes)
    offset = rows[0] * math.prod(shape[h + 1:]) * element_byte_size(t.element_type)
    src = home
    hint = (home.name_hint or "x").removesuffix(".home")
    if sizes != shape:
        view = ViewOp(home, rt, offset)
        view.results[0].name_hint = f"{hint}.home.rows{rows[0]}_{rows[1]}"
        copy_location(anchor, view)
        block.insert_op_before(view, anchor)
        src = view.results[0]
    back = CopyOp(src)
    back.result.name_hint = f"{hint}.rows{rows[0]}_{rows[1]}"
    copy_location(anchor, back)
    block.insert_op_before(back, anchor)
    return back.result


def reload_after(v: SSAValue, home: SSAValue, last: Operation, block: Block) -> None:
    """Every reader of ``v`` in ``block`` after ``last`` reads a whole reload of ``home`` made
    right before it (``v`` itself is then on chip only up to the run)."""
    ops = list(block.ops)
    after = ops.index(last)
    position = {op: i for i, op in enumerate(ops)}
    readers = []
    for use in list(v.uses):
        top = block.find_ancestor_op_in_block(use.operation)
        if top is not None and position.get(top, -1) > after and top not in readers and not (
                isinstance(top, CopyOp) and top.result is home):
            readers.append(top)
    for user in sorted(readers, key=position.__getitem__):
        back = CopyOp(home)
        back.result.name_hint = f"{(home.name_hint or 'x').removesuffix('.home')}.reload"
        copy_location(user, back)
        block.insert_op_before(back, user)
        for i, operand in enumerate(user.operands):
            if operand is v:
                user.operands[i] = back.result


__all__ = ["home_crossing", "home_of", "homeable", "reload_after", "reload_rows", "streamable", "stripe_contiguous"]
