"""NNVM / TVM ``PlanMemory`` (storage ids by reference counting + ``GraphAllocator``).

Mapping of NNVM's PlanMemory onto the planning core
------------------------------------------
* **Reference counts.** The core has no op graph, so a buffer's users are implicit: buffer ``i``
  is produced at step ``start`` and read last at step ``end - 1``; its reference count reaches 0
  after step ``end - 1``, i.e. it is ``Release``\\ d before the requests of step ``end``. Steps are
  the distinct interval endpoints, visited in order. A *storage*'s reference count is the number
  of live buffers assigned to it; the storage returns to the free pool when it reaches 0.
* **Per step** (``AllocMemory``): (1) *in-place*: a buffer starting at this step that may
  overwrite a parent at offset 0 (an :class:`~memopt.planning.problem.Overwrite`; NNVM's
  ``FInplaceOption`` reuses whole storages, so other offsets are ignored) takes the parent's
  storage id when the parent's refcount drops to 0 at this step (``parent.end == step + 1``) and
  the parent is the storage's only live user (NNVM's ``storage_ref_count == 1``) and both have
  the same byte size (NNVM compares element counts and dtype sizes: a smaller output does not
  reuse a larger input's storage in place); a storage is taken at most once per step; (2) the other buffers starting at this step get a storage,
  **largest first**, from :meth:`GraphAllocator.request`; (3) releases happen at ``end``.
* **GraphAllocator.request(size)**: among the free storages with size in
  ``[size / match_range, size * match_range]``, the smallest one ``>= size``; else the largest
  smaller one, grown to ``size``; else a new storage. ``match_range = 0`` disables reuse.
  Storages are sized by their largest user (``SetupStorage``). Equal sizes are served in
  release order (NNVM's multimap; the backward scan takes the latest).
* **Parallel groups** (``NNVM_EXEC_NUM_TEMP``): with ``num_groups = k > 1`` buffer ``i`` gets
  colour ``i % k`` (the core has no graph to colour; the IR layer can renumber buffers to give
  its own colouring) and a storage last released by a buffer of another colour is not reused.
* **Auto search** (``NNVM_AUTO_SEARCH_MATCH_RANGE``): ``match_range="auto"`` runs ranges
  1, 2, 4, 8, 16, 32 and keeps the plan with the smallest total storage bytes (first on ties).
* **Dedicated storages** (``DecorateMemoryPlan``): ``same_storage`` groups of buffer indices are
  kept out of the pool and each group gets one storage id of its own, as NNVM does for variables
  and for assign outputs (mapped to the lhs variable's storage; a simplified assign's rhs too).
  Members of a group must never be live together unless they are an offset-0 overwrite pair.
  Zero-size buffers get storage id ``-1`` (NNVM's ``kBadStorageID``) and offset 0.

The native result is an :class:`NnvmPlan`; it becomes offsets either by **stacking** the storages
one after another (as NNVM's runtime, one NDArray per storage) or by **packing** them as buffers
(lifetime = hull of the users' intervals, size = largest user, alignment = lcm of the users')
with the large-first strategy. :class:`Nnvm` returns the lower of the two (``nnvm(stacked)`` or
``nnvm(packed)``); :func:`nnvm_heights` gives both. ``select="height"`` (not NNVM: an option for
benchmarks) makes the auto search keep the range whose *layout* is lowest instead of the range
with the least total storage bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from typing import Literal, Sequence

from sortedcontainers import SortedList

from .firstfit import first_fit
from .inplace import _common_prefix, select_chains
from .problem import Buffer, PlanningError, Problem, Solution, align_up, exclusive
from .strategy import Strategy

AUTO_RANGES = (1, 2, 4, 8, 16, 32)


@dataclass(frozen=True)
class NnvmPlan:
    """Storage id per buffer (``-1`` for zero-size buffers) and each storage's size in bytes."""

    storage_of: list[int]
    storage_sizes: list[int]
    match_range: float = 16

    @property
    def total(self) -> int:
        """NNVM's figure of merit: the sum of the storage sizes."""
        return sum(self.storage_sizes)


class GraphAllocator:
    """NNVM's ``GraphAllocator``: free storages in a size-keyed multimap, colour-aware reuse."""

    def __init__(self, match_range: float = 16, colours: Sequence[int] | None = None) -> None:
        self.match_range = match_range
        self.colours = colours
        self.sizes: list[int] = []
        self.released_by: list[int] = []
        self._seq = 0
        self.free_ = SortedList()  # (size, seq, storage id)

    def new_storage(self, size: int) -> int:
        self.sizes.append(size)
        self.released_by.append(-1)
        return len(self.sizes) - 1

    def _compatible(self, sid: int, node: int) -> bool:
        return self.colours is None or self.colours[self.released_by[sid]] == self.colours[node]

    def request(self, size: int, node: int) -> int:
        r = self.match_range
        if r == 0 or not self.free_:
            return self.new_storage(size)
        lo, hi = size / r, size * r
        mid = self.free_.bisect_left((size, -1, -1))
        # blocks >= size, smallest first
        for k in range(mid, len(self.free_)):
            s, _, sid = self.free_[k]
            if s > hi:
                break
            if self._compatible(sid, node):
                del self.free_[k]
                self.sizes[sid] = max(self.sizes[sid], size)
                return sid
        # blocks < size, largest first
        for k in range(mid - 1, -1, -1):
            s, _, sid = self.free_[k]
            if s < lo:
                break
            if self._compatible(sid, node):
                del self.free_[k]
                self.sizes[sid] = max(self.sizes[sid], size)
                return sid
        return self.new_storage(size)

    def release(self, sid: int, node: int) -> None:
        self.released_by[sid] = node
        self._seq += 1
        self.free_.add((self.sizes[sid], self._seq, sid))


def _check_groups(problem: Problem, groups: Sequence[Sequence[int]]) -> list[int]:
    """Group index per buffer (-1 outside any group); raises when a group is not shareable."""
    bufs = problem.buffers
    group_of = [-1] * len(bufs)
    inplace0 = {(w.child, w.parent) for w in problem.overwrites if w.offset == 0}
    for g, members in enumerate(groups):
        for i in members:
            if not 0 <= i < len(bufs):
                raise PlanningError(f"same_storage: bad buffer index {i}")
            if group_of[i] >= 0:
                raise PlanningError(f"same_storage: buffer '{bufs[i].id}' is in two groups")
            group_of[i] = g
        ms = sorted(members, key=lambda i: bufs[i].start)
        for a in range(len(ms)):
            for b in range(a + 1, len(ms)):
                x, y = bufs[ms[a]], bufs[ms[b]]
                if y.start >= x.end:
                    continue
                if (x.size and y.size and not exclusive(x.path, y.path)
                        and (ms[a], ms[b]) not in inplace0 and (ms[b], ms[a]) not in inplace0):
                    raise PlanningError(
                        f"same_storage: '{x.id}' and '{y.id}' are live together and cannot share a storage"
                    )
    return group_of


def plan_storage(
    problem: Problem,
    match_range: float = 16,
    num_groups: int = 1,
    same_storage: Sequence[Sequence[int]] = (),
) -> NnvmPlan:
    """One run of NNVM's ``AllocMemory`` with a fixed ``match_range``."""
    bufs = problem.buffers
    n = len(bufs)
    colours = [i % num_groups for i in range(n)] if num_groups > 1 else None
    alloc = GraphAllocator(match_range, colours)
    group_of = _check_groups(problem, same_storage) if same_storage else [-1] * n
    storage_of = [-1] * n
    # DecorateMemoryPlan: dedicated storages for the groups, outside the pool.
    for members in same_storage:
        sized = [i for i in members if bufs[i].size]
        if sized:
            sid = alloc.new_storage(max(bufs[i].size for i in sized))
            for i in sized:
                storage_of[i] = sid
    chains = select_chains(problem, require_meet=True, offset_zero=True)
    events: dict[int, tuple[list[int], list[int]]] = {}
    for i, b in enumerate(bufs):
        if b.size == 0 or group_of[i] >= 0:
            continue
        events.setdefault(b.start, ([], []))[0].append(i)
        events.setdefault(b.end, ([], []))[1].append(i)
    live = [0] * len(alloc.sizes)  # live users per storage (pool storages only)
    for t in sorted(events):
        starts, ends = events[t]
        for i in ends:  # refcount 0 after step end - 1
            sid = storage_of[i]
            live[sid] -= 1
            if live[sid] == 0:
                alloc.release(sid, i)
        taken: set[int] = set()
        # A buffer whose in-place parent starts at this same step (e.g. a graph input consumed
        # by the first op) waits until the parent has its storage.
        same_step = [i for i in starts if chains.parent[i] >= 0 and bufs[chains.parent[i]].start == t]
        deferred = set(same_step)
        first = [i for i in starts if i not in deferred]
        for batch in (first, same_step):
            rest = []
            for i in batch:
                p = chains.parent[i]
                if p >= 0 and group_of[p] < 0 and storage_of[p] >= 0:
                    sid = storage_of[p]
                    if (live[sid] == 1 and sid not in taken and bufs[p].end == t + 1
                            and bufs[i].size == bufs[p].size):
                        taken.add(sid)
                        storage_of[i] = sid
                        alloc.sizes[sid] = max(alloc.sizes[sid], bufs[i].size)
                        live[sid] += 1
                        continue
                rest.append(i)
            rest.sort(key=lambda i: (-bufs[i].size, i))
            for i in rest:
                sid = alloc.request(bufs[i].size, i)
                if sid == len(live):
                    live.append(0)
                storage_of[i] = sid
                live[sid] += 1
    return NnvmPlan(storage_of, list(alloc.sizes), match_range)


def plan_storage_auto(
    problem: Problem,
    match_range: float | Literal["auto"] = "auto",
    num_groups: int = 1,
    same_storage: Sequence[Sequence[int]] = (),
) -> NnvmPlan:
    """``plan_storage`` with ``match_range="auto"`` trying :data:`AUTO_RANGES` (least total wins)."""
    if match_range != "auto":
        return plan_storage(problem, match_range, num_groups, same_storage)
    best: NnvmPlan | None = None
    for r in AUTO_RANGES:
        p = plan_storage(problem, r, num_groups, same_storage)
        if best is None or p.total < best.total:
            best = p
    assert best is not None
    return best


def _storage_alignments(problem: Problem, plan: NnvmPlan) -> list[int]:
    al = [1] * len(plan.storage_sizes)
    for b, sid in zip(problem.buffers, plan.storage_of):
        if sid >= 0:
            al[sid] = al[sid] // gcd(al[sid], b.alignment) * b.alignment
    return al


def stacked_offsets(problem: Problem, plan: NnvmPlan) -> list[int]:
    """Each storage its own region, one after another (NNVM's runtime: one NDArray each)."""
    al = _storage_alignments(problem, plan)
    base, top = [], 0
    for sid, size in enumerate(plan.storage_sizes):
        top = align_up(top, al[sid])
        base.append(top)
        top += size
    return [base[s] if s >= 0 else 0 for s in plan.storage_of]


def storage_problem(problem: Problem, plan: NnvmPlan) -> Problem:
    """The storages as buffers: hull of the users' lifetimes, largest user, lcm alignment."""
    al = _storage_alignments(problem, plan)
    users: list[list[int]] = [[] for _ in plan.storage_sizes]
    for i, sid in enumerate(plan.storage_of):
        if sid >= 0:
            users[sid].append(i)
    bufs = problem.buffers
    out = []
    for sid, us in enumerate(users):
        if not us:  # cannot happen (every storage is created for a user); keep indices aligned
            out.append(Buffer(f"storage{sid}", 0, 0, 1))
            continue
        out.append(Buffer(
            f"storage{sid}", plan.storage_sizes[sid],
            min(bufs[i].start for i in us), max(bufs[i].end for i in us), al[sid],
            _common_prefix([bufs[i].path for i in us]),
        ))
    return Problem.of(out)


def packed_offsets(problem: Problem, plan: NnvmPlan) -> list[int]:
    """Storages packed by large-first first fit over their lifetimes."""
    sp = storage_problem(problem, plan)
    order = sorted(range(len(sp)), key=lambda k: (-sp.buffers[k].size, sp.buffers[k].start, k))
    base = first_fit(sp, order)
    return [base[s] if s >= 0 else 0 for s in plan.storage_of]


def nnvm_heights(problem: Problem, **options) -> dict[str, int]:
    """Arena heights of the NNVM plan laid out both ways: ``{"stacked": h, "packed": h}``."""
    plan = plan_storage_auto(problem, **options)
    return {
        "stacked": Solution.of(problem, stacked_offsets(problem, plan), "").height,
        "packed": Solution.of(problem, packed_offsets(problem, plan), "").height,
    }


class Nnvm(Strategy):
    """NNVM/TVM PlanMemory: storage ids, laid out stacked or packed (the lower wins)."""

    name = "nnvm"

    def __init__(
        self,
        match_range: float | str = "auto",
        num_groups: int = 1,
        same_storage: Sequence[Sequence[int]] = (),
        select: str = "total",
    ) -> None:
        if select not in ("total", "height"):
            raise PlanningError(f"nnvm: select must be 'total' or 'height', got {select!r}")
        if match_range != "auto" and not (isinstance(match_range, (int, float)) and match_range >= 0):
            raise PlanningError(f"nnvm: match_range must be >= 0 or 'auto', got {match_range!r}")
        if num_groups < 1:
            raise PlanningError(f"nnvm: num_groups must be >= 1, got {num_groups}")
        # Checked just above: a string is "auto".
        self.match_range: float | Literal["auto"] = match_range if isinstance(match_range, (int, float)) else "auto"
        self.num_groups = num_groups
        self.same_storage = [list(g) for g in same_storage]
        self.select = select

    def storage_plan(self, problem: Problem) -> NnvmPlan:
        return plan_storage_auto(problem, self.match_range, self.num_groups, self.same_storage)

    def plan(self, problem: Problem) -> Solution:
        if self.select == "height" and self.match_range == "auto":
            plans = [plan_storage(problem, r, self.num_groups, self.same_storage) for r in AUTO_RANGES]
        else:
            plans = [self.storage_plan(problem)]
        best: Solution | None = None
        for sp in plans:
            # The label names the layout and NNVM's own result (storage count, match range), so
            # a plan shows which storage assignment produced it.
            tail = f"; {len(sp.storage_sizes)} storages; match-range {sp.match_range:g})"
            stacked = Solution.of(problem, stacked_offsets(problem, sp), "nnvm(stacked" + tail)
            packed = Solution.of(problem, packed_offsets(problem, sp), "nnvm(packed" + tail)
            sol = packed if packed.height <= stacked.height else stacked
            if best is None or sol.height < best.height:
                best = sol
        assert best is not None
        return best

