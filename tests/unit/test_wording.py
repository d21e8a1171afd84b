"""dialects/wording.py: xDSL's messages on one line, in memopt's wording."""

from __future__ import annotations

import pytest
from xdsl.utils.exceptions import ParseError

from memopt.dialects.context import make_context
from memopt.dialects.located_parser import LocatedParser
from memopt.dialects.wording import clear_wording, exception_message, parse_error_location, parse_error_message


@pytest.mark.parametrize(
    "xdsl, ours",
    [
        ("Integer value 300 is out of range for type i8 which supports values in the range [-128, 256)",
         "Integer value 300 is out of range for type i8 which supports values in the range [-128, 255] "
         "(signless: signed or unsigned)"),
        ("Operation does not verify: i1 should be of base attribute tensor",
         "Operation does not verify: i1 has the wrong kind (expected tensor)"),
        ("#foo should be of base attribute IntegerAttr",
         "attribute value #foo has the wrong kind (expected IntegerAttr)"),
        ("End of file reached before closing string literal.",
         "string literal not closed before the end of its line"),
        ("nothing to reword", "nothing to reword"),
    ],
)
def test_clear_wording(xdsl, ours):
    assert clear_wording(xdsl) == ours


def test_an_exception_message_is_one_line():
    assert exception_message(ValueError("first\n  second\n\n")) == "first second"
    assert exception_message(ValueError("")) == "ValueError"


def test_a_parse_error_is_its_message_on_one_line_at_its_location():
    with pytest.raises(ParseError) as e:
        LocatedParser(make_context(), "\n  %x = \n", "t.mlir").parse_module()
    assert "\n" not in parse_error_message(e.value)
    assert parse_error_location(e.value)[0] == 3
