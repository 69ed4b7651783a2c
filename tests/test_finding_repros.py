"""Every finding the rule fixtures produce carries a repro that the kernels accept,
and JAX itself confirms it: the trace backend (cuDNN probes at sm90 / cuDNN 9.10)
raises the predicted error.  For JCD202 this is what shows that the call raises
once differentiated."""

from __future__ import annotations

import pytest
from rule_fixtures import rule_fixture_files

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.engine import lint_source
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.kernels.repro import validate_repro
from jax_cudnn_lint.lint_rules.registry import RULES

pytest.importorskip("jax")

ALL_RULES = Config(select=("JCD",), extend_select=tuple(RULES), jax_version="0.10.2")


def fixture_findings() -> list[Finding]:
    out: list[Finding] = []
    for path in rule_fixture_files():
        out.extend(lint_source(path.read_text(encoding="utf-8"), str(path), ALL_RULES))
    return out


def test_repros_are_valid() -> None:
    problems = []
    for finding in fixture_findings():
        if finding.repro is not None:
            for problem in validate_repro(finding.repro):
                problems.append(f"{finding.path}:{finding.line} {finding.code}: {problem}")
    assert not problems, "\n".join(problems)


def test_seed_rule_repros_are_confirmed_by_jax() -> None:
    from jax_cudnn_lint.confirm import run_confirm

    findings = [f for f in fixture_findings() if f.code in ("JCD101", "JCD201", "JCD202") and f.repro is not None]
    assert len(findings) >= 10
    verdicts = run_confirm(findings, backend="trace", gpu="sm90", cudnn="9.10", use_cache=False, timeout=300)
    wrong = [
        f"{f.path.rsplit('/', 1)[-1]}:{f.line} {f.code}: {v['verdict']} - {v['detail']}"
        for f, v in zip(findings, verdicts)
        if v["verdict"] != "confirmed"
    ]
    assert not wrong, "\n".join(wrong)


def test_a_call_reached_several_ways_is_reported_once_naming_them_all() -> None:
    """The finding names the first way in; the others are its "also" evidence and
    related locations, so fixing the first does not hide them (probe round 13)."""
    source = (
        "import jax\nimport jax.numpy as jnp\n\n"
        "def attend(q):\n"
        "    out = jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n"
        "    return out.astype(jnp.float32).sum()\n\n"
        "def train_short(p):\n"
        "    return jax.grad(attend)(jnp.zeros((2, 127, 4, 64), jnp.bfloat16))\n\n"
        "def train_long(p):\n"
        "    return jax.grad(attend)(jnp.zeros((2, 255, 4, 64), jnp.bfloat16))\n"
    )
    findings = [f for f in lint_source(source, "two_callers.py") if f.code == "JCD201"]
    assert len(findings) == 1 and findings[0].line == 5
    also = [step for step in findings[0].evidence if step.startswith("also ")]
    assert also and all("line 12" in step for step in also)  # the second caller
    assert not {step.removeprefix("also ") for step in also} & set(findings[0].evidence)  # no step of the first way again
    assert {r.line for r in findings[0].related} >= {9, 12}


@pytest.mark.parametrize(
    ("step", "code"),
    [
        ("train_step = jax.jit(jax.grad(loss_fn))\n", "JCD201"),  # nothing in the file calls it
        ("train_step = jax.value_and_grad(loss_fn)\n", "JCD201"),
        ("predict = jax.jit(loss_fn)\n", "JCD202"),  # no grad: not proven
        ("step = jax.jit(jax.grad(functools.partial(loss_fn)))\n", "JCD202"),  # a partial in between: the def alone
    ],
)
def test_a_module_level_transformed_step_is_analysed_through_its_transforms(step: str, code: str) -> None:
    source = (
        "import functools\nimport jax\nimport jax.numpy as jnp\n\n"
        "def loss_fn(w):\n"
        "    x = jnp.zeros((2, 127, 256), jnp.bfloat16)\n"
        "    q = (x @ w).reshape(x.shape[0], x.shape[1], 4, 64)\n"
        "    out = jax.nn.dot_product_attention(q, q, q, implementation='cudnn')\n"
        "    return out.astype(jnp.float32).sum()\n\n" + step
    )
    assert [(f.code, f.line) for f in lint_source(source, "step.py")] == [(code, 8)]
