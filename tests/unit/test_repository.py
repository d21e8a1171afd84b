"""The repository stands alone and speaks of real systems.

A user's clone has nothing beside it, so no tracked file may point outside the repository, and
user-facing text names the systems memopt reproduces (MegEngine, NNVM/TVM, the LUNA paper, DTR,
MindSpore) rather than internal document numbers that users do not have.
"""

from __future__ import annotations

import pathlib
import re
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
TEXT_SUFFIXES = {".py", ".md", ".mlir", ".test", ".toml", ".cfg", ".txt", ".csv", ""}
# Spelled in pieces so that this file does not match its own patterns.
OUTSIDE = re.compile(r"\.\./" + "shared")
DOC_NUMBER = re.compile(r"\bseed[ _]?0\d\d\b|\bseeds?/0\d\d_", re.IGNORECASE)


def tracked_files() -> list[pathlib.Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
        names = out.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [REPO / n for n in names if (REPO / n).suffix in TEXT_SUFFIXES and (REPO / n).is_file()]


def test_nothing_points_outside_the_repository():
    bad = [f"{p.relative_to(REPO)}:{i}" for p in tracked_files()
           for i, line in enumerate(p.read_text(errors="replace").splitlines(), 1) if OUTSIDE.search(line)]
    assert bad == []


def test_no_absolute_machine_paths_in_test_config():
    text = (REPO / "tests" / "filecheck" / "lit.cfg.py").read_text()
    assert "/work/" not in text and "/home/" not in text


def test_systems_are_named_not_numbered():
    bad = [f"{p.relative_to(REPO)}:{i}: {line.strip()}" for p in tracked_files()
           for i, line in enumerate(p.read_text(errors="replace").splitlines(), 1) if DOC_NUMBER.search(line)]
    assert bad == []


def test_vendored_benchmark_data_has_its_licences():
    data = REPO / "bench" / "data"
    notice = (data / "NOTICE").read_text()
    assert "Apache License, Version 2.0" in notice and "MIT License" in notice
    assert sorted(p.name for p in (data / "minimalloc").glob("*.csv"))[:6] == [
        f"{c}.1048576.csv" for c in "ABCDEF"
    ]
    assert len(list((data / "idealloc").glob("*.csv"))) == 5
