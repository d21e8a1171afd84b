"""Hostile input, by class: every case must end in exactly one ``PROG: error:`` line on stderr
and exit code 1 — no traceback, no "internal error", no hang, no silent acceptance.

The tools run as subprocesses (as users run them), over inputs generated here: closed and full
streams, integers beyond 64 bits in every place memopt reads numbers, malformed CSV, messages
that used to point at the wrong place or echo control characters, deep nesting.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

BIN = os.path.dirname(sys.executable)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHAIN = os.path.join(ROOT, "examples", "chain.mlir")
CSV12 = os.path.join(ROOT, "bench", "data", "minimalloc", "input.12.csv")


def run(cmd: str, stdin: bytes | None = None, cwd: str | None = None) -> subprocess.CompletedProcess:
    """Run a shell command line with the venv's tools first on PATH."""
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""))
    return subprocess.run(["bash", "-c", cmd], input=stdin, capture_output=True, env=env, cwd=cwd, timeout=120)


def assert_one_line_error(r: subprocess.CompletedProcess, prog: str, *needles: str) -> str:
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 1, (r.returncode, err)
    assert "Traceback" not in err and "internal error" not in err, err
    assert err.count("\n") == 1 and err.startswith(f"{prog}: error: "), err
    for n in needles:
        assert n in err, (n, err)
    return err


# --------------------------------------------------------------------------- streams


@pytest.mark.parametrize("cmd,prog", [
    (f"memopt-opt {CHAIN} >&-", "memopt-opt"),
    (f"memopt-opt {CHAIN} --plan-memory >&-", "memopt-opt"),
    (f"memopt-pack {CSV12} >&-", "memopt-pack"),
    (f"memopt-run {CHAIN} >&-", "memopt-run"),
])
def test_closed_stdout(cmd, prog):
    assert_one_line_error(run(cmd), prog, "standard output", "closed")


@pytest.mark.parametrize("cmd,prog", [
    ("memopt-opt <&-", "memopt-opt"), ("memopt-pack <&-", "memopt-pack"), ("memopt-run - <&-", "memopt-run"),
    ("memopt-report - <&-", "memopt-report"),
])
def test_closed_stdin(cmd, prog):
    assert_one_line_error(run(cmd), prog, "standard input", "closed")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("cmd,prog", [
    (f"memopt-opt {CHAIN} > /dev/full", "memopt-opt"),
    (f"memopt-opt {CHAIN} -o /dev/full", "memopt-opt"),
    (f"memopt-pack {CSV12} > /dev/full", "memopt-pack"),
    (f"memopt-pack {CSV12} -o /dev/full", "memopt-pack"),
    (f"memopt-run {CHAIN} > /dev/full", "memopt-run"),
])
def test_full_device(cmd, prog):
    assert_one_line_error(run(cmd), prog, "No space left on device")


def test_a_large_output_through_a_pipe_is_complete(tmp_path):
    """The console scripts leave with ``os._exit`` (``memopt.cli.process_entry``): whatever they
    print must be flushed first, all of it, also through a pipe to a reader that is slower."""
    from memopt.tools.opt import main

    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from parse_scaling import chain

    src = tmp_path / "chain.mlir"
    src.write_text(chain(1000))
    assert main(["--plan-memory", str(src), "-o", str(tmp_path / "want.mlir")]) == 0
    r = run(f"memopt-opt --plan-memory {src} | (sleep 0.2; cat)")
    assert r.returncode == 0 and r.stderr == b""
    want = (tmp_path / "want.mlir").read_bytes()
    assert len(want) > 100_000 and r.stdout == want


@pytest.mark.parametrize("cmd,prog", [
    (f"memopt-opt {CHAIN} -o /", "memopt-opt"),
    (f"memopt-pack {CSV12} -o /", "memopt-pack"),
    (f"memopt-opt {CHAIN} -o /nonexistent-dir/x.mlir", "memopt-opt"),
])
def test_unwritable_output(cmd, prog):
    assert_one_line_error(run(cmd), prog, "cannot write")


# --------------------------------------------------------------------------- numbers beyond 64 bits

BIG = "99999999999999999999"
FUNC = "builtin.module {{\n  func.func @main(%x: {t}) -> tensor<4xf32> {{\n{body}\n  }}\n}}\n"


@pytest.mark.parametrize("text,needle", [
    (f"builtin.module {{\n  func.func @main(%x: tensor<{BIG}xf32>) -> tensor<{BIG}xf32> {{\n"
     f"    func.return %x : tensor<{BIG}xf32>\n  }}\n}}\n", f"2:30: integer {BIG} is out of the 64-bit"),
    (f"builtin.module {{\n  func.func @main(%x: tensor<4x{BIG}xf32>) -> tensor<4xf32> {{\n"
     "    %y = memopt.compute \"relu\"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n    func.return %y : tensor<4xf32>\n  }\n}\n",
     "2:32: integer"),
    ("builtin.module {\n  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
     "    %y = memopt.compute \"relu\"(%x) {cost = 9223372036854775808 : i64} : (tensor<4xf32>) -> tensor<4xf32>\n"
     "    func.return %y : tensor<4xf32>\n  }\n}\n", "3:44: integer 9223372036854775808"),
    ("builtin.module {\n  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
     "    %y = memopt.compute \"relu\"(%x) {cost = -9223372036854775809 : i64} : (tensor<4xf32>) -> tensor<4xf32>\n"
     "    func.return %y : tensor<4xf32>\n  }\n}\n", "integer -9223372036854775809"),
    ("builtin.module {\n  func.func @main(%x: tensor<4611686018427387904xf32>) -> tensor<4xf32> {\n"
     "    %y = memopt.compute \"relu\"(%x) : (tensor<4611686018427387904xf32>) -> tensor<4xf32>\n"
     "    func.return %y : tensor<4xf32>\n  }\n}\n", "beyond the 64-bit byte range"),
])
@pytest.mark.parametrize("tool", ["memopt-opt", "memopt-opt --plan-memory", "memopt-run"])
def test_mlir_numbers_beyond_64_bits(tmp_path, text, needle, tool):
    p = tmp_path / "big.mlir"
    p.write_text(text)
    assert_one_line_error(run(f"{tool} {p}"), tool.split()[0], needle)


def test_numbers_in_names_strings_and_comments_are_not_numbers(tmp_path):
    p = tmp_path / "names.mlir"
    p.write_text(
        f"// a comment with {BIG}\nbuiltin.module {{\n  func.func @main(%x{BIG}: tensor<4xf32>) -> tensor<4xf32> {{\n"
        f"    %y = memopt.compute \"relu{BIG}\"(%x{BIG}) : (tensor<4xf32>) -> tensor<4xf32>\n"
        "    func.return %y : tensor<4xf32>\n  }\n}\n")
    r = run(f"memopt-opt {p} --plan-memory")
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("rows,needle", [
    (f"a,0,1,{BIG}\n", "2: size 99999999999999999999 is out of the 64-bit integer range"),
    ("a,0,9223372036854775808,4\n", "2: upper 9223372036854775808 is out"),
    ("a,0,1,1_000\n", "size '1_000' is not an integer"),
    ("a,0,1,\u0661\u0662\n", "size '\\u0661\\u0662' is not an integer"),
    ("a,0,1,4,7\n", "2: expected 4 fields (as the header), got 5"),
    ("a,0,1,4\n,0,1,4\n", "3: blank id"),
    ("a,0,1,4\nb,0,1,4\na,2,3,4\n", "4: duplicate id 'a' (first used on line 2)"),
    ("a,0,2,5000000000000000000\nb,1,3,5000000000000000000\n", "total size exceeds the 64-bit range"),
])
def test_csv_values(tmp_path, rows, needle):
    p = tmp_path / "in.csv"
    p.write_text("id,lower,upper,size\n" + rows, encoding="utf-8")
    assert_one_line_error(run(f"memopt-pack {p}"), "memopt-pack", needle)


def test_csv_encoding(tmp_path):
    bad = tmp_path / "latin1.csv"
    bad.write_bytes(b"id,lower,upper,size\n\xe9,0,1,4\n")
    assert_one_line_error(run(f"memopt-pack {bad}"), "memopt-pack", "not UTF-8 text (invalid byte 0xe9 at offset 20)")
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbfid,lower,upper,size\na,0,1,4\n")
    r = run(f"memopt-pack {bom}")
    assert r.returncode == 0 and r.stdout.decode().startswith("id,lower,upper,size,offset\na,0,1,4,0"), r.stderr


@pytest.mark.parametrize("opt,needle", [
    ("--budget nan", "--budget (seconds) must be a finite number > 0, got nan"),
    ("--budget inf", "got inf"), ("--budget -1", "got -1.0"),
    (f"--capacity {BIG}", "--capacity must be in [0, 9223372036854775807]"),
    ("--match-range -3", "match-range must be a number >= 0"),
    ("--num-groups 0", "num-groups must be an integer >= 1"),
])
def test_pack_option_values(opt, needle):
    assert_one_line_error(run(f"memopt-pack {CSV12} {opt}"), "memopt-pack", needle)


@pytest.mark.parametrize("pipeline,needle", [
    (f"plan-memory{{capacity={BIG}}}", "capacity 99999999999999999999 is out of the 64-bit integer range"),
    (f"plan-memory{{alignment={BIG}}}", "alignment"),
    (f"insert-dma{{buffers={BIG}}}", "buffers 99999999999999999999 is out of the 64-bit"),
    (f"insert-dma{{dma-latency={BIG}}}", "dma-latency"),
    ("plan-memory{budget=-2}", "budget must be a finite number > 0"),
])
def test_pass_option_numbers(pipeline, needle):
    # Refused when the pipeline is parsed: the input file does not even exist.
    err = assert_one_line_error(run(f"memopt-opt /nonexistent.mlir -p '{pipeline}'"), "memopt-opt", needle)
    assert "nonexistent" not in err


# --------------------------------------------------------------------------- messages


@pytest.mark.parametrize("text,needle", [
    ("", "the input is empty"),
    ("   \n\n", "the input is empty"),
    ("// only a comment\n", "the input has no MLIR module"),
    ("builtin.module {\n  func.func @f() {\n    func.return\n  }\n",
     "unexpected end of input: the '{' opened at line 1, column 16 is never closed"),
    ("builtin.module {\n  func.func @f() {\n    func.return\n  }\n}\n}\n", "6:1: unexpected text after the end of the module"),
    ('builtin.module {\n  "foo\x00bar"() : () -> ()\n}\n', "unknown operation 'foo\\x00bar'"),
    ("builtin.module {\n  %x = foo\x1b[31m\n}\n", "\\x1b"),
])
def test_messages(tmp_path, text, needle):
    p = tmp_path / "m.mlir"
    p.write_text(text)
    err = assert_one_line_error(run(f"memopt-opt {p}"), "memopt-opt", needle)
    assert "\x00" not in err and "\x1b" not in err


def test_file_name_with_newline_stays_one_line(tmp_path):
    p = tmp_path / "a\nb.mlir"
    p.write_text("builtin.module {\n  func.func @f() {\n")
    assert_one_line_error(run(f"memopt-opt $'{tmp_path}/a\\nb.mlir'"), "memopt-opt", "a\\x0ab.mlir")
    assert_one_line_error(run(f"memopt-opt $'{tmp_path}/missing\\n.mlir'"), "memopt-opt", "missing\\x0a.mlir")


def test_deep_nesting_is_planned_and_proven(tmp_path):
    """Nested ifs beyond the interpreter's default recursion limit (which stopped at about 120)."""
    n = 200
    body = []
    for i in range(n):
        body.append(f"%r{i} = memopt.if %c : tensor<i1> -> (tensor<4xf32>) {{")
    body += ['%y = memopt.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>', "memopt.yield %y : tensor<4xf32>"]
    for i in reversed(range(n)):
        body += ["} else {", "memopt.yield %x : tensor<4xf32>", "}"]
        body.append(f"memopt.yield %r{i} : tensor<4xf32>" if i else "func.return %r0 : tensor<4xf32>")
    p = tmp_path / "deep.mlir"
    p.write_text("builtin.module {\nfunc.func @main(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {\n"
                 + "\n".join(body) + "\n}\n}\n")
    r = run(f"memopt-opt {p} --plan-memory -o {tmp_path}/planned.mlir && memopt-run {tmp_path}/planned.mlir --check --max-paths 2")
    assert r.returncode == 0, r.stderr
    assert b"planned execution matches unplanned" in r.stdout


# --------------------------------------------------------------------------- resources


@pytest.mark.parametrize("body,needle", [
    ('%l = memopt.loop 9000000000000000000 iter_args(%a = %x) : tensor<4xf32> {\n'
     '      %b = memopt.compute "relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n      memopt.yield %b : tensor<4xf32>\n    }\n'
     '    %o = memopt.compute "relu"(%l) : (tensor<4xf32>) -> tensor<4xf32>',
     "3:5: executing '@main' would run more than 10000000 ops (--max-ops) because of this loop's trip count"),
    ('%o = memopt.compute "relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n'
     '    %big = memopt.compute "relu"(%x) : (tensor<4xf32>) -> tensor<1000000000000xf32>',
     "bytes (the largest tensor alone: 4000000000000 bytes), over the limit of 1073741824 (--max-bytes)"),
])
@pytest.mark.parametrize("mode", ["", "--check"])
def test_runs_that_cannot_execute_here_are_refused(tmp_path, body, needle, mode):
    p = tmp_path / "r.mlir"
    p.write_text("builtin.module {\n  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n    " + body
                 + "\n    func.return %o : tensor<4xf32>\n  }\n}\n")
    src = p
    if mode:
        src = tmp_path / "planned.mlir"
        assert run(f"memopt-opt {p} --plan-memory -o {src}").returncode == 0
    assert_one_line_error(run(f"memopt-run {src} {mode}"), "memopt-run", needle)


@pytest.mark.parametrize("text,needle", [
    ("builtin.module {\n  %c = arith.constant 300 : i8\n}\n", "in the range [-128, 255] (signless: signed or unsigned)"),
    ('builtin.module {\n  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n'
     '    %y = memopt.compute "relu"(%x) {cost = "big"} : (tensor<4xf32>) -> tensor<4xf32>\n'
     '    func.return %y : tensor<4xf32>\n  }\n}\n', '3:5: \'memopt.compute\' op attribute value "big" has the wrong kind (expected integer)'),
    ('builtin.module {\n  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n'
     '    %l = memopt.loop -3 iter_args(%a = %x) : tensor<4xf32> {\n      memopt.yield %a : tensor<4xf32>\n    }\n'
     '    func.return %l : tensor<4xf32>\n  }\n}\n', "3:5: 'memopt.loop' op trip count must be non-negative, got -3"),
])
def test_messages_say_what_is_wrong_where(tmp_path, text, needle):
    p = tmp_path / "w.mlir"
    p.write_text(text)
    assert_one_line_error(run(f"memopt-opt {p}"), "memopt-opt", needle)
