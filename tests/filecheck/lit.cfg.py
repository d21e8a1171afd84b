# -*- Python -*-
# lit configuration for memopt FileCheck tests.
# Run from the repository root with the virtualenv's bin on PATH:
#   PATH="$PWD/.venv/bin:$PATH" lit -v tests/filecheck
import os

import lit.formats

config.name = "memopt"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.excludes = ["lit.cfg.py", "Inputs"]

# memopt-opt, memopt-pack and filecheck are looked up on the caller's PATH
# (put the project's virtualenv bin directory on it).
config.environment["PATH"] = os.environ["PATH"]
for var in ("HOME", "PYTHONPATH", "VIRTUAL_ENV", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

_repo_root = os.path.dirname(os.path.dirname(config.test_source_root))
# minimalloc's and idealloc's benchmark traces, vendored with their licences (bench/data/NOTICE).
config.substitutions.append(("%data", os.path.join(_repo_root, "bench", "data")))
config.substitutions.append(("%examples", os.path.join(_repo_root, "examples")))
# `%timeout` bounds a command that once hung (a test then fails instead of stalling the suite);
# empty where coreutils' timeout is missing.
import shutil  # noqa: E402

config.substitutions.append(("%timeout", "timeout 120" if shutil.which("timeout") else ""))

# Upstream MLIR (iree-opt from the PyPI package iree-base-compiler, in the test extra) verifies
# what memopt emits on upstream IR; tests that need it say `REQUIRES: iree-opt`.

if shutil.which("iree-opt", path=config.environment["PATH"]):
    config.available_features.add("iree-opt")

# TFLite's runtime (ai-edge-litert, a dependency where it has wheels) sizes the tensors of TFLite
# models with dynamic dimensions; tests that import such a model say `REQUIRES: tflite-runtime`.
import importlib.util  # noqa: E402

if importlib.util.find_spec("ai_edge_litert") or importlib.util.find_spec("tflite_runtime"):
    config.available_features.add("tflite-runtime")
