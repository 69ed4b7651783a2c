"""Environment variables' defaults across a project: the default holds on a run without
the variable set, unless analysed code sets it (a test's `monkeypatch.setenv` in a
conftest fixture, a launcher's `os.environ[...] = ...`) or sets names it does not spell."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import write
from jax_cudnn_lint.cli import main

SETTINGS = 'import os\n\nSEQ_LEN = int(os.environ.get("TSF_SEQ_LEN", "255"))\n'

MODEL = """\
import jax
import jax.numpy as jnp

from tsf.settings import SEQ_LEN


def loss(x):
    return jax.nn.dot_product_attention(x, x, x, implementation="cudnn").astype(jnp.float32).sum()


def train():
    return jax.grad(loss)(jnp.zeros((2, SEQ_LEN, 4, 64), jnp.bfloat16))
"""

TEST = "from tsf.model import train\n\n\ndef test_train():\n    train()\n"


def lint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, files: dict[str, str]) -> list[str]:
    write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    main(["--no-cache", "--exit-zero", "-j1", "."])
    return [line for line in capsys.readouterr().out.splitlines() if "JCD" in line]


@pytest.mark.parametrize(
    ("fixture", "found"),
    [
        ("    yield\n", True),  # nothing sets it: the default runs
        ('    monkeypatch.setenv("TSF_SEQ_LEN", "256")\n', False),
        ('    with mock.patch.dict(os.environ, {"TSF_SEQ_LEN": "256"}):\n        yield\n', False),
        ('    with mock.patch.dict(os.environ, {"OTHER": "1"}):\n        yield\n', True),  # another variable
        ("    os.environ.update(ENV)\n", False),  # names it does not spell
    ],
)
def test_an_autouse_conftest_fixture_setting_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, fixture: str, found: bool) -> None:
    # (autouse, not requested: the reading function is also judged from its own module,
    # before any test's run parses the conftest: probe 112d)
    conftest = f"import os\nfrom unittest import mock\n\nimport pytest\n\nENV = {{}}\n\n\n@pytest.fixture(autouse=True)\ndef seq_env(monkeypatch):\n{fixture}"
    files = {"tsf/__init__.py": "", "tsf/settings.py": SETTINGS, "tsf/model.py": MODEL, "tests/conftest.py": conftest, "tests/test_model.py": TEST}
    lines = lint(tmp_path, monkeypatch, capsys, files)
    assert bool(lines) is found, lines
    if found:
        assert "JCD201" in lines[0] and "default of $TSF_SEQ_LEN (unset in the environment)" in lines[0]


def test_a_launcher_setting_the_variable_before_importing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    launcher = 'import os\n\nos.environ["TSF_SEQ_LEN"] = "256"\n\nfrom tsf.model import train\n\nif __name__ == "__main__":\n    train()\n'
    files = {"tsf/__init__.py": "", "tsf/settings.py": SETTINGS, "tsf/model.py": MODEL, "launch.py": launcher}
    assert lint(tmp_path, monkeypatch, capsys, files) == []


ONE_FILE = """\
import operator
import os
from unittest import mock

import jax
import jax.numpy as jnp

{setup}


def loss(x):
    return jax.nn.dot_product_attention(x, x, x, implementation="cudnn").astype(jnp.float32).sum()


def train():
    seq = int(os.environ.get("SEQ", "255"))
    return jax.grad(loss)(jnp.zeros((2, seq, 4, 64), jnp.bfloat16))
"""


@pytest.mark.parametrize(
    ("setup", "found"),
    [
        ("", True),
        ("env = os.environ\nenv['SEQ'] = '256'", False),  # an alias (probe 112a)
        ("from os import environ as ENV\nENV['SEQ'] = '256'", False),
        ("def apply(env):\n    env['SEQ'] = '256'\n\n\napply(os.environ)", False),  # a helper handed it
        ("operator.setitem(os.environ, 'SEQ', '256')", False),
        ("os.environb[b'SEQ'] = b'256'", False),
        ("PATCH = mock.patch.dict(os.environ, values={'SEQ': '256'})", False),
        ("os.environ |= {'SEQ': '256'}", False),
        ("os.environ.setdefault('SEQ', '256')", False),
        ("os.environ['OTHER'] = '1'", True),  # another variable
        ("child = {**os.environ, 'SEQ': '256'}\nsaved = os.environ.copy()\nsaved['SEQ'] = '256'", True),  # copies
        ("os.putenv('SEQ', '256')", True),  # the process's environment, not os.environ
        ("setattr(os, 'environ', {'SEQ': '256'})", False),  # reached other ways (probe 113a)
        ("import sys\nsys.modules['os'].environ['SEQ'] = '256'", False),
        ("put = os.environ.__setitem__\nput('SEQ', '256')", False),
    ],
)
def test_writes_of_the_environment_in_the_reading_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, setup: str, found: bool) -> None:
    lines = lint(tmp_path, monkeypatch, capsys, {"train.py": ONE_FILE.format(setup=setup)})
    assert bool(lines) is found, lines


def test_a_module_imported_for_what_its_import_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    # `import tsf.hooks` sets the variable as it is imported; the analysis never parses it
    # (no name of it is used), the environment check reads it (probe 117a)
    hooks = 'import os\n\nos.environ["TSF_SEQ_LEN"] = "256"\n'
    launcher = "import tsf.hooks  # noqa: F401\nfrom tsf.model import train\n\nif __name__ == '__main__':\n    train()\n"
    files = {"tsf/__init__.py": "", "tsf/settings.py": SETTINGS, "tsf/model.py": MODEL, "tsf/hooks.py": hooks, "launch.py": launcher}
    assert lint(tmp_path, monkeypatch, capsys, files) == []
    assert len(lint(tmp_path, monkeypatch, capsys, files | {"tsf/hooks.py": "X = 1\n"})) == 1
