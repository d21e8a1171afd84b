"""The names of the attributes a plan is written in, for both IR flavours: defined here only.

A plan travels between passes and tools as discardable attributes. Every writer and reader
takes the names from this module, so two modules can never disagree on one (a typo in a copy
would silently drop a plan), and only they import it (the ``plan-encoding`` contract in
``pyproject.toml``): everyone else reads a plan through a reader. No imports.

The memopt dialect's plan (written by :mod:`memopt.passes.plan_io`):

* :data:`PLAN_ATTR` ``= #memopt.plan<arena_size, lower_bound, strategy>`` on the function;
* :data:`OFFSETS_ATTR` on every op with arena-resident results, :data:`ARG_OFFSETS_ATTR` on the
  function for its arguments;
* :data:`NUMBERING_ATTR`, :data:`LB_INPLACE_ATTR`, :data:`MEMORIES_ATTR` on the function.

An upstream ``memref`` function's plan (written by :mod:`memopt.passes.upstream_plan`): the
arena is a ``memref.alloc`` marked :data:`ARENA_ATTR` (or the argument :data:`ARENA_ARG_ATTR`
names), each buffer a view of it; :data:`ARENA_SIZE_ATTR`, :data:`LOWER_BOUND_ATTR`,
:data:`STRATEGY_ATTR`, :data:`SPACE_SIZES_ATTR` on the function.

The DMA staging buffers' on-chip placement (``insert-dma``/``plan-memory``; written by
:mod:`memopt.passes.plan_io` on the memopt dialect, by :mod:`memopt.passes.upstream_plan` on
upstream IR): :data:`ONCHIP_OFFSET_ATTR`, :data:`ONCHIP_SIZE_ATTR`, :data:`CAPACITY_ATTR`,
:data:`STAGING_ATTR`.
"""

PLAN_ATTR = "memopt.plan"
"""On ``func.func``: a ``#memopt.plan`` (arena size, lower bound, strategy)."""
OFFSETS_ATTR = "memopt.offsets"
"""``array<i64: ...>`` on an op: the arena offset of each result (-1: no arena space)."""
ARG_OFFSETS_ATTR = "memopt.arg_offsets"
"""``array<i64: ...>`` on ``func.func``: the arena offset of each argument."""
NUMBERING_ATTR = "memopt.numbering"
"""On a planned function: the control-flow numbering its plan is valid in (``"joint"`` or
``"serial"``), so that no reader derives it from the strategy's name."""
LB_INPLACE_ATTR = "memopt.lower_bound_inplace"
"""On a function with in-place permissions: the lower bound with them counted."""
MEMORIES_ATTR = "memopt.memories"
"""On a function with spilled tensors: ``{dram = N : i64, ...}``, the arena size of every
off-chip memory (the on-chip arena's is in ``memopt.plan``); each ``memopt.copy ... to "m"``
carries its offset in memory ``m``'s arena in ``memopt.offsets``."""

ARENA_SIZE_ATTR = "memopt.arena_size"
"""On an upstream function: the bytes of its default memory space's arena."""
LOWER_BOUND_ATTR = "memopt.lower_bound"
"""On an upstream function: the lower bound of its default space's buffers."""
STRATEGY_ATTR = "memopt.strategy"
"""On an upstream function: the strategy whose layout was kept."""
ARENA_ATTR = "memopt.arena"
"""On the ``memref.alloc`` that is an upstream function's arena."""
ARENA_ARG_ATTR = "memopt.arena_arg"
"""With ``arena=arg``: the index of the function argument that is the arena (caller-provided)."""
ARENA_ALIGNMENT_ATTR = "memopt.arena_alignment"
"""With ``arena=arg``: the alignment the caller-provided arena's base needs (the largest any
planned buffer asks for)."""
SPACE_SIZES_ATTR = "memopt.space_arena_sizes"
"""``{"1" = N : i64, ...}``: the arena size of every memory space other than the default one
(each its own ``memref<Nxi8, space>`` arena; the default space's size is ``memopt.arena_size``)."""

ONCHIP_OFFSET_ATTR = "memopt.onchip_offset"
"""On a ``memopt.dma_buffer``: its byte offset on chip, after the largest arena."""
ONCHIP_SIZE_ATTR = "memopt.onchip_size"
"""The total on-chip bytes, arena plus staging buffers: on the module (memopt dialect, staging
buffers shared by every function) or on the function (upstream, staging views of its arena)."""
CAPACITY_ATTR = "memopt.capacity"
"""On the module: the on-chip capacity ``insert-dma`` was given, which a later ``plan-memory``
must respect too."""
STAGING_ATTR = "memopt.staging"
"""On an upstream view or alloc: a DMA staging buffer (not a planned buffer)."""

__all__ = [
    "ARENA_ALIGNMENT_ATTR", "ARENA_ARG_ATTR", "ARENA_ATTR", "ARENA_SIZE_ATTR", "ARG_OFFSETS_ATTR", "CAPACITY_ATTR",
    "LB_INPLACE_ATTR", "LOWER_BOUND_ATTR", "MEMORIES_ATTR", "NUMBERING_ATTR", "OFFSETS_ATTR", "ONCHIP_OFFSET_ATTR",
    "ONCHIP_SIZE_ATTR", "PLAN_ATTR", "SPACE_SIZES_ATTR", "STAGING_ATTR", "STRATEGY_ATTR",
]
