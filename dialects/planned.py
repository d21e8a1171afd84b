"""The functions memopt plans on the memopt dialect: those with bodies, calls between them refused.

Shared by every reader of plans — ``plan-memory``, ``verify-plan``, the executor's ``--check``
and the report — so each refuses what none of them can yet plan soundly.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Operation

from memopt.dialects.errors import MemoptError
from memopt.dialects.ir_flavour import is_upstream
from memopt.dialects.walk import walk


def planned_functions(module: Operation) -> list[func.FuncOp]:
    """Functions with bodies, in module order. A call from one of them to another is refused
    (:func:`check_calls`): each function's arena starts at offset 0, so a callee's tensors would
    overwrite the caller's live ones."""
    funcs = [op for op in walk(module) if isinstance(op, func.FuncOp) and op.body.blocks]
    check_calls(funcs)
    return funcs


def check_calls(funcs: list[func.FuncOp]) -> None:
    """Refuse ``func.call`` between functions that both have bodies (planned functions), located
    at the call. What a call should mean — the callee's arena stacked above the caller's live
    bytes at the call, or one arena over the call tree — is not defined yet; until it is,
    accepting the call would let plan-memory, verify-plan and --check all pass an unsafe plan.
    Calls to declarations (external kernels) are ordinary uses of their operands."""
    funcs = [f for f in funcs if not is_upstream(f)]  # upstream IR plans over the call graph
    bodies = {f.sym_name.data for f in funcs}
    for f in funcs:
        for op in walk(f.body):
            if isinstance(op, func.CallOp) and op.callee.root_reference.data in bodies:
                raise MemoptError(
                    f"'@{f.sym_name.data}' calls '@{op.callee.root_reference.data}', another function memopt plans: calls "
                    "between planned functions are not supported (both arenas would start at offset 0); inline the callee first",
                    op,
                )


__all__ = ["check_calls", "planned_functions"]
