"""The upstream plan's attributes decoded: the function-level ones memopt writes on one read
back (:func:`recorded_int`, :func:`recorded_str`, :func:`arena_argument`), the staging marks,
and the arenas they mark (:func:`plan_arenas`: the plan reader's and the executor's one finder);
the plan's buffers, read off the arena's views, are :mod:`memopt.passes.upstream_plan_io`'s. The
attributes are written by :mod:`memopt.passes.upstream_plan` only.

Passes read a plan through that reader (a callee's arena argument too, which the reader hands
the tracer under it); this decoder sits below it for the executor only, which runs the plan as
written and imports no pass. The ``plan-encoding`` import contract lists who may import it.
"""

from __future__ import annotations

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.ir import BlockArgument, Operation, SSAValue

from memopt.dialects.walk import walk

from memopt.dialects.plan_attr_names import ARENA_ALIGNMENT_ATTR, ARENA_ARG_ATTR, ARENA_ATTR, ARENA_SIZE_ATTR, STAGING_ATTR


def recorded_int(f: func.FuncOp, name: str) -> int | None:
    """The integer plan attribute ``name`` of ``f`` (None: not recorded)."""
    a = f.attributes.get(name)
    return a.value.data if isinstance(a, IntegerAttr) else None


def recorded_str(f: func.FuncOp, name: str) -> str:
    """The string plan attribute ``name`` of ``f`` (``""``: not recorded)."""
    a = f.attributes.get(name)
    return a.data if isinstance(a, StringAttr) else ""


def is_planned(f: func.FuncOp) -> bool:
    """Whether ``plan-memory`` planned upstream function ``f`` (it records ``memopt.arena_size``)."""
    return ARENA_SIZE_ATTR in f.attributes


def recorded_arena_size(f: func.FuncOp) -> int | None:
    """The bytes of ``f``'s default memory space's arena its plan records (None: not planned)."""
    return recorded_int(f, ARENA_SIZE_ATTR)


def is_staging(op: Operation) -> bool:
    """A view or alloc ``insert-dma`` made a DMA staging buffer (not a planned buffer)."""
    return STAGING_ATTR in op.attributes


def arena_argument(f: func.FuncOp) -> tuple[int, int] | None:
    """``(bytes, alignment)`` of the arena ``f`` takes as an argument (``plan-memory{arena=arg}``,
    or a planned callee); None when it takes none."""
    size = recorded_int(f, ARENA_SIZE_ATTR)
    if ARENA_ARG_ATTR not in f.attributes or size is None:
        return None
    return max(size, 1), recorded_int(f, ARENA_ALIGNMENT_ATTR) or 1


def arena_arg_index(f: Operation) -> int | None:
    """The index of the argument that is ``f``'s arena (``memopt.arena_arg``), None without one."""
    k = f.attributes.get(ARENA_ARG_ATTR)
    return k.value.data if isinstance(k, IntegerAttr) else None


def is_marked_arena(op: Operation) -> bool:
    """An op ``plan-memory`` marked as its arena (``memopt.arena``)."""
    return ARENA_ATTR in op.attributes


def is_arena_argument(v: SSAValue) -> bool:
    """The caller-provided arena of ``plan-memory{arena=arg}`` (named by ``memopt.arena_arg``)."""
    if not isinstance(v, BlockArgument):
        return False
    f = v.owner.parent_op()
    return isinstance(f, func.FuncOp) and arena_arg_index(f) == v.index


def plan_arenas(f: func.FuncOp) -> list[SSAValue]:
    """The arenas of a function ``plan-memory`` planned: the argument ``memopt.arena_arg`` names,
    then the allocs marked ``memopt.arena``, in the order the function holds them."""
    found: list[SSAValue] = []
    k = arena_arg_index(f)
    if k is not None:
        found.append(f.body.blocks[0].args[k])
    found += [op.results[0] for op in walk(f.body) if isinstance(op, memref.AllocOp) and is_marked_arena(op)]
    return found


__all__ = ["arena_arg_index", "arena_argument", "is_arena_argument", "is_marked_arena", "is_planned", "is_staging",
           "plan_arenas", "recorded_arena_size", "recorded_int", "recorded_str"]
