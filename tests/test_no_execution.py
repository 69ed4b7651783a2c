"""The static path never runs, imports or evaluates the code it reads; --confirm runs only
the repro kernels.

A booby-trapped project: every file that Python could execute (a module with
side effects, ``__init__.py``, ``conftest.py``, ``sitecustomize.py``,
``usercustomize.py``, a ``.pth`` file, ``setup.py``, ``__main__.py``, and a ``jax/``
package that would shadow the real one for anything importing jax with the project
folder on ``sys.path``) writes a marker file when run.  The same files also hold real
findings (JCD101, JCD201), and expressions an evaluator might be tempted to run
(``eval``, ``open``, ``__import__`` inside shape arithmetic).

The project is linted by the command (console script and ``python -m``, from inside
the project folder, with and without --confirm; nothing is mocked), by flake8, and
in-process; afterwards no marker exists, and "jax" is not in ``sys.modules`` of the
process that linted (checked in a fresh interpreter, since this pytest process may
have imported jax for other tests).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TIMEOUT = 600


def _trap(marker_dir: Path, name: str) -> str:
    path = marker_dir / name
    return f"open({str(path)!r}, 'w').write('executed')\n"


def build_project(root: Path, markers: Path, shadows: bool = True) -> Path:
    """root/proj is the project; root (the working folder of every run) holds modules
    that would shadow jax and numpy for any Python started there with `-m` or `-c`."""
    markers.mkdir(parents=True, exist_ok=True)
    proj = root / "proj"
    (proj / "pkg").mkdir(parents=True)
    shadow_files = {
        "jax/__init__.py": _trap(markers, "shadow_jax") + "# a folder named jax\n",
        "jax/nn.py": _trap(markers, "shadow_jax_nn") + "def dot_product_attention(): ...\n",
        "numpy.py": _trap(markers, "shadow_numpy") + "# lstm\n",
        "sitecustomize.py": _trap(markers, "cwd_sitecustomize") + "# lstm\n",
    }
    for name, text in shadow_files.items() if shadows else ():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    files = {
        "model.py": _trap(markers, "model")
        + textwrap.dedent(
            """\
            import jax
            import jax.numpy as jnp
            from jax.experimental import rnn

            T = 511


            def loss(q):
                out = jax.nn.dot_product_attention(q, q, q, implementation="cudnn")
                return out.sum()


            def lstm(x, h, c, wi, wh, bi, bh, sl):
                return rnn.lstm_ref(x, h, c, wi, wh, bi, bh, sl, input_size=4, hidden_size=8,
                                    num_layers=1, dropout=0.5, bidirectional=False)


            q0 = jnp.zeros((2, T, 4, 64), jnp.bfloat16)
            g = jax.grad(loss)(q0)

            if __name__ == "__main__":
                open(MARKER_MAIN, "w").write("executed")
            """
        ).replace("MARKER_MAIN", repr(str(markers / "model_main"))),
        "evaluate_me.py": textwrap.dedent(
            f"""\
            import jax
            import jax.numpy as jnp

            T = len(open({str(markers / "eval_open")!r}, "w").name) | 1
            S = eval("__import__('os').system('touch {markers / "eval_eval"}') or 511")
            D = __import__("os").system("touch {markers / "eval_import"}") + 64


            def loss(q, k):
                return jax.nn.dot_product_attention(q, k, k, implementation="cudnn").sum()


            q = jnp.zeros((2, T, 4, D))
            k = jnp.zeros((2, S, 4, D))
            g = jax.grad(loss)(q, k)
            """
        ),
        "pkg/__init__.py": _trap(markers, "pkg_init") + "from pkg.layers import attend\n",
        "pkg/layers.py": _trap(markers, "pkg_layers")
        + textwrap.dedent(
            """\
            import functools
            import jax

            attend = functools.partial(jax.nn.dot_product_attention, implementation="cudnn")
            """
        ),
        "train.py": _trap(markers, "train")
        + textwrap.dedent(
            """\
            import jax
            import jax.numpy as jnp
            from pkg import attend


            def loss(q):
                return attend(q, q, q).sum()


            g = jax.grad(loss)(jnp.zeros((1, 1023, 2, 64), jnp.float16))
            """
        ),
        "conftest.py": _trap(markers, "conftest") + "# dot_product_attention\n",
        "sitecustomize.py": _trap(markers, "sitecustomize") + "# dot_product_attention\n",
        "usercustomize.py": _trap(markers, "usercustomize") + "# lstm_ref\n",
        "setup.py": _trap(markers, "setup") + "from setuptools import setup\nsetup()\n",
        "__main__.py": _trap(markers, "dunder_main") + "# dot_product_attention\n",
        "trap.pth": "import os; " + _trap(markers, "pth").strip() + "\n",
        "pyproject.toml": '[project]\nname = "trap"\nversion = "0"\n',
    }
    for name, text in files.items():
        (proj / name).write_text(text, encoding="utf-8")
    return proj


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("JCD_RAISE_INTERNAL_ERRORS", None)
    env.pop("PYTHONPATH", None)
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    return env


def _markers(markers: Path) -> list[str]:
    return sorted(p.name for p in markers.iterdir())


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )


def _console_script() -> str:
    found = shutil.which("jax-cudnn-lint")
    if found is None:
        candidate = Path(sys.executable).with_name("jax-cudnn-lint")
        if candidate.exists():
            return str(candidate)
        pytest.skip("the jax-cudnn-lint console script is not installed")
    return found


def _confirm_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("jax") is not None


LAUNCHERS = ["console-script", "python-m"]
CONFIRM = ["--confirm", "--confirm-backend", "trace"]
MODES = [
    pytest.param([], True, id="static"),
    pytest.param(CONFIRM, False, id="confirm-trace-clean-cwd"),
    pytest.param(CONFIRM, True, id="confirm-trace"),
]


@pytest.mark.parametrize("launcher", LAUNCHERS)
@pytest.mark.parametrize(("mode", "shadows"), MODES)
def test_command_runs_nothing(
    launcher: str, mode: list[str], shadows: bool, tmp_path: Path
) -> None:
    if mode and not _confirm_available():
        pytest.skip("--confirm needs jax installed")
    markers = tmp_path / "markers"
    build_project(tmp_path, markers, shadows)
    base = (
        [_console_script()]
        if launcher == "console-script"
        else [sys.executable, "-m", "jax_cudnn_lint"]
    )
    result = _run(
        [*base, "--no-cache", "--format", "json", *mode, "proj"], tmp_path, _env(tmp_path)
    )
    report = (
        f"exit {result.returncode}\nstdout:\n{result.stdout[-4000:]}\nstderr:\n"
        f"{result.stderr[-4000:]}"
    )
    assert "Traceback (most recent call last)" not in result.stderr, report
    assert result.returncode in (0, 1), report
    assert _markers(markers) == [], f"project code ran: {_markers(markers)}\n{report}"
    data = json.loads(result.stdout)
    codes = sorted(f["code"] for f in data["findings"])
    # The traps are real findings too: the analysis did look at them.
    assert "JCD101" in codes, report
    assert any(c.startswith("JCD2") for c in codes), report
    if mode:
        assert all("confirm" in f for f in data["findings"]), report


def test_flake8_runs_nothing(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    proj = build_project(tmp_path, markers)
    result = _run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "JCD", "."], proj, _env(tmp_path)
    )
    report = f"exit {result.returncode}\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    assert "Traceback (most recent call last)" not in result.stderr, report
    assert _markers(markers) == [], f"project code ran: {_markers(markers)}\n{report}"
    assert "JCD101" in result.stdout, report


IN_PROCESS = textwrap.dedent(
    """\
    import ast, json, os, sys
    from pathlib import Path
    proj = Path(sys.argv[1])
    before = set(sys.modules)
    from jax_cudnn_lint import engine
    from jax_cudnn_lint.cli import main
    from jax_cudnn_lint.flake8_plugin import JcdChecker
    trees, codes = {}, []
    for path in sorted(proj.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        codes += [f.code for f in engine.lint_source(text, str(path))]
        tree = ast.parse(text)
        trees[str(path)] = tree
        JcdChecker.parse_options(type("O", (), {})())
        codes += [r[2].split()[0] for r in JcdChecker(tree, text.splitlines(True), str(path)).run()]
    codes += [f.code for f in engine.lint_project(trees, None, str(proj))]
    sys.stdout = open(os.devnull, "w")
    exit_code = main(["--no-cache", str(proj)])
    sys.stdout = sys.__stdout__
    new = sorted(set(sys.modules) - before)
    print(json.dumps({
        "codes": sorted(set(codes)),
        "exit": exit_code,
        "jax_imported": "jax" in sys.modules,
        "foreign": [m for m in new if m.split(".")[0] in
                    {"jax", "jaxlib", "numpy", "model", "pkg", "train", "conftest",
                     "sitecustomize", "usercustomize", "setup", "evaluate_me"}],
    }))
    """
)


def test_in_process_imports_nothing(tmp_path: Path) -> None:
    """Engine, plugin class and command main(), in a fresh interpreter inside the project."""
    markers = tmp_path / "markers"
    proj = build_project(tmp_path, markers)
    result = _run([sys.executable, "-c", IN_PROCESS, str(proj)], tmp_path, _env(tmp_path))
    report = f"exit {result.returncode}\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    assert result.returncode == 0, report
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert data["jax_imported"] is False, report
    assert data["foreign"] == [], report
    assert _markers(markers) == [], f"project code ran: {_markers(markers)}\n{report}"
    assert "JCD101" in data["codes"], report


def test_this_process_imports_nothing_new(tmp_path: Path) -> None:
    """In the pytest process too: linting adds no jax/project module to sys.modules."""
    from jax_cudnn_lint import engine

    markers = tmp_path / "markers"
    proj = build_project(tmp_path, markers)
    before = set(sys.modules)
    trees = {}
    for path in sorted(proj.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        engine.lint_source(text, str(path))
        trees[str(path)] = engine.parse(text, str(path))
    engine.lint_project(trees, None, str(proj))
    new = {m.split(".")[0] for m in set(sys.modules) - before}
    assert not new & {"jax", "jaxlib", "model", "pkg", "train", "evaluate_me"}, sorted(new)
    assert _markers(markers) == []
