"""The IR-free latency model of ping-pong DMA (memopt.planning.latency)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memopt.planning.latency import (
    LatencyError, OpProfile, Run, Start, Target, Timing, Wait, choose_pipelined, efficiency,
    load_target, lower_bound_time, parse_target, pingpong_items, region_timing, serial_time,
    simulate,
)

T = Target()

op_st = st.builds(
    OpProfile,
    st.just("op"),
    st.integers(0, 2_000_000),
    st.lists(st.integers(1, 100_000), max_size=3).map(tuple),
)
ops_st = st.lists(op_st, min_size=1, max_size=12)
target_st = st.builds(
    Target, st.integers(1, 1024), st.integers(1, 64), st.integers(0, 1000), st.integers(0, 200)
)


def test_default_target_and_cycle_arithmetic():
    assert (T.macs_per_cycle, T.dma_bytes_per_cycle, T.dma_latency, T.dma_issue, T.capacity) == (256, 8, 200, 32, None)
    assert T.compute_cycles(257) == 2
    assert T.transfer_cycles(9) == 202
    assert T.dma_cycles([8, 16]) == 201 + 202
    assert "256 MACs/cycle" in T.describe()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"macs_per_cycle": 0}, "macs-per-cycle must be >= 1, got 0"),
        ({"dma_bytes_per_cycle": -2}, "dma-bytes-per-cycle must be >= 1"),
        ({"dma_latency": -1}, "dma-latency must be >= 0"),
        ({"dma_issue": -1}, "dma-issue must be >= 0"),
        ({"capacity": -5}, "capacity must be >= 0"),
    ],
)
def test_bad_target_fields(kwargs, message):
    with pytest.raises(LatencyError, match=message):
        Target(**kwargs)


def test_parse_target_file(tmp_path):
    t = parse_target("# npu\nmacs-per-cycle = 64  # small\n\ndma_latency=0x10\ncapacity = none\n")
    assert (t.macs_per_cycle, t.dma_latency, t.capacity, t.dma_bytes_per_cycle) == (64, 16, None, 8)
    with pytest.raises(LatencyError, match="line 1: 'dma-issue' needs an integer, got 'lots'"):
        parse_target("dma-issue = lots")
    with pytest.raises(LatencyError, match="line 2: expected 'key = value'"):
        parse_target("capacity = 4\nspeed = 3")
    p = tmp_path / "t.target"
    p.write_text("capacity = 1024\ndma-issue = 7\n")
    t = load_target(str(p), {"dma_issue": 9, "macs_per_cycle": None})
    assert (t.capacity, t.dma_issue, t.macs_per_cycle) == (1024, 9, 256)
    with pytest.raises(LatencyError, match="cannot read target file"):
        load_target(str(tmp_path / "missing"))


def test_hand_computed_schedule():
    # c = 4, 2 cycles; d = 200 + 4 = 204 each; issue 32.
    ops = [OpProfile("a", 1024, (32,)), OpProfile("b", 512, (32,))]
    items = pingpong_items(ops, [True, True])
    assert items == [Start(0, 32), Wait(0), Start(1024, 32), Run(1024), Wait(1024), Run(512)]
    # start a: 32..236; wait -> 236; start b: 268..472; run a -> 272; wait -> 472; run b -> 474
    assert simulate(items, T) == 474
    assert serial_time(ops, T) == 4 + 2 + 2 * 204
    assert lower_bound_time(ops, T) == max(6 + 204, 408 + 2)


def test_hand_computed_three_buffer_schedule():
    """buffers=3: ops 0..2 load at the start, op 3's load is issued right after op 0 has run
    (its buffer @alloc0 is free then), before op 1's wait."""
    ops = [OpProfile("a", 256, (8,)), OpProfile("big", 256, (800,)), OpProfile("b", 25600, (8,)),
           OpProfile("c", 256, (8,))]
    items = pingpong_items(ops, [True] * 4, buffers=3)
    assert items == [
        Start(0, 8), Start(1024, 800), Start(2048, 8),
        Wait(0), Run(256), Start(3072, 8),
        Wait(1024), Run(256),
        Wait(2048), Run(25600),
        Wait(3072), Run(256),
    ]
    # d = 201 (8 B), 300 (800 B); issue 32. Starts at 32, 64, 96 -> channel: a 32..233,
    # big 233..533, b 533..734. wait a -> 233, run -> 234, start c at 266 -> 734..935;
    # wait big -> 533, run -> 534; wait b -> 734, run 100 -> 834; wait c -> 935, run -> 936.
    assert simulate(items, T) == 936
    # Two buffers (the LUNA paper's schedule): the big load only overlaps op a's single cycle.
    two = simulate(pingpong_items(ops, [True] * 4), T)
    assert two > 936
    lb = lower_bound_time(ops, T)
    assert efficiency(serial_time(ops, T), 936, lb) > efficiency(serial_time(ops, T), two, lb)
    # buffers=2 is exactly the LUNA paper's schedule, and fewer than two buffers is an error.
    assert pingpong_items(ops, [True] * 4, 2) == pingpong_items(ops, [True] * 4)
    with pytest.raises(LatencyError, match="buffers must be an integer >= 2, got 1"):
        pingpong_items(ops, [True] * 4, 1)


@settings(max_examples=150, deadline=None)
@given(ops_st, target_st, st.integers(3, 6))
def test_deeper_buffers_respect_the_bound_and_auto_stays_safe(ops, target, n):
    mask = [True] * len(ops)
    t = simulate(pingpong_items(ops, mask, n), target)
    assert lower_bound_time(ops, target) <= t
    auto = choose_pipelined(ops, target, "auto", buffers=n)
    t_auto = simulate(pingpong_items(ops, auto, n), target)
    assert t_auto <= serial_time(ops, target) and t_auto <= t
    # every transfer is waited for exactly once, after it was started
    started: set[int] = set()
    waited: list[int] = []
    for it in pingpong_items(ops, mask, n):
        if isinstance(it, Start):
            started.add(it.transfer)
        elif isinstance(it, Wait):
            assert it.transfer in started
            waited.append(it.transfer)
    assert sorted(waited) == sorted(started)


def test_wait_without_start_is_an_error():
    with pytest.raises(LatencyError, match="never started"):
        simulate([Wait(3)], T)


def test_efficiency_and_timing_composition():
    assert efficiency(100, 100, 100) is None
    assert efficiency(100, 60, 50) == pytest.approx(0.8)
    a, b = Timing(10, 8, 6), Timing(12, 7, 7)
    assert a + b == Timing(22, 15, 13)
    assert a.times(3) == Timing(30, 24, 18)
    assert Timing.worst([a, b]) == Timing(12, 8, 7)
    assert Timing.worst([]) == Timing()


@settings(max_examples=150, deadline=None)
@given(ops_st, target_st)
def test_unpipelined_schedule_is_serial(ops, target):
    assert simulate(pingpong_items(ops, [False] * len(ops)), target) == serial_time(ops, target)


@settings(max_examples=150, deadline=None)
@given(ops_st, target_st, st.data())
def test_any_schedule_respects_the_bound(ops, target, data):
    mask = data.draw(st.lists(st.booleans(), min_size=len(ops), max_size=len(ops)))
    t = simulate(pingpong_items(ops, mask), target)
    assert lower_bound_time(ops, target) <= t


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 10**5)), min_size=1, max_size=12), target_st)
def test_closed_form_without_issue_overhead(pairs, target):
    """One weight per op, free issue: T = d0 + sum(max(c_i, d_{i+1})) + c_last (the LUNA paper)."""
    from dataclasses import replace

    target = replace(target, dma_issue=0)
    ops = [OpProfile("op", m, (b,)) for m, b in pairs]
    c = [target.compute_cycles(m) for m, _ in pairs]
    d = [target.transfer_cycles(b) for _, b in pairs]
    expected = d[0] + sum(max(c[i], d[i + 1]) for i in range(len(ops) - 1)) + c[-1]
    assert simulate(pingpong_items(ops, [True] * len(ops)), target) == expected
    assert expected <= serial_time(ops, target)


def test_compute_bound_chain_reaches_the_bound():
    ops = [OpProfile("conv", 2_000_000, (4096,)) for _ in range(10)]
    t = region_timing(ops, [True] * 10, Target(dma_issue=0))
    assert t.pingpong == t.lb and t.eta == 1.0
    t = region_timing(ops, [True] * 10, T)
    assert t.eta is not None and t.eta >= 0.9


@settings(max_examples=150, deadline=None)
@given(ops_st, target_st)
def test_auto_is_never_slower_than_serial_or_always(ops, target):
    auto = choose_pipelined(ops, target, "auto")
    always = choose_pipelined(ops, target, "always")
    assert always == tuple(bool(op.weights) for op in ops)
    t_auto = simulate(pingpong_items(ops, auto), target)
    assert t_auto <= serial_time(ops, target)
    assert t_auto <= simulate(pingpong_items(ops, always), target)
    assert all(not on or op.weights for on, op in zip(auto, ops))


def test_auto_skips_a_losing_region_and_respects_allowed():
    tiny = [OpProfile("scale", 256, (16,)), OpProfile("scale", 256, (16,))]
    assert choose_pipelined(tiny, T, "auto") == (False, False)
    big = [OpProfile("conv", 10**6, (4096,))] * 3
    assert choose_pipelined(big, T, "auto") == (True, True, True)
    assert choose_pipelined(big, T, "always", allowed=[True, False, True]) == (True, False, True)
    with pytest.raises(LatencyError, match="unknown mode 'fast'"):
        choose_pipelined(big, T, "fast")
