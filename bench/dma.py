#!/usr/bin/env python3
"""How much of the weight traffic ping-pong DMA hides (the LUNA control-flow paper, Algorithm 3), per graph.

For every graph: ``insert-dma`` in ``always`` and in ``auto`` mode, then the latency report's
totals under one target description (default: the documented edge NPU of
:class:`memopt.planning.latency.Target`; ``--target FILE`` to change it). Columns:

  ops/loads   compute ops / ops that read off-chip weights
  T_serial    sum(c_i + d_i): every op loads its weights, then computes
  T_always    ping-pong, every weight load pipelined
  T_auto      ping-pong where the model says it pays (never above T_serial)
  T_lb        max(sum c + d_first, sum d + c_last), per Region, composed
  eta         (T_serial - T) / (T_serial - T_lb) for always / auto
  c/d         total compute cycles over total DMA cycles (> 1: compute-bound)
  DMA KiB     on-chip bytes of @alloc0 + @alloc1 (always / auto)
  N=3, N=4    insert-dma{buffers=N}: eta always/auto, and the on-chip KiB of the N buffers
              (always/auto)
  T_ring      insert-dma{ring=auto}, every weight load pipelined (mode=always)
  ring        insert-dma{ring=auto}: eta always/auto, and the on-chip KiB of the one ring
              buffer ring=auto chose (always/auto)
  s           seconds of import + both insertions + reports

Synthetic graphs first (built here, no downloads): chains of convolutions with costs and
weights, a DMA-bound chain of fully connected layers, tiny ops where pipelining loses, and one
with control flow. Then the real models (mediapipe face/hand/pose, hey_jarvis, silero-vad) from
the cache of ``bench/models.py`` (``~/.cache/memopt-models``); missing models or a missing
importer are skipped with a message — nothing is downloaded here.

    python bench/dma.py [--target FILE] [--cache DIR] [--only SUBSTR] [--skip-real] [--buffers 3,4]
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

from xdsl.dialects import builtin, func

from memopt.diagnostics import LocatedParser, MemoptError
from memopt.dialects.memopt import DmaBufferOp
from memopt.passes.dma_target import target_options as _target_options
from memopt.passes.insert_dma import InsertDmaPass
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.passes.report_latency import function_latency
from memopt.planning.latency import Target, Timing, load_target
from memopt.dialects.context import make_context as _make_context

HERE = pathlib.Path(__file__).resolve().parent
REAL = [
    # (label, path under <cache>/models)
    ("face_detection_short_range", "mediapipe/modules/face_detection/face_detection_short_range.tflite"),
    ("face_landmark", "mediapipe/modules/face_landmark/face_landmark.tflite"),
    ("hand_landmark_lite", "mediapipe/modules/hand_landmark/hand_landmark_lite.tflite"),
    ("hand_landmark_full", "mediapipe/modules/hand_landmark/hand_landmark_full.tflite"),
    ("pose_detection", "mediapipe/modules/pose_detection/pose_detection.tflite"),
    ("pose_landmark_full", "mediapipe/modules/pose_landmark/pose_landmark_full.tflite"),
    ("hey_jarvis (tflite)", "openwakeword/resources/models/hey_jarvis_v0.1.tflite"),
    ("hey_jarvis (onnx)", "openwakeword/resources/models/hey_jarvis_v0.1.onnx"),
    ("silero_vad (If)", "silero_vad/data/silero_vad.onnx"),
]


# --------------------------------------------------------------------------- synthetic graphs


def _chain(name: str, layers: list[tuple[str, int, int]]) -> str:
    """A chain of ops on a 1-D activation: (kind, MACs, weight bytes; 0 = no weight)."""
    g, body = [], []
    x = "%x"
    for i, (kind, macs, wbytes) in enumerate(layers):
        ins, tys = [x], ["tensor<1024xi8>"]
        if wbytes:
            g.append(f"  memopt.global @w{i} : tensor<{wbytes}xi8>")
            body.append(f"    %g{i} = memopt.get_global @w{i} : tensor<{wbytes}xi8>")
            ins.append(f"%g{i}")
            tys.append(f"tensor<{wbytes}xi8>")
        body.append(
            f'    %y{i} = memopt.compute "{kind}"({", ".join(ins)}) {{cost = {macs} : i64}} '
            f': ({", ".join(tys)}) -> tensor<1024xi8>'
        )
        x = f"%y{i}"
    return "\n".join(
        ["builtin.module {", *g, f"  func.func @{name}(%x: tensor<1024xi8>) -> tensor<1024xi8> {{", *body,
         f"    func.return {x} : tensor<1024xi8>", "  }", "}"]
    )


def _branchy() -> str:
    """A conv chain, an if whose branches differ in size, and a loop of two layers."""
    def conv(i: int, x: str, ind: str, macs: int = 3_000_000, w: int = 9216) -> tuple[list[str], str]:
        return [
            f"{ind}%g{i} = memopt.get_global @w{i} : tensor<{w}xi8>",
            f'{ind}%y{i} = memopt.compute "conv"({x}, %g{i}) {{cost = {macs} : i64}} : (tensor<1024xi8>, tensor<{w}xi8>) -> tensor<1024xi8>',
        ], f"%y{i}"

    lines, x = [], "%x"
    for i in range(4):
        ls, x = conv(i, x, "    ")
        lines += ls
    then, t = [], x
    for i in range(4, 10):
        ls, t = conv(i, t, "      ")
        then += ls
    other, e = conv(10, x, "      ", 500_000, 2048)
    lines += ["    %r = memopt.if %c : tensor<i1> -> (tensor<1024xi8>) {", *then,
              f"      memopt.yield {t} : tensor<1024xi8>", "    } else {", *other,
              f"      memopt.yield {e} : tensor<1024xi8>", "    }",
              "    %l = memopt.loop 8 iter_args(%a = %r) : tensor<1024xi8> {"]
    ls, a = conv(11, "%a", "      ", 1_000_000, 16384)
    ls2, a = conv(12, a, "      ", 1_000_000, 16384)
    lines += ls + ls2 + [f"      memopt.yield {a} : tensor<1024xi8>", "    }"]
    sizes = {i: 9216 for i in range(10)} | {10: 2048, 11: 16384, 12: 16384}
    g = [f"  memopt.global @w{i} : tensor<{s}xi8>" for i, s in sizes.items()]
    return "\n".join(
        ["builtin.module {", *g, "  func.func @branchy(%x: tensor<1024xi8>, %c: tensor<i1>) -> tensor<1024xi8> {",
         *lines, "    func.return %l : tensor<1024xi8>", "  }", "}"]
    )


def synthetic() -> list[tuple[str, str]]:
    # 3x3 conv, 64->64 channels, 32x32 output, int8: 37.7 M MACs, 36 KiB of weights.
    conv = ("conv3x3", 32 * 32 * 64 * 64 * 9, 64 * 64 * 9)
    # MobileNet-like block at 16x16, 128 channels: depthwise 3x3 then pointwise 1x1.
    dw = ("dwconv", 16 * 16 * 128 * 9, 128 * 9)
    pw = ("pwconv", 16 * 16 * 128 * 128, 128 * 128)
    # Fully connected 1024 -> 512 at batch 1: one MAC per weight byte, DMA-bound.
    fc = ("fc", 1024 * 512, 1024 * 512)
    tiny = ("scale", 256, 16)
    return [
        ("conv chain x12 (compute-bound)", _chain("conv_chain", [conv] * 12)),
        ("mobilenet-like x8 blocks", _chain("mobilenet", [dw, pw] * 8)),
        ("conv + relu, no weights on relu", _chain("conv_relu", [conv, ("relu", 1024, 0)] * 6)),
        ("one huge fc among convs", _chain("huge", [conv] * 3 + [fc] + [conv] * 3)),
        ("fc chain x6 (DMA-bound)", _chain("fc_chain", [fc] * 6)),
        ("tiny ops x8 (pipelining loses)", _chain("tiny", [tiny] * 8)),
        ("if + loop, convs", _branchy()),
    ]


# --------------------------------------------------------------------------- measuring


def _parse(text: str) -> builtin.ModuleOp:
    module = LocatedParser(_make_context(), text, "bench").parse_module()
    module.verify()
    return module


DEEPER: tuple[int, ...] = (3, 4)
"""Extra staging-buffer counts measured besides the LUNA paper's two (``--buffers``)."""


def _totals(m: builtin.ModuleOp, target: Target) -> tuple[Timing, list]:
    total, rows = Timing(), []
    for f in (op for op in m.walk() if isinstance(op, func.FuncOp) and op.body.blocks):
        r, t = function_latency(f, target)
        rows += r
        total = total + t
    return total, rows


def _kib(m: builtin.ModuleOp) -> float:
    return sum(b.size.value.data for b in m.walk() if isinstance(b, DmaBufferOp)) / 1024


def measure(module: builtin.ModuleOp, target: Target) -> dict:
    """Insert DMA every way on clones of ``module`` and report the composed totals."""
    row: dict = {}
    configs = [(m, {"buffers": n}, (m, n)) for n in (2, *DEEPER) for m in ("always", "auto")]
    configs += [(m, {"ring": "auto"}, (m, "ring")) for m in ("always", "auto")]
    if target.capacity is not None:
        # With an on-chip capacity the arena counts too: plan first, as docs/dma.md advises.
        module = module.clone()
        PlanMemoryPass().apply(_make_context(), module)
    for mode, opts, key in configs:
        m = module.clone()
        try:
            InsertDmaPass(mode=mode, **opts, **_target_options(target)).apply(_make_context(), m)
        except MemoptError:
            # Over the target's capacity (``always`` refuses to drop loads): measured unpipelined.
            m = module.clone()
            row.setdefault("over capacity", []).append(f"{mode}/{opts}")
        total, rows = _totals(m, target)
        row[key], row[(*key, "KiB")] = total, _kib(m)
        if key[1] == 2:
            row[mode] = total
            row[f"{mode} loads"] = sum(r.loads for r in rows)
            row["ops"] = sum(r.ops for r in rows)
            row[f"{mode} KiB"] = _kib(m)
    # compute vs DMA cycles of the serial schedule: T_serial = C + D
    fast = Target(**{**_target_options(target), "dma_latency": 0, "dma_bytes_per_cycle": 1 << 30})
    t, _ = _totals(module.clone(), fast)
    row["compute"] = t.serial
    row["dma"] = row["always"].serial - t.serial
    return row


def _eta(t: Timing) -> str:
    return "-" if t.eta is None else f"{t.eta:.2f}"


def header() -> str:
    return (f"{'graph':<34} {'ops':>5} {'loads':>5} {'T_serial':>11} {'T_always':>11} {'T_auto':>11} "
            f"{'T_lb':>11} {'eta alw':>7} {'eta auto':>8} {'c/d':>6} {'DMA KiB':>13}"
            + "".join(f" {f'N={n} eta':>9} {f'N={n} KiB':>13}" for n in DEEPER)
            + f" {'T_ring':>11} {'ring eta':>9} {'ring KiB':>15} {'s':>6}")


def print_row(label: str, row: dict, seconds: float) -> None:
    a, u = row["always"], row["auto"]
    cd = row["compute"] / row["dma"] if row["dma"] else float("inf")
    kib = f"{row['always KiB']:.1f}/{row['auto KiB']:.1f}"
    print(f"{label:<34} {row['ops']:>5} {row['always loads']:>5} {a.serial:>11} {a.pingpong:>11} {u.pingpong:>11} "
          f"{a.lb:>11} {_eta(a):>7} {_eta(u):>8} {cd:>6.2f} {kib:>13}" + "".join(
              f" {_eta(row[('always', n)]) + '/' + _eta(row[('auto', n)]):>9}"
              f" {row[('always', n, 'KiB')]:.1f}/{row[('auto', n, 'KiB')]:.1f}".rjust(14)
              for n in DEEPER)
          + f" {row[('always', 'ring')].pingpong:>11}"
          + f" {_eta(row[('always', 'ring')]) + '/' + _eta(row[('auto', 'ring')]):>9}"
          + f" {row[('always', 'ring', 'KiB')]:.1f}/{row[('auto', 'ring', 'KiB')]:.1f}".rjust(16)
          + f" {seconds:>6.1f}", flush=True)
    if row.get("over capacity"):
        print(f"  over capacity, measured unpipelined: {', '.join(row['over capacity'])}", flush=True)
    for key in ("auto", *(("auto", n) for n in DEEPER), ("auto", "ring")):
        if row[key].pingpong > row[key].serial:
            print(f"  !! auto slower than serial on {label} ({key})", flush=True)


def real_models(cache: pathlib.Path, target: Target, only: str | None) -> None:
    try:
        from memopt.importers.api import import_model
        from memopt.importers.common import ModelImportError
    except ImportError as e:
        print(f"# real models skipped: importer not available ({e})")
        return
    sys.path.insert(0, str(HERE))
    try:
        from models import input_shapes_for  # bench/models.py: shapes for symbolic ONNX inputs
    except ImportError:
        def input_shapes_for(path):  # type: ignore[misc]
            return {}
    for label, rel in REAL:
        if only and only not in label:
            continue
        path = cache / "models" / rel
        if not path.exists():
            print(f"{label:<34} skipped: {path} not in the cache (run bench/models.py once to fetch)")
            continue
        t0 = time.perf_counter()
        try:
            module = import_model(str(path), input_shapes_for(path)).module
        except ModelImportError as e:
            print(f"{label:<34} skipped: import failed: {e}")
            continue
        row = measure(module, target)
        print_row(label, row, time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", help="target description file (key = value lines)")
    ap.add_argument("--cache", default=str(pathlib.Path.home() / ".cache" / "memopt-models"))
    ap.add_argument("--only", help="only graphs whose label contains this")
    ap.add_argument("--skip-real", action="store_true", help="synthetic graphs only")
    ap.add_argument("--buffers", default="3,4", help="extra staging-buffer counts to measure (comma-separated, each >= 3)")
    args = ap.parse_args(argv)
    global DEEPER
    DEEPER = tuple(int(n) for n in args.buffers.split(",") if n.strip())
    target = load_target(args.target)
    print(f"# target: {target.describe()}")
    print(header())
    for label, text in synthetic():
        if args.only and args.only not in label:
            continue
        t0 = time.perf_counter()
        row = measure(_parse(text), target)
        print_row(label, row, time.perf_counter() - t0)
    if not args.skip_real:
        real_models(pathlib.Path(args.cache), target, args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
