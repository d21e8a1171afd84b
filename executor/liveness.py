"""When the interpreter lets go of a value, and what an unplanned run holds at its peak.

The unplanned run gives every written value its own array. Kept until the end, a training log's
arrays add up to several times what is ever alive at once, so the interpreter drops a value
right after its last use: after the op of the value's own block that reads it (a read inside an
op's regions counts as a read by that op), or right after its definition when nothing reads it.
A view keeps its source's array (numpy's base) for as long as the view is held, so storage lives
until the last of its aliases is dropped. The proof is unchanged: a value is never read after it
is dropped, and the digests the check compares are taken when values are produced and read.

:func:`unplanned_peak` follows the same rule over the IR alone: an upper bound of the bytes the
unplanned run's values hold at once, with each op's transient copies (a kernel's output before it
is stored, the values an ``if`` or ``loop`` passes on) — what :mod:`.resources` refuses a run on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, SSAValue

from memopt.dialects.memopt import (
    CopyOp, DmaStartOp, DmaWaitOp, GetGlobalOp, IfOp, LoopOp, ViewOp, YieldOp, byte_size,
)
from memopt.dialects.walk import walk


@dataclass(frozen=True)
class Releases:
    """The values the interpreter drops: ``after[op]`` once ``op`` ran (a terminator once it
    was read), ``unread[block]`` as soon as ``block``'s arguments are bound."""

    after: dict[Operation, tuple[SSAValue, ...]]
    unread: dict[Block, tuple[SSAValue, ...]]


def _last_reader(value: SSAValue, block: Block, position: dict[Operation, int]) -> Operation | None | Literal[False]:
    """The op of ``block`` that reads ``value`` last; None when nothing reads it; False when a
    reader lies outside ``block`` (IR that breaks dominance: the value is never dropped)."""
    last = None
    for use in value.uses:
        user = block.find_ancestor_op_in_block(use.operation)
        if user is None:
            return False
        if last is None or position[user] > position[last]:
            last = user
    return last


def _blocks(f: func.FuncOp):
    """Every block of ``f``: its body and the blocks nested in it."""
    for op in walk(f):
        for region in op.regions:
            yield from region.blocks


def releases_of_block(block: Block) -> Releases:
    """Where each value defined in ``block`` (its arguments, its ops' results) is last read."""
    position = {op: i for i, op in enumerate(block.ops)}
    after: dict[Operation, list[SSAValue]] = {}
    unread = []
    for a in block.args:
        last = _last_reader(a, block, position)
        if last is None:
            unread.append(a)
        elif last is not False:
            after.setdefault(last, []).append(a)
    for op in block.ops:
        for r in op.results:
            last = _last_reader(r, block, position)
            if last is not False:
                after.setdefault(op if last is None else last, []).append(r)
    return Releases({op: tuple(vs) for op, vs in after.items()}, {block: tuple(unread)})


def releases(f: func.FuncOp) -> Releases:
    """Where each value of ``f`` is last read (see the module docstring)."""
    after: dict[Operation, tuple[SSAValue, ...]] = {}
    unread: dict[Block, tuple[SSAValue, ...]] = {}
    for block in _blocks(f):
        rel = releases_of_block(block)
        after.update(rel.after)
        unread.update(rel.unread)
    return Releases(after, unread)


def _size(t) -> int:
    try:
        return byte_size(t) if isinstance(t, TensorType) else 0
    except ValueError:  # not statically shaped: nothing to count
        return 0


def _bytes(values) -> int:
    return sum(_size(v.type) for v in values)


def _owns(op: Operation) -> bool:
    """Whether ``op``'s results get storage of their own (views alias, weights are the store)."""
    return not isinstance(op, (ViewOp, GetGlobalOp, DmaStartOp))


def _transient(op: Operation, results: int) -> int:
    """Bytes ``op`` holds beyond its results while it runs: a kernel's outputs before they are
    stored; the values a region passes on, copied, and (a loop) its carried values."""
    if isinstance(op, (IfOp, LoopOp)):
        inner = max((block_peak(b) for r in op.regions for b in r.blocks), default=0)
        return inner + 2 * results
    if isinstance(op, (YieldOp, func.ReturnOp)):
        return _bytes(op.operands)
    if isinstance(op, (ViewOp, GetGlobalOp, DmaStartOp, DmaWaitOp, CopyOp)):
        return 0
    return results


def block_peak(block: Block) -> int:
    """The most bytes one run of ``block`` holds at once, its arguments included."""
    rel = releases_of_block(block)
    root: dict[SSAValue, SSAValue] = {}  # a view -> the value whose storage it shows
    holders: dict[SSAValue, int] = {}  # storage -> its aliases still held
    size: dict[SSAValue, int] = {}
    live = peak = 0

    def hold(v: SSAValue, base: SSAValue | None) -> None:
        nonlocal live
        r = root.get(base, base) if base is not None else v
        root[v] = r
        if r is v:
            size[v] = _bytes([v])
            live += size[v]
        holders[r] = holders.get(r, 0) + 1

    def drop(v: SSAValue) -> None:
        nonlocal live
        r = root.get(v)
        if r is None:
            return
        holders[r] -= 1
        if not holders[r]:
            live -= size.get(r, 0)

    for a in block.args:
        hold(a, None)
    peak = live
    for v in rel.unread.get(block, ()):
        drop(v)
    for op in block.ops:
        results = _bytes(op.results) if _owns(op) else 0
        peak = max(peak, live + results + _transient(op, results))
        for r in op.results:
            base = op.source if isinstance(op, ViewOp) else None
            if _owns(op) or base is not None:
                hold(r, base)
        for v in rel.after.get(op, ()):
            drop(v)
    return peak


def unplanned_peak(f: func.FuncOp) -> int:
    """An upper bound of the bytes an unplanned run of ``f`` holds in its values at once."""
    return block_peak(f.body.blocks[0]) if f.body.blocks else 0


__all__ = ["Releases", "block_peak", "releases", "unplanned_peak"]
