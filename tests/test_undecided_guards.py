"""Findings under an `if` the analysis cannot decide: reported where the guard does not
read the length (which arm runs is a question of something else), silent where it does
(`if t in eval_only:` with eval_only unknown: which arm 33 takes is the question)."""

from __future__ import annotations

import pytest

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.engine import lint_source
from jax_cudnn_lint.lint_rules.registry import RULES

BASE = Config(select=("JCD",), extend_select=tuple(RULES), jax_version="0.10.2")

PROGRAM = """
import jax
import jax.numpy as jnp


def loss(q):
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn").astype(jnp.float32).sum()


def forward(q):
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn").astype(jnp.float32)


def register(lengths, length):
    lengths.add(length)


def sweep(extra, flag):
    eval_only = {{31}}
    register(eval_only, extra)
    for t in (33, 64):
        q = jax.ShapeDtypeStruct((1, t, 2, 64), jnp.bfloat16)
        if {test}:
            jax.eval_shape({first}, q)
        else:
            jax.eval_shape(jax.grad(loss), q)


sweep(33, unknown_flag())
"""


@pytest.mark.parametrize(
    ("test", "first", "reported"),
    [
        ("t in eval_only", "forward", False),  # the guard reads t: 33 may well stay out of the grad arm
        ("t == extra or t in eval_only", "forward", False),
        ("t in eval_only", "jax.grad(loss)", True),  # both arms train it: certain (probe 105a)
        ("flag", "forward", True),  # the guard reads something else: both arms may run with 33
        ("len(eval_only) > 3", "forward", True),
    ],
)
def test_an_undecided_guard_that_reads_the_length_itself(test: str, first: str, reported: bool) -> None:
    findings = [f for f in lint_source(PROGRAM.format(test=test, first=first), "sweep.py", BASE) if f.code == "JCD201"]
    assert bool(findings) == reported
    if reported:
        assert "T = S = 33" in findings[0].message
