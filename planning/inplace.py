"""In-place (overwrite) support shared by every strategy: chains, folding and expansion.

An :class:`~memopt.planning.problem.Overwrite` lets a child buffer be written over part of its
parent (MegEngine's *write dependency*). Overwrites link buffers into **chains**
``root -> child -> grandchild ...``; every member of a chain sits at a fixed offset relative to
the root (MegEngine's ``offset_root``), so a chain can be planned as one buffer and expanded back.

Chain selection rules (:func:`select_chains`), applied to ``problem.overwrites`` in order:

* a parent is overwritten by at most one child and a child overwrites at most one parent: when
  several overwrites name the same parent (or child), the first wins and the rest are ignored;
* an overwrite that would close a cycle is ignored;
* an overwrite is cut (ignored) when the child, placed at its permitted place, would overlap a
  chain member other than its parent that is live at the same time (possible only when several
  members are created in one step), or when the members' alignments cannot all be met by one
  placement of the chain.

Ignoring an overwrite is always safe: an overwrite is a permission, not an obligation.

Folding (:func:`fold_overwrites`) turns each chain into one buffer living over the union of its
members' lifetimes, as large as the chain's extent and aligned to the lcm of the members'
alignments; any strategy can plan the folded problem, and :func:`expand` gives every member
``root_offset + rel_offset``. :func:`plan_with_inplace` does both around a strategy.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd
from typing import Protocol, Sequence

from .problem import Buffer, Path, Problem, Solution, exclusive


class Plans(Protocol):
    """What plans a problem (a :class:`~memopt.planning.strategy.Strategy`, which imports this module)."""

    def plan(self, problem: Problem) -> Solution: ...


@dataclass(frozen=True)
class Chains:
    """The overwrite chains chosen for a problem (see the module docstring for the rules).

    ``parent[i]``/``child[i]`` are chain neighbours (``-1`` for none); ``root[i]`` is the chain's
    first member (``i`` itself for buffers outside any chain); ``rel[i]`` is the member's offset
    from the chain's base address, padding included, so that placing the chain at any multiple
    of ``align[root]`` satisfies every member's alignment; ``extent[root]`` is the chain's size
    (``max(rel + size)``); ``offset[i]`` is the overwrite offset inside the parent.
    """

    parent: list[int]
    child: list[int]
    offset: list[int]
    root: list[int]
    rel: list[int]
    align: list[int]
    extent: list[int]

    def members(self, r: int) -> list[int]:
        """The chain rooted at ``r``, root first."""
        out = [r]
        while self.child[out[-1]] >= 0:
            out.append(self.child[out[-1]])
        return out

    def roots(self) -> list[int]:
        return [i for i, r in enumerate(self.root) if r == i]


def _lcm(a: int, b: int) -> int:
    return a // gcd(a, b) * b


def _crt(r1: int, m1: int, r2: int, m2: int) -> tuple[int, int] | None:
    """Solve ``x ≡ r1 (mod m1)`` and ``x ≡ r2 (mod m2)``; ``(r, lcm)`` or None if inconsistent."""
    g = gcd(m1, m2)
    if (r2 - r1) % g:
        return None
    lcm = m1 // g * m2
    if m1 == lcm:
        return r1 % lcm, lcm
    # x = r1 + m1 * k with m1 * k ≡ r2 - r1 (mod m2)
    k = ((r2 - r1) // g * pow(m1 // g, -1, m2 // g)) % (m2 // g)
    return (r1 + m1 * k) % lcm, lcm


def select_chains(
    problem: Problem,
    *,
    require_meet: bool = False,
    offset_zero: bool = False,
) -> Chains:
    """Choose the overwrite chains of ``problem``.

    ``require_meet`` keeps only overwrites whose parent is live when the child starts and dies
    right after that step (``parent.start <= child.start`` and ``parent.end == child.start + 1``),
    the shape a simulating allocator can honour. ``offset_zero`` keeps only overwrites at offset 0
    (whole-storage reuse, as NNVM's in-place).
    """
    bufs = problem.buffers
    n = len(bufs)
    parent = [-1] * n
    child = [-1] * n
    offset = [0] * n
    dsu = list(range(n))

    def find(x: int) -> int:
        while dsu[x] != x:
            dsu[x] = dsu[dsu[x]]
            x = dsu[x]
        return x

    for w in problem.overwrites:
        c, p = w.child, w.parent
        if child[p] >= 0 or parent[c] >= 0:
            continue
        if offset_zero and w.offset != 0:
            continue
        if require_meet and not (bufs[p].start <= bufs[c].start and bufs[p].end == bufs[c].start + 1):
            continue
        rc, rp = find(c), find(p)
        if rc == rp:  # c heads the path that p ends: linking would close a cycle
            continue
        parent[c], child[p], offset[c] = p, c, w.offset
        dsu[rc] = rp

    root = list(range(n))
    rel = [0] * n
    align = [b.alignment for b in bufs]
    extent = [b.size for b in bufs]
    heads = [r for r in range(n) if parent[r] < 0]
    while heads:
        head = heads.pop()
        # Walk the path from its head, cutting it where a member cannot join; the cut-off
        # remainder becomes a chain of its own (pushed back on the work list).
        residue, modulus = 0, bufs[head].alignment  # pad ≡ residue (mod modulus)
        raw = {head: 0}
        members = [head]
        max_end_others = -(1 << 62)  # max end over the members before the current parent
        i = head
        while child[i] >= 0:
            c = child[i]
            rc = raw[i] + offset[c]
            b = bufs[c]
            ok = True
            if max_end_others > b.start:
                for m in members[:-1]:
                    bm = bufs[m]
                    if (bm.size and b.size and bm.start < b.end and b.start < bm.end
                            and raw[m] < rc + b.size and rc < raw[m] + bm.size
                            and not exclusive(bm.path, b.path)):
                        ok = False
                        break
            joined = _crt(residue, modulus, -rc, b.alignment) if ok else None
            if joined is None:
                child[i] = -1
                parent[c] = -1
                heads.append(c)
                break
            residue, modulus = joined
            max_end_others = max(max_end_others, bufs[i].end)
            raw[c] = rc
            members.append(c)
            i = c
        pad = residue % modulus
        ext = 0
        for m in members:
            root[m] = head
            rel[m] = pad + raw[m]
            ext = max(ext, rel[m] + bufs[m].size)
        align[head] = modulus
        extent[head] = ext
    return Chains(parent, child, offset, root, rel, align, extent)


def _common_prefix(paths: Sequence[Path]) -> Path:
    first = paths[0]
    k = len(first)
    for p in paths[1:]:
        k = min(k, len(p))
        for j in range(k):
            if p[j] != first[j]:
                k = j
                break
    return first[:k]


def fold_chains(problem: Problem, chains: Chains) -> tuple[Problem, list[int], list[int]]:
    """Fold the given chains; see :func:`fold_overwrites`."""
    bufs = problem.buffers
    roots = chains.roots()
    index = {r: k for k, r in enumerate(roots)}
    folded: list[Buffer] = []
    for r in roots:
        if chains.child[r] < 0:
            folded.append(bufs[r])
            continue
        members = chains.members(r)
        folded.append(Buffer(
            bufs[r].id,
            chains.extent[r],
            min(bufs[m].start for m in members),
            max(bufs[m].end for m in members),
            chains.align[r],
            _common_prefix([bufs[m].path for m in members]),
        ))
    root_of = [index[chains.root[i]] for i in range(len(bufs))]
    return Problem.of(folded), root_of, list(chains.rel)


def fold_overwrites(problem: Problem) -> tuple[Problem, list[int], list[int]]:
    """Merge every overwrite chain into one buffer.

    Returns ``(folded, root_of, rel_offset)``: ``folded`` has no overwrites; buffer ``i`` of
    ``problem`` lives inside ``folded.buffers[root_of[i]]`` at ``rel_offset[i]``. A folded chain
    lives over the union of its members' lifetimes (their hull), has size
    ``max(rel_offset + size)`` and the lcm of the members' alignments; its path is the members'
    common path prefix (conservative). Buffers outside any chain are kept as they are
    (``rel_offset`` 0). Any valid plan of ``folded`` expands (:func:`expand`) to a valid plan of
    ``problem`` with the same height.
    """
    return fold_chains(problem, select_chains(problem))


def expand(folded_offsets: Sequence[int], root_of: Sequence[int], rel_offset: Sequence[int]) -> list[int]:
    """Offsets of the original buffers from offsets of the folded ones."""
    return [int(folded_offsets[r]) + rel for r, rel in zip(root_of, rel_offset)]


def plan_with_inplace(strategy: Plans, problem: Problem, compare_plain: bool = True) -> Solution:
    """Plan ``problem`` with ``strategy`` honouring its overwrites by folding them.

    Folding reserves a chain's whole extent over the chain's whole lifetime, which loses when a
    small child outlives a large parent; with ``compare_plain`` the problem is also planned with
    its overwrites ignored (always valid: they are permissions) and the lower plan is kept
    (the folded one on ties). Without overwrites this is just ``strategy.plan(problem)``.
    """
    if not problem.overwrites:
        return strategy.plan(problem)
    folded, root_of, rel = fold_overwrites(problem)
    sol = strategy.plan(folded)
    best = Solution.of(problem, expand(sol.offsets, root_of, rel), sol.strategy)
    if compare_plain:
        plain = strategy.plan(Problem.of(problem.buffers))
        if plain.height < best.height:
            best = Solution.of(problem, plain.offsets, plain.strategy)
    return best
