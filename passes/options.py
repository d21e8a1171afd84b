"""Pass options that explain themselves: one declaration per option, next to its field.

Why one mechanism: ``memopt-opt --help`` must say what every option of every pass means and
which values it takes, and a bad value must be refused when the pipeline is parsed — before the
input is read — naming the valid ones. Declaring the meaning, the valid values and the check in
the field itself keeps help, validation and behaviour from drifting apart, for passes added later
too::

    strategy: str = option("best", "planning strategy", choices=strategy_choices)

:func:`option` is a ``dataclasses.field`` whose metadata xDSL's option parser ignores;
:func:`option_help` and :func:`validate_pass` read it. A pass may add cross-option checks in a
``validate()`` method (raising a one-line :class:`~memopt.diagnostics.MemoptError`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from memopt.diagnostics import MemoptError
from memopt.planning.numbers import INT64_MAX, INT64_MIN

Choices = Sequence[str] | Callable[[], Sequence[str]]


def option(default: Any, help: str, *, values: str = "", choices: Choices | None = None) -> Any:
    """A pass option: ``default``, a one-line meaning, and its valid values (``choices`` for a
    closed set, checked at parse time; ``values`` as free text otherwise)."""
    return dataclasses.field(default=default, metadata={"help": help, "values": values, "choices": choices})


def _choices(meta: dict) -> list[str] | None:
    c = meta.get("choices")
    if c is None:
        return None
    return list(c() if callable(c) else c)


def option_help(cls: type) -> list[str]:
    """One line per option of pass class ``cls``: name, meaning, valid values, default."""
    lines = []
    for f in dataclasses.fields(cls):
        if f.name == "name" or not f.init:
            continue
        meta = dict(f.metadata)
        name = f.name.replace("_", "-")
        default = f.default if f.default is not dataclasses.MISSING else None
        shown = "unset" if default is None else str(default).lower() if isinstance(default, bool) else str(default)
        choices = _choices(meta)
        values = " | ".join(choices) if choices else meta.get("values") or _type_values(f.type)
        text = meta.get("help") or ""
        lines.append(f"{name}: {text}{'; ' if text else ''}values: {values} (default: {shown})")
    return lines


def _type_values(t: Any) -> str:
    t = str(t)
    if "bool" in t:
        return "true | false"
    if "int" in t and "str" not in t and "float" not in t:
        return "integer"
    if "float" in t:
        return "number"
    return "string"


_PARSED = {bool: (bool,), int: (int,), float: (int, float), str: (str,)}
"""What xDSL's pipeline parser may hand over for a field of each type (it reads ``5`` as an
int, ``2.5`` as a float, ``true`` as a bool and anything else as a string)."""


def mistyped_option(cls: type, parameters: Mapping[str, Sequence[Any]]) -> str | None:
    """Why a parsed option value cannot go into its field (``capacity=abc``, ``alignment=1,2``),
    naming the option and its valid values as ``--help`` states them; None when all fit.
    Why not leave it to xDSL: its message ("Incompatible types: given ('abc',), expected
    int | None") names neither the option nor what it takes."""
    import typing

    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for key, given in parameters.items():
        if key not in fields or not given:
            continue  # unknown options are reported elsewhere; a bare flag means unset
        kinds = [t for t in typing.get_args(hints[key]) if t is not type(None)] or [hints[key]]
        if not all(k in _PARSED for k in kinds):
            continue
        meta = dict(fields[key].metadata)
        choices = _choices(meta)
        values = " | ".join(choices) if choices else meta.get("values") or _type_values(hints[key])
        name = key.replace("_", "-")
        if len(given) != 1:
            return f"option '{name}' takes one value, got {len(given)} (values: {values})"
        v = given[0]
        # bool is an int to Python: only a bool field takes true/false
        ok = any(isinstance(v, _PARSED[k]) and (k is bool or not isinstance(v, bool)) for k in kinds)
        if not ok:
            shown = str(v).lower() if isinstance(v, bool) else str(v)
            return f"option '{name}' does not take '{shown}' (values: {values})"
    return None


def validate_pass(p: Any, pass_name: str) -> None:
    """Check every option value of pass instance ``p``: closed choices, the 64-bit range of
    integers, finite numbers; then the pass's own ``validate()``. One-line MemoptError."""
    for f in dataclasses.fields(p):
        if f.name == "name" or not f.init:
            continue
        v = getattr(p, f.name)
        name = f.name.replace("_", "-")
        choices = _choices(dict(f.metadata))
        if choices is not None and v is not None and str(v) not in choices:
            raise MemoptError(f"{pass_name}: invalid {name} '{v}' (valid: {', '.join(choices)})")
        if isinstance(v, int) and not isinstance(v, bool) and not INT64_MIN <= v <= INT64_MAX:
            raise MemoptError(f"{pass_name}: {name} {v} is out of the 64-bit integer range")
        if isinstance(v, float) and not math.isfinite(v):
            raise MemoptError(f"{pass_name}: {name} must be a finite number, got {v}")
    check = getattr(p, "validate", None)
    if callable(check):
        check()


__all__ = ["option", "option_help", "validate_pass"]
