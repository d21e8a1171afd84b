"""memopt.executor: numpy execution of memopt programs, unplanned or in one planned arena.

``run_function(module, planned=...)`` executes a function; ``check_module(module)`` proves a
plan by running the function unplanned and in the planned arena and comparing every value as it
is produced and read (see :mod:`memopt.executor.check`). Upstream ``memref`` programs run in
:mod:`memopt.executor.memref_exec`. Both flavours run on one interpreter core
(:mod:`memopt.executor.core`) with their own op tables and are proven by one checker and driver
(:mod:`memopt.executor.checker`); :mod:`memopt.executor.flavour` picks the executor for a
module's IR flavour.
``memopt-run`` is the command line.
"""

from .check import CheckReport, check_function, check_module, run_function
from .interpreter import Execution, Interpreter, Observer, find_function
from .memory import DMA_LANDINGS, Planned, Unplanned, is_planned, value_name
from .proof import digest

__all__ = [
    "CheckReport", "DMA_LANDINGS", "Execution", "Interpreter", "Observer",
    "Planned", "Unplanned", "check_function", "check_module", "digest", "find_function",
    "is_planned", "run_function", "value_name",
]
