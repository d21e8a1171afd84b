"""The one wording of a pass refusing a bufferized upstream (``func``/``memref``) function.

Rematerialization and spilling rewrite memopt-dialect tensors (clone compute ops, insert
``memopt.copy`` to an off-chip memory); on memref programs they have nothing to rewrite, and
running them anyway would report a fit that did not happen. So they refuse, located at the
function, with the way round: do it on the memopt dialect before ``lower-to-memref``.
"""

from __future__ import annotations

from xdsl.dialects import func

from memopt.diagnostics import MemoptError
from memopt.dialects.upstream_attrs import is_upstream


def refuse_memref(f: func.FuncOp, pass_name: str, what: str) -> None:
    """Raise a located one-line error when ``f`` is upstream IR: ``what`` (``rematerialization``,
    ``spill=auto``) of ``pass_name`` is not supported there yet."""
    if not is_upstream(f):
        return
    raise MemoptError(
        f"{pass_name}: {what} is not supported on memref programs yet ('@{f.sym_name.data}' is bufferized "
        "func/memref IR): apply it to the memopt dialect before lower-to-memref", f,
    )


__all__ = ["refuse_memref"]
