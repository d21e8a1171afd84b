"""Run a memopt-dialect function for real, with numpy, in a given memory model.

:class:`Interpreter` is the memopt dialect's machine on the interpreter core (:mod:`.core`):
the function is compiled once with the dialect's op table (:mod:`.memopt_ops`, where what each
op does is described) and run block by block. The machine holds what one run needs: the memory
model that hands out the storage of every value an op writes (:mod:`.memory`), the off-chip
store of weights, the branches forced, and the frame that binds each value to its bytes. A
block's terminator reads all its values before any destination is written, so a ``memopt.yield``
that swaps two loop-carried values, or yields a view of a slot into another slot, is a parallel
copy. A value is dropped after its last read (:mod:`.liveness`): an unplanned run holds only
what is alive, not every value it ever wrote.

An :class:`Observer` sees every value when it is produced and every operand when it is read;
that is how :mod:`memopt.executor.check` compares planned against unplanned execution at the
moment each byte matters, not at the end (a planned tensor may legitimately be overwritten
after its last use).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue

from memopt.diagnostics import MemoptError
from memopt.dialects.memopt import GlobalOp
from memopt.dialects.walk import walk

from .core import Core, Program
from .data import global_bytes, input_bytes
from .memopt_ops import MEMOPT, UNDEFINED, Body
from .memory import value_name
from .paths import Forced
from .resources import Limits


class Observer:
    """Hooks called during execution (no-ops here)."""

    def on_produce(self, value: SSAValue, data: np.ndarray) -> None:
        """``value`` now holds ``data`` (called after the producing op wrote all its results)."""

    def on_read(self, value: SSAValue, data: np.ndarray, user: Operation) -> None:
        """``user`` is about to read ``value``, whose storage now holds ``data``."""


@dataclass
class Execution:
    """The returned tensors of one run (bytes copies, in return order)."""

    func: func.FuncOp
    outputs: list[np.ndarray]
    types: list


def find_function(module: ModuleOp, name: str | None = None) -> func.FuncOp:
    """The function to run: ``name``, else ``@main``, else the first function with a body."""
    funcs = [op for op in walk(module) if isinstance(op, func.FuncOp) and op.body.blocks]
    if name is not None:
        for f in funcs:
            if f.sym_name.data == name:
                return f
        raise MemoptError(f"no function '@{name}' with a body in the module")
    for f in funcs:
        if f.sym_name.data == "main":
            return f
    if not funcs:
        raise MemoptError("the module has no function with a body to run")
    return funcs[0]


def global_store(module: ModuleOp) -> dict[str, np.ndarray]:
    """Off-chip memory: the (read-only) bytes of every ``memopt.global``."""
    store = {}
    for op in walk(module):
        if isinstance(op, GlobalOp):
            data = global_bytes(op.sym_name.data, op.type, op.value)
            data.flags.writeable = False
            store[op.sym_name.data] = data
    return store


class Interpreter(Core):
    """Executes one function in one memory model (``Unplanned`` or ``Planned``) on the
    interpreter core."""

    def __init__(self, module: ModuleOp, memory, observer: Observer | None = None, seed: int = 0,
                 branches: Forced | None = None, *, limits: Limits = Limits(),
                 program: Program | None = None):
        """``branches``: ``if`` ops whose branch is forced (0: then) instead of chosen by
        their condition, to prove a plan on paths the generated inputs do not select; every
        ``if`` the run reaches is recorded (:meth:`.core.Core.branch`). ``program``:
        ``module`` compiled with the dialect's op table, shared by the runs of a check."""
        super().__init__(Program(module, MEMOPT) if program is None else program, seed=seed, limits=limits,
                         branches=branches)
        self.module = module
        self.memory = memory
        self.observer = observer or Observer()
        self.store: dict[str, np.ndarray] = self.program.fact("store", lambda: global_store(module))

    # ------------------------------------------------------------------ entry

    def run(self, f: func.FuncOp) -> Execution:
        c = self.program.compiler(f)
        block = f.body.blocks[0]
        body = Body(c, block)
        frame: list = [UNDEFINED] * (c.size + 1)
        args = []
        for i, a in enumerate(block.args):
            s = c.slot(a)
            if not isinstance(a.type, TensorType):
                frame[s] = None
                continue
            dst = self.memory.arg(i, a)
            dst[:] = input_bytes(i, a.name_hint or "", a.type, self.seed)
            frame[s] = dst
            args.append((a, dst))
        for a, dst in args:
            self.observer.on_produce(a, dst)
        outs = self.run_body(body, frame)
        ret = block.last_op
        types = list(ret.operand_types) if isinstance(ret, func.ReturnOp) else []
        return Execution(f, outs, types)

    # ------------------------------------------------------------------ blocks

    def run_body(self, body: Body, frame: list) -> list[np.ndarray]:
        """Run a block whose arguments are bound; return copies of what its terminator
        yields/returns. Each value is dropped after its last read."""
        self.release(frame, body.unread)
        term = self.run_block(body.code, frame)
        if term is None:
            return []
        out = self.read_all(frame, body.code.yields, body.values, term)
        self.release(frame, body.after_term)
        return out

    # ------------------------------------------------------------------ values

    def read(self, frame: list, s: int, value: SSAValue, user: Operation) -> np.ndarray:
        """What ``value`` (in slot ``s``) holds as ``user`` reads it, seen by the observer."""
        data = frame[s]
        if data is UNDEFINED:  # xDSL does not check dominance
            raise MemoptError(f"value '{value_name(value)}' is used before it is defined", user)
        if not isinstance(data, np.ndarray):
            raise MemoptError(f"cannot execute a use of non-tensor value '{value_name(value)}'", user)
        self.observer.on_read(value, data, user)
        return data

    def read_all(self, frame: list, ss, values, user: Operation) -> list[np.ndarray]:
        """Copies of all ``values``, read before anything is written (parallel-copy semantics)."""
        return [self.read(frame, s, v, user).copy() for s, v in zip(ss, values)]

    def holding(self, frame: list, s: int) -> np.ndarray:
        """What slot ``s`` holds now, unobserved: a kernel writing over its inputs recomputes
        from them as they are (``s``: an input the op has read)."""
        data = frame[s]
        assert isinstance(data, np.ndarray)
        return data

    def produce(self, frame: list, s: int, value: SSAValue, data: np.ndarray) -> None:
        """Bind ``value`` (slot ``s``) to ``data`` (storage it now holds), seen by the observer."""
        frame[s] = data
        self.observer.on_produce(value, data)

    def release(self, frame: list, ss) -> None:
        """Drop the values of slots ``ss`` (read for the last time)."""
        for s in ss:
            frame[s] = UNDEFINED

    def bind(self, frame: list, op: Operation, datas: list[np.ndarray], values, ss) -> None:
        """Write ``datas`` into fresh storage for ``op``'s results and bind them to ``values``
        (slots ``ss``)."""
        dsts = []
        for k, data in enumerate(datas):
            dst = self.memory.result(op, k)
            dst[:] = data
            dsts.append(dst)
        for s, dst in zip(ss, dsts):
            frame[s] = dst
        for v, dst in zip(values, dsts):
            self.observer.on_produce(v, dst)


__all__ = ["Execution", "Interpreter", "Observer", "find_function", "global_store"]
