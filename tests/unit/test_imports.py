"""memopt's import contracts hold: ``lint-imports`` with ``[tool.importlinter]`` of pyproject.toml.

The contracts: the layers (planning <- dialects <- diagnostics <- passes, executor, importers,
report <- api, fuzz <- cli <- tools), no library module importing a tool or the tools' plumbing,
no import cycle anywhere, and a plan's attribute names and decoder imported by the plan's
writers and readers only. Imports inside functions count (grimp reads them), so a deferred
import can hide neither a cycle nor an upward dependency; the second test keeps that true.

import-linter finds a package's modules by walking its folder, and memopt's subpackages are the
repository's top-level folders (pyproject's ``package-dir``): ``memopt/`` links each of them, so
plain ``lint-imports`` in the repository sees the package as installed (the first test runs it
there; the third keeps the links complete). The tests that break a contract on purpose run on a
scratch tree that lays the package out the same way, by links to the sources.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter")  # the test extra installs it on Python >= 3.11, as tomllib
import tomllib  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"


def _layout(tree: Path) -> Path:
    """``tree/memopt``: memopt's modules and subpackages as installed, each a link to its source."""
    package_dir = tomllib.loads(PYPROJECT.read_text())["tool"]["setuptools"]["package-dir"]
    top = tree / "memopt"
    top.mkdir()
    for source in (ROOT / package_dir["memopt"]).glob("*.py"):
        (top / source.name).symlink_to(source)
    for name, folder in sorted(package_dir.items()):
        if name != "memopt":
            (tree / Path(*name.split("."))).symlink_to(ROOT / folder, target_is_directory=True)
    return top


def _lint_imports(tree: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` run in ``tree`` (so its ``memopt`` is the one found), without a cache."""
    return subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()",
         str(PYPROJECT), "--no-cache", "--no-logo"],
        cwd=tree, capture_output=True, text=True, timeout=120,
    )


CYCLES = """
import grimp

graph = grimp.build_graph("memopt", cache_dir=None)
for module in sorted(graph.modules):
    for imported in sorted(graph.find_modules_directly_imported_by(module)):
        back = graph.find_shortest_chain(importer=imported, imported=module)
        if back:
            print(module, "->", " -> ".join(back))
"""
"""Every module that imports itself through others, with the chain back: what the ``acyclic``
contract misses, a module and its own package's ``__init__`` (not siblings) importing each other."""


def _cycles(tree: Path) -> str:
    run = subprocess.run([sys.executable, "-c", CYCLES], cwd=tree, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_import_contracts_hold():
    """Plain ``lint-imports`` in the repository, as ``.ci/run`` runs it."""
    run = _lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Contracts: 4 kept, 0 broken." in run.stdout
    assert _cycles(ROOT) == ""


def test_memopt_links_every_subpackage():
    """``memopt/<name>`` links ``<folder>`` for every ``memopt.<name>`` of pyproject's
    ``package-dir``: a subpackage without its link is invisible to lint-imports and mypy."""
    package_dir = tomllib.loads(PYPROJECT.read_text())["tool"]["setuptools"]["package-dir"]
    for name, folder in package_dir.items():
        if name != "memopt":
            link = ROOT / "memopt" / name.split(".", 1)[1]
            assert link.is_symlink() and link.resolve() == (ROOT / folder).resolve(), name


def test_a_deferred_upward_import_breaks_the_contracts(tmp_path):
    """The planning core importing a tool inside a function: an upward import, a forbidden one
    and a cycle (tools import planning) at once. Each contract must see it."""
    top = _layout(tmp_path)
    planning = top / "planning"
    planning.unlink()
    shutil.copytree(ROOT / "planning", planning, ignore=shutil.ignore_patterns("__pycache__"))
    with open(planning / "numbers.py", "a") as f:
        f.write("\n\ndef _upward():\n    from memopt.tools.pack import main\n\n    return main\n")
    run = _lint_imports(tmp_path)
    assert run.returncode != 0
    verdicts = _verdicts(run.stdout)
    assert len(verdicts) == 4 and all(v.endswith(" BROKEN") for v in verdicts[:3]), run.stdout
    assert "plan attributes" in verdicts[3] and verdicts[3].endswith(" KEPT"), run.stdout
    assert "memopt.planning.numbers -> memopt.tools.pack" in _cycles(tmp_path)


def _verdicts(stdout: str) -> list[str]:
    """Each contract's line of a ``lint-imports`` run, without its count of ignored imports."""
    lines = [line.split(" (", 1)[0] for line in stdout.splitlines()]
    return [line for line in lines if line.endswith((" KEPT", " BROKEN"))]


def _with_function(tmp_path: Path, package: str, module: str, code: str) -> subprocess.CompletedProcess:
    """``lint-imports`` on a scratch tree where ``memopt.<package>.<module>`` ends with ``code``
    (the package copied, the rest linked)."""
    top = _layout(tmp_path)
    copy = top / package
    copy.unlink()
    shutil.copytree(ROOT / package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    with open(copy / f"{module}.py", "a") as f:
        f.write(code)
    return _lint_imports(tmp_path)


def _only_plan_encoding_broken(run: subprocess.CompletedProcess, chain: str) -> None:
    """The plan-encoding contract broken at ``chain``, the other contracts kept."""
    assert run.returncode != 0
    verdicts = _verdicts(run.stdout)
    assert len(verdicts) == 4 and all(v.endswith(" KEPT") for v in verdicts[:3]), run.stdout
    assert "plan attributes" in verdicts[3] and verdicts[3].endswith(" BROKEN"), run.stdout
    assert chain in run.stdout


def test_decoding_a_plan_outside_its_readers_breaks_the_contract(tmp_path):
    """The executor naming a plan attribute itself (as it once did with its own alias of
    ``memopt.onchip_offset``): only the plan's writers and readers may import the names or the
    decoder; the other contracts stay kept."""
    run = _with_function(tmp_path, "executor", "memory",
                         "\n\ndef _decode(op):\n    from memopt.dialects.plan_attr_names import ONCHIP_OFFSET_ATTR\n\n"
                         "    return op.attributes.get(ONCHIP_OFFSET_ATTR)\n")
    _only_plan_encoding_broken(run, "memopt.executor.memory -> memopt.dialects.plan_attr_names")


@pytest.mark.parametrize("module", ["upstream_replay", "upstream_calls"])
def test_a_pass_decoding_an_upstream_plan_itself_breaks_the_contract(tmp_path, module):
    """A pass asking the upstream decoder whether a function is planned, not the upstream plan's
    reader (``passes.upstream_plan_io``): the decoder is its writer's and readers' only. The call
    graph (``upstream_calls``) included: the reader hands the tracer a callee's arena."""
    run = _with_function(tmp_path, "passes", module,
                         "\n\ndef _planned(f):\n    from memopt.dialects.upstream_attrs import is_planned\n\n"
                         "    return is_planned(f)\n")
    _only_plan_encoding_broken(run, f"memopt.passes.{module} -> memopt.dialects.upstream_attrs")


def test_a_module_importing_its_own_package_is_a_cycle(tmp_path):
    """``memopt.executor`` imports its ``interpreter``; the interpreter importing the package back
    inside a function is a cycle the sibling contract cannot see (they are not siblings)."""
    top = _layout(tmp_path)
    executor = top / "executor"
    executor.unlink()
    shutil.copytree(ROOT / "executor", executor, ignore=shutil.ignore_patterns("__pycache__"))
    with open(executor / "interpreter.py", "a") as f:
        f.write("\n\ndef _parent():\n    from memopt.executor import digest\n\n    return digest\n")
    assert "memopt.executor.interpreter -> memopt.executor -> " in _cycles(tmp_path)
