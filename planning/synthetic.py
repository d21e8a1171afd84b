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


class _Uniforms:
    """Uniform draws from a numpy generator, handed out one at a time from blocks drawn at once
    (a ``Generator`` call per scalar would make the trace generator the slow part)."""

    def __init__(self, rng: np.random.Generator, block: int = 1 << 14) -> None:
        self.rng, self.block = rng, block
        self.buf, self.i = rng.random(block), 0

    def u(self) -> float:
        if self.i == self.block:
            self.buf, self.i = self.rng.random(self.block), 0
        self.i += 1
        return float(self.buf[self.i - 1])

    def int(self, lo: int, hi: int) -> int:
        """An integer in ``[lo, hi)``."""
        return lo + int(self.u() * (hi - lo))

    def pick(self, seq):
        return seq[int(self.u() * len(seq))]


def _odd(x: int) -> int:
    """``x`` without its factors of two."""
    return x // (x & -x)


def _cnn_model(d: _Uniforms) -> dict:
    """A bottleneck CNN (ResNet-like) for :func:`training_like`. Stages halve the spatial side and
    double the channels, so activations shrink 2x and weights grow 4x per stage; the batch is
    set so that in the last stage the weight gradients are 50-100 % of the saved activations (as
    ResNet-50 at batch 16: the backward of the deep stages frees little). Activation sizes carry
    the square of the spatial side (7x7, 5x5, 11x11 ...), weights the 3x3 kernel's 9."""
    c0 = d.pick((32, 64))
    side = d.pick((56, 28, 35, 40, 44, 52))
    stages = d.int(4, 6)
    ratio = 0.5 + 0.5 * d.u()  # last stage: weight-gradient bytes / saved activation bytes per block
    c_last, hw_last = c0 << (stages - 1), max(1, side * side >> (2 * (stages - 1)))
    batch = max(1, round(17 * c_last / (22 * ratio * hw_last)))
    share = np.array([1.0 + (0 < i < stages - 1) + d.u() for i in range(stages)])  # middle stages deeper
    bounds = np.cumsum(share) / share.sum()

    def block(x: float) -> list[dict]:
        st = min(stages - 1, int(np.searchsorted(bounds, x, side="right")))
        c, hw = c0 << st, max(1, side * side >> (2 * st))
        a, ch = batch * c * hw * 4, c * 4
        ops = []
        for width, k in ((1, 1), (1, 9), (4, 1)):  # conv 1x1, conv 3x3, conv 1x1 (4x wider); BN; ReLU
            ops += [dict(out=width * a, w=k * c * c * width * 4, ws=(width * a,)),
                    dict(out=width * a, stats=(2, width * ch), tmp=(2, width * ch), g=(width * ch,) * 2, ws=(width * a,)),
                    dict(out=width * a)]
        ops[-1]["skip"] = True
        return ops

    a_last = batch * c_last * hw_last * 4
    return dict(block=block, small=(4, 128, 256, 512, 1024, 2048, 4096, 8192), head=(a_last, 4 * a_last),
                big=(batch * side * side * 192, batch * c0 * side * side * 16), embed=None, buckets=d.int(1, 4))


def _transformer_model(d: _Uniforms) -> dict:
    """A transformer encoder (BERT/GPT-like) for :func:`training_like`: layers alike, activations
    ``b*s*h*4``, attention scores ``b*s*s*4`` (times a head-group factor), per-head tensors,
    weights ``h*h*4`` times 1, 3 or 4, an embedding table ``vocab*h*4``. The hidden size and the
    sequence length are drawn with different odd factors, and the batch so that the weight
    gradients are 40-75 % of a layer's saved activations."""
    hidden = d.pick((768, 1024, 1280, 1536, 1792, 2560))
    seq = d.pick(tuple(s for s in (128, 320, 384, 448, 512, 576, 640, 1024) if _odd(s) != _odd(hidden)))
    ratio = 0.4 + 0.35 * d.u()  # weight-gradient bytes / saved activation bytes per layer
    batch = max(1, round(0.67 * hidden / ratio / seq))
    a, row = batch * seq * hidden * 4, batch * seq * 4
    att = batch * seq * seq * 4 * d.pick((1, 2, 4))
    heads = d.pick((4, 8, 12, 16))

    def block(x: float) -> list[dict]:
        return [
            dict(out=a, stats=(2, row), g=(hidden * 4,) * 2, ws=(a, 4 * a)),  # layer norm
            dict(out=3 * a, w=3 * hidden * hidden * 4, ws=(att, 3 * a)),  # QKV
            dict(out=a, heads=(heads, a // heads, row), ws=(att, att, att), held=att),  # scores, softmax
            dict(out=a, heads=(heads, 4 * a // heads, 4 * row), ws=(att, att)),  # dropout, context
            dict(out=a, w=hidden * hidden * 4, ws=(a, att)),  # output projection
            dict(out=a, stats=(1, a // 4)),  # dropout
            dict(out=a, stats=(2, row), skip=True, g=(hidden * 4,) * 2, ws=(4 * a,)),  # residual, layer norm
            dict(out=4 * a, w=4 * hidden * hidden * 4, ws=(4 * a, att)),  # FFN up
            dict(out=4 * a, ws=(4 * a,)),  # GELU
            dict(out=a, w=4 * hidden * hidden * 4, ws=(4 * a, a)),  # FFN down
            dict(out=a, stats=(1, a // 4), skip=True),  # dropout, residual
        ]

    vocab = d.pick((30522, 21128, 50257, 40000))
    return dict(block=block, small=(1, 4, 32, 768, 1536, 3072, 6144), head=(a, 4 * a, att),
                big=(a, 4 * a, att), embed=(vocab * hidden * 4, hidden * 4), buckets=d.int(0, 4))


def _trace(d: _Uniforms, blocks: int, aux: int, m: dict) -> tuple[list[int], list[int], list[int]]:
    """One training step of ``blocks`` blocks of model ``m`` with ``aux`` small tensors per op:
    the sizes, starts and ends of its buffers (see :func:`training_like`)."""
    step = _Step(d, m)
    persistent = [step.new(d.pick(m["big"]) if d.u() < 0.3 else d.pick(m["small"]), 0) for _ in range(d.int(2, 17))]
    near = [step.new(d.pick(m["small"]), d.int(1, 20)) for _ in range(d.int(2, 8))]
    ops = step.forward(blocks, aux)
    step.loss_and_head()
    tb, grads, held = step.backward(ops, aux)
    step.release_saved(ops, tb)
    step.optimizer(grads, held)
    end = step.t + step.span + 5
    for i in persistent:
        step.E[i] = end
    for i in near:
        step.E[i] = end - d.int(1, 60)
    return step.S, step.A, step.E


class _Step:
    """The buffers of one training step as :func:`_trace` schedules them, phase by phase: the
    sizes ``S``, starts ``A`` and ends ``E`` (-1: not yet known), the current step ``t``. Every
    phase draws from ``d`` in a fixed order, so a seed gives one trace."""

    def __init__(self, d: _Uniforms, m: dict) -> None:
        self.d, self.m = d, m
        self.S: list[int] = []
        self.A: list[int] = []
        self.E: list[int] = []
        self.t = 1
        self.saved_bytes = 0
        self.span = 0

    def new(self, size: int, start: int, end: int = -1) -> int:
        self.S.append(max(1, int(size)))
        self.A.append(start)
        self.E.append(end)
        return len(self.S) - 1

    def forward(self, blocks: int, aux: int) -> list:
        """One step per op; its ops as (input size, op, its saved buffers as (scrambled, index), block)."""
        d, m, new, small = self.d, self.m, self.new, self.m["small"]
        prev = m["big"][0]
        ops = []
        for b in range(blocks):
            for op in m["block"]((b + 0.5) / blocks):
                saved = []
                if "heads" in op:  # per-head tensors, one head group per step
                    groups, big, sm = op["heads"]
                    for _ in range(groups):
                        saved += [(True, new(sm, self.t)), (True, new(big, self.t))]
                        self.t += 1
                t = self.t
                if d.u() < m["p_save"]:
                    saved.append((False, new(op["out"], t)))
                else:
                    new(op["out"], t, t + d.int(2, 5))
                count, size = op.get("stats", (0, 0))
                saved += [(False, new(size, t)) for _ in range(count)]
                count, size = op.get("tmp", (0, 0))
                end = t + d.int(2, 5)
                for _ in range(count):
                    new(size, t, end)
                for size in op.get("ws", ()):
                    if d.u() < m["p_fws"]:
                        new(size, t, t + d.int(1, m["fws_len"]))
                self.t += 1
                for _ in range(aux):  # small elementwise ops: masks, casts, scalars
                    if d.u() < 0.5:
                        saved.append((False, new(d.pick(small), self.t)))
                    else:
                        new(d.pick(small), self.t, self.t + d.int(1, 4))
                    if d.u() < 0.3:
                        self.t += 1
                self.saved_bytes += sum(self.S[i] for _, i in saved)
                ops.append((prev, op, saved, b))
                prev = op["out"]
        return ops

    def loss_and_head(self) -> None:
        """The loss, then the head and the loss's backward: large short-lived tensors."""
        d, new, small = self.d, self.new, self.m["small"]
        for _ in range(d.int(3, 8)):
            new(d.pick(small), self.t, self.t + d.int(1, 4))
            self.t += 1
        for _ in range(d.int(12, 30)):
            new(d.pick(self.m["head"]), self.t, self.t + d.int(2, 8))
            if d.u() < 0.5:
                new(d.pick(small), self.t, self.t + d.int(1, 4))
            self.t += 1

    def backward(self, ops: list, aux: int) -> tuple[list[int], list[int], list[int]]:
        """Several steps per op, last op first; each op's backward step, the weight gradients
        not yet flushed and those a bucket flush moved (what the optimizer consumes)."""
        d, m, E, new = self.d, self.m, self.E, self.new
        tb = [0] * len(ops)
        grads: list[int] = []  # weight gradients, held until a bucket flush or the optimizer
        held: list[int] = []  # what the optimizer consumes
        flush = sum(op.get("w", 0) for _, op, _, _ in ops) / m["buckets"] if m["buckets"] else float("inf")
        acc, skip, dx, kept = 0.0, -1, -1, []
        for k in range(len(ops) - 1, -1, -1):
            insz, op, saved, b = ops[k]
            t = tb[k] = self.t
            if dx >= 0:
                E[dx] = t + d.int(1, 3)
            dx = new(insz, t)  # dX, consumed by the previous op's backward
            if op.get("skip"):
                if skip >= 0:
                    E[skip] = t + d.int(1, 3)
                skip = new(op["out"], t)  # the residual branch's gradient, held across the block
            if op.get("held"):
                kept.append(new(op["held"], t))  # held until the next bucket flush or the end of the backward
            self.t += 1
            self._weight_steps(op)
            if op.get("g"):
                grads += [new(size, self.t) for size in op["g"]]
                self.t += 1
            if op.get("w"):
                grads.append(new(op["w"], self.t))
                acc += op["w"]
                new(d.pick(m["small"]), self.t + 1, self.t + d.int(2, 4))
                self.t += 2
            if acc >= flush and k > 0:  # bucket flush: the gradients move to the all-reduce's buffers
                for i in kept:
                    E[i] = self.t + d.int(1, 3)
                for g in grads:
                    E[g] = self.t + 1
                    held.append(new(self.S[g], self.t + 1))
                kept, grads, acc = [], [], 0.0
                self.t += 2
            for _ in range(d.int(0, 3) + aux):
                new(d.pick(m["small"]), self.t, self.t + d.int(1, 4))
                if d.u() < 0.5:
                    self.t += 1
        E[dx] = self.t + 1
        for i in kept:
            E[i] = self.t + d.int(1, 3)
        if skip >= 0:
            E[skip] = self.t + 1
        return tb, grads, held

    def _weight_steps(self, op: dict) -> None:
        """An op's backward workspaces, then per head group its score gradients (short-lived, large)."""
        d, m, new = self.d, self.m, self.new
        for size in op.get("ws", ()):
            if d.u() < m["p_ws"]:
                new(size, self.t, self.t + d.int(3, m["ws_len"]))
                self.t += 1
        if "heads" in op:
            for _ in range(2 * op["heads"][0]):
                new(d.pick(op["ws"]), self.t, self.t + d.int(3, 12))
                self.t += 1

    def release_saved(self, ops: list, tb: list[int]) -> None:
        """Saved buffers die at or after their op's backward step ``tb``."""
        d, m, E = self.d, self.m, self.E
        first: dict[int, int] = {}
        for k, (_, _, _, b) in enumerate(ops):
            first.setdefault(b, k)
        for k, (_, _, saved, b) in enumerate(ops):
            for scrambled, i in saved:
                if scrambled:  # per-head tensors: anywhere in the rest of their block's backward
                    E[i] = tb[k] + 1 + d.int(0, tb[first[b]] - tb[k] + m["late"])
                elif d.u() < m["p_lifo"]:
                    E[i] = tb[k] + 1
                else:
                    E[i] = tb[k] + 1 + d.int(0, m["late"])

    def optimizer(self, grads: list[int], held: list[int]) -> None:
        """The embedding table's gradient, then each parameter's update holding a few buffers of
        its size; :attr:`span` the updates' temporaries' length."""
        d, m, E, new = self.d, self.m, self.E, self.new
        if m["embed"]:  # the embedding table's gradient: a vocabulary's rows, at most 5 % of the saved bytes
            full, row = m["embed"]
            grads.append(new(max(row, min(full, self.saved_bytes // 20) // row * row), self.t))
            self.t += 1
        self.t = max([self.t] + [e + 1 for e in E])
        held += grads
        order = held[::-1] if d.u() < 0.5 else held
        span = self.span = min(m["opt_len"], max(2, len(order) // (8 * max(1, m["opt_tmp"]))))
        for g in order:
            for _ in range(m["opt_tmp"]):
                new(self.S[g], self.t, self.t + span + d.int(0, 3))
            E[g] = self.t + 1
            self.t += 1


def training_like(n: int, seed: int = 0) -> Problem:
    """``n`` buffers of one training step shaped like the traces a training compiler emits
    (MindSpore's SOMAS dumps of ResNet-50 and TinyBERT training); deterministic per ``seed``,
    30,000 buffers in well under a second.

    Each seed draws a model — a bottleneck CNN or a transformer encoder (:func:`_cnn_model`,
    :func:`_transformer_model`) — and schedules one step of it op by op:

    * forward, one step per op: the op's output (usually saved for the backward, else a
      temporary of 2-4 steps), BN/LN statistics saved in identical-interval pairs, dropout
      masks, workspace temporaries, per-head attention tensors (one head per step);
    * the head and the loss: a run of large short-lived tensors (2-7 steps, several alive at
      once), so the peak sits inside churn rather than on a quiet stack;
    * backward, several steps per op: a dX chain (each alive until the previous op's backward),
      residual-branch gradients held across a block, large workspace and score-gradient
      temporaries (3-29 steps), weight gradients held until a bucket flush (then moved to the
      all-reduce's buffers, which the optimizer consumes) or until the optimizer; saved
      buffers die at their op's backward or up to 10-40 steps later, per-head tensors anywhere
      in the rest of their block's backward — frees are not last in, first out;
    * the optimizer: each gradient in turn, with up to two buffers of its size alive over a
      window;
    * a few buffers for the whole step (inputs, labels, loss scale) or nearly so.

    Sizes come from shapes, so there are few distinct ones (about 20), drawn from factor
    families whose ratios are not powers of two: activations ``b*c*side*side*4`` (side 7x7,
    5x5, 11x11 ... times a power of two) or ``b*s*h*4``, weights ``9*c*c*4`` or ``k*h*h*4``,
    attention ``b*s*s*4``, with ``h`` and ``s`` of different odd factors. Larger ``n`` deepens
    the model about as ``sqrt(n)`` and gives each op more small elementwise tensors (masks,
    casts, scalars) for the rest: at 30,000 buffers most buffers are such small ones. The trace
    is drawn with blocks to spare and ``n`` of its buffers are kept at random.

    Why: :func:`training` is a nested stack, every size different, freed last in, first out,
    and ``best`` reaches its lower bound on it; on the real traces it stays above. Three traits
    of the real traces make the gap, and this models them. (1) The largest size classes peak
    away from the global peak (bucket and optimizer gradients, the embedding gradient,
    backward temporaries larger than the buffers they replace): a size-ordered first fit
    reserves room for them that is free at the peak only for a while, and the smaller
    buffers live at the peak, which live longer than that, cannot fill it. (2) Large buffers
    that start just after the peak and live long (held gradients, residual gradients) are
    placed early by a fill that prefers long lifetimes, in room the peak needs. (3) Frees out
    of order, and backward requests larger than the holes they leave, make a best-fit
    simulation grow blocks below buffers still alive from the peak. Sizes that tile (one unit
    times powers of two) or frees last in, first out let the greedy plans close most of these
    gaps. Not modelled: IOPDDL's graphs, whose few buffers of 10-40 % of the peak are a
    different regime.
    """
    if n <= 0:
        return Problem.of(())
    rng = np.random.default_rng(seed)
    d = _Uniforms(rng)
    m = _cnn_model(d) if d.u() < 0.5 else _transformer_model(d)
    m.update(p_save=0.8 + 0.15 * d.u(), p_lifo=0.2 + 0.4 * d.u(), late=d.int(10, 40),
             p_fws=0.2 + 0.6 * d.u(), fws_len=d.int(3, 12), p_ws=0.5 + 0.5 * d.u(), ws_len=d.int(5, 30),
             opt_tmp=d.int(0, 3), opt_len=d.int(2, 100))
    probe = _Uniforms(np.random.default_rng(0), 1024)  # buffers per block, and per small tensor per op
    per_block = len(_trace(probe, 8, 0, m)[0]) / 8
    per_aux = len(_trace(probe, 8, 1, m)[0]) / 8 - per_block
    blocks = max(1, round(min(n, 1000 * (n / 1000) ** 0.5) / per_block))
    aux = max(0, round((n / blocks - per_block) / per_aux))
    while True:
        sizes, starts, ends = _trace(d, blocks, aux, m)
        if len(sizes) >= n:
            break
        blocks += max(1, blocks // 10)
    keep = np.sort(rng.choice(len(sizes), n, replace=False)).tolist()
    return Problem.of(Buffer(f"t{i}", sizes[k], starts[k], ends[k]) for i, k in enumerate(keep))
