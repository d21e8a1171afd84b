"""The one checker and proof driver both IR flavours are proven by (executor/checker.py), on a
fake flavour: a program of one branch whose runs produce named values."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.test import TestOp

from memopt.diagnostics import MemoptError
from memopt.executor.checker import Checker, Flavour, prove, report
from memopt.executor.core import Core, Program, Semantics, failing
from memopt.executor.proof import Mismatch

BRANCH = TestOp()


class Fake(Flavour[Core]):
    """One ``if``: the natural way produces ``a`` then ``then``, the other ``a`` then ``else``;
    ``planned_values`` overrides what a planned run produces on a way (a list of (name, bytes))."""

    def __init__(self, planned_values=None, results=(b"r",), impossible=False, landings=(None,)):
        self.planned_values = planned_values or {}
        self.results, self.impossible, self.landings = list(results), impossible, landings
        self.runs: list[tuple[str, str | None]] = []

    def _run(self, forced, checker, planned_values=None):
        core = Core(Program(ModuleOp([]), Semantics(frozenset(), lambda c, op: failing(ValueError()))),
                    branches=forced)
        first = core.branch(BRANCH, True)
        if not first and self.impossible and checker.reference is None:
            raise MemoptError("the program cannot take this path")
        values = [("a", b"1"), ("then", b"2") if first else ("else", b"3")]
        for name, data in (planned_values or {}).get(first, values):
            if checker.produced(name, data) is not None:
                raise checker.differs(name, None)
            checker.decide(name == "a")
        checker.reads += 1
        return core, self.results

    def reference(self, forced, checker):
        self.runs.append(("reference", None))
        return self._run(forced, checker)

    def planned(self, forced, checker, landing):
        self.runs.append(("planned", landing))
        return self._run(forced, checker, self.planned_values)

    def stopped(self, checker):
        return MemoptError(f"stopped before '{checker.missing()}'")

    def result_differs(self, k):
        return MemoptError(f"result #{k} differs")


def test_every_path_is_proven_and_reported():
    proven = prove(Fake(), max_paths=64)
    assert len(proven) == 2 and [p.productions for p in proven] == [2, 2]
    r = report("f", proven, arena_size=7)
    assert (r.function, r.productions, r.reads, r.outputs, r.paths, r.arena_size, r.results) == \
        ("f", 4, 2, 1, 2, 7, (b"r",))


def test_one_planned_run_per_landing_model():
    fake = Fake(landings=("start", "wait"))
    prove(fake, max_paths=1)
    assert fake.runs == [("reference", None), ("planned", "start"), ("planned", "wait")]


def test_a_planned_run_that_produces_other_bytes_is_refused():
    with pytest.raises(MemoptError, match="buffer 'then' differs between planned and unplanned execution"):
        prove(Fake({True: [("a", b"1"), ("then", b"9")]}), max_paths=64)


def test_a_planned_run_that_stops_early_names_what_it_missed():
    fake = Fake({True: [("a", b"1")]})
    fake.trail = True
    with pytest.raises(MemoptError, match="stopped before 'then'"):
        prove(fake, max_paths=64)


def test_a_planned_run_returning_other_results_is_refused():
    class Other(Fake):
        def planned(self, forced, checker, landing):
            core, _ = super().planned(forced, checker, landing)
            return core, [b"s"]

    with pytest.raises(MemoptError, match="result #0 differs"):
        prove(Other(), max_paths=64)


def test_a_forced_path_the_program_cannot_take_is_skipped_only_when_the_flavour_says_so():
    fake = Fake(impossible=True)
    with pytest.raises(MemoptError, match="cannot take"):
        prove(fake, max_paths=64)
    fake.infeasible = True
    assert len(prove(fake, max_paths=64)) == 1


def test_productions_decisions_and_what_differs():
    reference = Checker("tensor", trail=True)
    assert reference.produced("a", b"1") is None and reference.decide(True)
    planned = Checker("tensor", reference)
    assert planned.produced("b", b"1") is Mismatch.PATH
    planned = Checker("tensor", reference)
    assert planned.produced("a", b"2") is Mismatch.VALUE
    assert planned.decide(False)  # replayed as the reference took it
    assert Checker("tensor", reference).missing() == "a"
    planned.holds("a", b"2")
    assert planned.read("a", b"2") and not planned.read("a", b"1") and planned.reads == 2
    assert str(planned.differs(None, None)) == "a value differs between planned and unplanned execution"
