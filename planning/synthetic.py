"""Synthetic planning problems shaped like neural-network traces (for benchmarks and tests).

A network's schedule produces about one tensor per op; most die within a few ops, some are
skip connections living tens of ops, a few (inputs, outputs, persistent state) live throughout.
Sizes follow a log-uniform spread, as activations of different layers do.
"""

from __future__ import annotations

import numpy as np

from .problem import Buffer, Problem


def nn_like(n: int, seed: int = 0, alignment: int = 1) -> Problem:
    """``n`` buffers over about ``n`` op steps; deterministic for a given ``seed``."""
    rng = np.random.default_rng(seed)
    starts = np.arange(n, dtype=np.int64)
    kind = rng.random(n)
    lengths = np.where(
        kind < 0.80, rng.integers(1, 4, n),                 # consumed by the next few ops
        np.where(kind < 0.995, rng.integers(4, 64, n),      # skip connections
                 rng.integers(64, 1024, n)),                # long-lived state
    )
    ends = starts + lengths
    sizes = np.exp(rng.uniform(np.log(64), np.log(1 << 20), n)).astype(np.int64)
    sizes = (sizes + alignment - 1) // alignment * alignment
    return Problem.of(
        Buffer(f"t{i}", int(sizes[i]), int(starts[i]), int(ends[i]), alignment)
        for i in range(n)
    )


def dense(n: int, seed: int = 0, alignment: int = 1) -> Problem:
    """``n`` buffers with a dense live set: lifetimes of about 300 steps on average (exponential,
    some ten times longer), starts spread so that about 150 buffers are live at once, sizes
    log-uniform 64 B – 256 KiB. Why: :func:`nn_like`'s lifetimes are a few ops, so its live set
    is tiny and every placement cheap; training traces and long-skip networks hold far more at
    once, which is what a placement core must be fast on too (issue: "planner speed")."""
    rng = np.random.default_rng(seed)
    steps = max(1, 2 * n)  # n buffers x 300 steps / 2n steps = 150 live on average
    starts = np.sort(rng.integers(0, steps, n)).astype(np.int64)
    lengths = np.maximum(1, rng.exponential(300.0, n)).astype(np.int64)
    ends = starts + lengths
    sizes = np.exp(rng.uniform(np.log(64), np.log(256 * 1024), n)).astype(np.int64)
    sizes = (sizes + alignment - 1) // alignment * alignment
    return Problem.of(
        Buffer(f"t{i}", int(sizes[i]), int(starts[i]), int(ends[i]), alignment)
        for i in range(n)
    )
