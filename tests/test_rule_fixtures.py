"""Every rule fixture file gives exactly the findings its markers say, in the
single-file view (the flake8 plugin's) and, for project fixtures, the command's."""

from __future__ import annotations

from pathlib import Path

import pytest
from rule_fixtures import expected_findings, known_misses, rule_fixture_files

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.engine import lint_source
from jax_cudnn_lint.lint_rules.registry import RULES

ALL_RULES = Config(select=("JCD",), extend_select=tuple(RULES), jax_version="0.10.2")


@pytest.mark.parametrize("path", rule_fixture_files(), ids=lambda p: p.name)
def test_fixture_markers(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    findings = lint_source(text, str(path), ALL_RULES)
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
