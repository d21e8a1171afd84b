"""Eager pool simulators (planning/pool.py): hand-computed rules and replay invariants."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from memopt.planning import Buffer, Problem, lower_bound, validate
from memopt.planning.pool import ALLOCATORS, MiB, PoolOutOfMemory, replay, replay_solution, smallest_capacity

ROOT = Path(__file__).resolve().parents[2]


def P(*rows):
    return Problem.of(Buffer(f"b{k}", size, s, e) for k, (size, s, e) in enumerate(rows))


def test_pytorch_rounds_to_512_and_splits_a_small_segment():
    r = replay(P((100, 0, 2), (1000, 1, 3)), "pytorch")
    # 100 -> 512, 1000 -> 1024, both carved from one 2 MiB small-pool segment (two splits).
    assert (r.peak_live, r.peak_allocated, r.peak_reserved, r.segments, r.splits) == (1100, 1536, 2 * MiB, 1, 2)
    assert r.addresses == (0, 512)


def test_pytorch_large_pool_segment_sizes():
    big = replay(P((11 * MiB + 1, 0, 1)), "pytorch")
    assert big.peak_reserved == 12 * MiB  # >= 10 MiB: rounded up to 2 MiB, its own segment
    mid = replay(P((2 * MiB, 0, 1)), "pytorch")
    assert mid.peak_reserved == 20 * MiB  # 1..10 MiB: a 20 MiB large segment


def test_free_neighbours_merge_within_a_segment():
    # a and b freed at step 2 merge (with the tail) into one chunk that c (bigger than either) fits.
    r = replay(P((1024, 0, 2), (1024, 0, 2), (2048, 2, 3)), "mindspore", block_size=8192)
    assert r.addresses[2] == 0 and r.merges >= 2 and r.segments == 1


def test_mindspore_blocks_never_merge_and_persistent_is_apart():
    # Two requests that do not fit one 4 KiB block: a second block; no chunk spans the boundary.
    r = replay(P((3072, 0, 2), (3072, 1, 3)), "mindspore", block_size=4096)
    assert r.segments == 2 and r.peak_reserved == 8192 and r.addresses == (0, 4096)
    # The persistent input lives in its own pool: the common buffers do not sit beside it.
    shared = replay(P((512, 0, 9), (1024, 1, 2), (1024, 3, 4)), "mindspore-shared", block_size=4096)
    split = replay(P((512, 0, 9), (1024, 1, 2), (1024, 3, 4)), "mindspore", block_size=4096, persistent=frozenset({0}))
    assert shared.segments == 1 and split.segments == 2
    assert split.addresses[1] == split.addresses[2] == 4096


def test_bfc_splits_only_when_worth_it_and_grows_by_doubling():
    r = replay(P((600 * 1024, 0, 2), (700 * 1024, 1, 3)), "bfc")
    # 600 KiB takes the whole first 1 MiB region (1 MiB < 2 x 600 KiB: not split, 1 MiB
    # allocated); 700 KiB needs a new region, twice the first, which is split (2 MiB >= 2 x 700 KiB).
    assert r.segments == 2 and r.peak_reserved == 3 * MiB and r.splits == 1
    assert r.peak_allocated == MiB + 700 * 1024


def test_out_of_memory_message_and_smallest_capacity():
    p = P((4096, 0, 2), (4096, 1, 3))
    with pytest.raises(PoolOutOfMemory, match="out of memory: tried to allocate 4096 bytes .* 6000 bytes total capacity"):
        replay(p, "mindspore", block_size=4096, capacity=6000)
    assert smallest_capacity(p, "mindspore", block_size=4096) == 8192


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(1, 3 * MiB), st.integers(0, 30), st.integers(1, 10)), min_size=1, max_size=40),
       allocator=st.sampled_from(ALLOCATORS), block=st.sampled_from([4096, MiB, 1 << 30]))
def test_replay_invariants(rows, allocator, block):
    p = Problem.of(Buffer(f"b{k}", z, s, s + n) for k, (z, s, n) in enumerate(rows))
    r = replay(p, allocator, block_size=block, persistent=frozenset({0}))
    validate(p, replay_solution(p, r))  # no two live buffers share bytes
    assert r.peak_reserved >= r.peak_allocated >= r.peak_live >= lower_bound(p)
    assert 0 <= r.fragmentation <= 1 and 0 <= r.bfc_fragmentation <= 1


def test_memopt_pool_tool_json_and_errors(tmp_path):
    bin_dir = Path(sys.executable).parent
    out = subprocess.run([bin_dir / "memopt-pool", ROOT / "examples" / "chain.mlir", "--json"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    rows = [json.loads(line) for line in out]
    assert [r["allocator"] for r in rows] == [*ALLOCATORS, "static"]
    static = rows[-1]["peak_reserved"]
    assert all(r["peak_reserved"] >= static for r in rows[:-1]) and static >= rows[-1]["lower_bound"] > 0
    tl = tmp_path / "t.csv"
    subprocess.run([bin_dir / "memopt-pool", ROOT / "examples" / "chain.mlir", "--allocator", "pytorch",
                    "--timeline", tl], capture_output=True, check=True)
    assert tl.read_text().startswith("allocator,step,live,allocated,reserved\npytorch,0,")
    bad = subprocess.run([bin_dir / "memopt-pool", ROOT / "examples" / "chain.mlir", "--capacity", "1000"],
                         capture_output=True, text=True)
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "out of memory: tried to allocate" in bad.stderr


def test_tool_min_capacity_is_the_bisection_bound():
    bin_dir = Path(sys.executable).parent
    out = subprocess.run([bin_dir / "memopt-pool", ROOT / "examples" / "chain.mlir", "--json", "--min-capacity",
                          "--allocator", "bfc"], capture_output=True, text=True, check=True).stdout.splitlines()
    r = json.loads(out[0])
    cap = r["min_capacity"]
    assert r["peak_live"] <= cap <= r["peak_reserved"]
    ok = subprocess.run([bin_dir / "memopt-pool", ROOT / "examples" / "chain.mlir", "--allocator", "bfc",
                         "--capacity", str(cap)], capture_output=True)
    bad = subprocess.run([bin_dir / "memopt-pool", ROOT / "examples" / "chain.mlir", "--allocator", "bfc",
                          "--capacity", str(cap - 1)], capture_output=True)
    assert ok.returncode == 0 and bad.returncode == 1


def test_pytorch_max_split_size_keeps_oversize_blocks_whole():
    # A 12 MiB request gets its own 12 MiB segment; freed, it is a 12 MiB free block.
    # Unlimited (PyTorch's default): a later 3 MiB request splits it (no new segment).
    rows = ((12 * MiB, 0, 1), (3 * MiB, 2, 3))
    free = replay(P(*rows), "pytorch")
    assert (free.segments, free.peak_reserved, free.splits) == (1, 12 * MiB, 1)
    # max_split_size = 8 MiB: the 12 MiB block is oversize, a 3 MiB request may not take it,
    # so a 20 MiB segment is reserved for it.
    capped = replay(P(*rows), "pytorch", max_split_size=8 * MiB)
    assert (capped.segments, capped.peak_reserved) == (2, 32 * MiB)
    # An oversize request reuses an oversize block only when less than 20 MiB larger, unsplit.
    reuse = replay(P((40 * MiB, 0, 1), (30 * MiB, 2, 3)), "pytorch", max_split_size=8 * MiB)
    assert (reuse.segments, reuse.splits, reuse.peak_reserved) == (1, 0, 40 * MiB)
    fresh = replay(P((60 * MiB, 0, 1), (30 * MiB, 2, 3)), "pytorch", max_split_size=8 * MiB)
    assert fresh.segments == 2  # 60 >= 30 + 20 MiB: too large to hand out whole
    with pytest.raises(Exception, match="max-split-size applies to the pytorch allocator"):
        replay(P(*rows), "bfc", max_split_size=MiB)
