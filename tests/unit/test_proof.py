"""executor/proof.py: what both executors compare — digests, the sequence of productions, results."""

from __future__ import annotations

import numpy as np
import pytest

from memopt.executor.proof import Mismatch, Productions, digest, first_difference, result_bytes


def test_digest_reads_the_bytes_in_row_major_order_whatever_the_layout():
    a = np.arange(24, dtype=np.int16).reshape(4, 6)
    view = a[:, ::2]
    assert not view.flags.c_contiguous
    assert digest(view) == digest(view.copy())
    assert digest(a) == digest(a.reshape(-1).view(np.uint8))
    assert digest(a) != digest(a.T)
    assert len(digest(np.zeros(0, np.uint8))) == 16


def _reference(*productions) -> Productions:
    ref = Productions()
    for producer, fingerprint in productions:
        assert ref.add(producer, fingerprint) is None
    return ref


def test_a_run_reproducing_its_reference_matches_and_is_complete():
    ref = _reference(("a", b"1"), ("b", b"2"))
    run = Productions(ref)
    assert run.add("a", b"1") is None
    assert not run.complete()
    assert run.add("b", b"2") is None
    assert run.complete() and len(run) == 2


@pytest.mark.parametrize(
    "productions, mismatch",
    [
        ([("a", b"1"), ("c", b"2")], Mismatch.PATH),  # another producer at the second place
        ([("a", b"1"), ("b", b"3")], Mismatch.VALUE),  # the same producer, other bytes
        ([("a", b"1"), ("b", b"2"), ("d", b"4")], Mismatch.PATH),  # past the reference's end
    ],
)
def test_the_first_production_that_differs_says_how(productions, mismatch):
    run = Productions(_reference(("a", b"1"), ("b", b"2")))
    found = [run.add(p, f) for p, f in productions]
    assert found[:-1] == [None] * (len(found) - 1)
    assert found[-1] is mismatch


class _Buffer:
    def tobytes(self) -> bytes:
        return b"\x01\x02"


def test_results_compare_by_their_bytes():
    assert result_bytes([np.arange(3, dtype=np.uint8), 4, _Buffer()]) == [
        b"\x00\x01\x02", np.asarray(4).tobytes(), b"\x01\x02"]
    assert first_difference([b"a", b"b"], [b"a", b"b"]) is None
    assert first_difference([b"a", b"b", b"c"], [b"a", b"x", b"y"]) == 1
