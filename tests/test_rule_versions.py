"""Version and target gates of JCD102-JCD212 (lint_rules/versions.py), and the JAX
config the analysis models (x64 and matmul precision set in a module body)."""

from __future__ import annotations

import pytest
from jax_cudnn_lint.config import Config
from jax_cudnn_lint.engine import lint_source
from jax_cudnn_lint.lint_rules import versions
from jax_cudnn_lint.lint_rules.registry import RULES

BASE = Config(select=("JCD",), extend_select=tuple(RULES), jax_version="0.10.2")


def codes(text: str, **changes: object) -> set[str]:
    return {f.code for f in lint_source(text, "snippet.py", BASE.with_(**changes))}


@pytest.mark.parametrize(
    ("jax_version", "gpu", "cudnn", "h_max"),
    [
        ("0.4.31", "sm90", "9.10", 128),
        ("0.5.0", "sm100", "9.5", 256),
        ("0.5.0", "sm90", "9.4", 128),
        ("0.6.0", "sm100", "9.10", 128),
        ("0.7.2", "sm90", "9.5", 256),
        ("0.8.1", "sm100", "9.10", 128),
        ("0.8.1", "sm90", "9.1", 256),
        ("0.8.2", "sm100", "9.10", 256),
        ("0.10.2", "sm80", "9.10", 128),
        (None, "sm90", "9.10", 256),
    ],
)
def test_head_dim_limit_history(jax_version: str | None, gpu: str, cudnn: str, h_max: int) -> None:
    limit = versions.head_dim_max(Config(jax_version=jax_version, gpu=gpu, cudnn=cudnn))
    assert limit is not None and limit[0] == h_max


def test_head_dim_message_wording_by_version() -> None:
    old = versions.head_dim_message(Config(jax_version="0.4.35"), 128, "100", "16", "16")
    typo = versions.head_dim_message(Config(jax_version="0.6.1"), 256, "100", None, None)
    new = versions.head_dim_message(Config(jax_version="0.6.2"), 256, "100", None, None)
    assert old == "Unsupported sequence length Q 16, KV 16 and head dim 100."
    assert typo is not None and "mutiple" in typo
    assert new == "The head dim must be <= 256 and a multiple of 8, but got 100."


HEAD_192 = """
import jax
import jax.numpy as jnp

def attention(q):
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn")

q = jnp.zeros((2, 16, 2, 192), jnp.bfloat16)
jax.eval_shape(attention, q)
"""


def test_head_dim_depends_on_the_target() -> None:
    assert "JCD204" not in codes(HEAD_192)
    assert "JCD204" in codes(HEAD_192, gpu="sm80", cudnn="9.8")
    assert "JCD204" in codes(HEAD_192, gpu="sm100", jax_version="0.8.1")
    assert "JCD204" not in codes(HEAD_192, gpu="sm100", jax_version="0.8.2")


PARTIAL_VMAP = """
import jax
import jax.numpy as jnp

kv = jnp.zeros((2, 8, 4, 64), jnp.bfloat16)
f = jax.vmap(lambda q, k, v: jax.nn.dot_product_attention(q, k, v, implementation="cudnn"), in_axes=(0, None, None))
jax.eval_shape(f, jnp.zeros((3, 2, 8, 4, 64), jnp.bfloat16), kv, kv)
"""


def test_partially_batched_vmap_is_gated_to_released_jax() -> None:
    assert "JCD209" in codes(PARTIAL_VMAP, jax_version="0.11.0")
    assert "JCD209" not in codes(PARTIAL_VMAP, jax_version="0.11.1")
    assert "JCD209" not in codes(PARTIAL_VMAP, jax_version=None)  # unknown: the newest behaviour (fixed)


UNBATCHED_MASK = """
import jax
import jax.numpy as jnp

def attend(q, k, v, mask):
    return jax.nn.dot_product_attention(q, k, v, mask=mask, implementation="cudnn")

x = jnp.zeros((3, 2, 8, 4, 64), jnp.bfloat16)
jax.eval_shape(jax.vmap(attend, in_axes=(0, 0, 0, None)), x, x, x, jnp.ones(MASK_SHAPE, jnp.bool_))
"""


@pytest.mark.parametrize(
    ("shape", "jax_version", "reported"),
    [
        # What JAX 0.11.2 did on an H200 and 0.10.2 on the VM (benchmarks/RESULTS.md):
        # only an unbatched (B, 1, T, S) fails, and only after 0.11.0.
        ("(2, 1, 8, 8)", "0.11.2", True),
        ("(2, 1, 8, 8)", "0.11.1", True),
        ("(2, 1, 8, 8)", None, True),
        ("(2, 1, 8, 8)", "0.11.0", False),
        ("(2, 1, 8, 8)", "0.10.2", False),
        ("(2, 4, 8, 8)", "0.11.2", False),
        ("(1, 1, 8, 8)", "0.11.2", False),
        ("(1, 4, 8, 8)", "0.11.2", False),
        ("(8, 8)", "0.11.2", False),
    ],
)
def test_unbatched_mask_broadcasting_heads_fails_since_0_11_1(
    shape: str, jax_version: str | None, reported: bool
) -> None:
    text = UNBATCHED_MASK.replace("MASK_SHAPE", shape)
    assert ("JCD209" in codes(text, jax_version=jax_version)) is reported


def test_batched_mask_fix_names_unbatched_only_where_it_works() -> None:
    text = UNBATCHED_MASK.replace("(0, 0, 0, None)", "0").replace("MASK_SHAPE", "(3, 2, 1, 8, 8)")
    old, new = (
        [
            f.message
            for f in lint_source(text, "s.py", BASE.with_(jax_version=v))
            if f.code == "JCD209"
        ]
        for v in ("0.10.2", "0.11.2")
    )
    assert len(old) == len(new) == 1
    assert "pass it unbatched (in_axes=None)" in old[0]
    assert "pass it unbatched with a batch dimension of 1" in new[0]


BIAS_GRAD = """
import jax
import jax.numpy as jnp

def loss(q, bias):
    return jax.nn.dot_product_attention(q, q, q, bias=bias, implementation="cudnn").sum()

q = jnp.zeros((2, 8, 4, 64), jnp.bfloat16)
jax.grad(loss, argnums=(0, 1))(q, jnp.zeros((2, 4, 8, 8), jnp.bfloat16))
"""


@pytest.mark.parametrize(("jax_version", "reported"), [("0.4.34", False), ("0.4.35", True), ("0.7.2", True), ("0.8.0", False), (None, False)])
def test_bias_gradient_rule_only_for_the_releases_that_had_it(jax_version: str | None, reported: bool) -> None:
    assert ("JCD211" in codes(BIAS_GRAD, jax_version=jax_version)) is reported


FLOAT_MASK = (
    "import jax\nimport jax.numpy as jnp\n"
    "q = jnp.zeros((2, 16, 4, 64), jnp.bfloat16)\n"
    "jax.nn.dot_product_attention(q, q, q, mask=jnp.ones((2, 1, 16, 16)))\n"
)


@pytest.mark.parametrize(("jax_version", "reported"), [("0.4.31", False), ("0.4.32", True), ("0.10.2", True), (None, True)])
def test_mask_dtype_rule_from_the_release_that_checks_it(jax_version: str | None, reported: bool) -> None:
    # 0.4.31 raised another message ("Mask must be boolean dtype"), which the rule does not model
    assert ("JCD212" in codes(FLOAT_MASK, jax_version=jax_version)) is reported


def test_off_by_default_rules_need_their_full_code() -> None:
    default = Config(jax_version="0.7.2")
    assert "JCD211" not in {f.code for f in lint_source(BIAS_GRAD, "s.py", default)}
    assert "JCD211" in {f.code for f in lint_source(BIAS_GRAD, "s.py", default.with_(extend_select=("JCD211",)))}


# the config statement comes last: the functions run after the whole module body
SEQ_INT64 = """
import jax
import jax.numpy as jnp
from jax.experimental import rnn

def run(x, h, c, w):
    return rnn.lstm(x, h, c, w, jnp.array([3, 2]), 4, 8, 1, 0.0, False)

{config}
"""


@pytest.mark.parametrize(
    ("config", "reported"),
    [
        ('jax.config.update("jax_enable_x64", True)', True),
        ('from jax import config\nconfig.update("jax_enable_x64", True)', True),
        ('jax.config.update("jax_enable_x64", False)', False),
        ("", False),
        ('if __name__ == "__main__":\n    jax.config.update("jax_enable_x64", True)', False),
        ('jax.config.update("jax_enable_x64", True)\njax.config.update("jax_enable_x64", False)', False),
        ('def main():\n    jax.config.update("jax_enable_x64", True)', False),
    ],
)
def test_x64_is_known_only_from_a_plain_module_statement(config: str, reported: bool) -> None:
    assert ("JCD102" in codes(SEQ_INT64.format(config=config))) is reported


PRECISION = """
import jax
import jax.numpy as jnp
from jax.experimental import rnn

def run(x, h, c, w, n):
    return rnn.lstm(x, h, c, w, n, 4, 8, 1, 0.0, False)

{config}
"""


@pytest.mark.parametrize(
    ("config", "reported"),
    [
        ('jax.config.update("jax_default_matmul_precision", "bfloat16")', True),
        ('jax.config.update("jax_default_matmul_precision", "default")', True),
        ('jax.config.update("jax_default_matmul_precision", "tensorfloat32")', False),
        ("", False),
    ],
)
def test_module_matmul_precision(config: str, reported: bool) -> None:
    assert ("JCD103" in codes(PRECISION.format(config=config))) is reported


def test_within_and_since() -> None:
    assert versions.since(Config(jax_version=None), (9, 9, 9))
    assert not versions.within(Config(jax_version=None), (0, 4, 35), (0, 7, 2))
    assert versions.within(Config(jax_version="0.7.2"), (0, 4, 35), (0, 7, 2))
    assert versions.before(Config(jax_version="0.4.30"), (0, 4, 31))
    assert not versions.before(Config(jax_version=None), (0, 4, 31))
