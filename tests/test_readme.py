"""The README's rules table lists every registered rule with its name and default,
and the two commands it prints are the ones CI runs."""

from __future__ import annotations

import re
from pathlib import Path

import jax_cudnn_lint.lint_rules.analysis  # noqa: F401 - registers every rule
from jax_cudnn_lint.lint_rules.registry import RULES

ROOT = Path(__file__).resolve().parents[1]


def test_rules_table_matches_the_registry() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| \[(JCD\d{3})\]\(docs/rules/JCD\d{3}\.md\) \| (.+)$", text, re.M))
    assert len(RULES) >= 15, "the rules are registered"
    assert set(rows) == set(RULES)
    for code, rule in RULES.items():
        assert f"`{rule.name}` | {'on' if rule.default_on else 'off'} |" in rows[code], code


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -e '.[dev]' && python -m pytest" in readme
    assert "pip install -e '.[dev]'" in ci and "python -m pytest" in ci


def test_default_off_codes_match_the_registry() -> None:
    from jax_cudnn_lint.lint_rules.registry import DEFAULT_OFF_CODES

    assert set(DEFAULT_OFF_CODES) == {code for code, rule in RULES.items() if not rule.default_on}
