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


THROUGH = """
import jax
import jax.numpy as jnp


def loss(q):
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn").astype(jnp.float32).sum()


def forward(q):
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn").astype(jnp.float32)


class Cfg:
    def __init__(self, t):
        self.t = t


def sweep(eval_only):
    for t in (33, 64):
        cfg = Cfg(t)
        lens = [t]
        q = jax.ShapeDtypeStruct((1, t, 2, 64), jnp.bfloat16)
{body}


sweep(unknown_set())
"""


@pytest.mark.parametrize(
    ("body", "reported"),
    [
        # the test reads 33 through a value that carries it (probe 105a)
        ("if cfg.t in eval_only:\n    jax.eval_shape(forward, q)\nelse:\n    jax.eval_shape(jax.grad(loss), q)", False),
        ("if lens[0] in eval_only:\n    jax.eval_shape(forward, q)\nelse:\n    jax.eval_shape(jax.grad(loss), q)", False),
        ("if q.shape[1] in eval_only:\n    jax.eval_shape(forward, q)\nelse:\n    jax.eval_shape(jax.grad(loss), q)", False),
        ("frozen = t in eval_only\nif frozen:\n    jax.eval_shape(forward, q)\nelse:\n    jax.eval_shape(jax.grad(loss), q)", False),
        ("frozen = t in eval_only\nfrozen = bool(unknown_flag())\nif frozen:\n    jax.eval_shape(forward, q)\nelse:\n    jax.eval_shape(jax.grad(loss), q)", True),
        # a jump: what follows the `if` is its other arm, to the end of the pass
        ("if t in eval_only:\n    continue\njax.eval_shape(jax.grad(loss), q)", False),
        ("if t in eval_only:\n    break\njax.eval_shape(jax.grad(loss), q)", False),
        ("with open(__file__):\n    if t in eval_only:\n        continue\njax.eval_shape(jax.grad(loss), q)", False),  # probe 106a
        ("tokens = list(range(t))\nif len(tokens) in eval_only:\n    continue\njax.eval_shape(jax.grad(loss), jax.ShapeDtypeStruct((1, len(tokens), 2, 64), jnp.bfloat16))", False),
        # a raise is no guard: the program fails either way, and a validated length trains
        ("if t in eval_only:\n    raise ValueError(t)\njax.eval_shape(jax.grad(loss), q)", True),
        # the jump's guard ends with the pass: a later loop's grad is not under it
        ("if t in eval_only:\n    continue\nprint(t)", True),
    ],
)
def test_a_guard_reads_the_length_through_a_value_or_jumps(body: str, reported: bool) -> None:
    if body.endswith("print(t)"):
        source = THROUGH.format(body=_indented(body)) + "\nfor t in (33,):\n    jax.eval_shape(jax.grad(loss), jax.ShapeDtypeStruct((1, t, 2, 64), jnp.bfloat16))\n"
    else:
        source = THROUGH.format(body=_indented(body))
    findings = [f for f in lint_source(source, "sweep.py", BASE) if f.code == "JCD201"]
    assert bool(findings) == reported, findings


@pytest.mark.parametrize(("guard", "reported"), [("if t in eval_only:", False), ("if unknown_flag():", True)])
def test_a_returning_guard_guards_the_rest_of_the_function(guard: str, reported: bool) -> None:
    step = f"""
def step(q, t, eval_only):
    {guard}
        return jax.eval_shape(forward, q)
    return jax.eval_shape(jax.grad(loss), q)
"""
    source = THROUGH.replace("class Cfg", step + "\n\nclass Cfg").format(body="        step(q, t, eval_only)")
    assert bool([f for f in lint_source(source, "sweep.py", BASE) if f.code == "JCD201"]) == reported


def _indented(body: str) -> str:
    return "\n".join("        " + line for line in body.splitlines())
