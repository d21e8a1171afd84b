#!/usr/bin/env python3
"""Follow one small program through ``memopt-opt`` and count how far the path wanders.

    bench/trace_calls.py [TREE ...]

Runs ``memopt-opt --plan-memory --insert-dma tests/filecheck/dma/Inputs/chain.mlir`` (each TREE's
own copy of the input; default TREE: this repository) in-process under ``sys.setprofile`` and
``threading.setprofile``, one fresh process per tree, the tree's ``memopt`` package laid out
first on the path as ``bench/compare_outputs.py`` lays it out, and prints one column per tree:

* **files entered**: the distinct source files of the tree's package (the folders
  ``pyproject.toml``'s ``package-dir`` names; tests, benchmarks and libraries are not) in which at least one function was
  called while ``main`` ran (module bodies run by an import are not calls and do not count);
* **returns into a file already left**: ``return`` events of a function of the tree whose
  caller is a function of the tree in another file — each time control goes back to a file the
  path had left to call into another one;
* **calls**: how often each of a few functions that read or build the plan ran (a name the
  tree does not define prints as ``absent``).

Only ``tools/opt.py`` is imported before the count starts; what ``main`` imports lazily counts
as it runs (its module bodies do not).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ARGS = ("--plan-memory", "--insert-dma", "tests/filecheck/dma/Inputs/chain.mlir")
NAMES = ("check_options", "make_strategy", "planned_arenas", "stage_layout", "weight_uses")
"""The functions whose calls are counted."""
DEFINITIONS = (
    "files entered: distinct files of the tree with at least one function call (module bodies excluded)",
    "returns into a file already left: return events of a tree function whose caller is a tree function "
    "in another file",
    "calls: call events of the function of that name in the tree's files ('absent': the tree defines none)",
)


def measure(tree: Path) -> dict:
    """Run ``memopt-opt`` on the tree's input in this process and count (see module docstring)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from compare_outputs import lay_out  # the layout the byte-for-byte comparison runs

    layout = Path(tempfile.mkdtemp())
    lay_out(tree, layout)
    sys.path.insert(0, str(layout))
    from memopt.tools import opt  # noqa: E402 - the tree's, first on the path

    root = str(tree.resolve()) + os.sep
    folders = tuple(root + folder + os.sep for folder in _package_folders(tree))
    real: dict[str, str | None] = {}

    def ours(filename: str) -> str | None:
        if filename not in real:
            path = os.path.realpath(filename)
            real[filename] = path[len(root):] if path.startswith(folders) else None
        return real[filename]

    entered: set[str] = set()
    calls = dict.fromkeys(NAMES, 0)
    returns = 0

    def profile(frame, event, _arg):
        nonlocal returns
        if event not in ("call", "return") or frame.f_code.co_name == "<module>":
            return
        here = ours(frame.f_code.co_filename)
        if here is None:
            return
        if event == "call":
            entered.add(here)
            if frame.f_code.co_name in calls:
                calls[frame.f_code.co_name] += 1
            return
        back = frame.f_back
        if back is not None and back.f_code.co_name != "<module>":
            there = ours(back.f_code.co_filename)
            if there is not None and there != here:
                returns += 1

    os.chdir(tree)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        threading.setprofile(profile)
        sys.setprofile(profile)
        try:
            status = opt.main(list(ARGS))
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]
    defined = _defined(tree)
    return {
        "tree": str(tree), "status": status, "stderr": err.getvalue().strip(), "files": len(entered),
        "returns": returns, "calls": {n: (calls[n] if n in defined else None) for n in NAMES},
    }


def _package_folders(tree: Path) -> list[str]:
    """The tree's folders that make up the installed package (``pyproject.toml``'s ``package-dir``)."""
    line = re.search(r"^package-dir\s*=\s*\{(.*)\}", (tree / "pyproject.toml").read_text(), re.M)
    assert line is not None, f"{tree}/pyproject.toml has no package-dir"
    return sorted(set(re.findall(r'"[\w.]+"\s*=\s*"([^"]+)"', line.group(1))))


def _defined(tree: Path) -> set[str]:
    """Which of :data:`NAMES` some Python file of the tree's package folders defines."""
    found: set[str] = set()
    for folder in _package_folders(tree):
        for path in (tree / folder).rglob("*.py"):
            text = path.read_text(errors="replace")
            found |= {n for n in NAMES if f"def {n}(" in text}
    return found


def table(results: list[dict]) -> str:
    """One column per tree."""
    rows = [("tree", [r["tree"] for r in results]),
            ("exit status", [str(r["status"]) for r in results]),
            ("files entered", [str(r["files"]) for r in results]),
            ("returns into a file already left", [str(r["returns"]) for r in results])]
    for n in NAMES:
        rows.append((f"calls of {n}", ["absent" if r["calls"][n] is None else str(r["calls"][n]) for r in results]))
    width = max(len(label) for label, _ in rows)
    cols = [max(len(cells[k]) for _, cells in rows) for k in range(len(results))]
    lines = [f"{label:<{width}}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cells, cols)) for label, cells in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("trees", nargs="*", type=Path, help="source trees to measure (default: this one)")
    p.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # measure one tree here, print JSON
    args = p.parse_args(argv)
    if args.one is not None:
        print(json.dumps(measure(args.one.resolve())))
        return 0
    results = []
    for tree in args.trees or [REPO]:
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        env.pop("PYTHONPATH", None)
        done = subprocess.run([sys.executable, __file__, "--one", str(tree.resolve())], env=env,
                              capture_output=True, text=True)
        if done.returncode:
            print(f"trace_calls: error: {tree}: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            return 1
        results.append(json.loads(done.stdout))
    print(f"memopt-opt {' '.join(ARGS)}")
    print(table(results))
    for r in results:
        if r["status"]:
            print(f"{r['tree']}: memopt-opt exited {r['status']}: {r['stderr']}")
    print("definitions:")
    for d in DEFINITIONS:
        print(f"  {d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
