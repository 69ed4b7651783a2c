"""Hostile input: every file gets a clear per-file message, and the run goes on.

Each case puts one hostile file in a project beside two witnesses:

* ``good.py``: a real JCD101 (``rnn.lstm_ref`` with dropout 0.5), which must still be
  reported (the run went on past the hostile file);
* ``zz_broken.py``: a gated file with a syntax error, which must get its JCD900.

The command runs as users run it (``python -m jax_cudnn_lint --no-cache``, without
JCD_RAISE_INTERNAL_ERRORS): exit 1, no Python traceback on stderr, no JCD901
(internal error), and for the hostile file either its JCD900 message (with the reason)
or nothing (when the file is fine).  flake8 runs over the same files with our plugin
and flake8's own machinery (pyflakes and pycodestyle are filtered out: pyflakes has
its own recursion limits, and neither is ours to test).  A time limit on every
subprocess turns a hang into a failure; the tests never assert timings otherwise.

Known limits of flake8 itself (not of the plugin) are marked where they apply: it
blocks forever opening a FIFO, and it crashes with a traceback when ``ast.parse``
raises RecursionError or MemoryError (checker.run_checks catches only SyntaxError
and TokenError).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from jax_cudnn_lint import engine
from jax_cudnn_lint.flake8_plugin import JcdChecker

PY312 = sys.version_info >= (3, 12)
TIMEOUT = 120

GOOD = textwrap.dedent(
    """\
    from jax.experimental import rnn


    def f(x, h, c, wi, wh, bi, bh, sl):
        return rnn.lstm_ref(
            x, h, c, wi, wh, bi, bh, sl, input_size=4, hidden_size=8, num_layers=1, dropout=0.5,
            bidirectional=False,
        )
    """
)
BROKEN = "import jax\njax.nn.dot_product_attention(q, k, v, implementation='cudnn'\n"
GATE = "import jax\n"
DPA = "out = jax.nn.dot_product_attention({}, k, v, implementation='cudnn')\n"

# flake8 with only its core and the installed non-pyflakes/pycodestyle extensions.
FLAKE8_DRIVER = textwrap.dedent(
    """\
    import sys
    from flake8.plugins import finder
    _find = finder._find_importlib_plugins
    finder._find_importlib_plugins = lambda: (
        p for p in _find() if p.package not in {"pyflakes", "pycodestyle"}
    )
    from flake8.main.cli import main
    sys.exit(main(sys.argv[1:]))
    """
)


def _deepest_parseable(make: Callable[[int], str], start: int = 2600) -> str:
    """The deepest `make(n)` that ast.parse accepts here (the limit depends on the stack)."""
    n = start
    while n > 100:
        text = make(n)
        try:
            ast.parse(text)
            return text
        except (RecursionError, MemoryError, SyntaxError):
            n -= 200
    raise AssertionError("no parseable depth found")


def _deep_sum(n: int) -> str:
    return GATE + DPA.format("+".join(["q"] * n))


def _deep_attr(n: int) -> str:
    return GATE + DPA.format("q" + ".a" * n)


def _deep_subscript(n: int) -> str:
    return GATE + DPA.format("q" + "[0]" * n)


def _deep_callchain(n: int) -> str:
    return GATE + DPA.format("q" + "()" * n)


def _nested_ifs(n: int) -> str:
    body = "".join(" " * i + "if x:\n" for i in range(n))
    return GATE + body + " " * n + DPA.format("q")


def _png() -> bytes:
    return (
        bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")
        + b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x01\x01\x01\x00"
        + b"dot_product_attention\x00IEND\xaeB`\x82"
    )


def _garbage(n: int = 4096) -> bytes:
    import random

    rng = random.Random(1234)
    return b"dot_product_attention" + bytes(rng.randrange(256) for _ in range(n))


MB = 2**20


def _long_line_3mb(path: Path) -> None:
    path.write_text(GATE + "bias = [" + "0, " * 1_000_000 + "]\n" + DPA.format("q"))


def _big_comments(path: Path) -> None:
    """50 MB, gated, a real call at the top and comments after (cheap to parse)."""
    line = b"# a comment line of a generated file, padded out to a typical width......\n"
    head = (GATE + DPA.format("q")).encode()
    with path.open("wb") as fh:
        fh.write(head)
        fh.write(line * ((50 * MB - len(head)) // len(line) + 1))


def _big_dense_plain(path: Path) -> None:
    """50 MB of dense code that does not pass the gate (never parsed by us)."""
    with path.open("w") as fh:
        fh.write("import numpy as np\n")
        written, i = 0, 0
        while written < 50 * MB:
            chunk = "".join(
                f"x{j} = np.zeros((2, {j % 7 + 1}, 4)) + y  # c\n" for j in range(i, i + 10000)
            )
            fh.write(chunk)
            written += len(chunk)
            i += 10000


def _big_datalist(path: Path) -> None:
    """50 MB, gated: one generated table literal (a minute and GBs in ast.parse alone)."""
    head = "import jax\n# dot_product_attention is used elsewhere\nTABLE = [\n"
    line = "    0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0,\n"
    with path.open("w") as fh:
        fh.write(head)
        fh.write(line * ((50 * MB - len(head)) // len(line) + 1))
        fh.write("]\n")


def _big_nul(path: Path) -> None:
    """50 MB sparse file of NUL bytes named .py."""
    with path.open("wb") as fh:
        fh.truncate(50 * MB)


@dataclass(frozen=True)
class Case:
    name: str
    content: str | bytes | Callable[[Path], None]
    expect: str  # "error": JCD900 with `fragment`; "clean": nothing; "either": no JCD901
    fragment: str = ""
    flake8: str = "run"  # "run", or "skip: reason", or "flake8-crash: reason"
    flake8_expect: str = ""  # what flake8 shows for the file, if not `expect` ("jcd900": our message)
    command_xfail: str = ""  # a known bug of the command (reason): strict xfail


FLAKE8_RECURSION = (
    "flake8-crash: flake8 7 does not catch RecursionError/MemoryError from ast.parse "
    "(checker.FileChecker.run_checks catches SyntaxError and TokenError only)"
)

CASES: list[Case] = [
    # --- deep nesting: the parser's limits must become a per-file message --------
    Case(
        "parens.py",
        GATE + DPA.format("(" * 5000 + "q" + ")" * 5000),
        "error",
        "too many nested parentheses",
    ),
    Case(
        "nested_calls.py",
        GATE + DPA.format("f(" * 3000 + "q" + ")" * 3000),
        "error",
        "too many nested parentheses",
    ),
    Case("nested_ifs.py", _nested_ifs(1000), "error", "too many levels of indentation"),
    Case(
        "nested_lists.py",
        GATE + DPA.format("[" * 4000 + "]" * 4000),
        "error",
        "too many nested parentheses",
    ),
    Case(
        "unary_100k.py",
        GATE + DPA.format("-" * 100_000 + "q"),
        "error",
        "could not read/parse",
        FLAKE8_RECURSION,
    ),
    Case(
        "not_100k.py",
        GATE + DPA.format("not " * 100_000 + "q"),
        "error",
        "could not read/parse",
        FLAKE8_RECURSION,
    ),
    Case(
        "lambda_5k.py",
        GATE + DPA.format("lambda: " * 5000 + "q"),
        "error",
        "could not read/parse",
        FLAKE8_RECURSION,
    ),
    Case("sum_20k.py", _deep_sum(20_000), "error", "RecursionError", FLAKE8_RECURSION),
    # Deep trees that ast.parse accepts: the analysis itself must cope.
    Case("deep_sum_ok.py", _deepest_parseable(_deep_sum), "either"),
    Case("deep_attr_ok.py", _deepest_parseable(_deep_attr), "either"),
    Case("deep_subscript_ok.py", _deepest_parseable(_deep_subscript), "either"),
    Case("deep_callchain_ok.py", _deepest_parseable(_deep_callchain), "either"),
    Case("deep_ifs_ok.py", _nested_ifs(99), "either"),
    # --- long lines ----------------------------------------------------------------
    Case("long_line.py", GATE + "bias = [" + "0, " * 100_000 + "]\n" + DPA.format("q"), "either"),
    Case(
        "long_line_3mb.py",
        _long_line_3mb,
        "either",
        flake8="skip: flake8 itself needs over 5 minutes on a 3 MB line, with no plugin loaded",
    ),
    Case("long_string.py", GATE + "s = '" + "x" * 4_000_000 + "'\n" + DPA.format("q"), "either"),
    Case("long_name.py", GATE + DPA.format("q" * 1_000_000), "either"),
    # --- encodings -------------------------------------------------------------------
    Case(
        "non_utf8.py",
        b"import jax\n# dot_product_attention\nx = '\xff\xfe'\n",
        "error",
        "decode",
        flake8_expect="either",
    ),
    Case(
        "latin1_cookie.py",
        b"# -*- coding: latin-1 -*-\nimport jax\n# dot_product_attention\nx = '\xe9'\n",
        "clean",
    ),
    Case(
        "bad_cookie.py",
        b"# coding: no-such-codec\n# dot_product_attention\n",
        "error",
        "could not read/parse",
        flake8_expect="either",
    ),
    Case("bom.py", b"\xef\xbb\xbfimport jax\n# dot_product_attention\nx = 1\n", "clean"),
    Case(
        "bom_latin1.py",
        b"\xef\xbb\xbf# coding: latin-1\n# dot_product_attention\n",
        "error",
        "could not read/parse",
        flake8_expect="either",
    ),
    Case(
        "utf16.py",
        "import jax\n# dot_product_attention\n".encode("utf-16"),
        "error",
        "could not read/parse",
    ),
    Case("nul.py", b"import jax\nx = 1\x00\n# dot_product_attention\n", "error", "NUL"),
    Case("crlf.py", (GATE + DPA.format("q")).replace("\n", "\r\n").encode(), "clean"),
    Case("lone_cr.py", (GATE + DPA.format("q")).replace("\n", "\r").encode(), "clean"),
    Case("unicode_names.py", GATE + "ℌ = 1\nσ = ℌ\n" + DPA.format("σ"), "clean"),
    Case(
        "tab_mix.py",
        GATE + "if x:\n        a = 1\n\tb = 2\n" + DPA.format("q"),
        "error",
        "could not read/parse",
    ),
    # --- newer syntax on this Python -------------------------------------------------
    Case(
        "pep695_alias.py",
        GATE + "type X = int\n" + DPA.format("q"),
        "clean" if PY312 else "error",
        "" if PY312 else "SyntaxError",
    ),
    Case(
        "pep695_generic.py",
        GATE + "def f[T](x: T) -> T:\n    return x\n" + DPA.format("q"),
        "clean" if PY312 else "error",
        "" if PY312 else "SyntaxError",
    ),
    Case(
        "fstring_312.py",
        GATE + 'x = f"{f"{f"{1}"}"}"\n' + DPA.format("q"),
        "clean" if PY312 else "error",
        "" if PY312 else "SyntaxError",
    ),
    Case(
        "match.py", GATE + "match x:\n    case [a, *_]:\n        pass\n" + DPA.format("q"), "clean"
    ),
    # --- not Python at all -----------------------------------------------------------
    Case("image.py", _png(), "error", "could not read/parse"),
    Case("garbage.py", _garbage(), "error", "could not read/parse"),
    Case("html.py", "<html><body>dot_product_attention</body></html>\n", "error", "SyntaxError"),
    # --- trivial files -----------------------------------------------------------------
    Case("empty.py", "", "clean"),
    Case("comments_only.py", "# dot_product_attention lstm_ref\n" * 200, "clean"),
    Case("whitespace_only.py", "\n\n   \n\t\n", "clean"),
    Case("no_trailing_newline.py", (GATE + DPA.format("q")).rstrip("\n"), "clean"),
    # --- big files (generated here, not stored) --------------------------------------
    # gated and over the file-size limit: reported, never parsed (by us)
    Case("big_gated_comments.py", _big_comments, "error", "too large to analyse", flake8_expect="jcd900"),
    Case(
        "big_gated_table.py",
        _big_datalist,
        "error",
        "too large to analyse",
        flake8="skip: flake8 itself parses the 50 MB (minutes, GBs): not our cost",
    ),
    Case(
        "big_plain_dense.py",
        _big_dense_plain,
        "clean",
        flake8="skip: flake8 itself parses the 50 MB (minutes, ~12 GB): not our cost",
    ),
    Case(
        "big_nul.py",
        _big_nul,
        "error",
        "NUL",
        flake8="skip: flake8 itself reads and tokenizes the 50 MB: not our cost",
    ),
]

# With the file-size limit off, the per-file budget alone must bound the analysis.
SLOW_CASES: list[Case] = [
    Case(
        "big_gated_table.py",
        _big_datalist,
        "clean",
        flake8="skip: flake8 itself parses the 50 MB (minutes, GBs): not our cost",
    ),
]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("JCD_RAISE_INTERNAL_ERRORS", None)  # the behaviour users get
    return env


def _build(root: Path, case: Case) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "good.py").write_text(GOOD, encoding="utf-8")
    (root / "zz_broken.py").write_text(BROKEN, encoding="utf-8")
    path = root / case.name
    if callable(case.content):
        case.content(path)
    elif isinstance(case.content, bytes):
        path.write_bytes(case.content)
    else:
        path.write_text(case.content, encoding="utf-8")
    return path


def _run(args: list[str], cwd: Path, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, *args],
            cwd=cwd,
            env=_env(),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{' '.join(args[:4])} did not finish within {timeout} s (unbounded time?)")


def run_command(
    *args: str, cwd: Path, timeout: float = TIMEOUT
) -> subprocess.CompletedProcess[str]:
    return _run(["-m", "jax_cudnn_lint", "--no-cache", *args], cwd, timeout)


def run_flake8(*args: str, cwd: Path, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    return _run(["-c", FLAKE8_DRIVER, "--isolated", "--select", "JCD,E9", *args], cwd, timeout)


def _lines_for(stdout: str, name: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith(f"{name}:")]


def check_command_output(result: subprocess.CompletedProcess[str], case: Case) -> None:
    report = (
        f"exit {result.returncode}\nstdout:\n{result.stdout[-3000:]}\nstderr:\n"
        f"{result.stderr[-3000:]}"
    )
    assert "Traceback (most recent call last)" not in result.stderr, report
    assert "JCD901" not in result.stdout, report
    assert result.returncode == 1, report
    good = _lines_for(result.stdout, "good.py")
    assert any("JCD101" in line for line in good), "the run did not go on:\n" + report
    broken = _lines_for(result.stdout, "zz_broken.py")
    assert any("JCD900" in line for line in broken), "the run did not go on:\n" + report
    mine = _lines_for(result.stdout, case.name)
    if case.expect == "error":
        assert len(mine) == 1 and "JCD900" in mine[0], report
        assert case.name in mine[0] and case.fragment in mine[0], report
        assert len(mine[0]) < 500, f"message too long to be clear: {mine[0][:200]}..."
    elif case.expect == "clean":
        assert mine == [], report


def check_flake8_output(result: subprocess.CompletedProcess[str], case: Case) -> None:
    report = (
        f"exit {result.returncode}\nstdout:\n{result.stdout[-3000:]}\nstderr:\n"
        f"{result.stderr[-3000:]}"
    )
    if case.flake8.startswith("flake8-crash"):
        # flake8 itself fails before any plugin runs: make sure it is not us.
        assert "jax_cudnn_lint" not in result.stderr, report
        if "Traceback (most recent call last)" in result.stderr:
            pytest.xfail(case.flake8)
        return
    assert "Traceback (most recent call last)" not in result.stderr, report
    assert "failed during execution" not in result.stderr, report
    assert result.returncode == 1, report
    assert any("JCD101" in line for line in _lines_for(result.stdout, "good.py")), report
    assert any("E999" in line for line in _lines_for(result.stdout, "zz_broken.py")), report
    mine = _lines_for(result.stdout, case.name)
    expect = case.flake8_expect or case.expect
    if expect == "error":
        assert mine and all(" E9" in line for line in mine), report
    elif expect == "jcd900":
        assert len(mine) == 1 and " JCD900 too large to analyse" in mine[0], report
    elif expect == "clean":
        assert mine == [], report
    else:
        assert all(" JCD9" not in line for line in mine), report


def check_in_process(path: Path, case: Case) -> None:
    """lint_source and the plugin class on the same text: parse errors only, never more."""
    if callable(case.content):
        return  # the big ones are covered through the command
    data = case.content.encode("utf-8") if isinstance(case.content, str) else case.content
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    try:
        engine.lint_source(text, str(path))
    except (SyntaxError, ValueError):
        assert tree is None, "lint_source raised a parse error on text that ast.parse accepts"
    except (RecursionError, MemoryError):
        # Acceptable only where ast.parse itself gives up: the command reports JCD900.
        assert tree is None, "the analysis ran out of stack/memory on a tree ast.parse built"
    if tree is not None:
        results = list(JcdChecker(tree, text.splitlines(keepends=True), str(path)).run())
        assert all(not r[2].startswith("JCD9") for r in results), results


def _command_params(cases: list[Case]) -> list[object]:
    return [
        pytest.param(c, id=c.name, marks=pytest.mark.xfail(strict=True, reason=c.command_xfail))
        if c.command_xfail
        else pytest.param(c, id=c.name)
        for c in cases
    ]


@pytest.mark.parametrize("case", _command_params(CASES))
def test_command(case: Case, tmp_path: Path) -> None:
    _build(tmp_path / "proj", case)
    result = run_command(".", cwd=tmp_path / "proj")
    check_command_output(result, case)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_flake8(case: Case, tmp_path: Path) -> None:
    if case.flake8.startswith("skip"):
        pytest.skip(case.flake8)
    _build(tmp_path / "proj", case)
    result = run_flake8("good.py", "zz_broken.py", case.name, cwd=tmp_path / "proj")
    check_flake8_output(result, case)


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if not callable(c.content)],
    ids=[c.name for c in CASES if not callable(c.content)],
)
def test_in_process(case: Case, tmp_path: Path) -> None:
    path = _build(tmp_path / "proj", case)
    check_in_process(path, case)


@pytest.mark.slow
@pytest.mark.parametrize("case", _command_params(SLOW_CASES))
def test_command_slow(case: Case, tmp_path: Path) -> None:
    _build(tmp_path / "proj", case)
    result = run_command("--max-file-size", "0", ".", cwd=tmp_path / "proj", timeout=900)
    check_command_output(result, case)


# --- the tree: links, loops, things that are not files ---------------------------------


def _tree(root: Path) -> None:
    (root / "pkg").mkdir(parents=True)
    (root / "good.py").write_text(GOOD, encoding="utf-8")
    (root / "zz_broken.py").write_text(BROKEN, encoding="utf-8")
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "inner.py").write_text(GOOD, encoding="utf-8")
    os.symlink("..", root / "pkg" / "up")  # a folder loop
    os.symlink(root, root / "pkg" / "abs_up")  # the same loop, absolute
    os.symlink("self_loop.py", root / "self_loop.py")  # ELOOP
    os.symlink("b_loop.py", root / "a_loop.py")
    os.symlink("a_loop.py", root / "b_loop.py")
    os.symlink("nowhere.py", root / "dangling.py")
    os.mkfifo(root / "fifo.py")  # would block a plain open()
    (root / "folder.py").mkdir()  # a folder named like a module
    (root / "folder.py" / "deep.py").write_text(GOOD, encoding="utf-8")
    os.symlink("good.py", root / "alias.py")  # the same file twice
    if os.path.exists("/proc/self/mem"):
        os.symlink("/proc/self/mem", root / "proc_mem.py")  # a regular file read() refuses


def test_command_tree(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    _tree(root)
    for jobs in ("1", "2"):
        result = run_command("-j", jobs, ".", cwd=root)
        report = f"-j{jobs} exit {result.returncode}\n{result.stdout}\n{result.stderr}"
        assert "Traceback (most recent call last)" not in result.stderr, report
        assert "JCD901" not in result.stdout, report
        assert result.returncode == 1, report
        out = result.stdout
        for name in ("self_loop.py", "a_loop.py", "b_loop.py", "dangling.py", "fifo.py"):
            lines = _lines_for(out, name)
            assert len(lines) == 1 and "JCD900" in lines[0], f"{name}:\n{report}"
        if os.path.exists("/proc/self/mem"):
            lines = _lines_for(out, "proc_mem.py")
            assert len(lines) == 1 and "JCD900" in lines[0], report
        for name in (
            "good.py",
            os.path.join("pkg", "inner.py"),
            os.path.join("folder.py", "deep.py"),
        ):
            assert any("JCD101" in line for line in _lines_for(out, name)), f"{name}:\n{report}"
        # Each real file once, whatever the links: good.py is not reported again as alias.py
        # or through pkg/up/good.py.
        assert sum("JCD101" in line for line in out.splitlines()) == 3, report


def test_flake8_tree(tmp_path: Path) -> None:
    """flake8 over the same tree, minus the FIFO (flake8 itself blocks on it)."""
    root = tmp_path / "proj"
    _tree(root)
    (root / "fifo.py").unlink()
    result = run_flake8(".", cwd=root)
    report = f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    assert "Traceback (most recent call last)" not in result.stderr, report
    assert "failed during execution" not in result.stderr, report
    assert any("JCD101" in line for line in _lines_for(result.stdout, "./good.py")), report


def test_command_many_hostile_files_in_parallel(tmp_path: Path) -> None:
    """All the small hostile files at once, enough of them for the worker pool (-j2)."""
    root = tmp_path / "proj"
    root.mkdir()
    small = [c for c in CASES if not callable(c.content)]
    for case in small:
        path = root / case.name
        if isinstance(case.content, bytes):
            path.write_bytes(case.content)
        else:
            assert isinstance(case.content, str)
            path.write_text(case.content, encoding="utf-8")
    for i in range(80):
        (root / f"filler_{i:02}.py").write_text(f"x = {i}\n", encoding="utf-8")
    (root / "good.py").write_text(GOOD, encoding="utf-8")
    result = run_command("-j", "2", ".", cwd=root)
    report = f"exit {result.returncode}\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    assert "Traceback (most recent call last)" not in result.stderr, report
    assert "JCD901" not in result.stdout, report
    assert result.returncode == 1, report
    assert any("JCD101" in line for line in _lines_for(result.stdout, "good.py")), report
    for case in small:
        mine = _lines_for(result.stdout, case.name)
        if case.expect == "error":
            assert len(mine) == 1 and case.fragment in mine[0], f"{case.name}:\n{report}"
        elif case.expect == "clean":
            assert mine == [], f"{case.name}:\n{report}"


@pytest.mark.parametrize(
    "line", ["from " + "." * 100_000 + " x", "from" + " " * 400_000 + "x"], ids=["dots", "blanks"]
)
def test_pathological_import_line_is_bounded(line: str, tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "m.py").write_text("import os\n" + line + "\n", encoding="utf-8")
    result = run_command(".", cwd=root, timeout=10)
    assert "Traceback (most recent call last)" not in result.stderr


def test_huge_integers_and_ranges_stay_unknown(tmp_path: Path) -> None:
    """pow/len(range)/arange/slices past sys.maxsize or 4300 digits: no internal error."""
    src = (
        "import math\nimport jax\nimport jax.numpy as jnp\n"
        "A = pow(10, 5000)\nB = len(range(10 ** 30))\nC = jnp.arange(0, 10, 0)\nD = jnp.arange(10 ** 30)\n"
        "E = math.isqrt(10 ** 900)\nF = divmod(10 ** 400, 3)\nx = jnp.zeros((2, 8, 4, 64))[:, : 10 ** 30]\n"
        "try:\n    SPAN = len(range(2 ** 70))\nexcept OverflowError:\n    SPAN = None\n"
        "def trim(q):\n    for _ in range(9223372036854775808):\n        q = q[:, :-1]\n    return q\n"
        "y = jnp.zeros((0 - 1,))[::-1]\n"
        + "a" + ".b" * 2500 + "(x)\n" + "a" + ".b" * 2500 + " = 1\n"  # a patch pre-pass walks these
        "def attend(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n"
    )
    assert [f.code for f in engine.lint_source(src, str(tmp_path / "big.py"))] == []


def test_huge_string_formats_stay_unknown(tmp_path: Path) -> None:
    """A format width of ten billion, `%*d`, a nested width or `10 ** 10 * "a"`: not built (10 GB)."""
    src = (
        "import jax\n"
        "S = '{:0>10000000000}'.format(1)\nP = '%010000000000d' % 1\nW = '%*d' % (10 ** 10, 1)\nN = '{:{}}'.format(1, 10 ** 10)\n"
        "J = ''.join(['cu', 'dnn'])\nR = 10 ** 10 * 'a'\n"
        "def attend(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation=J)\n"
    )
    start = time.perf_counter()
    assert [f.code for f in engine.lint_source(src, str(tmp_path / "fmt.py"))] == []
    assert time.perf_counter() - start < 10


def test_values_python_refuses_to_compute_stay_unknown(tmp_path: Path) -> None:
    """int() of inf or nan, a format with a missing field, a slice step of zero (probe
    43c): no internal error, and the module's real finding is kept."""
    src = (
        "import jax\nimport jax.numpy as jnp\nfrom unittest import mock\n"
        "try:\n    CAP = int(float('inf'))\nexcept OverflowError:\n    CAP = None\n"
        "def never_called():\n    a = int(float('nan'))\n    b = int(1e400)\n    c = '{n} {limit}'.format(limit=4096)\n"
        "    d = '{0}{5}'.format(1)\n    e = (1, 2, 3)[::0]\n    f = 'abc'[::0]\n    return a, b, c, d, e, f\n"
        "def test_patch():\n    with mock.patch('jax.nn.dot_product_attention'[::0]):\n        pass\n"
        "def loss(x):\n    q = x[:, :255]\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn').sum()\n"
        "def train():\n    return jax.grad(loss)(jnp.zeros((2, 600, 2, 64), jnp.bfloat16))\n"
    )
    assert [f.code for f in engine.lint_source(src, str(tmp_path / "raising.py"))] == ["JCD201"]


@pytest.mark.parametrize(("length", "codes"), [("-127", []), ("10 ** 30 + 1", []), ("127", ["JCD201"])])
def test_lengths_no_array_can_have_are_not_judged(tmp_path: Path, length: str, codes: list[str]) -> None:
    # probe 43c: jnp.zeros raises on a negative or an overflowing length before any attention
    src = (
        "import jax\nimport jax.numpy as jnp\n"
        "def attn(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n"
        f"def step():\n    q = jnp.zeros((2, {length}, 4, 64), jnp.bfloat16)\n    return jax.grad(lambda q: attn(q).sum())(q)\n"
    )
    assert [f.code for f in engine.lint_source(src, str(tmp_path / "lengths.py"))] == codes


DEEP_THEN_ODD = (
    "import jax\nimport jax.numpy as jnp\n"
    "MAGIC = " + " + ".join(["0"] * 600) + "\n"
    "def loss(x):\n"
    "    q = x[:, :255]\n"
    "    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn').sum()\n"
    "def train():\n"
    "    return jax.grad(loss)(jnp.zeros((2, 600, 2, 64), jnp.bfloat16))\n"
)


def test_a_statement_too_deep_to_follow_leaves_the_rest_of_the_module() -> None:
    """A 600-term expression (valid Python) is Unknown; the definitions after it are
    still analysed (they used to vanish with the rest of the module body)."""
    assert [f.code for f in engine.lint_source(DEEP_THEN_ODD, "deep.py")] == ["JCD201"]


ODD_GRAD_OF = (
    "import jax\nimport jax.numpy as jnp\n\nT = {length}\nq = jnp.zeros((1, T, 2, 64), jnp.bfloat16)\n"
    "jax.grad(lambda q: jax.nn.dot_product_attention(q, q, q, implementation='cudnn').astype(jnp.float32).sum())(q)\n"
)


def test_deep_files_give_the_same_output_whatever_the_parallelism(tmp_path: Path) -> None:
    """Parsing and analysis get the same recursion headroom in the main process (-j1)
    and in pool workers: a file near the limit used to parse in one and fail in the other
    (a parse that runs out is tried again on a fresh thread)."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "deep.py").write_text(DEEP_THEN_ODD, encoding="utf-8")
    (root / "deeper.py").write_text("N = " + " + ".join(["1"] * 255 + ["0"] * 2700) + "\n", encoding="utf-8")
    (root / "good.py").write_text(GOOD, encoding="utf-8")
    outputs = [run_command("-j", jobs, ".", cwd=root).stdout for jobs in ("1", "2")]
    assert outputs[0] == outputs[1]
    assert "deep.py:6:12: JCD201" in outputs[0], outputs[0]
    sums = tmp_path / "sums"
    sums.mkdir()
    for terms in (2990, 3001, 3020, 3100):  # around where a worker's parse ran out first (probe 35b)
        (sums / f"sum_{terms}.py").write_text(ODD_GRAD_OF.format(length="+".join(["1"] * terms)), encoding="utf-8")
    outputs = [run_command("-j", jobs, ".", cwd=sums).stdout for jobs in ("1", "2")]
    assert outputs[0] == outputs[1]


@pytest.mark.skipif(sys.version_info < (3, 12), reason="3.12 syntax")
def test_a_type_parameter_shadows_the_module_name(tmp_path: Path) -> None:
    # probe 43c: inside `def step[T]`, T is the type parameter, not the module's T = 127
    src = (
        "import jax\nimport jax.numpy as jnp\nT = 127\n"
        "def attn(q):\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n"
        "def step{params}(x):\n    q = jnp.zeros((2, T, 4, 64), jnp.bfloat16)\n    return jax.grad(lambda q: attn(q).sum())(q)\n"
    )
    assert [f.code for f in engine.lint_source(src.format(params="[T]"), str(tmp_path / "generic.py"))] == []
    assert [f.code for f in engine.lint_source(src.format(params=""), str(tmp_path / "plain.py"))] == ["JCD201"]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 parses its own syntax")
def test_newer_syntax_is_named_as_such(tmp_path: Path) -> None:
    """A gated file in Python 3.12's syntax on an older interpreter: JCD900 says why."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "model.py").write_text("import jax\n\ntype Routes = tuple[int, ...]\n\ndef f(q):\n    return jax.nn.dot_product_attention(q, q, q)\n", encoding="utf-8")
    result = run_command(".", cwd=root)
    assert "model.py:3:6: JCD900" in result.stdout and "Python 3.12 syntax" in result.stdout, result.stdout


@pytest.mark.parametrize(
    "store",
    ['CFG["len"] = DEEP', "Holder.len = DEEP", "CFG.update(len=DEEP)", "return_deep"],
    ids=["subscript", "class-attribute", "update", "return"],
)
def test_a_statement_too_deep_to_follow_changes_what_it_may_change(store: str) -> None:
    """What a too-deep statement stores, or the objects it may change, are Unknown
    afterwards (the old odd value must not survive it), and a deep return ends its path."""
    deep = " + ".join(["512"] + ["0"] * 600)
    if store == "return_deep":
        src = (
            "import jax\nimport jax.numpy as jnp\n"
            f"def length():\n    return {deep}\n    return 511\n"
            "def loss(x):\n    q = x[:, : length()]\n    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn').sum()\n"
            "def train():\n    return jax.grad(loss)(jnp.zeros((2, 1024, 4, 64), jnp.bfloat16))\n"
        )
    else:
        src = (
            "import jax\nimport jax.numpy as jnp\n"
            'CFG = {"len": 511}\nclass Holder:\n    len = 511\n'
            + store.replace("DEEP", deep) + "\n"
            "def loss(x):\n    q = x[:, : CFG['len']]\n    k = x[:, : Holder.len]\n"
            "    return jax.nn.dot_product_attention(q, k, k, implementation='cudnn').sum()\n"
            "def train():\n    return jax.grad(loss)(jnp.zeros((2, 1024, 4, 64), jnp.bfloat16))\n"
        )
        if store.startswith("CFG"):
            src = src.replace("k = x[:, : Holder.len]", "k = q")
        else:
            src = src.replace("q = x[:, : CFG['len']]", "q = x[:, :512]")
    assert [f.code for f in engine.lint_source(src, "deep_store.py")] == []


def test_nested_while_loops_stay_within_the_work_budget() -> None:
    """A while loop whose test is decided runs pass by pass, but not inside another
    loop run so: four nested decided loops would be 16**4 passes of the innermost body,
    past any reasonable work budget (the analysis would then stop, silently)."""
    from jax_cudnn_lint.shape_inference import analyse

    loops = "    a = 0\n    while a < 15:\n        b = 0\n        while b < 15:\n            c = 0\n            while c < 15:\n                d = 0\n                while d < 15:\n                    d += 1\n                c += 1\n            b += 1\n        a += 1\n"
    source = "import jax\nimport jax.numpy as jnp\n\n\ndef f(x):\n" + loops + "    q = x[:, :255]\n    return jax.nn.dot_product_attention(q, q, q, implementation=\"cudnn\").sum()\n\n\njax.grad(f)(jnp.zeros((2, 300, 4, 64), jnp.bfloat16))\n"
    result = analyse({"train.py": ast.parse(source)}, lambda name: "dot_product_attention" in name, step_budget=20_000)
    assert not result.exhausted
    assert [event.qualname for event in result.events if not event.generic] == ["jax.nn.dot_product_attention"]
