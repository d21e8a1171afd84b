"""Tensor names users can map back to their model.

The importers keep every tensor's original name verbatim (``names = [...]`` on the op that
defines it, ``memopt.name`` in a function's argument attributes, ``arg_names`` on a loop for its
body's arguments), while SSA name hints are sanitized and made unique (``input_1`` may print as
``%input.1``). Every place that shows a tensor to a user — plan export, reports, diagnostics —
asks :func:`tensor_name`, so the plan joins with the model's own tensor table.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr
from xdsl.ir import BlockArgument, OpResult, SSAValue


def _nth_string(attr, k: int) -> str | None:
    if isinstance(attr, ArrayAttr) and k < len(attr.data) and isinstance(attr.data[k], StringAttr):
        return attr.data[k].data
    return None


def tensor_name(value: SSAValue) -> str | None:
    """The model's name of ``value``, when the IR records one (else None)."""
    if isinstance(value, OpResult):
        return _nth_string(value.op.attributes.get("names"), value.index)
    if isinstance(value, BlockArgument):
        parent = value.block.parent_op()
        if isinstance(parent, func.FuncOp) and parent.arg_attrs is not None:
            attrs = parent.arg_attrs.data
            if value.index < len(attrs) and isinstance(attrs[value.index], DictionaryAttr):
                name = attrs[value.index].data.get("memopt.name")
                return name.data if isinstance(name, StringAttr) else None
            return None
        if parent is not None:
            return _nth_string(parent.attributes.get("arg_names"), value.index)
    return None


def display_names(values: list[SSAValue]) -> list[str]:
    """Stable, unique names for ``values``: the model's names, else SSA name hints, else
    positional ``vN``; repeats get ``_1``, ``_2`` ... (in program order, so deterministic)."""
    names: list[str] = []
    used: set[str] = set()
    for k, v in enumerate(values):
        base = tensor_name(v) or v.name_hint or f"v{k}"
        name, n = base, 1
        while name in used:
            name = f"{base}_{n}"
            n += 1
        used.add(name)
        names.append(name)
    return names


__all__ = ["display_names", "tensor_name"]
