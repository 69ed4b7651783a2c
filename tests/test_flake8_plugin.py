"""The flake8 adapter, through flake8 itself (`python -m flake8`) and directly."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from conftest import LSTM_LINE, LSTM_SNIPPET, run_py, write
from jax_cudnn_lint import engine
from jax_cudnn_lint.flake8_plugin import JcdChecker, make_config

ATTENTION = "import jax\n\ndef g(q, k, v):\n    return jax.nn.dot_product_attention(q, k, v)\n"


def flake8(*args: str, cwd: Path, env: dict[str, str] | None, stdin: str | None = None) -> Any:
    return run_py("-m", "flake8", "--isolated", *args, cwd=cwd, env=env, stdin=stdin)


def test_reports_a_file(tmp_path: Path, fake_env: dict[str, str]) -> None:
    write(tmp_path, {"m.py": LSTM_SNIPPET})
    result = flake8("--select", "JCD", "m.py", cwd=tmp_path, env=fake_env)
    assert result.stdout == "m.py:3:12: JCD101 canned lstm_ref finding (gpu=sm90)\n"
    assert result.returncode == 1
    assert "Traceback" not in result.stderr


def test_clean_file_exits_zero(tmp_path: Path, fake_env: dict[str, str]) -> None:
    write(tmp_path, {"m.py": "import jax\n\nx = jax.numpy.ones(3)\n"})
    result = flake8("--select", "JCD", "m.py", cwd=tmp_path, env=fake_env)
    assert (result.returncode, result.stdout) == (0, "")


def test_stdin_with_display_name(tmp_path: Path, fake_env: dict[str, str]) -> None:
    # The file does not exist: the plugin must use the text flake8 hands over.
    result = flake8(
        "--select",
        "JCD",
        "--stdin-display-name",
        "pkg/model.py",
        "-",
        cwd=tmp_path,
        env=fake_env,
        stdin=LSTM_SNIPPET,
    )
    assert result.stdout == "pkg/model.py:3:12: JCD101 canned lstm_ref finding (gpu=sm90)\n"


def test_jobs_two_over_several_files(tmp_path: Path, fake_env: dict[str, str]) -> None:
    files = {f"m{i}.py": LSTM_SNIPPET for i in range(4)}
    files["clean.py"] = "x = 1\n"
    files["attn.py"] = ATTENTION
    write(tmp_path, files)
    names = sorted(files)
    parallel = flake8("--select", "JCD", "-j2", *names, cwd=tmp_path, env=fake_env)
    serial = flake8("--select", "JCD", "-j1", *names, cwd=tmp_path, env=fake_env)
    lines = sorted(parallel.stdout.splitlines())
    assert lines == sorted(serial.stdout.splitlines())
    assert len(lines) == 5
    assert "attn.py:4:12: JCD202 canned dot_product_attention finding (gpu=sm90)" in lines
    assert all(f"m{i}.py:3:12: JCD101" in "\n".join(lines) for i in range(4))


def test_noqa_suppresses(tmp_path: Path, fake_env: dict[str, str]) -> None:
    source = (
        "from jax.experimental import rnn\n"
        "a = rnn.lstm_ref(1)  # noqa: JCD101\n"
        "b = rnn.lstm_ref(2)  # noqa: E501\n"
        "c = rnn.lstm_ref(3)\n"
    )
    write(tmp_path, {"m.py": source})
    result = flake8("--select", "JCD", "m.py", cwd=tmp_path, env=fake_env)
    assert [line.split(":")[1] for line in result.stdout.splitlines()] == ["3", "4"]


def test_syntax_error_is_e999_and_the_plugin_does_not_crash(
    tmp_path: Path, fake_env: dict[str, str]
) -> None:
    write(
        tmp_path,
        {"bad.py": "from jax.experimental import rnn\nrnn.lstm_ref(\n", "m.py": LSTM_SNIPPET},
    )
    result = flake8("--select", "JCD,E999", "bad.py", "m.py", cwd=tmp_path, env=fake_env)
    assert "bad.py:" in result.stdout and "E999" in result.stdout
    assert "m.py:3:12: JCD101" in result.stdout
    assert "Traceback" not in result.stderr


def test_off_by_default_rule_needs_selecting(tmp_path: Path, fake_env: dict[str, str]) -> None:
    write(tmp_path, {"m.py": "from x import lstm_ref_fake_off\nlstm_ref_fake_off(1)\nrnn.lstm_ref(2)\n"})
    default = flake8("m.py", cwd=tmp_path, env=fake_env)
    assert "JCD101" in default.stdout
    assert "JCD299" not in default.stdout
    selected = flake8("--extend-select", "JCD299", "m.py", cwd=tmp_path, env=fake_env)
    assert "m.py:2:1: JCD299" in selected.stdout


def test_target_options_reach_the_rules(tmp_path: Path, fake_env: dict[str, str]) -> None:
    write(tmp_path, {"m.py": LSTM_SNIPPET})
    cli = flake8("--select", "JCD", "--jcd-gpu", "sm80", "m.py", cwd=tmp_path, env=fake_env)
    assert "(gpu=sm80)" in cli.stdout
    # From flake8's own config file (parse_from_config), without --isolated.
    write(tmp_path, {"setup.cfg": "[flake8]\nselect = JCD\njcd-gpu = sm100\n"})
    result = run_py("-m", "flake8", "m.py", cwd=tmp_path, env=fake_env)
    assert "(gpu=sm100)" in result.stdout


@pytest.mark.parametrize(
    ("option", "value"),
    [("--jcd-gpu", "sm8O"), ("--jcd-cudnn", "9.8x"), ("--jcd-jax-version", "zz"), ("--jcd-max-file-size", "-1")],
)
def test_a_target_option_flake8_cannot_read_stops_it(tmp_path: Path, fake_env: dict[str, str], option: str, value: str) -> None:
    # probe 39b: a typo fell back to the defaults unseen (and -1 MB made every file JCD900)
    write(tmp_path, {"m.py": LSTM_SNIPPET})
    result = flake8("--select", "JCD", option, value, "m.py", cwd=tmp_path, env=fake_env)
    assert result.returncode != 0 and f"argument {option}" in result.stderr and "JCD" not in result.stdout
    write(tmp_path, {"setup.cfg": f"[flake8]\nselect = JCD\n{option[2:]} = {value}\n"})
    from_config = run_py("-m", "flake8", "m.py", cwd=tmp_path, env=fake_env)
    assert from_config.returncode != 0 and f"argument {option}" in from_config.stderr


def test_internal_error_is_reported_not_raised(tmp_path: Path, fake_env: dict[str, str]) -> None:
    # JCD901 is always reported (README), as the command reports it: the file's findings
    # are lost, and an editor or a lint gate shows that they are (probe 43c)
    write(tmp_path, {"m.py": LSTM_SNIPPET})
    env = {**fake_env, "JCD_FAKE": "raise"}
    env.pop("JCD_RAISE_INTERNAL_ERRORS")
    quiet = flake8("--select", "JCD", "m.py", cwd=tmp_path, env=env)
    assert quiet.returncode == 1
    assert [line.split(" ", 2)[:2] for line in quiet.stdout.splitlines()] == [["m.py:1:1:", "JCD901"]]
    assert "Traceback" not in quiet.stderr
    verbose = flake8("-vv", "--select", "JCD", "m.py", cwd=tmp_path, env=env)
    assert "JCD901 internal error" in verbose.stdout
    assert "jax-cudnn-lint: internal error on m.py" in verbose.stderr
    assert "boom from the fake analysis" in verbose.stderr


def test_internal_error_raises_when_asked(tmp_path: Path, fake_env: dict[str, str]) -> None:
    write(tmp_path, {"m.py": LSTM_SNIPPET})
    env = {**fake_env, "JCD_FAKE": "raise", "JCD_RAISE_INTERNAL_ERRORS": "1"}
    result = flake8("--select", "JCD", "m.py", cwd=tmp_path, env=env)
    assert result.returncode != 0
    assert "boom from the fake analysis" in result.stderr


def test_real_jcd101_end_to_end(tmp_path: Path) -> None:
    write(tmp_path, {"m.py": LSTM_SNIPPET})
    result = flake8("--select", "JCD", "m.py", cwd=tmp_path, env=None)
    codes = [
        (line.split(":")[1], line.split(": ")[1].split()[0]) for line in result.stdout.splitlines()
    ]
    assert codes == [(str(LSTM_LINE), "JCD101")]


# --- the class on its own ---------------------------------------------------


def _checker(text: str, filename: str = "does/not/exist.py") -> JcdChecker:
    return JcdChecker(ast.parse(text), text.splitlines(keepends=True), filename)


def test_gate_runs_before_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(*args: object, **kwargs: object) -> list[object]:
        raise AssertionError("engine called on a file the gate rejects")

    monkeypatch.setattr("jax_cudnn_lint.flake8_plugin.lint_tree", explode)
    assert list(_checker("import numpy as np\nnp.ones(3)\n").run()) == []


def test_reuses_flakes_tree_and_lines(fake_analysis: Any) -> None:
    # A filename that does not exist: nothing may reopen it.
    results = list(_checker(LSTM_SNIPPET).run())
    assert results == [(3, 11, "JCD101 canned lstm_ref finding (gpu=sm90)", JcdChecker)]
    assert fake_analysis["CALLS"] == [["does/not/exist.py"]]


def test_parse_options_sets_class_config(
    fake_analysis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import argparse

    monkeypatch.setattr(JcdChecker, "config", None)
    JcdChecker.parse_options(
        argparse.Namespace(jcd_jax_version="0.4.31", jcd_gpu="sm80", jcd_cudnn=None)
    )
    assert JcdChecker.config is not None
    assert (JcdChecker.config.jax_version, JcdChecker.config.gpu) == ("0.4.31", "sm80")
    assert next(iter(_checker(LSTM_SNIPPET).run()))[2].endswith("(gpu=sm80)")


def test_plugin_config_computes_every_rule(fake_analysis: Any) -> None:
    config = make_config()
    assert config.enabled("JCD299", False)  # flake8 filters, not the engine
    assert engine.might_matter(LSTM_SNIPPET)


def test_files_over_the_size_limit_are_reported_not_analysed(
    fake_analysis: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import argparse

    monkeypatch.setattr(JcdChecker, "max_file_mb", JcdChecker.max_file_mb)
    monkeypatch.setattr(JcdChecker, "config", None)
    JcdChecker.parse_options(
        argparse.Namespace(jcd_jax_version=None, jcd_gpu=None, jcd_cudnn=None, jcd_max_file_size=1e-5)
    )
    results = list(_checker(LSTM_SNIPPET).run())
    assert len(results) == 1 and results[0][:2] == (1, 0)
    assert results[0][2].startswith("JCD900 too large to analyse (0.0 MB, the limit is 1e-05 MB")
    assert fake_analysis["CALLS"] == []
    JcdChecker.parse_options(
        argparse.Namespace(jcd_jax_version=None, jcd_gpu=None, jcd_cudnn=None, jcd_max_file_size=0)
    )
    assert next(iter(_checker(LSTM_SNIPPET).run()))[2].startswith("JCD101")  # 0: no limit
