"""The xDSL context every memopt tool and pass parses with: the memopt dialect and what
upstream MLIR prints after bufferization.

Registered: ``memopt``, ``builtin``, ``func``, ``arith``, ``math``, ``scf``, ``cf``, ``memref``
(with upstream's custom forms, :mod:`memopt.dialects.upstream_syntax`), ``tensor``, ``affine``,
``vector``, ``bufferization`` (with ``dealloc``, :mod:`memopt.dialects.ownership`), ``ml_program``
and ``linalg`` — every ``linalg.<name>`` as one structured op
(:mod:`memopt.dialects.structured`). Any other op, of any dialect, is read as an
:class:`~memopt.dialects.opaque.OpaqueOp` (analyses treat it conservatively and the tools say
so in a remark), never refused — except in the ``memopt`` dialect, whose ops memopt defines:
an unknown ``memopt.`` op is a typo and stays an error. Unknown attributes and types are kept.

Each dialect is loaded when the parser first meets it (xDSL's lazy registration), so its module
is imported inside its loader: a memopt-dialect program never imports the upstream dialects'
definitions (``upstream_syntax``, ``structured``, ``ownership``, xDSL's ``affine`` ...).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

from xdsl.context import Context
from xdsl.ir import Dialect, Operation


class MemoptContext(Context):
    """A context whose unknown ops are read (structured or opaque) rather than refused."""

    def get_optional_op(self, name: str, *, dialect_stack: Sequence[str] = ()) -> type[Operation] | None:
        known = self._get_known_op(name)
        if known is not None:
            return known
        for dialect in reversed(dialect_stack):  # an op of the enclosing op's default dialect
            known = self._get_known_op(f"{dialect}.{name}")
            if known is not None:
                return known
        if "." not in name or name.startswith("memopt."):
            return None
        if name.startswith("linalg."):
            from .structured import structured_op

            return structured_op(name)
        from .opaque import opaque_op

        return opaque_op(name)

    def get_optional_attr(self, name: str):
        return _known_if_memopt(name, super().get_optional_attr(name))

    def get_optional_type(self, name: str):
        return _known_if_memopt(name, super().get_optional_type(name))

    def clone(self) -> MemoptContext:
        twin = MemoptContext(self.allow_unregistered)
        for name, load in self._registered_dialects.items():
            twin.register_dialect(name, load)
        return twin


def _known_if_memopt(name: str, found):
    """memopt's own attributes and types are known or misspelt: never kept unread."""
    from xdsl.dialects.builtin import UnregisteredAttr

    if found is not None and name.startswith("memopt.") and issubclass(found, UnregisteredAttr):
        return None
    return found


def _lazy(module: str, attr: str) -> Callable[[], Dialect]:
    def load() -> Dialect:
        return getattr(importlib.import_module(module), attr)

    return load


def _memref() -> Dialect:
    from .upstream_syntax import memref_dialect

    return memref_dialect()


def _scf() -> Dialect:
    from .upstream_syntax import scf_dialect

    return scf_dialect()


def _bufferization() -> Dialect:
    from xdsl.dialects.bufferization import Bufferization

    from .ownership import DeallocOp

    return Dialect("bufferization", [*Bufferization.operations, DeallocOp], list(Bufferization.attributes))


def _linalg() -> Dialect:
    """linalg's region terminator and index op, and its attributes; every other linalg op is a
    structured op the context makes on demand."""
    from xdsl.dialects import linalg

    from .structured import IndexOp

    return Dialect("linalg", [linalg.YieldOp, IndexOp], list(linalg.Linalg.attributes))


def _memopt() -> Dialect:
    from .memopt import Memopt

    return Memopt


_DIALECTS: dict[str, Callable[[], Dialect]] = {
    "memopt": _memopt,
    "builtin": _lazy("xdsl.dialects.builtin", "Builtin"),
    "func": _lazy("xdsl.dialects.func", "Func"),
    "arith": _lazy("xdsl.dialects.arith", "Arith"),
    "math": _lazy("xdsl.dialects.math", "Math"),
    "scf": _scf,
    "cf": _lazy("xdsl.dialects.cf", "Cf"),
    "memref": _memref,
    "tensor": _lazy("xdsl.dialects.tensor", "Tensor"),
    "linalg": _linalg,
    "affine": _lazy("xdsl.dialects.affine", "Affine"),
    "vector": _lazy("xdsl.dialects.vector", "Vector"),
    "bufferization": _bufferization,
    "ml_program": _lazy("xdsl.dialects.ml_program", "MLProgram"),
}


def make_context() -> MemoptContext:
    """A fresh context with every dialect above (loaded on first use)."""
    ctx = MemoptContext(allow_unregistered=True)
    for name, load in _DIALECTS.items():
        ctx.register_dialect(name, load)
    return ctx
