"""Control flow in the planning core: the branch tree, the LUNA paper's Algorithm 2, joint packing.

A problem with control flow is numbered *jointly*: the branches of every ``if`` are overlaid on
the same steps, and each buffer's ``path`` says which branch (of which ``if``, nested) holds it
(:func:`memopt.planning.problem.exclusive`). The ``if`` ops themselves are described by
:class:`IfSpan`: the ``if``'s id, the path of the block it sits in, and the steps its branches
run over (after its begin step, where it reads its condition, and before its end step, where
its results are complete). Every buffer of a branch lives inside that span.

Two ways to plan such a problem:

* :func:`merge_plan` — Algorithm 2 exactly: from the innermost ``if`` outward, plan each branch
  on its own with the chosen strategy, reserve one *region* of ``max(branch peaks)`` that lives
  for the whole ``if`` span, plan that region as a single buffer together with the tensors of
  the parent block (only tensors at the same nesting depth are planned together), and place the
  branch tensors inside it at their branch-local offsets. The region sits beside an ``if``
  result for as long as both exist, so the result cannot take branch tensors' bytes.
* :func:`plan_joint` — plan every buffer at once; the strategies honour branch exclusivity
  (:func:`memopt.planning.firstfit.first_fit`), so branch tensors may use any hole left by the
  parent's tensors instead of one contiguous region, and an ``if`` result may reuse the bytes of
  branch tensors that die before its earliest write in *either* branch. :func:`plan_joint` also
  takes the merge layout (always valid for the joint problem, see :func:`merge_plan`) and
  caller-supplied candidate layouts planned in other sound numberings (the serial plan), each
  checked against its own problem, and keeps the lowest, naming the mode it came from.
  ``joint <= merge`` and ``joint <= serial`` therefore hold by construction, not by luck.

Algorithm 2 alone does not guarantee ``merge <= flat``: the contiguous region lives for the
whole ``if``, so an outer value that dies early in a branch, or an ``if`` result that starts
late, must sit beside all of it, where flat (same steps, no exclusivity) lets them share bytes
with branch tensors at other times; on silero-vad the region costs 2 KB more than flat. Flat's
layout is valid for the jointly numbered problem (its conflicts contain the joint ones), so the
``merge`` mode (:func:`plan_merge`) keeps it when Algorithm 2 comes out higher and says so
(strategy ``<s>/flat``): ``joint <= merge <= flat`` and ``joint <= serial`` then hold by
construction, and :func:`merge` stays Algorithm 2 exactly for whoever wants the LUNA paper's
layout (``bench/control_flow.py`` prints both).

When every layout :func:`plan_joint` weighs misses the bound (``LB_inplace``, which is
``LB_nest`` without in-place pairs), a short deterministic polish (a hill climb over the
first-fit order, or a short branch and bound where the numbering has no branches) improves
the lowest one, once (:func:`memopt.planning.strategies.polished`, the same polish ``best``
applies to its own plans):
deep nestings such as silero-vad's 25 ``if`` ops leave long-lived outer tensors above the
branch tensors that large-first places first, and moving a few of them earlier closes the gap.

The solutions' ``strategy`` reads ``"<strategy>/<mode>"``, with the mode whose layout was kept
(``joint``, ``merge``, or a candidate's name).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence, TypeVar

from .problem import Buffer, Overwrite, Path, PlanningError, Problem, Solution
from .strategies import Best, OrderedFirstFit, Strategy, polished
from .validate import find_conflicts

T = TypeVar("T")


Node = tuple[int, int] | None
"""A block of the branch tree: its path's last step ``(if_id, k)`` (an ``if`` id is unique, so the
step names the branch), ``None`` for the top level. A node is hashed in O(1), where its path costs
its depth."""


def node_of(path: Path) -> Node:
    return path[-1] if path else None


@dataclass(frozen=True, slots=True)
class IfSpan:
    """One ``if`` of a jointly numbered problem.

    ``path`` is the branch path of the block holding the ``if``; its branch ``k`` holds the
    buffers whose path starts with ``path + ((if_id, k),)``. The branches run over the
    half-open ``[start, end)``, which contains every buffer of its branches: this is the span
    Algorithm 2's region lives over ("for the duration of the control-flow op"). It excludes
    the ``if``'s own begin and end steps, where no branch tensor exists, so a tensor that dies
    as the ``if`` reads it (its condition) does not collide with the region.
    """

    if_id: int
    path: Path
    start: int
    end: int
    branches: int = 2

    def branch(self, k: int) -> Node:
        """The node of the ``if``'s branch ``k``."""
        return (self.if_id, k)


@dataclass(frozen=True)
class BranchTree:
    """The nesting of a problem's buffers, by :data:`Node`."""

    own: dict[Node, tuple[int, ...]]
    """Buffer indices whose path ends at the node (the tensors *at that depth*)."""
    ifs: dict[Node, tuple[IfSpan, ...]]
    """The ``if`` ops directly inside each node, in start order."""
    parent: dict[Node, Node]
    """The node holding each branch's ``if`` (every node but the top level)."""

    def depth(self) -> int:
        """Deepest nesting of ``if`` ops (0 without control flow)."""
        return max((len(s.path) + 1 for spans in self.ifs.values() for s in spans), default=0)


def _if_id(node: Node) -> int:
    """The ``if`` a branch node belongs to (never asked of the top level)."""
    assert node is not None
    return node[0]


def _memoised_down(node: Node, known: dict[Node, T], parent: dict[Node, Node],
                   step: Callable[[T, Node], T]) -> T:
    """``known[node]`` where a node's value is ``step(value of its parent, node)`` and ``known``
    holds the top's: each node's value is computed once, so asking for every node costs the
    tree's size, not its depth per node."""
    todo = []
    while node not in known:
        todo.append(node)
        node = parent[node]
    for n in reversed(todo):
        known[n] = step(known[node], n)
        node = n
    return known[node]


def _ends_at_its_if(path: Path, by_id: dict[int, IfSpan]) -> bool:
    """Whether ``path``'s last step ``(if_id, k)`` names an ``if`` with a branch ``k`` whose own
    path is the steps before it. Holding for every span's path and a buffer's path, it holds for
    every prefix too (each prefix ends at a span's path, strictly shorter), so no path is walked
    step by step: a shared prefix compares by identity."""
    if not path:
        return True
    if_id, k = path[-1]
    s = by_id.get(if_id)
    return s is not None and 0 <= k < s.branches and len(path) == len(s.path) + 1 and path[:-1] == s.path


class _Inside:
    """Checks that a buffer lives inside the span of every ``if`` on its path, against the
    intersection of those spans: computed once per node, not once per buffer and depth."""

    def __init__(self, by_id: dict[int, IfSpan], parent: dict[Node, Node]):
        self.by_id, self.parent = by_id, parent
        self.windows: dict[Node, tuple[int, int]] = {None: (-(1 << 62), 1 << 62)}

    def _narrowed(self, window: tuple[int, int], n: Node) -> tuple[int, int]:
        s = self.by_id[_if_id(n)]
        return max(window[0], s.start), min(window[1], s.end)

    def check(self, b: Buffer) -> None:
        lo, hi = _memoised_down(node_of(b.path), self.windows, self.parent, self._narrowed)
        if lo <= b.start and b.end <= hi:
            return
        s = next(self.by_id[i] for i, _ in b.path if b.start < self.by_id[i].start or b.end > self.by_id[i].end)
        raise PlanningError(f"buffer '{b.id}' [{b.start}, {b.end}) lives outside its if's span [{s.start}, {s.end})")


def branch_tree(problem: Problem, spans: Iterable[IfSpan]) -> BranchTree:
    """Group buffers by path and ``if`` spans by parent; reject inconsistent inputs.

    Raises :class:`PlanningError` when a buffer names an ``if`` without a span, a branch index
    the span does not have, or lives outside its ``if``'s span.
    """
    by_id: dict[int, IfSpan] = {}
    ifs: dict[Node, list[IfSpan]] = defaultdict(list)
    for s in spans:
        if s.if_id in by_id:
            raise PlanningError(f"duplicate span for if {s.if_id}")
        if s.end <= s.start or s.branches < 1:
            raise PlanningError(f"if {s.if_id}: empty span [{s.start}, {s.end})")
        by_id[s.if_id] = s
        ifs[node_of(s.path)].append(s)
    for s in by_id.values():
        if not _ends_at_its_if(s.path, by_id):
            raise PlanningError(f"if {s.if_id}: path {s.path} names an unknown branch")
    parent: dict[Node, Node] = {(s.if_id, k): node_of(s.path) for s in by_id.values() for k in range(s.branches)}
    own: dict[Node, list[int]] = defaultdict(list)
    inside = _Inside(by_id, parent)
    for i, b in enumerate(problem.buffers):
        if not _ends_at_its_if(b.path, by_id):
            raise PlanningError(f"buffer '{b.id}': path {b.path} names an unknown branch")
        inside.check(b)
        own[node_of(b.path)].append(i)
    return BranchTree(
        {p: tuple(v) for p, v in own.items()},
        {p: tuple(sorted(v, key=lambda s: (s.start, s.if_id))) for p, v in ifs.items()},
        parent,
    )


PlanLevel = Callable[[Problem], Solution]


def merge_plan(problem: Problem, spans: Iterable[IfSpan], plan_level: PlanLevel,
               tree: BranchTree | None = None) -> Solution:
    """The LUNA paper's Algorithm 2 with ``plan_level`` planning every nesting level (see module doc).

    The result is valid for the jointly numbered ``problem``: two tensors of one level are
    separated by that level's plan; a branch tensor lies inside its ``if``'s region, in address
    and in time, and the level's plan keeps that region clear of everything live beside it;
    tensors of different branches of one ``if`` are exclusive. Each region is aligned to the
    largest alignment it contains, so branch-local aligned offsets stay aligned.
    """
    if tree is None:
        tree = branch_tree(problem, spans)
    names = {b.id for b in problem.buffers}
    top_name = ""
    overwrites_at: dict[Node, list[Overwrite]] = defaultdict(list)  # those between buffers of one node
    for w in problem.overwrites:
        if problem.buffers[w.child].path == problem.buffers[w.parent].path:
            overwrites_at[node_of(problem.buffers[w.child].path)].append(w)
    relative: dict[int, int] = {}  # buffer -> its offset within its node
    region_at: dict[int, int] = {}  # if id -> its region's offset within the node holding the if

    def region_id(if_id: int) -> str:
        rid = f"if#{if_id}"
        while rid in names:
            rid += "'"
        return rid

    def plan_node(node: Node) -> tuple[int, int]:
        """(height, alignment) of the node's subtree; records the offsets within the node."""
        nonlocal top_name
        own = tree.own.get(node, ())
        regions = []
        for s in tree.ifs.get(node, ()):
            height, align = 0, 1
            for k in range(s.branches):
                h, a = plan_node(s.branch(k))
                height, align = max(height, h), max(align, a)
            regions.append((s, height, align))
        if not own and not regions:
            return 0, 1
        local = {g: j for j, g in enumerate(own)}
        # One level's buffers share one path, so none is exclusive of another: planned on the
        # top path, where that holds too and a path's depth costs nothing per buffer.
        buffers = [replace(problem.buffers[g], path=()) for g in own] + [
            Buffer(region_id(s.if_id), h, s.start, s.end, a) for s, h, a in regions
        ]
        overwrites = [Overwrite(local[w.child], local[w.parent], w.offset) for w in overwrites_at.get(node, ())]
        sol = plan_level(Problem.of(buffers, overwrites))
        if node is None:
            top_name = sol.strategy
        for j, g in enumerate(own):
            relative[g] = sol.offsets[j]
        for r, (s, _, _) in enumerate(regions):
            region_at[s.if_id] = sol.offsets[len(own) + r]
        return sol.height, max(b.alignment for b in buffers)

    plan_node(None)
    base: dict[Node, int] = {None: 0}  # a node's offset in the arena: its ancestors' regions summed

    def node_base(node: Node) -> int:
        return _memoised_down(node, base, tree.parent, lambda b, n: b + region_at[_if_id(n)])

    offsets = [relative[i] + node_base(node_of(b.path)) for i, b in enumerate(problem.buffers)]
    return Solution.of(problem, offsets, top_name)


def merge(problem: Problem, spans: Sequence[IfSpan], strategy: Strategy) -> Solution:
    """Algorithm 2 with one strategy at every level; ``best`` runs it once per portfolio member.

    Running the whole merge per member (rather than picking the best member per level) keeps
    the reported strategy meaningful and lets a member that is worse on one branch but better
    overall win. Ties go to the earlier member, as in ``best``.
    """
    members = strategy.members() if isinstance(strategy, Best) else [strategy]
    chosen: Solution | None = None
    tree = branch_tree(problem, spans)
    for member in members:
        sol = merge_plan(problem, spans, member.plan, tree)
        if chosen is None or sol.height < chosen.height:
            chosen = Solution(sol.offsets, sol.height, member.name)
    assert chosen is not None
    return with_mode(chosen, "merge")


def plan_merge(problem: Problem, spans: Sequence[IfSpan], strategy: Strategy) -> Solution:
    """The ``merge`` mode: Algorithm 2 (:func:`merge`), or flat's layout when that is lower.

    Flat's layout (paths dropped, same steps) is valid here: its conflicts contain the joint
    problem's. Ties keep Algorithm 2's layout.
    """
    alg2 = merge(problem, spans, strategy)
    flat = strategy.plan(flat_problem(problem))
    if flat.height < alg2.height:
        return with_mode(Solution.of(problem, flat.offsets, flat.strategy), "flat")
    return alg2


def with_mode(solution: Solution, mode: str) -> Solution:
    """The same layout as control-flow mode ``mode``'s: its own field, and ``"/<mode>"``
    appended to its strategy name (for the reader)."""
    return Solution(solution.offsets, solution.height, f"{solution.strategy}/{mode}", mode)


class OuterFirst(OrderedFirstFit):
    """A greedy member's order with shallower nesting first: the order of Algorithm 2's levels
    without its contiguous regions.

    A tensor outside an ``if`` conflicts with everything live beside it in *both* branches,
    while branch tensors of different branches may overlay each other; placed in plain size or
    time order, a branch tensor can take the only offset that is free on both paths, and the
    outer tensor (an ``if`` result, say) then goes on top. Placing each nesting level before
    the levels inside it avoids that trap; the branches then fill the holes around the outer
    tensors, sharing them across branches.
    """

    def __init__(self, member: OrderedFirstFit) -> None:
        self.member = member
        self.name = f"{member.name}(outer first)"  # type: ignore[misc]

    def key(self, problem: Problem, i: int) -> tuple[object, ...]:  # type: ignore[override]
        return (len(problem.buffers[i].path), self.member.key(problem, i))


def plan_joint(
    problem: Problem,
    spans: Sequence[IfSpan],
    strategy: Strategy,
    candidates: Sequence[tuple[str, Problem, Solution]] = (),
) -> Solution:
    """Plan all tensors together with branch-exclusive interference; never worse than merge.

    The direct plan is ``strategy``'s; each greedy member (``strategy`` itself, or the members
    of ``best``) also runs in :class:`OuterFirst` order, and :func:`plan_merge`'s layout (merge
    or flat) competes too. The lowest of these is polished once
    (:func:`memopt.planning.strategies.polished`, when above the bound); then a candidate lower
    still is taken, and polished in its own numbering. The strategy reads
    ``"<s>+climb/<mode>"`` (or ``+exact``) when a polish gained. Why these members run
    :func:`unpolished`: a polishing ``best`` would polish the direct plan, merge's flat plan and
    every candidate each, and all but one of those polishes were thrown away — most of the
    planning time on small branchy programs (``bench/control_flow.py --joint-time 40``: 3.0-3.1
    times faster on two sets of 40 generated programs, every arena the same).

    ``candidates`` are ``(mode, candidate_problem, solution)``: layouts of the same buffers
    (same order) planned in another *sound* numbering (e.g. serial). Each numbering is a sound
    abstraction of the program on its own, but none contains another's conflicts (see
    :mod:`memopt.passes.lifetime`), so a candidate is checked against its own problem, not
    against ``problem``, and the result names its mode: whoever re-checks the layout must use
    that numbering (``verify-plan`` does). Invalid or mis-sized candidates are ignored. Ties
    prefer the direct joint plan, then the outer-first orders, then merge, then the candidates
    in order (deterministic).
    """
    raw = unpolished(strategy)
    best = with_mode(raw.plan(problem), "joint")
    members = raw.members() if isinstance(raw, Best) else [raw]
    options = [
        with_mode(OuterFirst(m).plan(problem), "joint") for m in members if isinstance(m, OrderedFirstFit)
    ]
    options.append(plan_merge(problem, spans, raw))
    for sol in options:
        if sol.height < best.height:
            best = sol
    polish = not (isinstance(strategy, Best) and not strategy.polish)  # best(polish=False) never does
    if polish:
        best = _polish(problem, best)
    for mode, candidate, sol in candidates:
        if (
            len(candidate) == len(problem) == len(sol.offsets)
            and not find_conflicts(candidate, sol.offsets, limit=1)
            and sol.height < best.height
        ):
            best = with_mode(Solution.of(candidate, sol.offsets, sol.strategy), mode)
            if polish:
                best = _polish(candidate, best)
    return best


def _polish(problem: Problem, solution: Solution) -> Solution:
    """:func:`polished` on a control-flow mode's plan, keeping its mode."""
    base = solution.strategy.removesuffix(f"/{solution.mode}")
    again = polished(problem, Solution(solution.offsets, solution.height, base))
    return with_mode(again, solution.mode) if again.height < solution.height else solution


def unpolished(strategy: Strategy) -> Strategy:
    """``strategy`` without ``best``'s polish: what the control-flow planners run on each
    candidate layout before polishing the one they keep."""
    if isinstance(strategy, Best) and strategy.polish:
        return Best(strategy.budget, strategy.options, polish=False)
    return strategy


def flat_problem(problem: Problem) -> Problem:
    """The same buffers with their paths dropped: branches as if they could run together."""
    return Problem.of(
        [Buffer(b.id, b.size, b.start, b.end, b.alignment) for b in problem.buffers],
        problem.overwrites,
    )


__all__ = [
    "BranchTree", "IfSpan", "Node", "OuterFirst", "branch_tree", "flat_problem", "merge", "merge_plan", "node_of", "plan_joint",
    "plan_merge", "unpolished", "with_mode",
]
