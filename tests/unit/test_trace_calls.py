"""bench/trace_calls.py: the count of files entered and returns along the five-op example."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "bench" / "trace_calls.py"


def _module():
    spec = importlib.util.spec_from_file_location("trace_calls", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_has_a_column_per_tree_and_says_absent_for_a_function_a_tree_lacks():
    tc = _module()
    row = {"tree": "T", "status": 0, "files": 3, "returns": 7, "calls": dict.fromkeys(tc.NAMES, 2)}
    other = dict(row, tree="U", calls=dict(row["calls"], weight_uses=None))
    lines = tc.table([row, other]).splitlines()
    assert lines[0].split()[-2:] == ["T", "U"]
    assert lines[2].split()[-2:] == ["3", "3"] and lines[3].split()[-2:] == ["7", "7"]
    assert lines[-1].split()[-2:] == ["2", "absent"]


def test_the_example_is_traced_through_the_package():
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = dict(re.findall(r"^(files entered|returns into a file already left|calls of \w+)\s+(\S+)$",
                           done.stdout, re.M))
    assert rows["files entered"] != "0" and int(rows["returns into a file already left"]) > 0
    assert int(rows["calls of make_strategy"]) >= 1  # plan-memory made its strategy
    assert "exit status" in done.stdout and "definitions:" in done.stdout
