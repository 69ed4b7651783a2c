"""Fixture files are data (CONVENTIONS.md, habit 7).

A fixture line whose trailing comment is exactly `# JCDxxx` (or `# JCDxxx, JCDyyy`)
must be reported with those codes; every other line must not be reported; a comment
starting `# known miss:` documents a true problem the analysis cannot see (the line
must stay silent, so an improvement that catches it updates the fixture).

Attention fixtures also declare what JAX does: `def case_name():  # expect: raises`
or `# expect: clean`.  tests/test_fixture_traces.py runs each case with JAX's cuDNN
probes set to a GPU target and checks that JAX agrees.

A fixture may fix what it is judged for: `# target: sm80 9.8` (GPU and cuDNN, for the
lint and the trace alike) and `# jax-version: 0.7.2` (the lint only).
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
RULE_FIXTURES = FIXTURES / "rules"
PROJECT_FIXTURES = FIXTURES / "projects"

_CODES = r"JCD\d{3}(?:\s*,\s*JCD\d{3})*"
_MARKER = re.compile(rf"^#\s*({_CODES})\s*(?:;\s*plugin:\s*(none|{_CODES}))?\s*$")
_EXPECT = re.compile(r"^#\s*expect:\s*(raises|clean)\b")
_CASE = re.compile(r"^\s*def (case_\w+)\(")
_TARGET = re.compile(r"^#\s*target:\s*(\S+)\s+(\S+)\s*$")
_JAX_VERSION = re.compile(r"^#\s*jax-version:\s*(\S+)\s*$")


def comments(text: str) -> dict[int, str]:
    out: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string
    return out


def expected_findings(text: str, single_file: bool = False) -> set[tuple[int, str]]:
    """Marked findings; in a project fixture `# JCD201; plugin: JCD202` (or `none`)
    says what the single-file view (the flake8 plugin) reports instead."""
    expected: set[tuple[int, str]] = set()
    for line, comment in comments(text).items():
        match = _MARKER.match(comment)
        if not match:
            continue
        codes = match.group(1)
        if single_file and match.group(2) is not None:
            codes = "" if match.group(2) == "none" else match.group(2)
        for code in filter(None, (c.strip() for c in codes.split(","))):
            expected.add((line, code))
    return expected


def known_misses(text: str) -> set[int]:
    return {line for line, comment in comments(text).items() if comment.startswith("# known miss:")}


def case_expectations(text: str) -> dict[str, str]:
    """case function name -> 'raises' | 'clean'."""
    notes = comments(text)
    out: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        case = _CASE.match(line)
        if case and number in notes:
            expect = _EXPECT.match(notes[number])
            if expect:
                out[case.group(1)] = expect.group(1)
    return out


def config_overrides(text: str) -> dict[str, str]:
    """Config fields a fixture fixes with `# target: sm80 9.8` / `# jax-version: 0.7.2`."""
    out: dict[str, str] = {}
    for comment in comments(text).values():
        target = _TARGET.match(comment)
        if target:
            out["gpu"], out["cudnn"] = target.group(1), target.group(2)
        version = _JAX_VERSION.match(comment)
        if version:
            out["jax_version"] = version.group(1)
    return out


def rule_fixture_files() -> list[Path]:
    return sorted(RULE_FIXTURES.glob("*.py"))


def project_fixture_dirs() -> list[Path]:
    return sorted(p for p in PROJECT_FIXTURES.iterdir() if p.is_dir())


def traced_fixture_files() -> list[Path]:
    """The rule and project fixtures whose cases declare what JAX does (`# expect:`)."""
    files = [p for p in rule_fixture_files() if case_expectations(p.read_text(encoding="utf-8"))]
    projects = sorted(PROJECT_FIXTURES.glob("*/*.py"))
    return files + [p for p in projects if case_expectations(p.read_text(encoding="utf-8"))]
