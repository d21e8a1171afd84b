"""The path enumeration both checkers prove plans on (executor/paths.py)."""

from __future__ import annotations

from xdsl.dialects.test import TestOp

from memopt.executor.paths import Reference, explore


def _program(branches, cannot=lambda forced: False):
    """A fake program of independent branches, each going True unless forced; a run reaches all."""
    def reference(forced):
        if cannot(forced):
            return None
        taken = {op: forced.get(op, True) for op in branches}
        return Reference(branches, taken, tuple(taken[op] for op in branches))
    return reference


def test_every_combination_of_independent_branches_is_proven_once():
    ops = [TestOp() for _ in range(3)]
    proven = explore(_program(ops), lambda forced, ref: ref.run, max_paths=64)
    assert sorted(proven) == sorted({(a, b, c) for a in (True, False) for b in (True, False) for c in (True, False)})
    assert proven[0] == (True, True, True)  # the natural path first


def test_max_paths_and_impossible_paths():
    ops = [TestOp() for _ in range(3)]
    assert len(explore(_program(ops), lambda forced, ref: ref.run, max_paths=2)) == 2
    no_second = _program(ops, cannot=lambda forced: forced.get(ops[1]) is False)
    proven = explore(no_second, lambda forced, ref: ref.run, max_paths=64)
    assert len(proven) == 4 and all(path[1] for path in proven)


def test_a_branch_the_first_run_took_both_ways_is_forced_both_ways():
    op = TestOp()

    def reference(forced):
        if op in forced:
            return Reference([op], {op: forced[op]}, ("forced", forced[op]))
        return Reference([op], {op: True}, ("natural",), frozenset({op}))  # in a loop: both ways

    proven = explore(reference, lambda forced, ref: ref.run, max_paths=64)
    assert proven == [("natural",), ("forced", True), ("forced", False)]
