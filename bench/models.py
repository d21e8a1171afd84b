#!/usr/bin/env python3
"""Plan real models with memopt and, side by side in the same run, with TFLite Micro.

Models come from PyPI packages, fetched with ``pip download --no-deps`` into a cache outside the
repository (default ``~/.cache/memopt-models``; re-used when present, never committed) and
unzipped there: mediapipe 0.10.21 (``mediapipe/modules/**.tflite``), silero-vad
(``silero_vad*.onnx``, real nested ``If``), pymicro-wakeword (int8 streaming models with
``CALL_ONCE`` and resource variables), openwakeword 0.5.1 (``*.onnx`` and ``*.tflite``, e.g.
hey_jarvis with an ``If``), and the installed ``onnx`` wheel's own backend test models
(``onnx/backend/test/data/light/light_*.onnx``).

Per model: import (Python API) → every registered strategy and ``best`` planned exactly as
``plan-memory`` does (``control-flow=joint``, in-place hints on; each plan validated) → the
``plan-memory`` + ``verify-plan`` passes on the module → ``memopt-run --check``'s execution proof
(planned vs unplanned, bit for bit; ``--no-exec`` skips it). Columns:

  ops, tensors      imported ops / tensors (of every kind, globals included)
  naive             bytes without any reuse (every arena tensor aligned and kept apart)
  LB                max-live bound per execution path (LB_nest), in-place reuse not counted
  LB-inplace        the bound that stays valid with the in-place pairs (plans may go below LB)
  <strategy>        arena height of each registered strategy (``search`` only with --budget)
  best              the smallest; ``best/LBi`` its ratio to LB-inplace
  verify+exec       ``ok`` when the execution proof passed (and its seconds)
  ring=auto         the planned module after ``insert-dma{ring=auto}``: ``verify-plan`` (DMA
                    schedule and on-chip placement) and the execution proof with both DMA
                    landing models passed, and the ring's size (``--no-dma`` skips it)
  plan s            seconds of the core planning ``best``
  TFLM head         TFLite Micro's planned arena (``Arena allocation head`` of
                    ``print_allocations``), for every .tflite model its interpreter can load

What is compared: TFLite Micro's head holds every non-persistent tensor — inputs, outputs,
activations — plus kernel scratch buffers, aligned to 16 bytes; memopt's arena holds the function
arguments (inputs), results and activations, aligned to ``--alignment``. Neither counts weights.
memopt has no scratch buffers (kernels are not modelled), uses ``memopt.view`` for reshapes (TFLite
Micro copies), and keeps resource variables off the arena (TFLite Micro: persistent tail).

    python bench/models.py [--cache DIR] [--alignment 16] [--only SUBSTR] [--budget SECONDS]

With ``--pictures DIR`` it renders instead, for every model, what ``memopt-report`` shows of the
plan ``memopt-opt --plan-memory --insert-dma`` makes of it: ``DIR/<model>.svg`` (layout,
live-bytes curve, DMA timeline) and ``DIR/<model>.txt`` (the summary), printing the seconds each
took.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import fnmatch
import io
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import zipfile

PACKAGES = [
    # (pip requirement, glob of the model files inside the wheel)
    ("mediapipe==0.10.21", "mediapipe/modules/*.tflite"),
    ("silero-vad", "silero_vad/data/silero_vad*.onnx"),
    ("pymicro-wakeword", "pymicro_wakeword/models/*.tflite"),
    ("openwakeword==0.5.1", "openwakeword/resources/models/*"),
]
INPUT_SHAPES = {
    # static shapes for symbolic graph inputs, by input name (one streaming frame, batch 1)
    "input": (1, 512),          # silero-vad: 512 samples at 16 kHz
    "state": (2, 1, 128),       # silero-vad v5 LSTM state
    "h": (2, 1, 64), "c": (2, 1, 64),  # silero-vad v4 (openwakeword's copy)
    "sr": (),
    "input_1": (1, 76, 32, 1),  # openwakeword embedding model: 76 mel frames
}
INPUT_SHAPES_BY_MODEL = {
    "melspectrogram.onnx": {"input": (1, 1280)},  # 80 ms of 16 kHz audio
    "melspectrogram.tflite": {"serving_default_input:0": (1, 1280)},
}


def fetch(cache: pathlib.Path) -> list[pathlib.Path]:
    """Download (once) and unzip the model packages; returns every model file."""
    wheels = cache / "wheels"
    models = cache / "models"
    wheels.mkdir(parents=True, exist_ok=True)
    out: list[pathlib.Path] = []
    for req, pattern in PACKAGES:
        dist = re.split(r"[=<>!]", req)[0].replace("-", "_").lower()
        version = req.split("==")[1] if "==" in req else None
        have = [w for w in wheels.glob("*.whl")
                if w.name.lower().startswith(dist + "-") and (version is None or f"-{version}-" in w.name)]
        if not have:
            print(f"# downloading {req} ...", file=sys.stderr)
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(wheels), req],
                           check=True)
            have = [w for w in wheels.glob("*.whl")
                    if w.name.lower().startswith(dist + "-") and (version is None or f"-{version}-" in w.name)]
        wheel = sorted(have)[-1]
        with zipfile.ZipFile(wheel) as z:
            for name in sorted(z.namelist()):
                if not (name.endswith(".onnx") or name.endswith(".tflite")):
                    continue
                if not fnmatch.fnmatch(name, pattern) and not fnmatch.fnmatch(name, pattern.replace("/*", "/**/*")):
                    continue
                target = models / name
                if not target.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(z.read(name))
                out.append(target)
    import onnx

    light = pathlib.Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
    out += sorted(light.glob("light_*.onnx"))
    return out


def input_shapes_for(path: pathlib.Path) -> dict[str, tuple[int, ...]]:
    """The table's shapes for the graph inputs of a model that need one."""
    if path.suffix == ".tflite":
        return _tflite_input_shapes(path)
    if path.suffix != ".onnx":
        return {}
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    table = dict(INPUT_SHAPES)
    table.update(INPUT_SHAPES_BY_MODEL.get(path.name, {}))
    shapes = {}
    for vi in model.graph.input:
        if vi.name in inits or vi.name not in table:
            continue
        dims = vi.type.tensor_type.shape.dim
        if any(not d.HasField("dim_value") for d in dims):
            shapes[vi.name] = table[vi.name]
    return shapes


def _tflite_input_shapes(path: pathlib.Path) -> dict[str, tuple[int, ...]]:
    """Every dynamic input of a TFLite model (-1 in its shape signature): the table's shape,
    else the file's placeholder shape (batch 1, as the converter wrote it)."""
    import tflite

    model = tflite.Model.GetRootAsModel(path.read_bytes(), 0)
    g = model.Subgraphs(0)
    table = INPUT_SHAPES_BY_MODEL.get(path.name, {})
    shapes = {}
    for i in g.InputsAsNumpy():
        t = g.Tensors(int(i))
        if t.ShapeSignatureLength() and (t.ShapeSignatureAsNumpy() < 0).any():
            name = t.Name().decode()
            shapes[name] = table.get(name, tuple(int(d) for d in t.ShapeAsNumpy()))
    return shapes


# --------------------------------------------------------------------------- TFLite Micro


def tflm_head(path: pathlib.Path) -> str:
    """TFLite Micro's arena head for a model, measured in a child process (a crash there cannot
    take the benchmark down): the number, or a short reason."""
    try:
        proc = subprocess.run([sys.executable, __file__, "--tflm-child", str(path)],
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "timeout"
    m = re.search(r"Arena allocation head (\d+) bytes", proc.stdout)
    if m:
        return m.group(1)
    err = (proc.stderr.strip().splitlines() or ["crashed"])[-1]
    return "n/a: " + err[:60]


def tflm_child(path: str) -> int:
    """Load ``path`` in TFLite Micro and print its allocations (the C++ side writes to fds 1/2,
    captured with ``os.dup2`` into a temporary file)."""
    from tflite_micro.python.tflite_micro import runtime

    libc = ctypes.CDLL(None)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = [os.dup(1), os.dup(2)]  # MicroPrintf writes to stderr on host builds
        os.dup2(tmp.fileno(), 1)
        os.dup2(tmp.fileno(), 2)
        error = None
        try:
            interp = runtime.Interpreter.from_file(path, arena_size=256 * 1024 * 1024)
            interp.print_allocations()
        except Exception as e:  # unsupported op, allocation failure...
            error = f"{type(e).__name__}: {e}"
        finally:
            libc.fflush(None)
            for fd, copy in zip((1, 2), saved):
                os.dup2(copy, fd)
                os.close(copy)
        tmp.seek(0)
        text = tmp.read().decode("utf-8", "replace")
    sys.stdout.write(text)
    if error:
        sys.stderr.write(" ".join(error.split()) + "\n")
        return 1
    return 0


# --------------------------------------------------------------------------- memopt


def plan_model(path: pathlib.Path, alignment: int, budget: float | None, execute: bool, stream: bool = True):
    from xdsl.context import Context
    from xdsl.dialects import func

    from memopt.executor import check_module
    from memopt.importers.api import import_model
    from memopt.passes.lifetime import analyze_function
    from memopt.passes.plan_function import plan_function_memory
    from memopt.passes.plan_memory import PlanMemoryPass
    from memopt.passes.verify_plan import VerifyPlanPass
    from memopt.planning import align_up, make_strategy, strategy_names

    t0 = time.perf_counter()
    r = import_model(str(path), input_shapes_for(path))
    t_import = time.perf_counter() - t0
    f = next(op for op in r.module.walk() if isinstance(op, func.FuncOp))
    p = analyze_function(f, mode="joint", inplace=True, alignment=alignment).problem
    row = {
        "ops": r.ops, "tensors": r.tensors,
        "naive": sum(align_up(b.size, alignment) for b in p.buffers),
        "import s": t_import,
        "ifs": sum(1 for op in r.module.walk() if op.name in ("memopt.if", "memopt.loop")),
    }
    for name in strategy_names():
        if name == "search" and budget is None:
            continue
        kwargs = {"budget": budget} if budget is not None and name in ("search", "best") else {}
        t1 = time.perf_counter()
        # exactly what plan-memory does (default control-flow=joint), validated inside
        fp = plan_function_memory(f, make_strategy(name, **kwargs), inplace=True, alignment=alignment)
        dt = time.perf_counter() - t1
        row[name] = fp.solution.height
        row["LB"], row["LB-inplace"] = fp.lower_bound, fp.lower_bound_inplace
        if name == "best":
            row["plan s"] = dt
            row["best by"] = fp.solution.strategy
    # the passes themselves, as memopt-opt runs them (plan written to the IR, then re-verified),
    # and the plan proven by execution: planned vs unplanned, bit for bit
    PlanMemoryPass(alignment=alignment, budget=budget).apply(Context(), r.module)
    VerifyPlanPass().apply(Context(), r.module)
    row["exec"] = "-"
    if execute:
        t2 = time.perf_counter()
        check_module(r.module, dma_landings=("start",))
        row["exec"] = f"ok {time.perf_counter() - t2:.1f}s"
    row["ring"] = "-"
    if stream:
        # The planned module with its weights streamed through insert-dma{ring=auto}: the
        # schedule re-verified (verify-plan's DMA checks) and, with execute, proven by execution.
        from memopt.dialects.memopt import DmaBufferOp
        from memopt.passes.insert_dma import InsertDmaPass

        m = r.module.clone()
        with contextlib.redirect_stderr(io.StringIO()):  # ring=auto's remarks
            InsertDmaPass(ring="auto").apply(Context(), m)
        VerifyPlanPass().apply(Context(), m)
        ring = sum(b.size.value.data for b in m.walk() if isinstance(b, DmaBufferOp))
        if execute and ring:
            check_module(m, dma_landings=("start", "wait"))
        row["ring"] = f"ok {ring / 1024:.0f} KiB" if ring else "no weights"
    row["warnings"] = r.warnings
    return row


def picture_model(path: pathlib.Path, out_dir: pathlib.Path, label: str, alignment: int) -> str:
    """Plan ``path`` as ``memopt-opt --plan-memory --insert-dma`` does and render its report."""
    from xdsl.context import Context

    from memopt.importers.api import import_model
    from memopt.passes.insert_dma import InsertDmaPass
    from memopt.passes.plan_memory import PlanMemoryPass
    from memopt.planning.latency import Target
    from memopt.report.figures import render
    from memopt.report.from_ir import plan_view
    from memopt.report.summary import summary_text

    r = import_model(str(path), input_shapes_for(path))
    PlanMemoryPass(alignment=alignment).apply(Context(), r.module)
    with contextlib.redirect_stderr(io.StringIO()):
        InsertDmaPass().apply(Context(), r.module)
    t0 = time.perf_counter()
    view = plan_view(r.module, label, Target())
    stem = label.replace("/", "__")
    (out_dir / f"{stem}.txt").write_text(summary_text(view))
    fv = max(view.functions, key=lambda f: f.arena_size)
    (out_dir / f"{stem}.svg").write_bytes(render(view, fv, "svg"))
    return f"{len(fv.tensors)} tensors, arena {fv.arena_size} B, rendered in {time.perf_counter() - t0:.2f} s"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/memopt-models"))
    ap.add_argument("--alignment", type=int, default=16)
    ap.add_argument("--only", default=None, metavar="SUBSTR", help="only models whose path contains SUBSTR")
    ap.add_argument("--budget", type=float, default=None, help="seconds for anytime strategies (search)")
    ap.add_argument("--no-tflm", action="store_true", help="skip TFLite Micro")
    ap.add_argument("--no-exec", action="store_true", help="skip memopt-run --check (execution proof)")
    ap.add_argument("--no-dma", action="store_true", help="skip the insert-dma{ring=auto} column")
    ap.add_argument("--pictures", default=None, metavar="DIR", help="render every model's plan report into DIR instead")
    ap.add_argument("--tflm-child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.tflm_child:
        return tflm_child(args.tflm_child)

    from memopt.importers.common import ModelImportError
    from memopt.planning import strategy_names

    models = fetch(pathlib.Path(args.cache))
    if args.only:
        models = [m for m in models if args.only in str(m)]
    if args.pictures:
        out_dir = pathlib.Path(args.pictures)
        out_dir.mkdir(parents=True, exist_ok=True)
        for path in models:
            label = path.name
            with contextlib.suppress(ValueError):
                label = str(path.relative_to(pathlib.Path(args.cache) / "models")).split("/")[0] + "/" + path.name
            try:
                print(f"{label}: {picture_model(path, out_dir, label, args.alignment)}")
            except (ModelImportError, Exception) as e:  # noqa: BLE001 - report, keep going
                print(f"{label}: error: {type(e).__name__}: {' '.join(str(e).split())[:120]}")
            sys.stdout.flush()
        return 0
    names = [n for n in strategy_names() if n != "best" and (n != "search" or args.budget is not None)]
    cols = ["ops", "tensors", "naive", "LB", "LB-inplace", *names, "best", "best/LBi", "plan s", "TFLM head",
            "best<=TFLM", "verify+exec", "ring=auto"]
    print(f"# alignment {args.alignment}; control-flow joint; in-place on; heights in bytes")
    print("| model | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * len(cols))
    notes = []
    totals = {"models": 0, "at_lb": 0, "tflm": 0, "le_tflm": 0}
    for path in models:
        label = path.name
        with contextlib.suppress(ValueError):
            label = str(path.relative_to(pathlib.Path(args.cache) / "models")).split("/")[0] + "/" + path.name
        try:
            row = plan_model(path, args.alignment, args.budget, not args.no_exec, not args.no_dma)
        except ModelImportError as e:
            print(f"| {label} | import error: {e} |")
            continue
        except Exception as e:  # noqa: BLE001 - report, keep going
            print(f"| {label} | error: {type(e).__name__}: {' '.join(str(e).split())[:120]} |")
            continue
        totals["models"] += 1
        tflm = tflm_head(path) if path.suffix == ".tflite" and not args.no_tflm else "-"
        le = "-"
        if tflm.isdigit():
            totals["tflm"] += 1
            le = "yes" if row["best"] <= int(tflm) else "NO"
            totals["le_tflm"] += le == "yes"
        if row["best"] - row["LB-inplace"] <= args.alignment:
            totals["at_lb"] += 1
        ratio = row["best"] / row["LB-inplace"] if row["LB-inplace"] else 1.0
        cells = [row["ops"], row["tensors"], row["naive"], row["LB"], row["LB-inplace"], *[row[n] for n in names],
                 row["best"], f"{ratio:.3f}", f"{row['plan s']:.3f}", tflm, le, row["exec"], row["ring"]]
        print(f"| {label} | " + " | ".join(str(c) for c in cells) + " |")
        for w in row["warnings"]:
            notes.append(f"{label}: {w[:200]}")
        sys.stdout.flush()
    print()
    streamed = "" if args.no_dma else " (also after insert-dma{ring=auto})"
    print(f"# {totals['models']} models planned, verified and executed{streamed}; "
          f"best within one alignment unit of "
          f"LB-inplace on {totals['at_lb']}; "
          f"TFLite Micro ran {totals['tflm']}, best <= TFLM head on {totals['le_tflm']} of them")
    for n in notes:
        print(f"# note: {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
