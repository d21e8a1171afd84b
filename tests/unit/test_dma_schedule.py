"""The DMA schedule both IR flavours share (passes/dma_schedule.py): the round-robin loads, the
buffers' sizes, and where the one Region walk asks a flavour's writer to emit."""

from dataclasses import dataclass

from memopt.dialects.context import make_context
from memopt.passes.dma_schedule import Load, Work, buffer_sizes, round_robin_loads, write_region
from memopt.passes.dma_weights import weight_set
from memopt.planning.latency import OpProfile
from xdsl.parser import Parser


@dataclass(frozen=True)
class Sized:
    symbol: str
    nbytes: int


def test_two_buffers_issue_the_next_ops_loads_before_the_current_op():
    loads = round_robin_loads((True, False, True, True), 2)
    assert loads == [Load(0, "alloc0", 0, "start"), Load(2, "alloc1", 0, "before", 0),
                     Load(3, "alloc0", 0, "before", 2)]


def test_n_buffers_issue_op_k_plus_n_after_op_k():
    loads = round_robin_loads((True, True, True, True), 3)
    assert [ld.where for ld in loads] == ["start", "start", "start", "after"]
    assert loads[3] == Load(3, "alloc0", 0, "after", 0)


def test_each_buffer_is_as_large_as_the_largest_weight_set_of_its_ops():
    sets = [weight_set([Sized("a", 100)], 16), weight_set([Sized("b", 10), Sized("c", 10)], 16),
            weight_set([Sized("d", 40)], 16)]
    w = Work(None, [None] * 3, [OpProfile("fc", 1, (1,))] * 3, sets)  # type: ignore[arg-type]
    w.mask = (True, True, True)
    sizes, largest = buffer_sizes([w], 2)
    assert sizes == [100, 26]
    assert largest == (w, 0)
    w.mask = (False, True, False)
    assert buffer_sizes([w], 2)[0] == [26, -1]


class _Recorder:
    def __init__(self):
        self.events = []

    def start(self, i, load, before):
        self.events.append(("start", i, before.results[0].name_hint))

    def arrive(self, i, load):
        self.events.append(("arrive", i))


def test_the_walk_issues_starts_where_each_load_says_and_arrivals_before_their_op():
    text = """
    func.func @f() {
      %a = "test.op"() : () -> i32
      %b = "test.op"() : () -> i32
      %c = "test.op"() : () -> i32
      "test.op"() : () -> ()
      func.return
    }"""
    module = Parser(make_context(), text).parse_module()
    f = next(iter(module.body.block.ops))
    ops = list(f.body.blocks[0].ops)[:3]
    loads = [Load(0, "alloc0", 0, "start"), Load(1, "alloc1", 0, "before", 0), Load(2, "alloc0", 0, "after", 0)]
    rec = _Recorder()
    write_region(ops, loads, rec, ops[0])
    assert rec.events == [("start", 0, "a"), ("arrive", 0), ("start", 1, "a"), ("start", 2, "b"),
                          ("arrive", 1), ("arrive", 2)]
