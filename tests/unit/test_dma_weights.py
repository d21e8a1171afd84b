"""One transfer per global (passes/dma_weights.py), whichever IR traced the reads."""

from dataclasses import dataclass

from memopt.passes.dma_weights import distinct


@dataclass(frozen=True)
class Read:
    symbol: str
    operand: int


def test_the_first_read_of_each_global_in_operand_order():
    reads = [Read("w", 0), Read("b", 1), Read("w", 2)]
    assert list(distinct(reads).values()) == [Read("w", 0), Read("b", 1)]
