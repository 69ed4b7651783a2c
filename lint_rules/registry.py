"""The rule registry: each rule's identity and metadata, declared once.

A rule is small and declarative (CONVENTIONS.md, habit 2): a code that is never
reused, a kebab-case name that states the bad thing, a message template, whether it
is on by default and whether `--confirm` can prove it.  The checks themselves live in
one module per rule family and register here through `rule()`.
"""

from __future__ import annotations

from dataclasses import dataclass


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


def rule(code: str, name: str, summary: str, *, default_on: bool = True, confirmable: bool = True) -> Rule:
    """Declare a rule; a code may be declared once only."""
    if code in RULES:
        raise ValueError(f"rule code {code} declared twice")
    declared = Rule(code, name, summary, default_on, confirmable)
    RULES[code] = declared
    return declared
