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


def packed(seed: int, capacity: int = 1 << 20, horizon: int = 1 << 20, unit: int = 1024) -> tuple[Problem, list[int]]:
    """A held-out instance with the statistics of minimalloc's challenging suite, built from a
    known packing: the time × memory rectangle ``horizon × capacity`` is cut recursively (a
    guillotine partition, cuts on ``unit`` boundaries) into pieces, each a buffer at its piece's
    offset; then a share of the pieces (0–35 %) is dropped, leaving 150–460 buffers on average,
    so the area used spans what the suite shows (57–98 %) while a packing of height ``capacity``
    is known to exist. Returns the problem and that packing's offsets. Per seed it draws its own
    family parameters — how often a cut splits time rather than memory (35–60 %), how uneven cuts
    are, the drop rate — as the suite's instances differ from each other
    (``bench/search.py --generated``). Calibrated on the suite's eleven published instances
    (A–K: 154–454 buffers, median buffer 1.7–8.4 % of the capacity and 2–23 % of the horizon,
    large-first 23–41 % over): time-cut shares above 60 % gave median buffers of 10–27 % of the
    capacity, which the suite never shows."""
    rng = np.random.default_rng(seed)
    target = int(rng.integers(150, 461))
    p_time = float(rng.uniform(0.35, 0.6))
    skew = float(rng.uniform(0.5, 3.0))  # beta(skew, skew): small = uneven cuts
    drop = float(rng.uniform(0.0, 0.35))
    rects = [(0, horizon // unit, 0, capacity // unit)]
    while len(rects) < int(target / (1 - drop)):
        areas = np.array([(t1 - t0) * (m1 - m0) for t0, t1, m0, m1 in rects], dtype=np.float64)
        k = int(rng.choice(len(rects), p=areas / areas.sum()))
        t0, t1, m0, m1 = rects[k]
        along_time = rng.random() < p_time
        lo, hi = (t0, t1) if along_time else (m0, m1)
        if hi - lo < 2:
            along_time = not along_time
            lo, hi = (t0, t1) if along_time else (m0, m1)
            if hi - lo < 2:
                continue
        cut = lo + 1 + int(rng.beta(skew, skew) * (hi - lo - 1))
        cut = min(max(cut, lo + 1), hi - 1)
        rects.pop(k)
        if along_time:
            rects += [(t0, cut, m0, m1), (cut, t1, m0, m1)]
        else:
            rects += [(t0, t1, m0, cut), (t0, t1, cut, m1)]
    keep = [r for r in rects if rng.random() >= drop]
    buffers = [Buffer(f"{k}", (m1 - m0) * unit, t0 * unit, t1 * unit) for k, (t0, t1, m0, m1) in enumerate(keep)]
    return Problem.of(buffers), [m0 * unit for _, _, m0, _ in keep]


def training(n: int, seed: int = 0, alignment: int = 1) -> Problem:
    """``n`` buffers of one training step: a forward pass whose saved activations live until
    their layer's backward step (nested, long lifetimes: a third of the buffers are live at the
    peak), short-lived temporaries in both passes, and gradients that live from their backward
    step to the optimizer at the end. Why: the traces real training compilers emit (MindSpore's
    SOMAS dumps of BERT and PanGu, IOPDDL's instances) hold thousands of buffers at once, which
    neither :func:`nn_like` nor :func:`dense` shows, and the placement core and ``best`` must stay
    fast and near the bound there too."""
    rng = np.random.default_rng(seed)
    layers = max(1, n // 6)
    width = np.exp(rng.uniform(np.log(4 << 10), np.log(4 << 20), layers))  # bytes per layer
    kind = rng.random(n)
    layer = rng.integers(0, layers, n)
    last = 2 * layers  # the optimizer step
    fwd = layer.astype(np.int64)
    bwd = (2 * layers - 1 - layer).astype(np.int64)
    scale = np.exp(rng.uniform(np.log(0.05), np.log(1.0), n))
    sizes = np.maximum(64, (width[layer] * scale)).astype(np.int64)
    saved = kind < 0.35
    grads = kind >= 0.85
    temp_fwd = (kind >= 0.35) & (kind < 0.60)
    starts = np.where(saved | temp_fwd, fwd, bwd)
    ends = np.where(saved, bwd + 1,
                    np.where(grads, last + 1, starts + rng.integers(1, 4, n)))
    # Gradients are mostly small (weights-sized), a few large.
    sizes = np.where(grads, np.maximum(64, sizes // 8), sizes)
    sizes = (sizes + alignment - 1) // alignment * alignment
    return Problem.of(
        Buffer(f"t{i}", int(sizes[i]), int(starts[i]), int(ends[i]), alignment)
        for i in range(n)
    )
