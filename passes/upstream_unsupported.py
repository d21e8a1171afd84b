"""The one wording of what a pass does not do on one IR flavour: a refusal, or a remark.

Rematerialization and spilling rewrite memopt-dialect tensors (clone compute ops, insert
``memopt.copy`` to an off-chip memory); on memref programs they have nothing to rewrite, and
running them anyway would report a fit that did not happen. So they refuse, located at the
function, with the way round: do it on the memopt dialect before ``lower-to-memref``
(:func:`refuse_memref`).

An option that cannot mean anything on one flavour (``control-flow`` on upstream IR, whose
branches are numbered jointly; ``arena`` on the memopt dialect, whose plan is offsets) leaves
the IR as it would be without it, and says so in a located remark (:func:`remark_no_effect`):
an option silently ignored would look applied.
"""

from __future__ import annotations

import sys

from xdsl.dialects import func
from xdsl.ir import Operation

from memopt.diagnostics import MemoptError, where
from memopt.dialects.ir_flavour import is_upstream


def refuse_memref(f: func.FuncOp, pass_name: str, what: str) -> None:
    """Raise a located one-line error when ``f`` is upstream IR: ``what`` (``rematerialization``,
    ``spill=auto``) of ``pass_name`` is not supported there yet."""
    if not is_upstream(f):
        return
    raise MemoptError(
        f"{pass_name}: {what} is not supported on memref programs yet ('@{f.sym_name.data}' is bufferized "
        "func/memref IR): apply it to the memopt dialect before lower-to-memref", f,
    )


def remark_no_effect(pass_name: str, op: Operation, option: str, flavour: str, why: str) -> None:
    """Say on stderr, located at ``op``, that ``option`` as given (``control-flow=merge``) has no
    effect on ``flavour`` IR (``upstream memref``, ``memopt-dialect``), and ``why``."""
    sys.stderr.write(f"{pass_name}: remark: {where(op)}{option} has no effect on {flavour} IR ({why})\n")


__all__ = ["refuse_memref", "remark_no_effect"]
