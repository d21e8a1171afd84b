"""The built-in greedy strategies, in portfolio order: the one place that order is written.

``best`` runs them in this order and keeps the lowest arena, ties going to the earlier one, so
the order decides which of two equal plans is kept; ``search`` starts from their best plan. The
registry (:mod:`memopt.planning.strategies`) lists them first, then the anytime ``search``.
"""

from __future__ import annotations

from .megengine import MegEngine
from .nnvm import Nnvm
from .peak_stack import PeakStack
from .skyline import Skyline
from .strategy import LargeFirst, Sequential, ShortFirst, Strategy

GREEDY: tuple[type[Strategy], ...] = (Sequential, LargeFirst, ShortFirst, MegEngine, Nnvm, Skyline, PeakStack)
"""Every greedy (budget-free) built-in strategy, in portfolio order."""
