"""Crash test over real code: every .py file of the installed jax and numpy packages.

Each file goes through ``engine.lint_source`` on its own; then every file of a
package that passes the gate goes through ``engine.lint_project`` together (the
command's whole-project view, imports followed across modules).  Anything raised
other than SyntaxError/ValueError on text that ``ast.parse`` itself rejects is an
internal error; the test lists every file that had one.

The packages are located with ``importlib.util.find_spec``, which does not import
them (the static path never imports jax, and neither does this test).  Other
JAX-ecosystem packages are checked too when they happen to be installed.
"""

from __future__ import annotations

import ast
import importlib.util
import tokenize
import traceback
from pathlib import Path

import pytest
from jax_cudnn_lint import engine
from jax_cudnn_lint.finding import Finding

REQUIRED = ("jax", "numpy")
OPTIONAL = ("jaxlib", "flax", "optax", "equinox", "haiku", "chex")


def package_files(name: str) -> list[Path]:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return []
    files: list[Path] = []
    for location in spec.submodule_search_locations:
        files.extend(sorted(Path(location).rglob("*.py")))
    return files


def read_text(path: Path) -> str | None:
    """The text the way Python decodes it (BOM, coding cookie); None if it cannot."""
    try:
        with path.open("rb") as handle:
            encoding, _ = tokenize.detect_encoding(handle.readline)
        return path.read_bytes().decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError, OSError):
        return None


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def lint_package(name: str) -> tuple[int, int, list[str], dict[str, ast.Module], list[Finding]]:
    """(files, gated, failures, gated trees, findings) for one installed package."""
    files = package_files(name)
    failures: list[str] = []
    trees: dict[str, ast.Module] = {}
    findings: list[Finding] = []
    gated = 0
    for path in files:
        text = read_text(path)
        if text is None:
            continue
        if engine.might_matter(text):
            gated += 1
        try:
            findings += engine.lint_source(text, str(path))
        except (SyntaxError, ValueError) as exc:
            if _parses(text):
                failures.append(
                    f"{path}: {type(exc).__name__} on parseable text\n" + traceback.format_exc()
                )
            continue
        except Exception:  # noqa: BLE001 - collect them all, then fail once
            failures.append(f"{path}:\n{traceback.format_exc()}")
            continue
        if engine.might_matter(text) and _parses(text):
            trees[str(path)] = ast.parse(text, str(path))
    return len(files), gated, failures, trees, findings


def _check(name: str) -> None:
    n_files, _gated, failures, trees, findings = lint_package(name)
    assert n_files > 0, f"no .py files found for {name}"
    assert not failures, f"{len(failures)} internal errors in {name}:\n\n" + "\n".join(failures)
    try:
        project = engine.lint_project(trees, None, None)
    except Exception:  # noqa: BLE001
        pytest.fail(
            f"lint_project over the {len(trees)} gated files of {name} raised:\n"
            + traceback.format_exc()
        )
    for f in [*findings, *project]:
        assert isinstance(f, Finding) and f.code.startswith("JCD") and f.line >= 1, f
        assert not f.code.startswith("JCD9"), f


@pytest.mark.parametrize("name", REQUIRED)
def test_installed_package(name: str) -> None:
    _check(name)


@pytest.mark.parametrize("name", OPTIONAL)
def test_optional_installed_package(name: str) -> None:
    if importlib.util.find_spec(name) is None:
        pytest.skip(f"{name} is not installed")
    _check(name)


# --- layouts of real projects -------------------------------------------------------

KERAS_LAYOUT_MODEL = """\
import jax
import jax.numpy as jnp


def loss(q):
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn").sum()


g = jax.grad(loss)(jnp.zeros((2, 511, 4, 64), jnp.bfloat16))
"""


def test_a_subpackage_named_jax_does_not_shadow_jax(tmp_path: Path) -> None:
    """keras's layout: keras/src/backend/jax/ is a package; `import jax` is still JAX."""
    proj = tmp_path / "proj"
    (proj / "mylib" / "backend" / "jax").mkdir(parents=True)
    (proj / "mylib" / "__init__.py").write_text("")
    (proj / "mylib" / "backend" / "__init__.py").write_text("")
    (proj / "mylib" / "backend" / "jax" / "__init__.py").write_text("# backend helpers\n")
    model = proj / "mylib" / "model.py"
    model.write_text(KERAS_LAYOUT_MODEL)
    alone = engine.lint_source(KERAS_LAYOUT_MODEL, str(model))
    assert [f.code for f in alone] == ["JCD201"]  # the file on its own (the plugin's view)
    trees = {str(p): ast.parse(p.read_text(), str(p)) for p in sorted(proj.rglob("*.py"))}
    project = engine.lint_project(trees, None, str(proj))
    assert [f.code for f in project] == ["JCD201"]


def test_a_vendored_jax_does_not_shadow_jax(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / "third_party" / "jax" / "jax").mkdir(parents=True)
    (proj / "third_party" / "jax" / "jax" / "__init__.py").write_text("")
    (proj / "third_party" / "jax" / "jax" / "nn.py").write_text(
        "def dot_product_attention(*args, **kwargs): ...\n"
    )
    (proj / "model.py").write_text(KERAS_LAYOUT_MODEL)
    trees = {str(p): ast.parse(p.read_text(), str(p)) for p in sorted(proj.rglob("*.py"))}
    project = engine.lint_project(trees, None, str(proj))
    assert [f.code for f in project] == ["JCD201"]
