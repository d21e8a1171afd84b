"""The parser's string-literal pattern reads what xDSL's reads, without its exponential
backtracking on an unclosed literal."""

import time

from hypothesis import given, settings, strategies as st
from xdsl.utils.mlir_lexer import MLIRLexer

from memopt.diagnostics import LocatedParser

ALPHABET = st.sampled_from(['"', "\\", "n", "t", "a", "F", "0", "9", "g", " ", "\n", "\v", "\f", "<"])


@settings(max_examples=200, deadline=None)
@given(st.lists(ALPHABET, max_size=10).map("".join))
def test_the_literal_matched_is_xdsls(text):
    old, new = MLIRLexer._unescaped_characters_regex, LocatedParser._STRING_LITERAL
    a, b = old.match('"' + text), new.match('"' + text)
    assert (a and a.group()) == (b and b.group())


def test_an_unclosed_literal_is_refused_in_linear_time():
    text = '"' + "Relu tensor<4xf32> " * 2_000 + "\n"
    start = time.process_time()
    assert LocatedParser._STRING_LITERAL.match(text) is None
    assert time.process_time() - start < 1.0
