"""The rule registry: each rule's identity and metadata, declared once.

A rule is small and declarative (CONVENTIONS.md, habit 2): a code that is never
reused, a kebab-case name that states the bad thing, a message template, whether it
is on by default and whether `--confirm` can prove it.  The checks themselves live in
one module per rule family and register here through `rule()`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from importlib import import_module

from jax_cudnn_lint.finding import Finding


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    summary: str
    default_on: bool = True
    confirmable: bool = True


RULES: dict[str, Rule] = {}

# The rules that are off by default, known without importing the rule modules (the
# flake8 plugin needs them at option time; a test checks them against RULES).
DEFAULT_OFF_CODES = ("JCD104", "JCD211")


def loaded_rules() -> dict[str, Rule]:
    """RULES with every rule module imported: a run served wholly from the cache imports
    no analysis, and its report still names each finding's rule (probe 39b)."""
    if not RULES:
        import_module("jax_cudnn_lint.lint_rules.analysis")
    return RULES


def rule(code: str, name: str, summary: str, *, default_on: bool = True, confirmable: bool = True) -> Rule:
    """Declare a rule; a code may be declared once only."""
    if code in RULES:
        raise ValueError(f"rule code {code} declared twice")
    declared = Rule(code, name, summary, default_on, confirmable)
    RULES[code] = declared
    return declared


# A code that supersedes another at the same place: JCD201 proves what JCD202 suspects.
SUPERSEDES = {"JCD201": "JCD202"}


def one_per_place(findings: Iterable[Finding]) -> list[Finding]:
    """One finding per (code, place), the first one kept, and none of a superseded code
    where the stronger one is reported; sorted.  A call reached through several
    contexts, or analysed in several shards of a project, is reported once; the other
    ways it is reached are added to its evidence ("also ...") and related locations,
    so that fixing the one its message names does not hide the others."""
    kept: dict[tuple[str, str, int, int], Finding] = {}
    for finding in findings:
        place = (finding.code, finding.path, finding.line, finding.col)
        first = kept.setdefault(place, finding)
        if first is not finding:
            kept[place] = _also_reached(first, finding)
    for code, path, line, col in list(kept):
        weaker = SUPERSEDES.get(code)
        if weaker is not None:
            kept.pop((weaker, path, line, col), None)
    return sorted(kept.values(), key=Finding.sort_key)


_MAX_ALSO = 8  # "also ..." evidence lines of one finding
_HOW_REACHED = ("reached:", "transform:")


def _also_reached(first: Finding, other: Finding) -> Finding:
    """`first` with how `other` (the same finding at the same place) was reached."""
    room = _MAX_ALSO - sum(step.startswith("also ") for step in first.evidence)
    seen = set(first.evidence)
    how: list[str] = []
    for step in other.evidence:
        if step.startswith(_HOW_REACHED) and step not in seen and f"also {step}" not in seen:
            how.append(f"also {step}")  # (a step the first way shares is not another way)
            seen.add(step)
    how = how[: max(0, room)]
    related = tuple(r for r in other.related if r not in first.related)
    if not how and not related:
        return first
    return replace(first, evidence=(*first.evidence, *how), related=(*first.related, *related))
