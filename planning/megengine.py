"""MegEngine's static memory planner (best-fit simulation + front-space offsets).

Mapping of MegEngine's planner onto the planning core
------------------------------------------
* **Memory chunks.** A core :class:`Buffer` *is* a chunk. Read dependencies (readonly forward,
  views) were already resolved by the IR layer, which gives the vars sharing one chunk a single
  buffer over the union of their lifetimes. A write dependency is an
  :class:`~memopt.planning.problem.Overwrite`: the child chunk occupies
  ``[offset, offset + child.size)`` of its parent chunk. Write dependencies form chains rooted at
  a ``memory_chunk_root`` (see :func:`memopt.planning.inplace.select_chains`); only overwrites
  whose parent dies right after the child's first step (``parent.end == child.start + 1``, the
  planner's ``end = max(end, id + 1)`` for the op ``id`` producing the child) and whose parent is
  live at that step are honoured; the others are ignored (a permission, not an obligation).
* **Lifetimes.** MegEngine's ``begin`` (op index of the first output) and ``end``
  (``max(end, id + 1)`` over readers) are exactly the core's half-open ``[start, end)``:
  ``begin = start``, ``end = end``.
* **Simulation** (:class:`BestFitPrealloc`): the *memory queue* (every block in address order,
  used or free, adjacent free blocks merged) and the *free queue* (free blocks by size
  ascending). ``alloc`` appends a block when the free queue is empty, else takes the smallest
  free block that fits (best fit; the chunk goes to its low end, the rest stays free), else grows
  the largest free block (the last of the free queue) to the request. ``alloc_overwrite`` hands
  ``[offset, offset + size)`` of the parent's block to the child and frees the parts before and
  after it (merging). ``free`` frees and merges. The replay visits the distinct event times in
  order and, at each, frees the chunks ending there (except those overwritten by a child: their
  block now belongs to the child), then ``alloc``\\ s the new root chunks, then
  ``alloc_overwrite``\\ s the new write-dependent chunks (parents before children).
* **Offsets.** The queue is logical: grown blocks push everything above them up, so addresses
  are fixed afterwards. Each (re)allocation records the *front space* (the previous allocated
  block in the memory queue, MegEngine's rule); like MegEngine's ``pushdown.cpp`` it also records
  the next allocated block, which must then lie above the new one. (The article mentions only
  the front space; without the second edge a grown block can collide with a block allocated
  earlier above it.) A root's ``root_addr_begin`` starts at 0 and is raised, for every chunk
  of its chain and every block recorded below that chunk, until
  ``root_addr_begin + offset_root >= end address of that block``; the recursion is memoised and
  run iteratively (deep graphs). Chunk address = ``root_addr_begin + offset_root``; pool size =
  ``max(root_addr_begin + extent)``.
* **Alignment.** The simulation uses raw sizes; ``root_addr_begin`` is rounded up to the chain's
  alignment (lcm of its members', with the padding :func:`select_chains` computes), which only
  moves blocks up, so every recorded constraint still holds.
* **Control flow.** The simulation is branch-oblivious: exclusive branches are treated as
  conflicting, which is valid (conservative).
* **Safety net.** The result is checked with :func:`find_conflicts`; should it ever conflict,
  the chains are re-placed by first fit in the order of their megengine addresses (a valid plan,
  strategy name ``megengine(fixup)``). No case is known to need it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Hashable, TypeVar

from sortedcontainers import SortedList

from .firstfit import first_fit
from .inplace import Chains, fold_chains, select_chains
from .problem import Problem, Solution, align_up
from .strategy import Strategy
from .validate import find_conflicts


Chunk = TypeVar("Chunk", bound=Hashable)
"""What names a chunk of the simulated allocator (the static planner: a buffer's index)."""


@dataclass(eq=False)
class Block(Generic[Chunk]):
    """One block of the memory queue: allocated to ``owner`` or free (``owner is None``)."""

    size: int
    owner: Chunk | None = None
    uid: int = 0
    prev: Block[Chunk] | None = field(default=None, repr=False)
    next: Block[Chunk] | None = field(default=None, repr=False)

    @property
    def free(self) -> bool:
        return self.owner is None


class BestFitPrealloc(Generic[Chunk]):
    """MegEngine's simulated allocator (MegEngine ``StaticMemAllocPushdown::BestfitPrealloc``).

    Chunks are named by any hashable key. After each ``alloc``/``alloc_overwrite``,
    ``front[chunk]`` is the previous allocated chunk in the memory queue (the front space) and
    ``back[chunk]`` the next one (or None).
    """

    def __init__(self) -> None:
        self.head: Block[Chunk] | None = None
        self.tail: Block[Chunk] | None = None
        self.free_queue: SortedList = SortedList(key=lambda b: (b.size, b.uid))
        self.block_of: dict[Chunk, Block[Chunk]] = {}
        self.front: dict[Chunk, Chunk | None] = {}
        self.back: dict[Chunk, Chunk | None] = {}
        self._uid = 0

    # -- memory queue primitives ---------------------------------------------------------
    def _new_block(self, size: int, owner: Chunk | None = None) -> Block[Chunk]:
        self._uid += 1
        return Block(size, owner, self._uid)

    def _link_after(self, prev: Block[Chunk] | None, blk: Block[Chunk]) -> None:
        """Insert ``blk`` after ``prev`` (at the head when ``prev`` is None)."""
        nxt = prev.next if prev is not None else self.head
        blk.prev, blk.next = prev, nxt
        if prev is not None:
            prev.next = blk
        else:
            self.head = blk
        if nxt is not None:
            nxt.prev = blk
        else:
            self.tail = blk

    def _unlink(self, blk: Block[Chunk]) -> None:
        if blk.prev is not None:
            blk.prev.next = blk.next
        else:
            self.head = blk.next
        if blk.next is not None:
            blk.next.prev = blk.prev
        else:
            self.tail = blk.prev
        blk.prev = blk.next = None

    def _insert_free_between(self, prev: Block[Chunk] | None, size: int) -> None:
        """Insert ``size`` free bytes right after ``prev`` (head if None), merging neighbours."""
        nxt = prev.next if prev is not None else self.head
        if nxt is not None and nxt.free:
            size += nxt.size
            self.free_queue.remove(nxt)
            self._unlink(nxt)
        if prev is not None and prev.free:
            size += prev.size
            self.free_queue.remove(prev)
            before = prev.prev
            self._unlink(prev)
            prev = before
        if size == 0:
            return
        blk = self._new_block(size)
        self._link_after(prev, blk)
        self.free_queue.add(blk)

    def _record(self, chunk: Chunk, blk: Block[Chunk]) -> None:
        p = blk.prev
        if p is not None and p.free:
            p = p.prev
        n = blk.next
        if n is not None and n.free:
            n = n.next
        assert p is None or not p.free, "found adjacent free blocks"
        assert n is None or not n.free, "found adjacent free blocks"
        self.front[chunk] = p.owner if p is not None else None
        self.back[chunk] = n.owner if n is not None else None

    # -- MegEngine's three operations ------------------------------------------------------
    def alloc(self, chunk: Chunk, size: int) -> Block[Chunk]:
        """Best fit; else grow the largest free block; else (no free block) append."""
        if not self.free_queue:
            blk = self._new_block(size, chunk)
            self._link_after(self.tail, blk)
        else:
            k = self.free_queue.bisect_key_left((size, -1))
            if k == len(self.free_queue):
                k -= 1  # nothing fits: grow the largest free block to the request
            blk = self.free_queue.pop(k)
            rest = max(0, blk.size - size)
            blk.owner, blk.size = chunk, size
            self._insert_free_between(blk, rest)
        self.block_of[chunk] = blk
        self._record(chunk, blk)
        return blk

    def alloc_overwrite(self, dest: Chunk, offset: int, chunk: Chunk, size: int) -> Block[Chunk]:
        """Give ``[offset, offset + size)`` of ``dest``'s block to ``chunk``; free the rest."""
        blk = self.block_of.pop(dest)
        if offset < 0 or offset + size > blk.size:
            raise ValueError(f"overwrite range [{offset}, {offset + size}) outside {blk.size} bytes")
        after = blk.size - offset - size
        self._insert_free_between(blk.prev, offset)
        self._insert_free_between(blk, after)
        blk.owner, blk.size = chunk, size
        self.block_of[chunk] = blk
        self._record(chunk, blk)
        return blk

    def free(self, chunk: Chunk) -> None:
        blk = self.block_of.pop(chunk)
        prev, size = blk.prev, blk.size
        self._unlink(blk)
        self._insert_free_between(prev, size)

    # -- inspection -------------------------------------------------------------------------
    def blocks(self) -> list[tuple[Chunk | None, int]]:
        """The memory queue as ``(owner or None, size)`` in address order."""
        out, b = [], self.head
        while b is not None:
            out.append((b.owner, b.size))
            b = b.next
        return out

    def free_sizes(self) -> list[int]:
        """The free queue's sizes, ascending."""
        return [b.size for b in self.free_queue]


def simulate(problem: Problem, chains: Chains) -> BestFitPrealloc[int]:
    """Replay the buffers' lifetimes on a :class:`BestFitPrealloc` (lone zero-size buffers skipped)."""
    bufs = problem.buffers
    events: dict[int, tuple[list[int], list[int]]] = {}
    for i, b in enumerate(bufs):
        if b.size == 0 and chains.parent[i] < 0 and chains.child[i] < 0:
            continue  # chain members are simulated even when empty: they pass blocks on
        events.setdefault(b.start, ([], []))[0].append(i)
        events.setdefault(b.end, ([], []))[1].append(i)
    depth = [0] * len(bufs)
    for r in chains.roots():
        for d, m in enumerate(chains.members(r)):
            depth[m] = d
    sim: BestFitPrealloc[int] = BestFitPrealloc()
    for t in sorted(events):
        allocs, frees = events[t]
        for i in frees:
            if chains.child[i] < 0:  # an overwritten chunk's block belongs to its child now
                sim.free(i)
        to_overwrite = []
        for i in allocs:
            if chains.parent[i] < 0:
                sim.alloc(i, bufs[i].size)
            else:
                to_overwrite.append(i)
        to_overwrite.sort(key=lambda i: (depth[i], i))
        for i in to_overwrite:
            sim.alloc_overwrite(chains.parent[i], chains.offset[i], i, bufs[i].size)
    return sim


def front_space_offsets(problem: Problem, chains: Chains, sim: BestFitPrealloc[int]) -> list[int]:
    """MegEngine's static planner, step 4: ``root_addr_begin`` per chain from the recorded front spaces."""
    bufs = problem.buffers
    n = len(bufs)
    below: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        p = sim.front.get(i)
        if p is not None:
            below[i].append(p)
        q = sim.back.get(i)
        if q is not None:
            below[q].append(i)
    root, rel = chains.root, chains.rel
    base: dict[int, int] = {}  # root -> root_addr_begin (of the chain's padded base)
    members = {r: chains.members(r) for r in chains.roots()}

    def deps(r: int):
        for m in members[r]:
            for j in below[m]:
                yield m, j

    state: dict[int, int] = {}  # 1 = in progress, 2 = done
    for r0 in members:
        if r0 in state:
            continue
        state[r0] = 1
        stack = [(r0, iter([root[j] for _, j in deps(r0)]))]
        while stack:
            r, it = stack[-1]
            nxt = next((d for d in it if state.get(d) != 2), None)
            if nxt is not None:
                if state.get(nxt) == 1:
                    raise AssertionError("cycle in the front-space order")
                state[nxt] = 1
                stack.append((nxt, iter([root[j] for _, j in deps(nxt)])))
                continue
            addr = 0
            for m, j in deps(r):
                end_j = base[root[j]] + rel[j] + bufs[j].size
                if end_j >= rel[m]:
                    addr = max(addr, end_j - rel[m])
            base[r] = align_up(addr, chains.align[r])
            state[r] = 2
            stack.pop()
    return [base[root[i]] + rel[i] for i in range(n)]


class MegEngine(Strategy):
    """MegEngine's static planner: best-fit simulation with growable blocks, then front-space offsets."""

    name = "megengine"

    def plan(self, problem: Problem) -> Solution:
        chains = select_chains(problem, require_meet=True)
        sim = simulate(problem, chains)
        offsets = front_space_offsets(problem, chains, sim)
        if find_conflicts(problem, offsets, limit=1):  # pragma: no cover - safety net
            folded, root_of, rel = fold_chains(problem, chains)
            key: dict[int, int] = {}
            for i, r in enumerate(root_of):
                key[r] = min(key.get(r, offsets[i] - rel[i]), offsets[i] - rel[i])
            order = sorted(range(len(folded)), key=lambda r: (key[r], r))
            fo = first_fit(folded, order)
            return Solution.of(problem, [fo[r] + rel[i] for i, r in enumerate(root_of)], "megengine(fixup)")
        return Solution.of(problem, offsets, self.name)

