"""The proof by execution of a plan, for both IR flavours: one checker, one driver.

A plan is proven by running a function unplanned (every buffer its own storage: the *reference*)
and planned (buffers where the plan puts them), on every path :mod:`.paths` enumerates, and
requiring the planned run to produce what the reference produced, in the same order, to read
only bytes that are still the reader's own, and to return the same results.

* :class:`Checker` is one run's side of that comparison: its productions (the reference's, or the
  planned run's matched against them, :class:`.proof.Productions`), the reads it checked, the
  ownership of bytes (:mod:`.ownership`), the decisions the reference took that the planned run
  replays, and the wording of what differs.
* :func:`prove` is the driver: per path, the reference run, then the planned run(s) checked
  against it and their results compared; :func:`report` sums the paths into a
  :class:`CheckReport`.

A flavour (:class:`Flavour`) plugs in only what differs: how it runs a function unplanned and
planned (the memopt dialect's interpreter, :mod:`.check`, once per DMA landing model; upstream
``memref``'s machine, :mod:`.memref_exec`), what its messages call a buffer, and the messages of
a planned run that stopped early or returned other results.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from xdsl.ir import Operation

from memopt.diagnostics import MemoptError

from .core import Core
from .ownership import Ownership
from .paths import Forced, Reference, explore
from .proof import Mismatch, Productions, first_difference, result_bytes

OTHER_PATH = " (execution took a different path)"
"""What a difference adds when the planned run produced something else at that place."""


class Checker:
    """One run of a proof (see the module docstring); ``reference``: the unplanned run's checker,
    which this (planned) run must reproduce. ``trail``: keep each producer in order, so that a
    planned run that stops early can name the first production it missed."""

    __slots__ = ("noun", "reference", "productions", "trail", "current", "reads", "owners", "choices",
                 "replay", "results")

    def __init__(self, noun: str, reference: Checker | None = None, *, trail: bool = False) -> None:
        self.noun = noun
        self.reference = reference
        self.productions: Productions = Productions(None if reference is None else reference.productions)
        self.trail: list[Hashable] | None = [] if trail else None
        self.current: dict[Hashable, Hashable] = {}
        """Per producer, the fingerprint of what it produced last (what a read of it must find)."""
        self.reads = 0
        self.owners = Ownership(noun)
        self.choices: list[bool] = []
        self.replay = iter(() if reference is None else reference.choices)
        self.results: list[bytes] = []

    def produced(self, producer: Hashable, fingerprint: Hashable) -> Mismatch | None:
        """Record a production; how it differs from the reference's at this place (None: it does
        not, or this run is the reference)."""
        if self.trail is not None:
            self.trail.append(producer)
        return self.productions.add(producer, fingerprint)

    def holds(self, producer: Hashable, fingerprint: Hashable) -> None:
        """``producer``'s value now has ``fingerprint`` (its reads are compared with it)."""
        self.current[producer] = fingerprint

    def read(self, producer: Hashable, fingerprint: Hashable) -> bool:
        """Count a read of ``producer``'s value; whether it still has the fingerprint it was produced with."""
        self.reads += 1
        return self.current.get(producer) == fingerprint

    def decide(self, unplanned: bool) -> bool:
        """A decision the reference takes (``unplanned``), replayed as it was in the planned run."""
        if self.reference is None:
            self.choices.append(unplanned)
            return unplanned
        return next(self.replay, unplanned)

    def missing(self) -> Hashable | None:
        """The first producer of the reference (kept with ``trail``) this run did not reproduce
        (None: it reproduced all)."""
        ref = self.reference
        if ref is None or self.productions.complete() or ref.trail is None:
            return None
        return ref.trail[len(self.productions)]

    def differs(self, name: str | None, at: Operation | None, detail: str = "") -> MemoptError:
        """The located error: ``name`` (a buffer; None: a value) differs between the two runs."""
        return differs(self.noun, name, at, detail)


def differs(noun: str, name: str | None, at: Operation | None, detail: str = "") -> MemoptError:
    """The located error: the ``noun`` ``name`` (None: a value) differs between planned and
    unplanned execution (``detail``: how)."""
    subject = f"{noun} '{name}'" if name is not None else "a value"
    return MemoptError(f"{subject} differs between planned and unplanned execution{detail}", at)


C = TypeVar("C", bound=Core)


class Flavour(ABC, Generic[C]):
    """What an IR flavour plugs into the proof (see the module docstring). ``noun``: what its
    messages call a buffer. ``trail``: whether the reference keeps its producers in order (to name
    the first one a planned run missed). ``landings``: the planned runs per path (DMA landing
    models; None: the one run). ``infeasible``: whether a forced path may be one the program
    cannot take (its reference fails: skipped, it proves nothing)."""

    noun = "buffer"
    trail = False
    landings: Sequence[str | None] = (None,)
    infeasible = False

    @abstractmethod
    def reference(self, forced: Forced, checker: Checker) -> tuple[C, list]:
        """Run the function unplanned on the path ``forced`` selects: the run and its results."""

    @abstractmethod
    def planned(self, forced: Forced, checker: Checker, landing: str | None) -> tuple[C, list]:
        """Run the function planned on the same path (``checker`` compares it with the reference)."""

    @abstractmethod
    def stopped(self, checker: Checker) -> MemoptError:
        """The error for a planned run that produced less than its reference."""

    @abstractmethod
    def result_differs(self, k: int) -> MemoptError:
        """The error for a planned run whose result ``k`` differs from the reference's."""


@dataclass(frozen=True)
class PathProof(Generic[C]):
    """What the proof of one path compared."""

    productions: int
    """What the reference produced."""
    reads: int
    """Reads the (last) planned run checked."""
    results: tuple[bytes, ...]
    """The reference's results."""
    mixed: bool
    """Whether some branch went both ways (a path besides those forcing enumerates)."""
    planned: C
    """The last planned run."""


def prove(flavour: Flavour[C], max_paths: int) -> list[PathProof[C]]:
    """Prove up to ``max_paths`` paths (:mod:`.paths`); raise the located error of the first
    difference. The proofs, in the order run."""
    if not flavour.landings:
        raise ValueError("a proof needs a planned run per path (no landing model given)")

    def reference(forced: Forced) -> Reference[Checker] | None:
        checker = Checker(flavour.noun, trail=flavour.trail)
        try:
            run, results = flavour.reference(forced, checker)
        except MemoptError:
            if not (forced and flavour.infeasible):
                raise
            return None
        checker.results = result_bytes(results)
        return Reference(run.reached, run.taken, checker, frozenset(run.mixed), run.ways)

    def planned(forced: Forced, ref: Reference[Checker]) -> PathProof[C]:
        expected = ref.run
        for landing in flavour.landings:
            checker = Checker(flavour.noun, expected)
            run, results = flavour.planned(forced, checker, landing)
            if not checker.productions.complete():
                raise flavour.stopped(checker)
            k = first_difference(expected.results, result_bytes(results))
            if k is not None:
                raise flavour.result_differs(k)
        return PathProof(len(expected.productions), checker.reads, tuple(expected.results), bool(ref.mixed), run)

    return explore(reference, planned, max_paths)


@dataclass(frozen=True)
class CheckReport:
    """What the proof of one function compared, summed over its paths."""

    function: str
    productions: int
    """What the reference runs produced: values (memopt dialect), buffer writes (upstream)."""
    reads: int
    outputs: int = 0
    """The function's results."""
    arena_size: int = 0
    """The planned arena's bytes (memopt dialect)."""
    arena_views: int = 0
    """Views of the arena in the function (upstream)."""
    paths: int = 1
    """Execution paths proven."""
    total_paths: int = 1
    """Execution paths of the function (memopt dialect: product over sequential ``if``s of their
    branches', and the natural one when it took an ``if`` both ways, in a loop)."""
    results: tuple[bytes, ...] = ()
    """The function's results in the reference that follows the conditions (no branch forced),
    kept so that a caller comparing them need not run the function again."""


def report(function: str, proven: list[PathProof], **more) -> CheckReport:
    """The report of ``function``'s proofs ``proven`` (``more``: the flavour's own fields)."""
    last = proven[-1] if proven else None
    return CheckReport(function, sum(p.productions for p in proven), sum(p.reads for p in proven),
                       len(last.results) if last is not None else 0, paths=len(proven),
                       results=proven[0].results if proven else (), **more)


__all__ = ["OTHER_PATH", "CheckReport", "Checker", "Flavour", "PathProof", "differs", "prove", "report"]
