"""Shared test helpers.

Every test runs with JCD_RAISE_INTERNAL_ERRORS=1 (our bugs surface instead of being
reported as JCD901 or logged away) and with its own empty cache folder.

`FAKE_ANALYSIS` is a canned stand-in for the rules, so the adapters (command, flake8
plugin, reports) are tested on their own: a call named `lstm_ref` gives JCD101, one
named `dot_product_attention` JCD202, one named `lstm_ref_fake_off` JCD299 (a rule that is
off by default).  Use `fake_analysis` in-process, `fake_env` for a subprocess (it puts
a sitecustomize.py that installs the fake on PYTHONPATH).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

FAKE_ANALYSIS = """
import ast
import os

from jax_cudnn_lint import engine
from jax_cudnn_lint.finding import Finding, Location
from jax_cudnn_lint.lint_rules.registry import RULES, Rule

FAKE_RULES = {
    "JCD101": Rule("JCD101", "lstm-ref-nonzero-dropout", "canned JCD101", True, True),
    "JCD202": Rule("JCD202", "cudnn-attention-odd-length", "canned JCD202", True, True),
    "JCD299": Rule("JCD299", "fake-off-by-default", "canned JCD299", False, False),
}
CODES = {"lstm_ref": "JCD101", "dot_product_attention": "JCD202", "lstm_ref_fake_off": "JCD299"}
CALLS = []


def fake_analyse_modules(trees, config, root=None, lazy=None, importers=None, partial=None, drivers=frozenset(), imported_by=None, data_files=frozenset()):
    CALLS.append(sorted(trees))
    if os.environ.get("JCD_FAKE") == "raise":
        raise RuntimeError("boom from the fake analysis")
    found = []
    for path, tree in trees.items():
        if os.environ.get("JCD_FAKE") == "raise-in" and path.endswith(os.environ["JCD_FAKE_FILE"]):
            raise RuntimeError(f"boom in {path}")
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            code = CODES.get(name)
            if code is None or not config.enabled(code, RULES[code].default_on):
                continue
            found.append(Finding(
                code, path, node.lineno, node.col_offset,
                f"canned {name} finding (gpu={config.gpu})",
                evidence=(f"{name} called at line {node.lineno}",),
                repro={"api": name, "shape": [2, 511]},
                related=(Location(path, 1, 0, "first line"),),
            ))
    return found


def install(setitem=None):
    for code, rule in FAKE_RULES.items():
        if setitem is not None:
            setitem(RULES, code, rule)
        else:
            RULES[code] = rule
    return fake_analyse_modules
"""

LSTM_SNIPPET = textwrap.dedent(
    """\
    from jax.experimental import rnn
    def f(x, h, c, wi, wh, bi, bh, sl):
        return rnn.lstm_ref(x, h, c, wi, wh, bi, bh, sl, input_size=4, hidden_size=8, num_layers=1, dropout=0.5, bidirectional=False)
    """
)
LSTM_LINE = 3


@pytest.fixture(autouse=True)
def _test_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    monkeypatch.setenv("JCD_RAISE_INTERNAL_ERRORS", "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.delenv("JCD_FAKE", raising=False)


@pytest.fixture
def fake_analysis(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Install the canned analysis in this process; yields its namespace (CALLS etc.)."""
    from jax_cudnn_lint import engine

    namespace: dict[str, Any] = {}
    exec(compile(FAKE_ANALYSIS, "<fake analysis>", "exec"), namespace)  # noqa: S102 - our own source
    monkeypatch.setattr(engine, "analyse_modules", namespace["install"](monkeypatch.setitem))
    yield namespace


@pytest.fixture
def fake_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment for a subprocess that runs with the canned analysis installed."""
    site = tmp_path_factory.mktemp("fake_site")
    # Tolerant: every Python of the subprocess tree imports it (pip's too).
    body = FAKE_ANALYSIS + "\nengine.analyse_modules = install()\n"
    (site / "sitecustomize.py").write_text(
        "try:\n    import jax_cudnn_lint.engine\nexcept ImportError:\n    pass\nelse:\n"
        f"    exec(compile({body!r}, 'fake_analysis', 'exec'))\n",
        encoding="utf-8",
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    return env


def run_py(
    *args: str,
    cwd: Path | str,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """`python ARGS...` in a subprocess, text in and out."""
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=env if env is not None else dict(os.environ),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    """Create files under root (str -> UTF-8 text, bytes as is); returns root."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root
