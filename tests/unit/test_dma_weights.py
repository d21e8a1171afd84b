"""One transfer per global (passes/dma_weights.py), whichever IR traced the reads."""

from dataclasses import dataclass

from memopt.passes.dma_weights import distinct, weight_set


@dataclass(frozen=True)
class Read:
    symbol: str
    operand: int


def test_the_first_read_of_each_global_in_operand_order():
    reads = [Read("w", 0), Read("b", 1), Read("w", 2)]
    assert list(distinct(reads).values()) == [Read("w", 0), Read("b", 1)]


@dataclass(frozen=True)
class Sized:
    symbol: str
    nbytes: int


def test_a_weight_set_lays_out_one_transfer_per_global_at_aligned_offsets():
    s = weight_set([Sized("w", 10), Sized("b", 4), Sized("w", 10)], 16)
    assert [t.symbol for t in s.transfers] == ["w", "b"]
    assert s.offsets == (0, 16)
    assert s.span == 20
    assert len(s.reads) == 3
    assert s.offset_of("b") == 16


def test_a_weight_set_without_weights_spans_nothing():
    s = weight_set([], 16)
    assert s.transfers == () and s.span == 0
