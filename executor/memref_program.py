"""The upstream flavour's op table: how each ``func``/``memref``/``scf``/``affine``/``arith``/
``math``/``linalg`` op compiles into a step of the interpreter core (:mod:`.core`).

The ``memref_*`` op modules register their ops here with :func:`compiles`; :mod:`.memref_exec`,
the one module that builds an upstream :class:`.core.Program`, imports them all. A ``linalg`` op
without a compile function of its own takes ``linalg.*``'s; scalar ``arith``/``math`` ops compile
through :func:`.memref_scalar.scalar_step`. An op that cannot execute compiles to a step raising
its located error when it runs.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation

from memopt.diagnostics import MemoptError

from .core import Compile, Compiler, Semantics, Step, failing
from .memref_scalar import scalar_step
from .memref_values import Unsupported

COMPILERS: dict[str, Compile] = {}
"""Op name -> how to compile it: filled by the ``memref_*`` op modules' :func:`compiles`."""

TERMINATORS = frozenset({"scf.yield", "affine.yield", "func.return", "scf.condition", "cf.br", "cf.cond_br",
                         "linalg.yield", "memref.alloca_scope.return", "scf.reduce"})


def compiles(*names: str) -> Callable[[Compile], Compile]:
    """Register how to compile ops ``names``."""
    def register(fn: Compile) -> Compile:
        for n in names:
            COMPILERS[n] = fn
        return fn
    return register


def compile_op(c: Compiler, op: Operation) -> Step:
    """``op`` compiled; an op that cannot run becomes a step raising why, located."""
    try:
        compile_fn = COMPILERS.get(op.name)
        if compile_fn is None and op.name.startswith("linalg."):
            compile_fn = COMPILERS["linalg.*"]
        if compile_fn is not None:
            return compile_fn(c, op)
        step = scalar_step(c, op)
        if step is not None:
            return step
        raise MemoptError(f"cannot execute operation '{op.name}' (no semantics for it in memopt-run)", op)
    except Unsupported as e:
        return failing(MemoptError(f"cannot execute '{op.name}': {e}", op))
    except MemoptError as e:
        return failing(e)


MEMREF = Semantics(TERMINATORS, compile_op)
"""Upstream IR's semantics, for :class:`.core.Program`."""

__all__ = ["COMPILERS", "MEMREF", "TERMINATORS", "compile_op", "compiles"]
