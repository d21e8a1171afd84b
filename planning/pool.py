"""Eager memory pools: replay a program's allocations as a run-time allocator would serve them.

Users who run a model eagerly get their memory from a pool, not a plan. This module replays the
buffers of a :class:`~memopt.planning.Problem` as an eager runtime issues them — each allocated
when the op that produces it runs (its ``start``), freed when its reference count reaches zero
(``end``: after its last use; frees of a step before its allocations) — through one of these
allocators, so the static plan's saving can be measured with the frameworks' own numbers:

* ``mindspore`` — MindSpore's PyNative pool after its memory tuning: best-fit over idle buffers,
  memory taken from the device in blocks of ``block_size`` (default 1 GiB; effectively
  ``min(block_size, capacity - persistent)``), buffers split out of blocks and merged back when
  freed (never across blocks), separate *persistent* (inputs, outputs, weights) and *common*
  (op outputs) pools, sizes aligned to 512 bytes;
* ``mindspore-shared`` — the same pool before that tuning: one pool for everything, so a
  persistent buffer in the middle of a block keeps its neighbours from coalescing;
* ``pytorch`` — the CUDA caching allocator's documented rules: requests rounded up to 512 bytes;
  a small pool (≤ 1 MiB, 2 MiB segments) and a large pool (20 MiB segments for requests under
  10 MiB, else the request rounded to 2 MiB); best-fit; a free block is split when the rest is
  at least 512 bytes (small) or more than 1 MiB (large); adjacent free blocks of one segment
  merge; segments stay cached;
* ``bfc`` — TensorFlow's best-fit with coalescing: sizes rounded to 256 bytes; regions grown by
  doubling (first 1 MiB, each next at least twice the last); a chunk is split only when it is at
  least twice the request or the rest is 128 MiB or more; free neighbours coalesce.

Sources of the rules: PyTorch's ``c10/cuda/CUDACachingAllocator.cpp`` (``kMinBlockSize = 512``,
``kSmallSize = 1 MiB``, ``kSmallBuffer = 2 MiB``, ``kLargeBuffer = 20 MiB``, ``kMinLargeAlloc =
10 MiB``, ``kRoundLarge = 2 MiB``, ``should_split``: remaining ``>= kMinBlockSize`` in the small pool,
``> kSmallSize`` in the large one) and its "CUDA memory management" notes; TensorFlow's
``tsl/framework/bfc_allocator.cc`` (``kMinAllocationSize = 256``, ``kMaxInternalFragmentation =
128 MiB``, split when ``chunk >= 2 * rounded`` or the rest exceeds it, region growth by doubling with
``allow_growth``); MindSpore's PyNative memory-tuning notes (best-fit pool, ``mempool_block_size``,
persistent/common blocks); ``max_split_size`` follows ``CachingAllocatorConfig::max_split_size``
in ``get_free_block`` and ``should_split``. Not modelled: segment release (``empty_cache``), BFC's bins (best-fit over all free chunks gives the same choice), streams.

Addresses are global (segment ``k`` starts after segments ``0..k-1``), so a replay is checked by
the core's validator: no two buffers live at once share bytes. Nothing here knows IR.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass, field

from .problem import PlanningError, Problem, Solution

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
ALLOCATORS = ("mindspore", "mindspore-shared", "pytorch", "bfc")


class PoolOutOfMemory(PlanningError):
    """A replay needed more device memory than the capacity (message in PyTorch's words)."""


def _round(n: int, to: int) -> int:
    return -(-n // to) * to if n else to


@dataclass
class _Pool:
    """Segments of one pool and its free chunks (best-fit by (size, address))."""

    free: list[tuple[int, int]] = field(default_factory=list)  # sorted (size, addr)
    free_at: dict[int, int] = field(default_factory=dict)  # addr -> size of a free chunk
    free_end: dict[int, int] = field(default_factory=dict)  # end addr -> start addr
    segment_of: dict[int, tuple[int, int]] = field(default_factory=dict)  # chunk addr -> (seg base, seg end)

    def add_free(self, addr: int, size: int, seg: tuple[int, int]) -> None:
        insort(self.free, (size, addr))
        self.free_at[addr] = size
        self.free_end[addr + size] = addr
        self.segment_of[addr] = seg

    def take_free(self, addr: int) -> int:
        size = self.free_at.pop(addr)
        self.free.pop(bisect_left(self.free, (size, addr)))
        del self.free_end[addr + size]
        return size

    def best_fit(self, size: int, max_split: int | None = None) -> tuple[int, int] | None:
        """The smallest free chunk of at least ``size`` bytes (lowest address on ties). With
        PyTorch's ``max_split_size`` (``get_free_block``): a request below it never takes an
        oversize chunk (one of at least ``max_split``), a request of at least it only takes a
        chunk less than ``kLargeBuffer`` (20 MiB) larger."""
        k = bisect_left(self.free, (size, -1))
        if max_split is None:
            return self.free[k] if k < len(self.free) else None
        for chunk, addr in self.free[k:]:
            if size < max_split and chunk >= max_split:
                return None  # every later chunk is larger still
            if size >= max_split and chunk >= size + 20 * MiB:
                return None
            return chunk, addr
        return None


@dataclass(frozen=True)
class PoolReport:
    """A replay's numbers, named as the frameworks name them (bytes)."""

    allocator: str
    peak_live: int
    """Most bytes requested and not yet freed at once (what a perfect allocator would need)."""
    peak_allocated: int
    """Most bytes handed out at once, after rounding."""
    peak_reserved: int
    """Most device memory held by the pool (segments / blocks / regions)."""
    fragmentation: float
    """``1 - allocated / reserved`` at the moment of peak allocated (the pressure point)."""
    bfc_fragmentation: float
    """BFC's ``(free - largest free chunk) / free`` at that moment (0 without free bytes)."""
    segments: int
    splits: int
    merges: int
    addresses: tuple[int, ...]
    """Global address of every buffer (problem order): validated like a plan."""
    timeline: tuple[tuple[int, int, int, int], ...]
    """``(step, live, allocated, reserved)`` after each step's events."""


def replay(problem: Problem, allocator: str, *, persistent: frozenset[int] = frozenset(),
           block_size: int = GiB, capacity: int | None = None, max_split_size: int | None = None) -> PoolReport:
    """Replay ``problem``'s buffers through ``allocator`` (see module docstring); ``persistent``
    are the indices of inputs/outputs/weights (MindSpore's persistent pool); ``max_split_size``
    is PyTorch's ``max_split_size_mb`` in bytes (``pytorch`` only; unset: unlimited, its default):
    blocks of at least that size are never split, and small requests do not take them."""
    if max_split_size is not None and (allocator != "pytorch" or max_split_size < 1):
        raise PlanningError("max-split-size applies to the pytorch allocator and must be >= 1 byte")
    if allocator not in ALLOCATORS:
        raise PlanningError(f"unknown allocator '{allocator}' (expected one of: {', '.join(ALLOCATORS)})")
    if block_size < 1:
        raise PlanningError(f"block size must be >= 1, got {block_size}")
    bufs = problem.buffers
    events: list[tuple[int, int, int]] = []  # (step, 0 = free / 1 = alloc, buffer)
    for i, b in enumerate(bufs):
        events.append((b.start, 1, i))
        events.append((b.end, 0, i))
    events.sort()
    pools: dict[str, _Pool] = {}
    reserved = allocated = live = 0
    next_base = 0
    splits = merges = segments = 0
    addr_of: dict[int, int] = {}
    held: dict[int, int] = {}  # buffer -> bytes handed out (rounded / whole chunk)
    pool_of: dict[int, str] = {}
    peak = dict(live=0, allocated=0, reserved=0)
    at_peak = (0.0, 0.0)
    timeline: list[tuple[int, int, int, int]] = []
    persistent_bytes = sum(bufs[i].size for i in persistent)
    bfc_next_region = MiB

    def pool_name(i: int, size: int) -> str:
        if allocator == "mindspore":
            return "persistent" if i in persistent else "common"
        if allocator == "pytorch":
            return "small" if size <= MiB else "large"
        return "all"

    def request_size(n: int) -> int:
        if allocator in ("mindspore", "mindspore-shared", "pytorch"):
            return _round(n, 512)
        return _round(n, 256)

    def segment_size(size: int, name: str) -> int:
        nonlocal bfc_next_region
        if allocator == "pytorch":
            if name == "small":
                return 2 * MiB
            return 20 * MiB if size < 10 * MiB else _round(size, 2 * MiB)
        if allocator == "bfc":
            region = max(bfc_next_region, size)
            bfc_next_region = 2 * region
            return region
        block = block_size
        if capacity is not None and allocator == "mindspore":
            block = min(block, max(capacity - persistent_bytes, 1))
        return max(block, size)

    def should_split(chunk: int, size: int, name: str) -> bool:
        rest = chunk - size
        if rest <= 0:
            return False
        if allocator == "pytorch":
            if name == "small":
                return rest >= 512
            return rest > MiB and (max_split_size is None or size < max_split_size)
        if allocator == "bfc":
            return chunk >= 2 * size or rest >= 128 * MiB
        return True  # MindSpore splits a buffer out of an idle one whenever it is larger

    step_seen = None
    for step, kind, i in events:
        if step_seen is not None and step != step_seen:
            timeline.append((step_seen, live, allocated, reserved))
        step_seen = step
        size = bufs[i].size
        if kind == 0:  # free, merging with free neighbours of the same segment
            name = pool_of.pop(i)
            pool = pools[name]
            addr, n = addr_of[i], held.pop(i)
            seg = pool.segment_of[addr]
            allocated -= n
            live -= size
            if addr + n in pool.free_at and pool.segment_of[addr + n] == seg:
                n += pool.take_free(addr + n)
                merges += 1
            if addr in pool.free_end and pool.segment_of[pool.free_end[addr]] == seg:
                start = pool.free_end[addr]
                n += pool.take_free(start)
                addr = start
                merges += 1
            pool.add_free(addr, n, seg)
            continue
        want = request_size(size)
        name = pool_of[i] = pool_name(i, want)
        pool = pools.setdefault(name, _Pool())
        fit = pool.best_fit(want, max_split_size if name == "large" else None)
        if fit is None:
            seg_size = segment_size(want, name)
            if capacity is not None and reserved + seg_size > capacity:
                raise PoolOutOfMemory(
                    f"out of memory: tried to allocate {want} bytes ({allocator}); {capacity} bytes total capacity; "
                    f"{allocated} bytes already allocated; {reserved} bytes reserved in total by the pool"
                )
            seg = (next_base, next_base + seg_size)
            pool.add_free(next_base, seg_size, seg)
            next_base += seg_size
            reserved += seg_size
            segments += 1
            fit = (seg_size, seg[0])
        chunk, addr = fit
        seg = pool.segment_of[addr]
        pool.take_free(addr)
        if should_split(chunk, want, name):
            pool.add_free(addr + want, chunk - want, seg)
            splits += 1
            n = want
        else:
            n = chunk
        pool.segment_of[addr] = seg
        addr_of[i], held[i] = addr, n
        allocated += n
        live += size
        peak["live"] = max(peak["live"], live)
        peak["reserved"] = max(peak["reserved"], reserved)
        if allocated > peak["allocated"]:
            peak["allocated"] = allocated
            free = reserved - allocated
            largest = max((p.free[-1][0] for p in pools.values() if p.free), default=0)
            at_peak = (1 - allocated / reserved if reserved else 0.0, (free - largest) / free if free else 0.0)
    if step_seen is not None:
        timeline.append((step_seen, live, allocated, reserved))
    addresses = tuple(addr_of.get(i, 0) for i in range(len(bufs)))
    return PoolReport(
        allocator, peak["live"], peak["allocated"], peak["reserved"], at_peak[0], at_peak[1], segments, splits,
        merges, addresses, tuple(timeline),
    )


def replay_solution(problem: Problem, report: PoolReport) -> Solution:
    """The replay's addresses as a :class:`Solution`, for the core's validator."""
    return Solution.of(problem, report.addresses, report.allocator)


def smallest_capacity(problem: Problem, allocator: str, *, persistent: frozenset[int] = frozenset(),
                      block_size: int = GiB, max_split_size: int | None = None) -> int:
    """The least capacity (bytes) at which the replay does not run out of memory (bisection
    between the live peak and the unlimited replay's peak reserved)."""

    def run(capacity: int | None) -> PoolReport:
        return replay(problem, allocator, persistent=persistent, block_size=block_size, capacity=capacity,
                      max_split_size=max_split_size)

    high = run(None).peak_reserved
    low = 0
    while low < high:
        mid = (low + high) // 2
        try:
            run(mid)
            high = mid
        except PoolOutOfMemory:
            low = mid + 1
    return high


__all__ = [
    "ALLOCATORS", "GiB", "KiB", "MiB", "PoolOutOfMemory", "PoolReport", "replay", "replay_solution", "smallest_capacity",
]
