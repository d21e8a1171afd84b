"""Calls between planned upstream functions: the callee's arena is a slice of its caller's.

A function that calls another with buffers of its own cannot give both arenas offset 0. As
upstream MLIR's planner and TVM's USMP do, memory is planned over the call graph instead:
callees first, each callee's arena becomes a trailing ``memref<Nxi8>`` argument
(``memopt.arena_arg``, as ``plan-memory{arena=arg}`` makes it), and at every call site the
caller passes a view of its own arena, placed like any buffer live for the duration of the call.
Recursion has no finite plan: a located error.

This module is the call graph only: which function a call reaches (:func:`callee_function`).
How large a planned callee's arena is, is its plan's to say: the plan's reader
(:func:`memopt.passes.upstream_plan_io.call_scratch`) answers it, and whoever traces a function
hands that answer to the tracer.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from memopt.dialects.walk import walk
from memopt.diagnostics import MemoptError


def _callee(call: func.CallOp) -> str:
    return call.callee.root_reference.data


def calls_between(funcs: list[func.FuncOp]) -> dict[str, list[func.CallOp]]:
    """For each function, its calls to other functions of ``funcs``."""
    names = {f.sym_name.data for f in funcs}
    return {f.sym_name.data: [op for op in walk(f.body) if isinstance(op, func.CallOp) and _callee(op) in names]
            for f in funcs}


def callees_first(funcs: list[func.FuncOp]) -> list[func.FuncOp]:
    """``funcs`` ordered so every callee comes before its callers (module order otherwise);
    a call cycle is a located error at the call that closes it."""
    by_name = {f.sym_name.data: f for f in funcs}
    calls = calls_between(funcs)
    order: list[func.FuncOp] = []
    state: dict[str, str] = {}

    def visit(name: str, via: Operation | None) -> None:
        if state.get(name) == "done":
            return
        if state.get(name) == "open":
            raise MemoptError(f"'@{name}' is called recursively: a recursive call has no static memory plan "
                              "(each activation needs its own buffers)", via)
        state[name] = "open"
        for call in calls[name]:
            visit(_callee(call), call)
        state[name] = "done"
        order.append(by_name[name])

    for f in funcs:
        visit(f.sym_name.data, None)
    return order


def called(funcs: list[func.FuncOp]) -> set[str]:
    """Names of the functions some function of ``funcs`` calls."""
    return {_callee(c) for cs in calls_between(funcs).values() for c in cs}


def callee_function(call: func.CallOp) -> func.FuncOp | None:
    """The function of the module that ``call`` calls (None: it is not in the module)."""
    module = call.parent_op()
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    if module is None:
        return None
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == _callee(call):
            return op
    return None


__all__ = ["callee_function", "called", "callees_first", "calls_between"]
