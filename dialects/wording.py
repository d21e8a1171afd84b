"""xDSL's error messages on one line, in memopt's wording.

A parse or verification error of xDSL spans several lines (source excerpt, caret art) and some
of its wordings mislead; the tools print one located line. Shared by the parser's callers and by
:mod:`.verify`.
"""

from __future__ import annotations

import re

from xdsl.utils.exceptions import ParseError


def parse_error_location(e: ParseError) -> tuple[int, int]:
    loc = e.span.get_location()
    return loc.line, loc.col


def clear_wording(msg: str) -> str:
    """xDSL's wordings made clear: its integer range is half-open and mixes the signed minimum
    with the unsigned bound (``[-128, 256)``); its wrong-kind attribute message names no kind;
    a string literal ends at its line's end, not only at the file's."""
    msg = msg.replace("End of file reached before closing string literal.",
                      "string literal not closed before the end of its line")
    msg = re.sub(r"in the range \[(-?\d+), (\d+)\)",
                 lambda m: f"in the range [{m.group(1)}, {int(m.group(2)) - 1}] (signless: signed or unsigned)", msg)
    if "does not verify: " in msg:  # an operand/result: "...: i1 should be of base attribute tensor"
        msg = re.sub(r"does not verify: (.+) should be of base attribute (\w+)$",
                     lambda m: f"does not verify: {m.group(1)} has the wrong kind (expected {m.group(2)})", msg)
    else:
        msg = re.sub(r"^(.*) should be of base attribute (\w+)$",
                     lambda m: f"attribute value {m.group(1)} has the wrong kind (expected {m.group(2)})", msg)
    return msg


def parse_error_message(e: ParseError) -> str:
    """The one-line message of a parse error (no source excerpt / caret art)."""
    parts = [line.strip() for line in str(e.msg).splitlines() if line.strip()]
    return clear_wording(" ".join(parts)) if parts else "parse error"


def exception_message(e: BaseException) -> str:
    """An exception's message on one line (lines joined by spaces)."""
    text = str(e.args[0]) if e.args and isinstance(e.args[0], str) else str(e)
    parts = [line.strip() for line in text.splitlines() if line.strip()]
    return clear_wording(" ".join(parts)) if parts else type(e).__name__


__all__ = ["clear_wording", "exception_message", "parse_error_location", "parse_error_message"]
