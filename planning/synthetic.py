"""Synthetic planning problems shaped like neural-network traces (for benchmarks and tests).

A network's schedule produces about one tensor per op; most die within a few ops, some are
skip connections living tens of ops, a few (inputs, outputs, persistent state) live throughout.
Sizes follow a log-uniform spread, as activations of different layers do.
"""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Family:
    """How a guillotine instance is cut: the parameters one family of packed instances shares.

    ``time_cut`` is the chance that a cut splits time rather than memory; with ``aspect`` > 0 that
    chance leans towards the piece's longer side (normalised units) by ``aspect`` × log(aspect
    ratio) in logit space, which makes near-uniform tiles (< 0: towards the shorter side, which
    makes slivers). ``skew`` shapes where a cut falls
    (beta(skew, skew): small = uneven, large = near the middle). ``drop`` is the chance a piece is
    dropped, as knots (time as a share of the horizon, chance) interpolated linearly over the
    piece's mid time: flat for uniformly slack instances, a ramp for ones whose live set grows
    over the program. ``greed`` is the power on a piece's area in the chance that it is the next
    one cut: 1 picks in proportion to area; larger values cut the largest pieces first, which
    leaves pieces of more even area — and, since even areas force a long piece to be thin and a
    tall one to be short, sizes and lifetimes that fall as the other rises, as in minimalloc's
    challenging suite (log area spread 0.1–0.45 decades there, correlation of log size with log
    lifetime -0.5 to -0.86; with ``greed`` 1, 0.3–0.7 and about -0.2).

    ``tall`` = (height, share, width) lays a spine before any cut: a band of ``height`` (a share
    of the capacity) over the whole horizon is split in time into ``share`` × buffers short
    pieces of that same height, each about ``width`` of the horizon long, with the gaps between
    them left to the cuts; the band beneath stays one long piece for the cuts. Why: six of the
    suite's eleven instances have buffers of half the capacity or more (up to 9 % of their
    buffers), short-lived (median 0.3–1.6 % of the horizon where the median buffer lives
    2–15 %), and in four the tallest size recurs (A five buffers at 62.6 %, K nineteen at
    81.8 %); cuts alone make at most one or two such pieces. Spine pieces are never dropped.
    (0, 0, 0) lays none."""

    time_cut: float
    aspect: float
    skew: float
    drop: tuple[tuple[float, float], ...]
    greed: float = 1.0
    tall: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def drop_at(self, t: float) -> float:
        xs, ys = zip(*self.drop)
        return float(np.interp(t, xs, ys))

    def mean_drop(self) -> float:
        """Mean drop chance over the horizon (trapezoids over the knots)."""
        (x0, y0), total = self.drop[0], 0.0
        for x1, y1 in self.drop[1:]:
            total += (x1 - x0) * (y0 + y1) / 2
            x0, y0 = x1, y1
        return total if len(self.drop) > 1 else y0

    def cut_in_time(self, rng: np.random.Generator, duration: int, extent: int) -> bool:
        if self.aspect == 0:
            return rng.random() < self.time_cut
        logit = np.log(self.time_cut / (1 - self.time_cut)) + self.aspect * np.log(duration / extent)
        return rng.random() < 1 / (1 + np.exp(-logit))


def guillotine(rng: np.random.Generator, buffers: int, family: Family, capacity: int = 1 << 20,
               horizon: int = 1 << 20, unit: int = 1024) -> tuple[Problem, list[int]]:
    """About ``buffers`` buffers cut from a known packing: the time × memory rectangle
    ``horizon × capacity`` is cut recursively (a guillotine partition, cuts on ``unit``
    boundaries, the piece to cut chosen by area, see ``Family.greed``) into pieces, each a
    buffer at its piece's offset;
    then pieces are dropped as ``family.drop`` says. Returns the problem and the offsets of that
    packing, whose height is ``capacity``: a fit is known to exist."""
    rects, spine = _spine(rng, buffers, family, horizon // unit, capacity // unit)
    while len(rects) + len(spine) < int(buffers / (1 - family.mean_drop())):
        areas = np.array([(t1 - t0) * (m1 - m0) for t0, t1, m0, m1 in rects], dtype=np.float64)
        if family.greed != 1.0:  # greed 1 keeps the exact floats, so packed(seed) stays the same instance
            areas = (areas / areas.max()) ** family.greed
        k = int(rng.choice(len(rects), p=areas / areas.sum()))
        t0, t1, m0, m1 = rects[k]
        along_time = family.cut_in_time(rng, t1 - t0, m1 - m0)
        lo, hi = (t0, t1) if along_time else (m0, m1)
        if hi - lo < 2:
            along_time = not along_time
            lo, hi = (t0, t1) if along_time else (m0, m1)
            if hi - lo < 2:
                continue
        cut = lo + 1 + int(rng.beta(family.skew, family.skew) * (hi - lo - 1))
        cut = min(max(cut, lo + 1), hi - 1)
        rects.pop(k)
        if along_time:
            rects += [(t0, cut, m0, m1), (cut, t1, m0, m1)]
        else:
            rects += [(t0, t1, m0, cut), (t0, t1, cut, m1)]
    span = horizon // unit
    keep = spine + [r for r in rects if rng.random() >= family.drop_at((r[0] + r[1]) / 2 / span)]
    problem = Problem.of(Buffer(f"{k}", (m1 - m0) * unit, t0 * unit, t1 * unit) for k, (t0, t1, m0, m1) in enumerate(keep))
    return problem, [m0 * unit for _, _, m0, _ in keep]


def _spine(rng: np.random.Generator, buffers: int, family: Family, span: int,
           height: int) -> tuple[list[tuple[int, int, int, int]], list[tuple[int, int, int, int]]]:
    """The rectangles left to cut and the spine's pieces (``Family.tall``), in units. Without a
    spine: the whole rectangle, no pieces (and no draw from ``rng``, so older families' instances
    stay the same)."""
    share_h, share_n, width = family.tall
    count = int(round(share_n * buffers))
    band = min(max(int(round(share_h * height)), 1), height - 1)
    if count < 1 or share_h <= 0:
        return [(0, span, 0, height)], []
    widths = np.maximum(1, np.round(width * span * np.exp(rng.normal(0, 0.4, count)))).astype(np.int64)
    if widths.sum() > span // 2:  # the spine never takes more than half the horizon
        widths = np.maximum(1, widths * (span // 2) // widths.sum())
    gaps = np.floor(rng.dirichlet(np.ones(count + 1)) * (span - int(widths.sum()))).astype(np.int64)
    rects, pieces, t = [(0, span, 0, height - band)], [], 0
    for w, g in zip(widths.tolist(), gaps.tolist()):
        if g > 0:
            rects.append((t, t + g, height - band, height))
        pieces.append((t + g, t + g + w, height - band, height))
        t += g + w
    if span > t:
        rects.append((t, span, height - band, height))
    return rects, pieces


def packed(seed: int, capacity: int = 1 << 20, horizon: int = 1 << 20, unit: int = 1024) -> tuple[Problem, list[int]]:
    """A hard packed instance (the stress family): a :func:`guillotine` cut whose family
    parameters are drawn per seed from wide ranges — 150–460 buffers, a time-cut share of
    35–60 %, uneven to even cuts, a flat drop of 0–35 %. It covers the challenging suite's ranges
    one statistic at a time but not their joint spread: it makes many instances with both a large
    live set and no slack, a corner the suite touches once (I), and MiniMalloc's own solver misses
    many of them within a minute. :func:`suite_like` follows the suite's joint statistics.
    Returns the problem and the offsets of a packing of height ``capacity``."""
    rng = np.random.default_rng(seed)
    target = int(rng.integers(150, 461))
    p_time = float(rng.uniform(0.35, 0.6))
    skew = float(rng.uniform(0.5, 3.0))  # beta(skew, skew): small = uneven cuts
    drop = float(rng.uniform(0.0, 0.35))
    family = Family(time_cut=p_time, aspect=0.0, skew=skew, drop=((0.0, drop), (1.0, drop)))
    return guillotine(rng, target, family, capacity, horizon, unit)


SUITE_FAMILIES: dict[str, tuple[int, Family]] = {
    "A": (154, Family(time_cut=0.254, aspect=0.12, skew=0.88, drop=((0.00, 0.043), (1.00, 0.043)), greed=1.61, tall=(0.500, 0.0353, 0.0075))),  # distance 4.96
    "B": (170, Family(time_cut=0.119, aspect=1.52, skew=2.80, drop=((0.00, 0.008), (1.00, 0.008)), greed=6.19, tall=(0.670, 0.0204, 0.0105))),  # distance 4.14
    "C": (203, Family(time_cut=0.113, aspect=1.40, skew=1.08, drop=((0.00, 0.000), (1.00, 0.000)), greed=10.53, tall=(0.618, 0.0065, 0.0084))),  # distance 5.17
    "D": (213, Family(time_cut=0.159, aspect=0.34, skew=1.51, drop=((0.00, 0.106), (1.00, 0.106)), greed=10.56)),  # distance 4.12
    "E": (215, Family(time_cut=0.592, aspect=1.21, skew=2.04, drop=((0.00, 0.865), (0.28, 0.006), (1.00, 0.012)), greed=3.53, tall=(0.709, 0.0039, 0.0143))),  # distance 4.05
    "F": (296, Family(time_cut=0.799, aspect=2.33, skew=5.03, drop=((0.00, 0.233), (0.30, 0.068), (1.00, 0.827)), greed=4.98)),  # distance 3.05
    "G": (308, Family(time_cut=0.842, aspect=2.31, skew=5.73, drop=((0.00, 0.235), (0.27, 0.054), (1.00, 0.873)), greed=4.00)),  # distance 2.59
    "H": (316, Family(time_cut=0.832, aspect=2.29, skew=4.66, drop=((0.00, 0.242), (0.32, 0.091), (1.00, 0.913)), greed=4.41)),  # distance 2.97
    "I": (374, Family(time_cut=0.418, aspect=0.61, skew=1.05, drop=((0.00, 0.113), (1.00, 0.113)), greed=4.19, tall=(0.730, 0.0269, 0.0055))),  # distance 6.44
    "J": (409, Family(time_cut=0.287, aspect=0.22, skew=1.49, drop=((0.00, 0.221), (1.00, 0.221)), greed=5.35)),  # distance 3.30
    "K": (454, Family(time_cut=0.666, aspect=1.10, skew=1.14, drop=((0.00, 0.059), (1.00, 0.059)), greed=3.95, tall=(0.820, 0.0654, 0.0027))),  # distance 4.18
}
"""One family per instance of minimalloc's challenging suite: its buffer count and the
:class:`Family` whose instances come closest to its statistics (``bench/calibrate_packed.py``
searched them; the distance is summed over fourteen statistics: ten of sizes, lifetimes and
load, two of the pieces' shapes, two of the tall pieces, see there). Why the shapes: fitted
without them (``greed`` fixed at 1), the families matched the sizes and load and still cut
pieces of far more uneven area than the suite's, with sizes nearly independent of lifetimes
(correlation -0.0 to -0.6 where the suite has -0.5 to -0.86). Why the tall pieces
(``Family.tall``): fitted without them, the largest size had a median of 28 % of the capacity
over 200 fresh instances against the suite's 58 %, and a K-like instance had one or two
buffers of half the capacity or more where K has 42, covering 14 % of the horizon; with them
the generated median is 49 %, and two K-like instances have 37 and 40 such buffers, over 10 and
11 % of the horizon (``bench/calibrate_packed.py --check 200``).
Mean distance over A–K (six new seeds each, the same fourteen statistics): 6.3 with the
families fitted without the tall statistics, 4.6 with these."""


def suite_template(seed: int) -> str:
    """The suite instance whose family :func:`suite_like` follows for ``seed``."""
    names = sorted(SUITE_FAMILIES)
    return names[int(np.random.default_rng(seed).integers(len(names)))]


def suite_like(seed: int, capacity: int = 1 << 20, horizon: int = 1 << 20, unit: int = 1024) -> tuple[Problem, list[int]]:
    """A packed instance with the challenging suite's joint statistics: it picks one of the
    suite's instances (A–K, uniformly), takes the family calibrated on it, jitters the family
    (buffer count ±20 %, time-cut logit, aspect, skew, drop chances, greed, the spine's height,
    share and width) and cuts a
    :func:`guillotine` instance with it. Why per instance, not per statistic: hardness lives in
    the joint spread — a large live set with no slack is rare in the suite and common when each
    statistic is drawn alone (:func:`packed`). Returns the problem and the offsets of a packing of
    height ``capacity``."""
    rng = np.random.default_rng(seed)
    names = sorted(SUITE_FAMILIES)
    buffers, f = SUITE_FAMILIES[names[int(rng.integers(len(names)))]]
    logit = np.log(f.time_cut / (1 - f.time_cut)) + rng.normal(0, 0.25)
    family = Family(
        time_cut=float(np.clip(1 / (1 + np.exp(-logit)), 0.02, 0.98)),
        aspect=float(f.aspect + rng.uniform(-0.2, 0.2)),
        skew=float(f.skew * np.exp(rng.normal(0, 0.15))),
        drop=tuple((x, float(np.clip(y + rng.uniform(-0.03, 0.03), 0, 0.95))) for x, y in f.drop),
        greed=float(max(1.0, f.greed * np.exp(rng.normal(0, 0.15)))),
        tall=_jitter_tall(rng, f.tall),
    )
    return guillotine(rng, int(round(buffers * rng.uniform(0.8, 1.2))), family, capacity, horizon, unit)


def _jitter_tall(rng: np.random.Generator, tall: tuple[float, float, float]) -> tuple[float, float, float]:
    """A family's spine (``Family.tall``) jittered for one instance; none stays none."""
    height, share, width = tall
    if share == 0:
        return tall
    return (float(np.clip(height + rng.uniform(-0.03, 0.03), 0.5, 0.95)), float(share * np.exp(rng.normal(0, 0.15))),
            float(width * np.exp(rng.normal(0, 0.15))))


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
