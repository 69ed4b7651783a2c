"""Run the analysis over parsed modules and apply every enabled rule.

The rules are pure functions of the evaluated call events; this module runs the
interpreter once, hands the events to each rule family, filters by select/ignore,
and keeps one finding per (code, place): a call reached through several contexts
is reported once, with its strongest evidence (JCD201 wins over JCD202).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.lint_rules import attention_argument_rules, attention_dtype_rules, attention_rules, attention_shape_rules, attention_target_rules, rnn_more_rules, rnn_rules, transform_rules
from jax_cudnn_lint.lint_rules.registry import RULES, one_per_place
from jax_cudnn_lint.lint_rules.targets import watch
from jax_cudnn_lint.shape_inference import analyse
from jax_cudnn_lint.shape_inference.context import CallEvent

Check = Callable[[list[CallEvent], Config], list[Finding]]

CHECKS: tuple[Check, ...] = (*rnn_rules.CHECKS, *rnn_more_rules.CHECKS, *attention_rules.CHECKS, *attention_dtype_rules.CHECKS, *attention_shape_rules.CHECKS, *attention_target_rules.CHECKS, *attention_argument_rules.CHECKS, *transform_rules.CHECKS)  # type: ignore[has-type]


def analyse_modules(
    trees: dict[str, ast.Module],
    config: Config,
    root: str | None = None,
    lazy: Mapping[str, Callable[[], ast.Module | None]] | None = None,
    importers: Mapping[str, frozenset[str] | None] | None = None,
    partial: list[str] | None = None,
    drivers: frozenset[str] = frozenset(),
    imported_by: Mapping[str, tuple[str, ...]] | None = None,
    data_files: frozenset[str] = frozenset(),
) -> list[Finding]:
    """The findings of one analysis run; `partial`, when given, receives the entry
    files whose analysis ran out of its work budget (silence there proves less)."""
    analysis = analyse(trees, watch, root=root, lazy=lazy, importers=importers, drivers=drivers, imported_by=imported_by, data_files=data_files)
    if partial is not None:
        partial.extend(analysis.exhausted_paths)
    findings: list[Finding] = []
    for check in CHECKS:
        findings.extend(check(analysis.events, config))
    return select(findings, config)


def select(findings: Sequence[Finding], config: Config) -> list[Finding]:
    enabled: list[Finding] = []
    for finding in findings:
        rule = RULES.get(finding.code)
        if rule is not None and config.enabled(finding.code, rule.default_on):
            enabled.append(finding)
    return one_per_place(enabled)
