"""Every rule fixture file gives exactly the findings its markers say, in the
single-file view (the flake8 plugin's) and, for project fixtures, the command's."""

from __future__ import annotations

from pathlib import Path

import pytest
import ast

from rule_fixtures import config_overrides, expected_findings, known_misses, project_fixture_dirs, rule_fixture_files

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.engine import lint_project, lint_source
from jax_cudnn_lint.lint_rules.registry import RULES

ALL_RULES = Config(select=("JCD",), extend_select=tuple(RULES), jax_version="0.10.2")


@pytest.mark.parametrize("path", rule_fixture_files(), ids=lambda p: p.name)
def test_fixture_markers(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    findings = lint_source(text, str(path), ALL_RULES.with_(**config_overrides(text)))
    got = {(f.line, f.code) for f in findings}
    expected = expected_findings(text)
    lines = text.splitlines()
    missing = sorted(expected - got)
    extra = sorted(got - expected)
    detail = [f"missing {code} at {line}: {lines[line - 1].strip()}" for line, code in missing]
    detail += [f"unexpected {code} at {line}: {lines[line - 1].strip()}" for line, code in extra]
    assert not detail, "\n".join(detail)
    for line in known_misses(text):
        assert not any(f.line == line for f in findings), f"known miss at line {line} is now caught: update the fixture"


def test_every_rule_has_a_fixture() -> None:
    covered = {code for path in rule_fixture_files() for _, code in expected_findings(path.read_text(encoding="utf-8"))}
    assert set(RULES) <= covered, f"rules without a positive fixture: {sorted(set(RULES) - covered)}"


def _compare(got: set[tuple[str, int, str]], expected: set[tuple[str, int, str]]) -> list[str]:
    out = [f"missing {code} at {path}:{line}" for path, line, code in sorted(expected - got)]
    out += [f"unexpected {code} at {path}:{line}" for path, line, code in sorted(got - expected)]
    return out


@pytest.mark.parametrize("root", project_fixture_dirs(), ids=lambda p: p.name)
def test_project_fixture(root: Path) -> None:
    """The command's whole-project view finds what crosses modules; the plugin's
    single-file view reports what its `plugin:` markers say."""
    files = sorted(root.rglob("*.py"))
    texts = {str(p): p.read_text(encoding="utf-8") for p in files}
    trees = {path: ast.parse(text) for path, text in texts.items()}
    project = lint_project(trees, ALL_RULES, root=str(root))
    expected = {(path, line, code) for path, text in texts.items() for line, code in expected_findings(text)}
    got = {(f.path, f.line, f.code) for f in project}
    assert not _compare(got, expected), "\n".join(_compare(got, expected))
    single = {(f.path, f.line, f.code) for path, text in texts.items() for f in lint_source(text, path, ALL_RULES)}
    expected_single = {(path, line, code) for path, text in texts.items() for line, code in expected_findings(text, single_file=True)}
    assert not _compare(single, expected_single), "\n".join(_compare(single, expected_single))
    for finding in project:
        other_files = {loc.path for loc in finding.related} - {finding.path}
        if finding.code == "JCD201" and len(files) > 1:
            assert other_files, "a cross-module finding names the other files of its evidence"


@pytest.mark.parametrize("root", project_fixture_dirs(), ids=lambda p: p.name)
def test_project_fixture_through_the_command(root: Path) -> None:
    """The command picks the entry files itself and parses the rest on demand."""
    import json
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "jax_cudnn_lint", "--no-cache", "--format", "json", "--jax-version", "0.10.2",
         "--extend-select", ",".join(code for code, rule in RULES.items() if not rule.default_on) or "JCD", "."],
        cwd=root, capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    got = {(str((root / f["path"]).resolve()), f["line"], f["code"]) for f in report["findings"]}
    expected = {
        (str(p.resolve()), line, code)
        for p in root.rglob("*.py")
        for line, code in expected_findings(p.read_text(encoding="utf-8"))
    }
    assert not _compare(got, expected), "\n".join(_compare(got, expected))


@pytest.mark.parametrize("path", rule_fixture_files(), ids=lambda p: p.name)
def test_fixture_definitions_have_names_of_their_own(path: Path) -> None:
    """A second `class Base` at the top of a fixture file shadows the first for every
    case that runs after the module is loaded, and a case can pass for the wrong reason."""
    names = [stmt.name for stmt in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    assert sorted({name for name in names if names.count(name) > 1}) == []
