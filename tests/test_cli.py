"""The `jax-cudnn-lint` command: discovery, decoding, selection, config, cache, exit codes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from conftest import LSTM_LINE, LSTM_SNIPPET, run_py, write
from jax_cudnn_lint import cli
from jax_cudnn_lint.cli import main

REPO = Path(__file__).resolve().parents[1]
ATTENTION = "import jax\n\ndef g(q, k, v):\n    return jax.nn.dot_product_attention(q, k, v)\n"
OFF = "from x import lstm_ref_fake_off\nlstm_ref_fake_off(1)\n"
SUMMARY_RE = re.compile(r"^\d+ findings? in \d+ files? \(\d+ analysed\) in \d+\.\d\ds")


def lint(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def codes_by_file(out: str) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for line in out.splitlines():
        match = re.match(r"^(.*?):\d+:\d+: (JCD\d+) ", line)
        if match:
            pairs.append((match[1].replace(os.sep, "/"), match[2]))
    return sorted(pairs)


# --- exit codes and output ---------------------------------------------------


def test_clean_project_exits_zero(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(tmp_path, {"a.py": "x = 1\n", "b.py": "import jax\n"})
    monkeypatch.chdir(tmp_path)
    code, out, err = lint(capsys)
    assert (code, out) == (0, "")
    assert err.strip() == err.strip().splitlines()[-1]
    assert SUMMARY_RE.match(err), err
    assert err.startswith("0 findings in 2 files (0 analysed)")


def test_findings_exit_one_with_text_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(tmp_path, {"pkg/m.py": LSTM_SNIPPET, "pkg/clean.py": "x = 1\n"})
    monkeypatch.chdir(tmp_path)
    code, out, err = lint(capsys, "pkg")
    assert code == 1
    assert out == f"pkg{os.sep}m.py:3:12: JCD101 canned lstm_ref finding (gpu=sm90)\n"
    assert err.startswith("1 finding in 2 files (1 analysed) in ")


@pytest.mark.parametrize(
    "comment",
    ["# noqa", "#noqa", "#  noqa", "# NOQA", "# noqa:JCD101", "# noqa: JCD1", "# noqa: jcd101", "# noqa: E501, JCD101",
     "# noqa:E501,JCD201", "# noqa : JCD101", "# noqa: JCD101 reason", "# type: ignore # noqa", "# noqa:"],
)
def test_noqa_reads_as_flake8_reads_it(comment: str) -> None:
    """The command's `# noqa` decision is flake8's own, comment by comment."""
    from flake8.violation import Violation
    from jax_cudnn_lint import noqa

    line = f"    return rnn.lstm_ref(x)  {comment}\n"
    ours = noqa.suppresses(line, "JCD101")
    theirs = Violation("JCD101", "m.py", 3, 12, "text", line).is_inline_ignored(False)
    assert ours == theirs


@pytest.mark.parametrize(
    ("comment", "reported"),
    [("", True), ("  # noqa", False), ("  # noqa: JCD101", False), ("  # NOQA:JCD1", False), ("  # noqa: E501,JCD101", False), ("  # noqa: JCD201", True)],
)
def test_noqa_comments_silence_findings_as_in_flake8(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, comment: str, reported: bool
) -> None:
    """The command reads `# noqa` as flake8 does: the same findings from both, whichever runs."""
    lines = LSTM_SNIPPET.splitlines()
    lines[LSTM_LINE - 1] += comment
    write(tmp_path, {"m.py": "\n".join(lines) + "\n"})
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capsys, "--no-cache", ".")
    assert (code, "JCD101" in out) == ((1, True) if reported else (0, False))
    code, out, _ = lint(capsys, "--no-cache", "--disable-noqa", ".")
    assert (code, "JCD101" in out) == (1, True)


@pytest.mark.parametrize("separator", ["\f", "\u2028", "\x1c", "\x85"])
def test_noqa_counts_lines_as_python_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, separator: str) -> None:
    # probe 43c: a form feed or U+2028 in a comment above made str.splitlines read
    # another line for `# noqa` (the finding kept, or a finding below silenced)
    lines = LSTM_SNIPPET.splitlines()
    lines[0] += f"  # a comment with {separator} in it"
    noqa = list(lines)
    noqa[LSTM_LINE - 1] += "  # noqa: JCD101"
    above = list(lines)
    above[LSTM_LINE - 2] += "  # noqa: JCD101"
    monkeypatch.chdir(tmp_path)
    for text, reported in ((noqa, False), (above, True)):
        write(tmp_path, {"m.py": "\n".join(text) + "\n"})
        code, out, _ = lint(capsys, "--no-cache", ".")
        assert (code, "JCD101" in out) == ((1, True) if reported else (0, False))


@pytest.mark.parametrize(
    "args",
    [
        ["--no-such-option"],
        ["does-not-exist/"],
        ["--gpu", "banana", "."],
        ["--cudnn", "x", "."],
        ["--cudnn", "9.8x", "."],
        ["--gpu", "800", "."],
        ["--gpu", "10", "."],
        ["--select", "JCD!", "."],
        ["--format", "xml", "."],
        ["-j", "0", "."],
        ["--confirm-timeout", "-1", "."],
    ],
)
def test_usage_errors_exit_two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, args: list[str]
) -> None:
    write(tmp_path, {"a.py": LSTM_SNIPPET})
    monkeypatch.chdir(tmp_path)
    code, out, err = lint(capsys, *args)
    assert code == 2
    assert out == ""
    assert "error" in err


@pytest.mark.parametrize("spelled", ["80", "8.0", "sm_80", "sm80a"])
def test_a_gpu_is_read_in_one_spelling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any, spelled: str) -> None:
    # probe 39a: `--gpu 80` linted as sm80, and --confirm refused it; sm90a-like names
    # (an architecture's feature set) are the same chip
    write(tmp_path, {"a.py": LSTM_SNIPPET})
    monkeypatch.chdir(tmp_path)
    _, out, _ = lint(capsys, "--no-cache", "--format", "json", "--gpu", spelled, "a.py")
    assert json.loads(out)["targets"]["gpu"] == "sm80"


def test_internal_error_in_one_file_is_jcd901_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(tmp_path, {"a.py": LSTM_SNIPPET, "b.py": LSTM_SNIPPET})
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JCD_RAISE_INTERNAL_ERRORS")
    monkeypatch.setenv("JCD_FAKE", "raise-in")
    monkeypatch.setenv("JCD_FAKE_FILE", "b.py")
    code, out, _ = lint(capsys, "--no-cache")
    assert code == 2
    assert "a.py:3:12: JCD101 canned" in out
    assert "b.py:1:1: JCD901 internal error: RuntimeError: boom in b.py" in out
    assert "b.py:3:12" not in out


def test_internal_error_is_raised_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_analysis: Any
) -> None:
    write(tmp_path, {"a.py": LSTM_SNIPPET})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JCD_FAKE", "raise")
    with pytest.raises(RuntimeError, match="boom"):
        main(["--no-cache"])


def test_python_dash_m_and_console_script(tmp_path: Path, fake_env: dict[str, str]) -> None:
    write(tmp_path, {"m.py": LSTM_SNIPPET})
    by_module = run_py("-m", "jax_cudnn_lint", "m.py", cwd=tmp_path, env=fake_env)
    assert (by_module.returncode, by_module.stdout) == (
        1,
        "m.py:3:12: JCD101 canned lstm_ref finding (gpu=sm90)\n",
    )
    script = shutil.which("jax-cudnn-lint", path=str(Path(sys.executable).parent)) or shutil.which(
        "jax-cudnn-lint"
    )
    assert script is not None, "the console script is not installed"
    by_script = subprocess.run(
        [script, "m.py"],
        cwd=tmp_path,
        env=fake_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (by_script.returncode, by_script.stdout) == (by_module.returncode, by_module.stdout)
    version = run_py("-m", "jax_cudnn_lint", "--version", cwd=tmp_path)
    assert version.stdout.startswith("jax-cudnn-lint ")


def test_real_jcd101_end_to_end(tmp_path: Path) -> None:
    write(tmp_path, {"m.py": LSTM_SNIPPET})
    result = run_py("-m", "jax_cudnn_lint", "--no-cache", "--format", "json", "m.py", cwd=tmp_path)
    doc = json.loads(result.stdout)
    assert [(f["code"], f["line"]) for f in doc["findings"]] == [("JCD101", LSTM_LINE)]
    assert result.returncode == 1


# --- selection ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], ["JCD101", "JCD202"]),
        (["--select", "JCD2"], ["JCD202"]),
        (["--select", "jcd2"], ["JCD202"]),
        (["--ignore", "JCD1"], ["JCD202"]),
        (["--select", "JCD", "--ignore", "JCD20"], ["JCD101"]),
        (["--extend-select", "JCD299"], ["JCD101", "JCD202", "JCD299"]),
        (["--select", "JCD29"], []),  # an off-by-default rule needs its full code
        (["--select", "JCD101,JCD202"], ["JCD101", "JCD202"]),
        (["--select", "JCD1", "--select", "JCD2"], ["JCD101", "JCD202"]),
    ],
)
def test_select_ignore_prefixes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: Any,
    fake_analysis: Any,
    args: list[str],
    expected: list[str],
) -> None:
    write(tmp_path, {"a.py": LSTM_SNIPPET, "b.py": ATTENTION, "c.py": OFF})
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capsys, *args)
    assert sorted(c for _, c in codes_by_file(out)) == expected
    assert code == (1 if expected else 0)


# --- discovery ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "missing"),
    [
        (["--exclude", "gen"], {"pkg/gen/b.py"}),
        (["--exclude", "*_gen.py"], {"pkg/c_gen.py"}),
        (["--exclude", "pkg/a.py"], {"pkg/a.py"}),
        (["--exclude", "pkg/gen/*.py,other"], {"pkg/gen/b.py", "other/d.py"}),
        (["--extend-exclude", "other"], {"other/d.py"}),
        (["--exclude", "c_*", "--extend-exclude", "d.py"], {"pkg/c_gen.py", "other/d.py"}),
    ],
)
def test_excludes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: Any,
    fake_analysis: Any,
    args: list[str],
    missing: set[str],
) -> None:
    files = {"pkg/a.py", "pkg/gen/b.py", "pkg/c_gen.py", "other/d.py"}
    write(tmp_path, dict.fromkeys(files, LSTM_SNIPPET))
    monkeypatch.chdir(tmp_path)
    _, out, _ = lint(capsys, *args)
    assert {path for path, _ in codes_by_file(out)} == files - missing


def test_skipped_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    skipped = [
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "build",
        "dist",
        "node_modules",
        "lib/site-packages",
        "thing.egg-info",
        "myenv",
    ]
    files: dict[str, str | bytes] = {f"{d}/x.py": LSTM_SNIPPET for d in skipped}
    files["myenv/pyvenv.cfg"] = "home = /usr/bin\n"
    files["src/a.py"] = LSTM_SNIPPET
    files["src/builder/b.py"] = LSTM_SNIPPET  # only exact names are skipped
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    _, out, err = lint(capsys)
    assert [p for p, _ in codes_by_file(out)] == ["src/a.py", "src/builder/b.py"]
    assert " in 2 files " in err
    # A skipped folder named explicitly is linted.
    _, out, _ = lint(capsys, "build")
    assert [p for p, _ in codes_by_file(out)] == ["build/x.py"]


@pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32", reason="symlinks")
def test_symlink_loops_do_not_hang(tmp_path: Path, fake_env: dict[str, str]) -> None:
    write(tmp_path, {"proj/sub/a.py": LSTM_SNIPPET, "proj/b.py": "x = 1\n"})
    (tmp_path / "proj/sub/up").symlink_to("..", target_is_directory=True)
    (tmp_path / "proj/sub/self").symlink_to(".", target_is_directory=True)
    (tmp_path / "proj/alias.py").symlink_to("sub/a.py")
    (tmp_path / "proj/dangling.py").symlink_to("nowhere.py")
    result = run_py(
        "-m", "jax_cudnn_lint", "--no-cache", "proj", cwd=tmp_path, env=fake_env, timeout=60
    )
    lines = result.stdout.splitlines()
    assert lines == [
        (
            "proj/dangling.py:1:1: JCD900 could not read/parse proj/dangling.py: "
            "cannot read file: No such file or directory"
        ),
        "proj/sub/a.py:3:12: JCD101 canned lstm_ref finding (gpu=sm90)",
    ]
    assert result.returncode == 1


@pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32", reason="symlinks")
def test_a_link_to_a_folder_outside_is_not_entered(tmp_path: Path, fake_env: dict[str, str]) -> None:
    # `sub/parent -> ../..` would lead out of the path given and report files of another
    # project under an alias (probe 145a); a link inside it is a package's part, read once
    # (`pkg/layers -> ../shared_layers`, probe 148b); a named link is walked
    write(tmp_path, {"other/x.py": LSTM_SNIPPET, "proj/sub/a.py": "x = 1\n", "shared/y.py": LSTM_SNIPPET})
    (tmp_path / "proj/sub/parent").symlink_to("../..", target_is_directory=True)
    (tmp_path / "proj/linked").symlink_to("../shared", target_is_directory=True)
    (tmp_path / "proj/dir_link.py").symlink_to("../shared", target_is_directory=True)
    result = run_py("-m", "jax_cudnn_lint", "--no-cache", "proj", cwd=tmp_path, env=fake_env, timeout=60)
    assert result.stdout == "" and result.returncode == 0, result.stdout + result.stderr
    write(tmp_path, {"proj/shared_layers/z.py": LSTM_SNIPPET, "proj/pkg/__init__.py": ""})
    (tmp_path / "proj/pkg/layers").symlink_to("../shared_layers", target_is_directory=True)
    result = run_py("-m", "jax_cudnn_lint", "--no-cache", "proj", cwd=tmp_path, env=fake_env, timeout=60)
    # (reached first through the package, under the path `pkg.layers.z` imports resolve to)
    assert result.stdout.splitlines() == ["proj/pkg/layers/z.py:3:12: JCD101 canned lstm_ref finding (gpu=sm90)"]
    result = run_py("-m", "jax_cudnn_lint", "--no-cache", "proj/linked", cwd=tmp_path, env=fake_env, timeout=60)
    assert result.stdout.splitlines() == ["proj/linked/y.py:3:12: JCD101 canned lstm_ref finding (gpu=sm90)"]


def test_undecodable_and_nul_files_are_jcd900_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(
        tmp_path,
        {
            "bad_utf8.py": b"x = 1\ny = '\xff\xfe'\n",
            "bad_first_line.py": b"y = '\xff\xfe'\n",
            "nul.py": b"x = 1\ny = 2\x00\n",
            "wrong_cookie.py": "# -*- coding: ascii -*-\nx = 'caf\u00e9'\n".encode(),
            "unknown_cookie.py": b"# coding: no-such-codec\nx = 1\n",
            "good.py": LSTM_SNIPPET,
            "syntax.py": "from jax.experimental import rnn\nrnn.lstm_ref(\n",
        },
    )
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.py")
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capsys, "--no-cache")
    assert code == 1
    lines = out.splitlines()
    assert "good.py:3:12: JCD101 canned lstm_ref finding (gpu=sm90)" in lines
    by_file = {line.split(":")[0]: line for line in lines if " JCD900 " in line}
    assert by_file["bad_utf8.py"] == (
        "bad_utf8.py:2:6: JCD900 could not read/parse bad_utf8.py: "
        "cannot decode as utf-8: invalid start byte (byte ff)"
    )
    assert "not valid UTF-8" in by_file["bad_first_line.py"]
    assert by_file["nul.py"].startswith("nul.py:2:1: JCD900 could not read/parse nul.py")
    assert "NUL" in by_file["nul.py"]
    assert by_file["wrong_cookie.py"] == (
        "wrong_cookie.py:2:9: JCD900 could not read/parse wrong_cookie.py: "
        "cannot decode as ascii: ordinal not in range(128) (byte c3)"
    )
    assert "no-such-codec" in by_file["unknown_cookie.py"]
    assert by_file["syntax.py"].startswith("syntax.py:2:")
    assert "SyntaxError" in by_file["syntax.py"]
    if hasattr(os, "mkfifo"):
        assert "not a regular file" in by_file["fifo.py"]


def test_bom_and_coding_cookie_files_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    latin = "# -*- coding: latin-1 -*-\n# caf\u00e9 \u00e0 la cr\u00e8me\n" + LSTM_SNIPPET
    write(
        tmp_path,
        {
            "bom.py": b"\xef\xbb\xbf" + LSTM_SNIPPET.encode(),
            "latin.py": latin.encode("latin-1"),
            "crlf.py": LSTM_SNIPPET.replace("\n", "\r\n").encode(),
        },
    )
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capsys, "--no-cache", "--show-source")
    assert code == 1
    assert "JCD900" not in out
    assert "bom.py:3:12: JCD101" in out
    assert "latin.py:5:12: JCD101" in out
    assert "crlf.py:3:12: JCD101" in out


# --- rules -------------------------------------------------------------------


def test_rules_lists_codes(capsys: Any, fake_analysis: Any) -> None:
    code, out, _ = lint(capsys, "rules")
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines()}
    assert rows["JCD101"][1:3] == ["lstm-ref-nonzero-dropout", "on"]
    assert rows["JCD299"][1:3] == ["fake-off-by-default", "off"]
    assert out.splitlines()[0].startswith("JCD101")  # sorted


def test_rule_prints_its_page(capsys: Any) -> None:
    page = REPO / "docs" / "rules" / "JCD101.md"
    if not page.exists():
        pytest.skip("docs/rules/JCD101.md is not written yet")
    code, out, _ = lint(capsys, "rule", "JCD101")
    assert code == 0
    assert out == page.read_text(encoding="utf-8")
    code_lower, out_lower, _ = lint(capsys, "rule", "jcd101")
    assert (code_lower, out_lower) == (0, out)


def test_rule_unknown_code(capsys: Any) -> None:
    code, out, err = lint(capsys, "rule", "JCD999")
    assert (code, out) == (2, "")
    assert "unknown rule 'JCD999'" in err


# --- pyproject.toml ----------------------------------------------------------

PYPROJECT = """\
[project]
name = "demo"

[tool.jax-cudnn-lint]
select = ["JCD2", "JCD1"]
ignore = ["JCD1"]
gpu = "sm100"
exclude = ["skipped"]
jobs = 1
"""


def test_pyproject_config_and_command_line_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(
        tmp_path,
        {
            "proj/pyproject.toml": PYPROJECT,
            "proj/src/a.py": LSTM_SNIPPET,
            "proj/src/b.py": ATTENTION,
            "proj/skipped/c.py": ATTENTION,
        },
    )
    monkeypatch.chdir(tmp_path)
    # The nearest pyproject.toml above the first path is used.
    _, out, _ = lint(capsys, "proj/src")
    assert out == "proj/src/b.py:4:12: JCD202 canned dot_product_attention finding (gpu=sm100)\n"
    _, out, _ = lint(capsys, "proj")
    assert codes_by_file(out) == [("proj/src/b.py", "JCD202")]
    _, out, _ = lint(capsys, "--select", "JCD1", "--ignore", "JCD2", "--gpu", "sm80", "proj")
    assert out == "proj/src/a.py:3:12: JCD101 canned lstm_ref finding (gpu=sm80)\n"
    _, out, _ = lint(capsys, "--exclude", "nothing", "proj")
    assert codes_by_file(out) == [("proj/skipped/c.py", "JCD202"), ("proj/src/b.py", "JCD202")]


def test_pyproject_errors_and_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(tmp_path, {"pyproject.toml": "[tool.jax-cudnn-lint]\nselect = 3\n", "a.py": "x = 1\n"})
    monkeypatch.chdir(tmp_path)
    code, _, err = lint(capsys)
    assert code == 2
    assert "select must be a list of strings" in err
    write(tmp_path, {"pyproject.toml": "[tool.jax-cudnn-lint\n"})
    code, _, err = lint(capsys)
    assert code == 2 and "invalid TOML" in err
    write(tmp_path, {"pyproject.toml": "[tool.jax-cudnn-lint]\ncolour = 'blue'\n"})
    code, _, err = lint(capsys)
    assert code == 0 and "unknown key [tool.jax-cudnn-lint] colour" in err
    # TOML reads an unquoted 9.10 as 9.1 (probe 39b: a false JCD210 at "cuDNN 9.1")
    write(tmp_path, {"pyproject.toml": "[tool.jax-cudnn-lint]\ncudnn = 9.10\n"})
    code, _, err = lint(capsys)
    assert code == 2 and 'write it as a string, cudnn = "..."' in err
    write(tmp_path, {"pyproject.toml": "[tool.jax-cudnn-lint]\ngpu = 8.0\n"})  # a capability loses nothing
    assert lint(capsys)[0] == 0


def test_max_file_size_from_the_command_line_and_pyproject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(tmp_path, {"a.py": LSTM_SNIPPET, "plain.py": "x = 1\n" * 100})
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capsys, "--max-file-size", "0.00001")
    assert code == 1
    # only the gated file is over the limit for what matters: the other is never parsed
    assert out.startswith("a.py:1:1: JCD900 could not read/parse a.py: too large to analyse (0.0 MB")
    assert out.count("\n") == 1 and fake_analysis["CALLS"] == []
    assert "JCD101" in lint(capsys, "--max-file-size", "0")[1]
    write(tmp_path, {"pyproject.toml": "[tool.jax-cudnn-lint]\nmax-file-size = 0.00001\n"})
    assert "too large to analyse" in lint(capsys)[1]
    assert "JCD101" in lint(capsys, "--max-file-size", "5")[1]  # the command line wins
    for bad in ("-1", "nan", "inf", "big"):
        assert lint(capsys, "--max-file-size", bad)[0] == 2
    write(tmp_path, {"pyproject.toml": "[tool.jax-cudnn-lint]\nmax-file-size = -3\n"})
    code, _, err = lint(capsys)
    assert code == 2 and "max-file-size must be a number, 0 or more" in err


# --- parallel ----------------------------------------------------------------


def test_same_output_with_one_and_two_jobs(tmp_path: Path, fake_env: dict[str, str]) -> None:
    n = cli.PARALLEL_MIN_FILES + 16
    files: dict[str, str | bytes] = {}
    for i in range(n):
        kind = i % 4
        name = f"pkg{i % 3}/m{i:03d}.py"
        files[name] = [LSTM_SNIPPET, ATTENTION, "x = 1\n", b"y = '\xff'\n"][kind]
    write(tmp_path, files)
    one = run_py("-m", "jax_cudnn_lint", "--no-cache", "-j1", ".", cwd=tmp_path, env=fake_env)
    two = run_py("-m", "jax_cudnn_lint", "--no-cache", "-j2", ".", cwd=tmp_path, env=fake_env)
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout
    lines = one.stdout.splitlines()
    assert len(lines) == n - n // 4  # every file but the clean ones
    sarif_one = run_py(
        "-m",
        "jax_cudnn_lint",
        "--no-cache",
        "-j1",
        "--format",
        "json",
        ".",
        cwd=tmp_path,
        env=fake_env,
    )
    sarif_two = run_py(
        "-m",
        "jax_cudnn_lint",
        "--no-cache",
        "-j2",
        "--format",
        "json",
        ".",
        cwd=tmp_path,
        env=fake_env,
    )
    one_doc, two_doc = json.loads(sarif_one.stdout), json.loads(sarif_two.stdout)
    assert one_doc["findings"] == two_doc["findings"]
    assert one_doc["errors"] == two_doc["errors"]


# --- project set and cache ---------------------------------------------------

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/model.py": LSTM_SNIPPET,
    "pkg/train.py": "from .model import f\nfrom . import util\nimport jax\nstep = jax.grad(f)\n",
    "pkg/util.py": "import functools\n",
    "pkg/sub/__init__.py": "",
    "pkg/sub/deep.py": "from ..model import (\n    f,\n)\n",
    "runner.py": "import pkg.train as t\n",
    "top.py": "from pkg import model\n",
    "unrelated.py": "import os\n",
    "pkg/other.py": "from pkg import util\n",
}
# Entry files: the gated model, the importer that differentiates (train.py) and a
# driver of it that nothing imports (runner.py); importers that do not differentiate
# and take nothing from a module that does (deep.py, top.py) are not entries.  What the
# entries import (pkg/__init__.py, util.py) is reachable, parsed only on demand.
ANALYSED = [
    "pkg/model.py",
    "pkg/train.py",
    "runner.py",
]


def test_project_set_follows_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(tmp_path, dict(PROJECT))
    monkeypatch.chdir(tmp_path)
    code, _, err = lint(capsys, "--no-cache")
    assert code == 1
    assert fake_analysis["CALLS"] == [ANALYSED]
    assert f"in {len(PROJECT)} files ({len(ANALYSED)} analysed)" in err


def test_cache_hit_and_invalidation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(tmp_path, dict(PROJECT))
    monkeypatch.chdir(tmp_path)
    calls: list[Any] = fake_analysis["CALLS"]
    first = lint(capsys)
    assert len(calls) == 1
    second = lint(capsys)
    assert len(calls) == 1, "a second identical run must be a cache hit"
    assert second[:2] == first[:2]
    miss_json = json.loads(lint(capsys, "--format", "json", "--no-cache")[1])
    hit_json = json.loads(lint(capsys, "--format", "json")[1])
    assert hit_json["findings"] == miss_json["findings"] != []
    del calls[1:]
    # A dependency of an analysed file changed: miss.
    write(tmp_path, {"pkg/util.py": "import functools  # changed\n"})
    assert lint(capsys)[:2] == first[:2]
    assert len(calls) == 2
    # A file outside the analysed set changed: still a hit.
    write(tmp_path, {"unrelated.py": "import sys\n"})
    lint(capsys)
    assert len(calls) == 2
    # An importer of an analysed file changed (its calls may override a default): miss.
    write(tmp_path, {"top.py": "from pkg import model\nmodel.f(1)\n"})
    lint(capsys)
    assert len(calls) == 3
    del calls[2:]
    # Another target is another key; --no-cache never reads it.
    lint(capsys, "--gpu", "sm80")
    assert len(calls) == 3
    lint(capsys, "--no-cache")
    assert len(calls) == 4
    entries = list((Path(os.environ["XDG_CACHE_HOME"]) / "jax-cudnn-lint").glob("*.json"))
    assert len(entries) == 4  # first, util.py changed, top.py changed, sm80
    for entry in entries:
        assert json.loads(entry.read_text(encoding="utf-8"))["format"] == 1


def test_a_change_re_analyses_only_the_component_that_can_see_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(
        tmp_path,
        {
            "a/model.py": LSTM_SNIPPET + "from a import cfg\n",
            "a/cfg.py": "SEQ = 8\n",
            "b/model.py": LSTM_SNIPPET,
            "b/cfg.py": "SEQ = 8\n",
        },
    )
    monkeypatch.chdir(tmp_path)
    calls: list[Any] = fake_analysis["CALLS"]
    first = lint(capsys, "-j1")
    assert calls == [[os.path.join("a", "model.py")], [os.path.join("b", "model.py")]]
    write(tmp_path, {"a/cfg.py": "SEQ = 9\n"})  # reached from a/model.py only
    assert lint(capsys, "-j1")[:2] == first[:2]
    assert calls[2:] == [[os.path.join("a", "model.py")]]
    write(tmp_path, {"b/cfg.py": "SEQ = 9\n"})  # reached from nothing: no miss
    assert lint(capsys, "-j1")[:2] == first[:2]
    assert len(calls) == 3


def test_unwritable_cache_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(tmp_path, {"a.py": LSTM_SNIPPET, "cache-is-a-file": "x"})
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-is-a-file"))
    monkeypatch.chdir(tmp_path)
    assert lint(capsys, "a.py")[0] == 1
    assert lint(capsys, "a.py")[0] == 1
    assert len(fake_analysis["CALLS"]) == 2


def test_corrupt_cache_entry_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(tmp_path, {"a.py": LSTM_SNIPPET})
    monkeypatch.chdir(tmp_path)
    first = lint(capsys, "a.py")
    for entry in (Path(os.environ["XDG_CACHE_HOME"]) / "jax-cudnn-lint").glob("*.json"):
        entry.write_text("{not json", encoding="utf-8")
    assert lint(capsys, "a.py")[:2] == first[:2]
    assert len(fake_analysis["CALLS"]) == 2


# --- output options ----------------------------------------------------------


def test_show_source_statistics_and_output_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(tmp_path, {"a.py": LSTM_SNIPPET, "b.py": LSTM_SNIPPET, "c.py": ATTENTION})
    monkeypatch.chdir(tmp_path)
    _, out, _ = lint(capsys, "--show-source", "c.py")
    assert out.splitlines() == [
        "c.py:4:12: JCD202 canned dot_product_attention finding (gpu=sm90)",
        "    return jax.nn.dot_product_attention(q, k, v)",
        "           ^",
    ]
    _, out, _ = lint(capsys, "--statistics")
    assert out.splitlines()[-2:] == [
        "2     JCD101 lstm-ref-nonzero-dropout",
        "1     JCD202 cudnn-attention-odd-length",
    ]
    code, out, err = lint(capsys, "--format", "json", "--output", "report.json")
    assert (code, out) == (1, "")
    assert SUMMARY_RE.match(err)
    assert (
        json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["summary"]["findings"]
        == 3
    )
    code, _, err = lint(capsys, "--output", str(tmp_path / "no" / "such" / "dir" / "r.txt"))
    assert code == 2 and "cannot write" in err


def test_json_report_shape(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(tmp_path, {"a.py": LSTM_SNIPPET, "z.py": b"\x00"})
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capsys, "--format", "json", "--cudnn", "9.1")
    doc = json.loads(out)
    assert code == 1
    assert set(doc) == {"schema", "tool", "targets", "findings", "errors", "summary"}
    assert doc["schema"] == "jax-cudnn-lint/report/1"
    assert doc["tool"]["name"] == "jax-cudnn-lint" and doc["tool"]["version"]
    assert doc["targets"]["cudnn"] == "9.1"
    [finding] = doc["findings"]
    assert finding["code"] == "JCD101" and finding["rule"] == "lstm-ref-nonzero-dropout"
    assert (finding["path"], finding["line"], finding["col"]) == ("a.py", 3, 12)
    assert finding["evidence"] == ["lstm_ref called at line 3"]
    assert finding["repro"] == {"api": "lstm_ref", "shape": [2, 511]}
    assert finding["related"] == [{"path": "a.py", "line": 1, "col": 1, "note": "first line"}]
    assert "confirm" not in finding
    [error] = doc["errors"]
    assert error["code"] == "JCD900" and error["path"] == "z.py"
    summary = doc["summary"]
    assert (summary["findings"], summary["errors"], summary["files"], summary["analysed"]) == (
        1,
        1,
        2,
        1,
    )
    assert summary["by_code"] == {"JCD101": 1} and summary["exit_code"] == 1


def test_github_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(tmp_path, {"a,b.py": LSTM_SNIPPET})
    monkeypatch.chdir(tmp_path)
    _, out, _ = lint(capsys, "--format", "github")
    assert out == (
        "::error file=a%2Cb.py,line=3,col=12,title=JCD101::canned lstm_ref finding (gpu=sm90)\n"
    )


# --- --confirm ---------------------------------------------------------------


def _fake_confirm(monkeypatch: pytest.MonkeyPatch, verdicts: list[str]) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []

    def run_confirm(findings: list[Any], **kwargs: Any) -> list[dict[str, Any]]:
        seen.append({"findings": findings, **kwargs})
        return [
            {
                "verdict": v,
                "detail": f"JAX said {v}",
                "backend": "trace",
                "environment": {"jax": "x"},
            }
            for v, _ in zip(verdicts, findings)
        ]

    module = types.ModuleType("jax_cudnn_lint.confirm")
    module.run_confirm = run_confirm  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "jax_cudnn_lint.confirm", module)
    return seen


def test_confirm_verdicts_and_exit_codes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(tmp_path, {"a.py": LSTM_SNIPPET, "b.py": ATTENTION})
    monkeypatch.chdir(tmp_path)
    seen = _fake_confirm(monkeypatch, ["confirmed", "refuted"])
    code, out, err = lint(
        capsys,
        "--confirm",
        "--confirm-backend",
        "trace",
        "--confirm-timeout",
        "7.5",
        "--no-cache",
        "--gpu",
        "sm80",
    )
    assert code == 1
    assert out.splitlines() == [
        "a.py:3:12: JCD101 canned lstm_ref finding (gpu=sm80) [confirmed by trace: JAX said confirmed]",
        (
            "b.py:4:12: JCD202 canned dot_product_attention finding (gpu=sm80) "
            "[refuted by trace: JAX said refuted]"
        ),
    ]
    assert "1 confirmed, 1 refuted" in err
    [call] = seen
    assert [f.code for f in call["findings"]] == ["JCD101", "JCD202"]
    assert call["backend"] == "trace" and call["timeout"] == 7.5
    assert call["gpu"] == "sm80" and call["use_cache"] is False and call["progress"] is False
    assert call["cudnn"]

    _fake_confirm(monkeypatch, ["refuted", "refuted"])
    code, out, _ = lint(capsys, "--confirm", "--format", "json")
    assert code == 0, "refuted findings alone do not fail the run"
    doc = json.loads(out)
    assert [f["confirm"]["verdict"] for f in doc["findings"]] == ["refuted", "refuted"]
    assert doc["summary"]["confirm"] == {"refuted": 2}

    _fake_confirm(monkeypatch, ["inconclusive", "refuted"])
    assert lint(capsys, "--confirm")[0] == 1


def test_confirm_without_jax_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fake_analysis: Any
) -> None:
    write(tmp_path, {"a.py": LSTM_SNIPPET})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "jax_cudnn_lint.confirm", None)  # import fails
    code, out, err = lint(capsys, "--confirm")
    assert (code, out) == (2, "")
    assert "jax-cudnn-lint[confirm]" in err


def test_confirm_is_not_imported_on_the_static_path(
    tmp_path: Path, fake_env: dict[str, str]
) -> None:
    write(tmp_path, {"a.py": LSTM_SNIPPET})
    script = (
        "import sys\nfrom jax_cudnn_lint.cli import main\nrc = main(['--no-cache', '-j1', 'a.py'])\n"
        "print(rc, 'jax_cudnn_lint.confirm' in sys.modules)\n"
    )
    result = run_py("-c", script, cwd=tmp_path, env=fake_env)
    assert result.stdout.splitlines()[-1] == "1 False"


# --- the static path never imports jax nor runs the code it reads ------------

NO_JAX_SCRIPT = """\
import sys
from jax_cudnn_lint.cli import main as lint_main
from flake8.main.cli import main as flake8_main

rc_lint = lint_main(["--no-cache", "-j1", "proj"])
rc_flake8 = flake8_main(["--isolated", "--select", "JCD", "-j1", "proj"])
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("jax", "jaxlib", "side_effect", "train"))
print("RESULT", rc_lint, rc_flake8, loaded)
"""


def test_static_path_never_imports_jax_nor_the_linted_code(tmp_path: Path) -> None:
    marker = tmp_path / "imported.txt"
    write(
        tmp_path,
        {
            "proj/side_effect.py": f"open({str(marker)!r}, 'w').write('side_effect imported')\n",
            "proj/train.py": (
                f"open({str(marker)!r}, 'w').write('train imported')\n"
                "import side_effect\nimport jax\nimport jax.numpy as jnp\n" + LSTM_SNIPPET
            ),
        },
    )
    result = run_py("-c", NO_JAX_SCRIPT, cwd=tmp_path)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stdout.splitlines()[-1] == "RESULT 1 1 []"  # both found JCD101
    assert not marker.exists()


# --- pre-commit --------------------------------------------------------------


@pytest.mark.slow
def test_pre_commit_hooks(tmp_path: Path, fake_env: dict[str, str]) -> None:
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "work"
    write(repo, {"clean.py": "x = 1\n", "other.py": "import os\n"})
    env = {
        **fake_env,
        "PRE_COMMIT_HOME": str(tmp_path / "pc-home"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    for command in (["git", "init", "-q"], ["git", "add", "."]):
        subprocess.run(command, cwd=repo, env=env, check=True, timeout=60)

    def try_hook(hook: str, *files: str) -> subprocess.CompletedProcess[str]:
        return run_py(
            "-m",
            "pre_commit",
            "try-repo",
            str(REPO),
            hook,
            "--files",
            *files,
            cwd=repo,
            env=env,
            timeout=900,
        )

    clean = try_hook("jax-cudnn-lint", "clean.py")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    write(repo, {"bad.py": LSTM_SNIPPET})
    subprocess.run(["git", "add", "."], cwd=repo, env=env, check=True, timeout=60)
    # The command lints the whole repository whichever file is staged.
    bad = try_hook("jax-cudnn-lint", "clean.py")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "bad.py:3:12: JCD101" in bad.stdout
    flake8_clean = try_hook("jax-cudnn-lint-flake8", "clean.py")
    assert flake8_clean.returncode == 0, flake8_clean.stdout + flake8_clean.stderr
    flake8_bad = try_hook("jax-cudnn-lint-flake8", "bad.py", "clean.py")
    assert flake8_bad.returncode == 1, flake8_bad.stdout + flake8_bad.stderr
    assert "bad.py:3:12: JCD101" in flake8_bad.stdout


def test_pre_commit_hooks_file_is_well_formed() -> None:
    text = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    ids = re.findall(r"^- id: (\S+)$", text, re.MULTILINE)
    assert ids == ["jax-cudnn-lint", "jax-cudnn-lint-flake8"]
    assert text.count("language: python") == 2
    assert text.count("types: [python]") == 2


def test_exit_zero_keeps_findings_but_not_the_status(tmp_path: Path) -> None:
    write(tmp_path, {"m.py": LSTM_SNIPPET})
    plain = run_py("-m", "jax_cudnn_lint", str(tmp_path / "m.py"), cwd=tmp_path)
    zero = run_py("-m", "jax_cudnn_lint", "--exit-zero", str(tmp_path / "m.py"), cwd=tmp_path)
    assert plain.returncode == 1 and zero.returncode == 0
    assert "JCD101" in zero.stdout and zero.stdout == plain.stdout


def test_readme_example_project_reports_the_seed_failures() -> None:
    repo = Path(__file__).resolve().parents[1]
    proc = run_py("-m", "jax_cudnn_lint", "--exit-zero", "--no-cache", "examples/", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    codes = sorted(line.split()[1] for line in proc.stdout.splitlines() if ": JCD" in line)
    assert codes == ["JCD101", "JCD201"], proc.stdout


def test_files_whose_analysis_ran_out_of_budget_are_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    from jax_cudnn_lint.shape_inference import interpreter

    write(tmp_path, {"small.py": ATTENTION, "big.py": ATTENTION + "x = 1\n" * 300})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(interpreter, "DEFAULT_STEP_BUDGET", 200)
    _, out, err = lint(capsys, "--no-cache", "--format", "json")
    summary = json.loads(out)["summary"]
    assert summary["partial"] == ["big.py"]
    assert "1 partly analysed (work budget" in err
    # the cache keeps it
    lint(capsys, "--format", "json")
    assert json.loads(lint(capsys, "--format", "json")[1])["summary"]["partial"] == ["big.py"]
    monkeypatch.setattr(interpreter, "DEFAULT_STEP_BUDGET", 400_000)
    assert json.loads(lint(capsys, "--no-cache", "--format", "json")[1])["summary"]["partial"] == []


def test_components_are_analysed_in_workers_with_the_same_result(tmp_path: Path) -> None:
    """Two components (the lm project and an unrelated script): with -j2 each is
    analysed in a worker process, and the cross-module JCD201 is found there."""
    project = Path(__file__).parent / "fixtures" / "projects" / "lm_project"
    files: dict[str, str | bytes] = {
        str(p.relative_to(project)): p.read_text(encoding="utf-8") for p in project.rglob("*.py")
    }
    files["tools/probe.py"] = LSTM_SNIPPET
    write(tmp_path, files)
    runs = [
        run_py("-m", "jax_cudnn_lint", "--no-cache", f"-j{jobs}", "--format", "json", ".", cwd=tmp_path)
        for jobs in (1, 2)
    ]
    one, two = (json.loads(run.stdout) for run in runs)
    assert one["findings"] == two["findings"]
    codes = sorted((f["code"], Path(f["path"]).name) for f in one["findings"])
    assert ("JCD101", "probe.py") in codes and ("JCD201", "model.py") in codes
    (cross,) = [f for f in one["findings"] if f["code"] == "JCD201"]
    assert any(Path(r["path"]).name == "train.py" for r in cross["related"])


# Names re-exported by package __init__ files, as real packages do: a constant from
# pkg/__init__.py (`from .config import SEQ`) and a function that shares its submodule's
# name (`from .attention import attention` in pkg/layers/__init__.py).
REEXPORTS = {
    "pkg/__init__.py": "from .config import SEQ\n",
    "pkg/config.py": "SEQ = 129\n",
    "pkg/layers/__init__.py": "from .attention import attention\n",
    "pkg/layers/attention.py": (
        "import jax\n\n\ndef attention(q):\n"
        "    return jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n"
    ),
    "train.py": (
        "import jax\nimport jax.numpy as jnp\nfrom pkg import SEQ\nfrom pkg.layers import attention\n\n\n"
        "def main():\n    q = jnp.zeros((2, SEQ, 4, 64), jnp.bfloat16)\n"
        "    return jax.grad(lambda q: attention(q).astype(jnp.float32).sum())(q)\n"
    ),
}


def test_names_reexported_by_package_inits_are_followed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    write(tmp_path, dict(REEXPORTS))
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capsys, "--no-cache", "-j1", ".")
    assert code == 1
    assert codes_by_file(out) == [("pkg/layers/attention.py", "JCD201")]
    assert "T = S = 129" in out


# A test whose batch comes from conftest.py fixtures (one of them taking another): pytest
# injects them without an import, so the project set reaches conftest.py on its own.
CONFTEST = {
    "model.py": (
        "import jax\nimport jax.numpy as jnp\n\n\n"
        "def loss(x):\n    return jnp.sum(jax.nn.dot_product_attention(x, x, x, implementation='cudnn'))\n"
    ),
    "tests/conftest.py": (
        "import jax.numpy as jnp\nimport pytest\n\n\n"
        "@pytest.fixture\ndef seq_len():\n    return 255\n\n\n"
        "@pytest.fixture\ndef batch(seq_len):\n    return jnp.zeros((2, seq_len, 4, 64), jnp.bfloat16)\n"
    ),
    "tests/test_model.py": "import jax\n\nfrom model import loss\n\n\ndef test_grad(batch):\n    jax.grad(loss)(batch)\n",
}


def test_conftest_fixtures_reach_the_tests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    write(tmp_path, dict(CONFTEST))
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capsys, "--no-cache", "-j1", ".")
    assert code == 1
    assert codes_by_file(out) == [("model.py", "JCD201")]
    assert "literal 255 at conftest.py" in out
    # the test module's own fixture of that name wins over the conftest's
    write(tmp_path, {"tests/test_model.py": CONFTEST["tests/test_model.py"] + "\n\nimport pytest\n\n\n@pytest.fixture\ndef seq_len():\n    return 256\n"})
    code, out, _ = lint(capsys, "--no-cache", "-j1", ".")
    assert codes_by_file(out) == []
    # a parent folder's conftest.py counts too; the closest one wins
    files = {f"sub/{path}": text for path, text in CONFTEST.items()}
    files["sub/conftest.py"] = CONFTEST["tests/conftest.py"].replace("255", "256")
    files["sub/tests/conftest.py"] = "import pytest\n\n\n@pytest.fixture\ndef seq_len():\n    return 127\n"
    write(tmp_path / "nested", files)
    code, out, _ = lint(capsys, "--no-cache", "-j1", "nested")
    assert codes_by_file(out) == [("nested/sub/model.py", "JCD201")]
    assert "T = S = 127" in out


def test_a_package_folder_given_itself_resolves_its_own_absolute_imports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    # `jax-cudnn-lint mypkg/` with no pyproject.toml above: mypkg/train.py's
    # `from mypkg import model` is mypkg/model.py, imported from the folder above mypkg
    write(tmp_path, {
        "mypkg/__init__.py": "",
        "mypkg/model.py": "import jax\n\n\ndef attn(x):\n    return jax.nn.dot_product_attention(x, x, x, implementation='cudnn')\n",
        "mypkg/train.py": (
            "import jax\nimport jax.numpy as jnp\n\nfrom mypkg import model\n\n\n"
            "def step():\n    x = jnp.zeros((2, 255, 4, 64), jnp.bfloat16)\n"
            "    return jax.grad(lambda x: jnp.mean(model.attn(x)))(x)\n"
        ),
    })
    monkeypatch.chdir(tmp_path)
    code, out, _ = lint(capsys, "--no-cache", "-j1", "mypkg")
    assert codes_by_file(out) == [("mypkg/model.py", "JCD201")]
    code, out, _ = lint(capsys, "--no-cache", "-j1", str(tmp_path / "mypkg"))
    assert [code for _, code in codes_by_file(out)] == ["JCD201"]


def test_a_run_served_from_the_cache_names_the_rules(tmp_path: Path) -> None:
    # probe 39b: a process that reads every result from the cache imports no rule module,
    # and its json/sarif/--statistics lost the rules' names
    (tmp_path / "a.py").write_text(LSTM_SNIPPET)
    command = [sys.executable, "-m", "jax_cudnn_lint", "--format", "json", "--statistics", "--exit-zero", "a.py"]
    runs = [subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=True) for _ in range(2)]
    cold, warm = (json.loads(run.stdout) for run in runs)
    assert [f["rule"] for f in warm["findings"]] == [f["rule"] for f in cold["findings"]] == ["lstm-ref-nonzero-dropout"]
    statistics = [run.stderr.splitlines()[0] for run in runs]  # (the summary after it has the time)
    assert statistics[0] == statistics[1] and "lstm-ref-nonzero-dropout" in statistics[1]


@pytest.mark.skipif(sys.platform != "linux", reason="a file name that is not UTF-8 needs a byte-named file system")
@pytest.mark.parametrize("fmt", ["text", "github", "sarif", "json"])
def test_a_file_name_that_is_not_utf8_is_reported_in_every_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    # probe 43c: `mod\xe9.py` made the SARIF URI and `-o FILE` fail (JCD901, exit 2, no report)
    folder = os.fsencode(str(tmp_path))
    with open(os.path.join(folder, b"mod\xe9.py"), "w", encoding="utf-8") as handle:
        handle.write(LSTM_SNIPPET)
    monkeypatch.chdir(tmp_path)
    assert main(["--no-cache", "--format", fmt, "-o", "out.txt", "."]) == 1
    written = (tmp_path / "out.txt").read_bytes()
    assert b"mod\xe9.py" in written or b"mod%E9.py" in written or b"mod\\udce9.py" in written
    if fmt in ("sarif", "json"):
        json.loads(written)  # (test_reports validates SARIF against the schema)
