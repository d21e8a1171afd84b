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
    rules = _Rules(allocator, block_size, capacity, max_split_size, sum(problem.buffers[i].size for i in persistent))
    return _Replay(problem, rules, persistent).run()


@dataclass
class _Rules:
    """One allocator's policy: which pool a request goes to, how it is rounded, how large a new
    segment is, when a free chunk is split."""

    allocator: str
    block_size: int
    capacity: int | None
    max_split_size: int | None
    persistent_bytes: int
    next_region: int = MiB
    """BFC's next region size (regions grow by doubling)."""

    def pool_name(self, persistent: bool, size: int) -> str:
        if self.allocator == "mindspore":
            return "persistent" if persistent else "common"
        if self.allocator == "pytorch":
            return "small" if size <= MiB else "large"
        return "all"

    def request_size(self, n: int) -> int:
        if self.allocator in ("mindspore", "mindspore-shared", "pytorch"):
            return _round(n, 512)
        return _round(n, 256)

    def segment_size(self, size: int, name: str) -> int:
        if self.allocator == "pytorch":
            if name == "small":
                return 2 * MiB
            return 20 * MiB if size < 10 * MiB else _round(size, 2 * MiB)
        if self.allocator == "bfc":
            region = max(self.next_region, size)
            self.next_region = 2 * region
            return region
        block = self.block_size
        if self.capacity is not None and self.allocator == "mindspore":
            block = min(block, max(self.capacity - self.persistent_bytes, 1))
        return max(block, size)

    def should_split(self, chunk: int, size: int, name: str) -> bool:
        rest = chunk - size
        if rest <= 0:
            return False
        if self.allocator == "pytorch":
            if name == "small":
                return rest >= 512
            return rest > MiB and (self.max_split_size is None or size < self.max_split_size)
        if self.allocator == "bfc":
            return chunk >= 2 * size or rest >= 128 * MiB
        return True  # MindSpore splits a buffer out of an idle one whenever it is larger


class _Replay:
    """One replay's state — the pools, the counters, where each buffer is — with one method per
    event: :meth:`free` (merging with free neighbours of the same segment) and :meth:`alloc`
    (best fit, else a new segment, then a split when the rules allow)."""

    def __init__(self, problem: Problem, rules: _Rules, persistent: frozenset[int]) -> None:
        self.bufs = problem.buffers
        self.rules = rules
        self.persistent = persistent
        self.pools: dict[str, _Pool] = {}
        self.reserved = self.allocated = self.live = 0
        self.next_base = 0
        self.splits = self.merges = self.segments = 0
        self.addr_of: dict[int, int] = {}
        self.held: dict[int, int] = {}  # buffer -> bytes handed out (rounded / whole chunk)
        self.pool_of: dict[int, str] = {}
        self.peak = dict(live=0, allocated=0, reserved=0)
        self.at_peak = (0.0, 0.0)

    def run(self) -> PoolReport:
        events: list[tuple[int, int, int]] = []  # (step, 0 = free / 1 = alloc, buffer)
        for i, b in enumerate(self.bufs):
            events.append((b.start, 1, i))
            events.append((b.end, 0, i))
        events.sort()
        timeline: list[tuple[int, int, int, int]] = []
        step_seen = None
        for step, kind, i in events:
            if step_seen is not None and step != step_seen:
                timeline.append((step_seen, self.live, self.allocated, self.reserved))
            step_seen = step
            if kind == 0:
                self.free(i)
            else:
                self.alloc(i)
        if step_seen is not None:
            timeline.append((step_seen, self.live, self.allocated, self.reserved))
        addresses = tuple(self.addr_of.get(i, 0) for i in range(len(self.bufs)))
        peak = self.peak
        return PoolReport(
            self.rules.allocator, peak["live"], peak["allocated"], peak["reserved"], self.at_peak[0],
            self.at_peak[1], self.segments, self.splits, self.merges, addresses, tuple(timeline),
        )

    def free(self, i: int) -> None:
        pool = self.pools[self.pool_of.pop(i)]
        addr, n = self.addr_of[i], self.held.pop(i)
        seg = pool.segment_of[addr]
        self.allocated -= n
        self.live -= self.bufs[i].size
        if addr + n in pool.free_at and pool.segment_of[addr + n] == seg:
            n += pool.take_free(addr + n)
            self.merges += 1
        if addr in pool.free_end and pool.segment_of[pool.free_end[addr]] == seg:
            start = pool.free_end[addr]
            n += pool.take_free(start)
            addr = start
            self.merges += 1
        pool.add_free(addr, n, seg)

    def alloc(self, i: int) -> None:
        rules, size = self.rules, self.bufs[i].size
        want = rules.request_size(size)
        name = self.pool_of[i] = rules.pool_name(i in self.persistent, want)
        pool = self.pools.setdefault(name, _Pool())
        fit = pool.best_fit(want, rules.max_split_size if name == "large" else None)
        if fit is None:
            fit = self.new_segment(pool, want, name)
        chunk, addr = fit
        seg = pool.segment_of[addr]
        pool.take_free(addr)
        if rules.should_split(chunk, want, name):
            pool.add_free(addr + want, chunk - want, seg)
            self.splits += 1
            n = want
        else:
            n = chunk
        pool.segment_of[addr] = seg
        self.addr_of[i], self.held[i] = addr, n
        self.allocated += n
        self.live += size
        self.note_peaks()

    def new_segment(self, pool: _Pool, want: int, name: str) -> tuple[int, int]:
        """A fresh segment for a request no free chunk fits, as a free chunk of ``pool``; out of
        memory past the capacity."""
        rules = self.rules
        seg_size = rules.segment_size(want, name)
        if rules.capacity is not None and self.reserved + seg_size > rules.capacity:
            raise PoolOutOfMemory(
                f"out of memory: tried to allocate {want} bytes ({rules.allocator}); {rules.capacity} bytes total "
                f"capacity; {self.allocated} bytes already allocated; {self.reserved} bytes reserved in total by "
                "the pool"
            )
        seg = (self.next_base, self.next_base + seg_size)
        pool.add_free(self.next_base, seg_size, seg)
        self.next_base += seg_size
        self.reserved += seg_size
        self.segments += 1
        return seg_size, seg[0]

    def note_peaks(self) -> None:
        peak = self.peak
        peak["live"] = max(peak["live"], self.live)
        peak["reserved"] = max(peak["reserved"], self.reserved)
        if self.allocated > peak["allocated"]:
            peak["allocated"] = allocated = self.allocated
            reserved = self.reserved
            free = reserved - allocated
            largest = max((p.free[-1][0] for p in self.pools.values() if p.free), default=0)
            self.at_peak = (1 - allocated / reserved if reserved else 0.0, (free - largest) / free if free else 0.0)


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
