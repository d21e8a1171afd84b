"""Re-exports :mod:`memopt.dialects.upstream_attrs` (what marks a function as upstream MLIR and
the plan attributes memopt writes on one), which moved below the passes and the executor: both
read those attributes."""

from memopt.dialects.upstream_attrs import (  # noqa: F401
    ARENA_ALIGNMENT_ATTR, ARENA_ARG_ATTR, ARENA_ATTR, ARENA_MODES, ARENA_SIZE_ATTR, LOWER_BOUND_ATTR, SPACE_SIZES_ATTR,
    STRATEGY_ATTR, __all__, is_upstream, is_upstream_module,
)
