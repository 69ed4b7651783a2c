"""The repros of JCD102-JCD213 are proven by JAX itself: every finding of those rules in
the rule fixtures that carries a repro is confirmed by the trace backend (LSTM repros
are executed: their checks come before the CUDA-only part), for the fixture's target."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from jax_cudnn_lint.config import Config
from jax_cudnn_lint.engine import lint_source
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.kernels.repro import validate_repro
from jax_cudnn_lint.lint_rules.registry import RULES
from rule_fixtures import config_overrides, rule_fixture_files

pytest.importorskip("jax")

ALL_RULES = Config(select=("JCD",), extend_select=tuple(RULES), jax_version="0.10.2")
SEED_CODES = {"JCD101", "JCD201", "JCD202"}


def findings_by_target() -> dict[tuple[str, str], list[Finding]]:
    out: dict[tuple[str, str], list[Finding]] = defaultdict(list)
    for path in rule_fixture_files():
        text = Path(path).read_text(encoding="utf-8")
        overrides = config_overrides(text)
        if "jax_version" in overrides:
            continue  # judged for another JAX than the one installed
        config = ALL_RULES.with_(**overrides)
        target = (config.gpu, config.cudnn)
        out[target].extend(f for f in lint_source(text, str(path), config) if f.code not in SEED_CODES and f.repro is not None)
    return out


def test_more_rule_repros_are_confirmed_by_jax() -> None:
    from jax_cudnn_lint.confirm import run_confirm

    groups = findings_by_target()
    total = sum(len(v) for v in groups.values())
    assert total >= 20
    wrong: list[str] = []
    for (gpu, cudnn), findings in sorted(groups.items()):
        for finding in findings:
            wrong.extend(f"{finding.path}:{finding.line} {finding.code}: {p}" for p in validate_repro(finding.repro))
        verdicts = run_confirm(findings, backend="trace", gpu=gpu, cudnn=cudnn, use_cache=False, timeout=300)
        wrong += [
            f"{f.path.rsplit('/', 1)[-1]}:{f.line} {f.code} ({gpu}, cuDNN {cudnn}): {v['verdict']} - {v['detail']}"
            for f, v in zip(findings, verdicts)
            if v["verdict"] != "confirmed"
        ]
    assert not wrong, "\n".join(wrong)
