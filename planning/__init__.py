"""The IR-free planning core: buffers, lifetimes, strategies, lower bounds, validation.

Nothing here imports xDSL, so the core can be tested, benchmarked and reused on its own (by
every pass, by ``memopt-pack`` on CSV traces, and by future simulators).
"""

from .bounds import folded_max_live, inplace_live_profile, live_profile, lower_bound, lower_bound_inplace, max_live, nested_live_profile, nested_lower_bound
from .problem import Buffer, Overwrite, Path, PlanningError, Problem, Solution, align_up, exclusive
from .strategies import Strategy, make_strategy, plan, register_strategy, strategy_names
from .validate import Conflict, find_conflicts, validate

__all__ = [
    "Buffer", "Conflict", "Overwrite", "Path", "PlanningError", "Problem", "Solution", "Strategy",
    "align_up", "exclusive", "folded_max_live", "inplace_live_profile", "lower_bound_inplace", "find_conflicts", "live_profile", "lower_bound", "make_strategy",
    "max_live", "nested_live_profile", "nested_lower_bound", "plan", "register_strategy", "strategy_names", "validate",
]
