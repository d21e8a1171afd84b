"""Determinism: the same pipeline on the same input gives byte-identical output, whatever the
process's hash seed (set iteration order, ``hash()`` of strings) -- and so does ``memopt-run``.

The tools run as subprocesses because PYTHONHASHSEED is fixed when an interpreter starts.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from memopt.executor.graphgen import GenConfig, generate

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
HASH_SEEDS = ("1", "4242")


def run(argv: list[str], hash_seed: str) -> tuple[int, bytes, bytes]:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    p = subprocess.run(argv, capture_output=True, env=env, timeout=120)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> list[Path]:
    d = tmp_path_factory.mktemp("det")
    fuzzed = d / "fuzzed.mlir"
    fuzzed.write_text(generate(random.Random(11), GenConfig(max_ops=14, max_depth=3, dma=True)))
    return [ROOT / "examples" / "chain.mlir", ROOT / "tests/filecheck/run/semantics.mlir", fuzzed]


PIPELINES = [
    "plan-memory",
    "insert-dma,plan-memory{strategy=megengine control-flow=merge alignment=64},verify-plan",
    "plan-memory{strategy=nnvm control-flow=serial alignment=1 export=\"EXPORT\"},verify-plan",
    "plan-memory,insert-dma{ring=auto mode=auto},verify-plan",
]


def test_pipelines_are_byte_identical_across_hash_seeds(inputs, tmp_path):
    jobs = []
    for i, path in enumerate(inputs):
        for k, pipeline in enumerate(PIPELINES):
            for seed in HASH_SEEDS:
                export = tmp_path / f"plan-{i}-{k}-{seed}.csv"
                jobs.append(((i, k, seed), export,
                             [str(BIN / "memopt-opt"), str(path), "-p", pipeline.replace("EXPORT", str(export))]))
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = dict(zip([j[0] for j in jobs], pool.map(lambda j: run(j[2], j[0][2]), jobs)))
    for i, path in enumerate(inputs):
        for k, pipeline in enumerate(PIPELINES):
            (c1, o1, e1), (c2, o2, e2) = (results[(i, k, s)] for s in HASH_SEEDS)
            assert c1 == c2 == 0, (path, pipeline, e1, e2)
            assert o1 == o2, f"{path.name} | {pipeline}: output depends on PYTHONHASHSEED"
            assert e1 == e2
            assert b"memopt.plan = #memopt.plan<" in o1
            if "EXPORT" in pipeline:
                csv = [(tmp_path / f"plan-{i}-{k}-{s}.csv").read_bytes() for s in HASH_SEEDS]
                assert csv[0] == csv[1] and csv[0].startswith(b"id,lower,upper,size,offset")


def test_memopt_run_is_byte_identical_across_hash_seeds(inputs, tmp_path):
    planned = tmp_path / "planned.mlir"
    code, out, err = run([str(BIN / "memopt-opt"), str(inputs[2]), "--plan-memory", "-o", str(planned)], "0")
    assert code == 0, err
    outs = [run([str(BIN / "memopt-run"), str(planned), "--planned", "--seed", "3"], s) for s in HASH_SEEDS]
    assert outs[0][0] == 0 and outs[0] == outs[1]
    assert outs[0][1].startswith(b"@main result #0 : ")


def test_in_process_replanning_is_identical():
    """Planning the same program twice in one process (caches, registries warm) prints the same."""
    from io import StringIO

    from xdsl.printer import Printer

    from memopt.fuzz import _CTX, parse
    from memopt.passes.plan_memory import PlanMemoryPass

    def planned(text: str, **opts) -> str:
        m = parse(text)
        PlanMemoryPass(**opts).apply(_CTX, m)
        out = StringIO()
        Printer(stream=out).print_op(m)
        return out.getvalue()

    for seed in range(8):
        text = generate(random.Random(seed), GenConfig(dma=seed % 2 == 0))
        for opts in ({}, {"strategy": "megengine", "control_flow": "merge"}, {"strategy": "nnvm"}):
            assert planned(text, **opts) == planned(text, **opts)
