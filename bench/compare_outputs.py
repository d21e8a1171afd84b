#!/usr/bin/env python3
"""Record what memopt's commands print, to check that a refactoring changes no behaviour.

    bench/compare_outputs.py OUT_DIR [--tree DIR] [--jobs N] [--only SUBSTRING]

Run it before and after a change into two directories, then ``diff -r BEFORE AFTER``: the diff
must be empty. ``--tree`` names the source tree to run (default: the one this file is in), e.g.
a ``git archive`` of a commit, so that edits others have in the working tree meanwhile do not
show up in the comparison: its ``memopt`` package is put first on ``PYTHONPATH`` (laid out as
``pyproject.toml``'s ``package-dir`` says), ahead of whatever the virtualenv installed, and the
inputs are the tree's. What it runs, each unit written to its own file under ``OUT_DIR`` (so the order
of the files' contents never depends on which unit finished first):

* ``filecheck/<test>.txt``: every lit test of ``tests/filecheck`` (``.mlir`` and ``.test``, not
  ``Inputs/``), its ``RUN:`` lines in order, ``%s %S %p %t %T %data %examples %%`` substituted,
  in a scratch directory of its own. Each line is split into ``&&`` commands and ``|`` stages,
  ``not`` is dropped (the exit status is recorded instead) and every ``filecheck`` stage is cut
  off with what follows it. A command that runs ``memopt-opt``, ``memopt-pack`` or ``memopt-run``
  (the executor's verdicts and messages) is recorded: its stdout, stderr, exit status and the
  contents of every scratch file it wrote or changed.
  The others (``sed``, ``printf``, ``memopt-import`` ... that make inputs for later lines) run
  unrecorded; a command left empty (a bare ``filecheck``) is skipped.
* ``examples/<name>.txt``: every ``examples/*.mlir`` through each of :data:`EXAMPLE_PIPELINES`.
* ``pack/<input>.<strategy>.txt``: every packing input (``bench/data/**/*.csv``,
  ``tests/**/Inputs/*.csv``) through ``memopt-pack --stats``, once with the default strategy
  and once with ``--strategy search --budget 60``, the latter at the capacity the file's name
  carries (minimalloc's ``A.1048576.csv``), where the search stops as soon as it fits: without
  a capacity it would run until its work cap, and on a loaded machine the wall clock could end
  it first, making two runs differ.

Filtered, because they are wall-clock time: ``seconds=<number>`` (``memopt-pack --stats``). The
tree's path and each scratch directory's are written as ``<repo>`` and ``<tmp>``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
"""The source tree that runs (``--tree``)."""
BIN = Path(sys.executable).parent
LAYOUT: Path | None = None
"""A directory holding the tree's ``memopt`` package, first on the commands' ``PYTHONPATH``."""
TIMEOUT = 900
"""Seconds one command may take before it is recorded as timed out."""

RECORDED = ("memopt-opt", "memopt-pack", "memopt-run")
"""A command that runs one of these is recorded; the others only prepare inputs."""

EXAMPLE_PIPELINES = (
    ("--plan-memory", "--insert-dma", "--dce", "--verify-plan", "--summary"),
    ("-p", "plan-memory{strategy=search},verify-plan", "--summary"),
    ("-p", "plan-memory{strategy=large-first},insert-dma{mode=always},report-latency"),
    ("-p", "insert-dma,report-latency"),
    ("-p", "insert-dma{buffers=3},plan-memory,report-latency", "--summary"),
    ("-p", "insert-dma{ring=auto},plan-memory,verify-plan", "--summary"),
    ("-p", "plan-memory{capacity=10000 spill=auto},verify-plan", "--summary"),
    ("--lower-to-memref", "--plan-memory", "--insert-dma"),
)
"""The pass pipelines every example runs through (the README's among them)."""

SEARCH_BUDGET = "60"

_WALL_CLOCK = (re.compile(r"seconds=[0-9.]+"), "seconds=<filtered>")


# ------------------------------------------------------------------------------- running


def _snapshot(scratch: Path) -> dict[str, str]:
    """Every file under ``scratch``: its content's digest."""
    out = {}
    for p in sorted(scratch.rglob("*")):
        if p.is_file():
            out[str(p.relative_to(scratch))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _clean(text: str, scratch: Path) -> str:
    text = text.replace(str(scratch), "<tmp>").replace(str(LAYOUT), "<layout>").replace(str(REPO), "<repo>")
    pattern, replacement = _WALL_CLOCK
    return pattern.sub(replacement, text)


def _file_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return f"<{len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}>\n"


def run(command: str, scratch: Path, record: bool) -> str:
    """Run ``command`` with bash (pipefail) in ``scratch``; its record, or '' when not recorded."""
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
               PYTHONPATH=str(LAYOUT), PYTHONDONTWRITEBYTECODE="1")
    before = _snapshot(scratch) if record else {}
    try:
        done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=scratch, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT)
        stdout, stderr, status = done.stdout, done.stderr, str(done.returncode)
    except subprocess.TimeoutExpired as e:
        stdout, stderr, status = e.stdout or b"", e.stderr or b"", f"timeout after {TIMEOUT} s"
    if not record:
        return ""
    parts = [f"$ {command}", "--- stdout", stdout.decode("utf-8", "replace"),
             "--- stderr", stderr.decode("utf-8", "replace"), f"--- exit {status}"]
    after = _snapshot(scratch)
    for name, digest in after.items():
        if before.get(name) != digest:
            parts += [f"--- wrote {name}", _file_text(scratch / name)]
    return _clean("\n".join(parts), scratch) + "\n"


# --------------------------------------------------------------------------- lit RUN lines


def run_lines(text: str) -> list[str]:
    """The ``RUN:`` commands of a lit test, continuation lines (``\\``) joined."""
    out: list[str] = []
    pending = ""
    for line in text.splitlines():
        m = re.search(r"(?:^|\W)RUN:(.*)$", line)
        if m is None:
            continue
        body = m.group(1).strip()
        if body.endswith("\\"):
            pending += body[:-1] + " "
            continue
        out.append((pending + body).strip())
        pending = ""
    return out


def substitute(command: str, test: Path, tmp: str) -> str:
    """lit's substitutions, as ``tests/filecheck/lit.cfg.py`` and lit itself define them."""
    values = {"%data": str(REPO / "bench" / "data"), "%examples": str(REPO / "examples"),
              "%s": str(test), "%S": str(test.parent), "%p": str(test.parent),
              "%t": tmp, "%T": str(Path(tmp).parent), "%%": "%"}
    return re.sub(r"%(data|examples|[sSptT%])", lambda m: values[m.group(0)], command)


def _split(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside quotes (``|`` not where it is part of ``||``)."""
    parts, cur, quote, i = [], "", None, 0
    while i < len(text):
        c = text[i]
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif text.startswith(sep, i) and not (sep == "|" and "|" in (text[i - 1:i], text[i + 1:i + 2])):
            parts.append(cur)
            cur, i = "", i + len(sep)
            continue
        cur += c
        i += 1
    return parts + [cur]


def _without_not(stage: str) -> str:
    stage = stage.strip()
    while re.match(r"not(\s+--crash)?\s", stage):
        stage = re.sub(r"^not(\s+--crash)?\s+", "", stage)
    return stage


def commands(line: str) -> list[str]:
    """A RUN line's commands: ``not`` dropped, each pipeline cut at its first ``filecheck``."""
    out = []
    for command in _split(line, "&&"):
        stages = []
        for stage in _split(command, "|"):
            stage = _without_not(stage)
            if re.match(r"filecheck\b|FileCheck\b", stage):
                break
            stages.append(stage)
        if stages and stages[0]:
            out.append(" | ".join(stages))
    return out


def lit_tests() -> list[Path]:
    root = REPO / "tests" / "filecheck"
    return sorted(p for p in root.rglob("*") if p.suffix in (".mlir", ".test") and p.is_file()
                  and "Inputs" not in p.relative_to(root).parts and "Output" not in p.relative_to(root).parts)


def record_lit_test(test: Path, out: Path) -> None:
    with tempfile.TemporaryDirectory() as d:
        scratch = Path(d)
        tmp = str(scratch / "Output" / (test.name + ".tmp"))
        (scratch / "Output").mkdir()
        parts = []
        for line in run_lines(test.read_text(encoding="utf-8")):
            for command in commands(substitute(line, test, tmp)):
                record = any(re.search(rf"(^|[\s/]){tool}\b", command) for tool in RECORDED)
                parts.append(run(command, scratch, record))
    _write(out, "".join(parts))


# ------------------------------------------------------------------------- examples, packing


def record_example(example: Path, out: Path) -> None:
    with tempfile.TemporaryDirectory() as d:
        parts = [run(shlex.join(["memopt-opt", str(example), *pipeline]), Path(d), True)
                 for pipeline in EXAMPLE_PIPELINES]
    _write(out, "".join(parts))


def pack_inputs() -> list[Path]:
    inputs = list((REPO / "bench" / "data").rglob("*.csv"))
    inputs += [p for p in (REPO / "tests").rglob("*.csv") if "Inputs" in p.parts]
    return sorted(inputs)


def capacity_of(csv: Path) -> str | None:
    """The capacity a packing input's name carries (``A.1048576.csv``), if any."""
    m = re.search(r"\.(\d+)\.csv$", csv.name)
    return m.group(1) if m else None


def record_pack(csv: Path, strategy: str, out: Path) -> None:
    command = f"memopt-pack {csv} --stats"
    if strategy == "search":
        command += f" --strategy search --budget {SEARCH_BUDGET}"
        cap = capacity_of(csv)
        if cap is not None:
            command += f" --capacity {cap}"
    with tempfile.TemporaryDirectory() as d:
        _write(out, run(command, Path(d), True))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# ------------------------------------------------------------------------------------ main


def units(out: Path) -> list[tuple[str, object]]:
    """(name, job) for every unit, each job writing its own file under ``out``."""
    jobs: list[tuple[str, object]] = []
    for test in lit_tests():
        rel = test.relative_to(REPO / "tests" / "filecheck")
        jobs.append((f"filecheck/{rel}", lambda t=test, r=rel: record_lit_test(t, out / "filecheck" / f"{r}.txt")))
    for example in sorted((REPO / "examples").glob("*.mlir")):
        jobs.append((f"examples/{example.name}",
                     lambda e=example: record_example(e, out / "examples" / f"{e.name}.txt")))
    for csv in pack_inputs():
        rel = csv.relative_to(REPO)
        for strategy in ("default", "search"):
            jobs.append((f"pack/{rel}.{strategy}",
                         lambda c=csv, r=rel, s=strategy: record_pack(c, s, out / "pack" / f"{r}.{s}.txt")))
    return jobs


def lay_out(tree: Path, where: Path) -> Path:
    """``where/memopt``: the tree's ``memopt`` package with its sub-packages, as links."""
    line = re.search(r"^package-dir\s*=\s*\{(.*)\}", (tree / "pyproject.toml").read_text(), re.M)
    package_dir = dict(re.findall(r'"([\w.]+)"\s*=\s*"([^"]+)"', line.group(1)))
    root = where / "memopt"
    root.mkdir(parents=True)
    subpackages = {name.split(".", 1)[1]: folder for name, folder in package_dir.items() if name != "memopt"}
    for entry in (tree / package_dir["memopt"]).iterdir():
        if entry.name not in subpackages:  # a tree may link them in memopt/ itself: linked below
            (root / entry.name).symlink_to(entry)
    for name, folder in subpackages.items():
        (root / name).symlink_to(tree / folder)
    return where


def main(argv: list[str] | None = None) -> int:
    global REPO, LAYOUT
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="directory to write the outputs to (emptied first)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="units run at once")
    p.add_argument("--only", default="", help="only the units whose name contains this")
    p.add_argument("--tree", type=Path, default=REPO, help="the source tree to run (default: this one)")
    args = p.parse_args(argv)
    REPO = args.tree.resolve()
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    todo = [(name, job) for name, job in units(args.out.resolve()) if args.only in name]
    with tempfile.TemporaryDirectory() as layout, ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        LAYOUT = lay_out(REPO, Path(layout))
        for name, _ in zip([n for n, _ in todo], pool.map(lambda nj: nj[1](), todo)):
            print(name, flush=True)
    print(f"{len(todo)} units written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
