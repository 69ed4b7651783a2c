"""Finding messages say what the analysis knows, and no placeholder for what it does not."""

from __future__ import annotations

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.engine import lint_source
from jax_cudnn_lint.lint_rules.registry import RULES

BASE = Config(select=("JCD",), extend_select=tuple(RULES), jax_version="0.10.2")

FLOAT_MASK = '''
import jax
import jax.numpy as jnp
import flax.linen as nn


def attend(q, tokens):
    mask = nn.make_attention_mask(tokens > 0, tokens > 0)
    return jax.nn.dot_product_attention(q, q, q, mask=mask)


attend(jnp.zeros((2, 9, 4, 64)), TOKENS)
'''


def test_a_mask_of_unknown_shape_is_named_without_one() -> None:
    # probe 56a: "gets a float32 mask (?) (from ...)"
    unknown = FLOAT_MASK.replace("TOKENS", "load_tokens()")
    [finding] = [f for f in lint_source(unknown, "snippet.py", BASE) if f.code == "JCD212"]
    assert "float32 mask (from" in finding.message and "(?)" not in finding.message
    known = FLOAT_MASK.replace("TOKENS", "jnp.ones((2, 9))")
    [finding] = [f for f in lint_source(known, "snippet.py", BASE) if f.code == "JCD212"]
    assert "float32 mask (2, 1, 9, 9) (from" in finding.message


ONE_QUERY = '''
import jax
import jax.numpy as jnp


def loss(q, memory):
    return jax.nn.dot_product_attention(q, memory, memory, implementation="cudnn").astype(jnp.float32).sum()


jax.grad(loss)(jnp.zeros((2, 1, 4, 64), jnp.bfloat16), jnp.zeros((2, memory_length(), 4, 64), jnp.bfloat16))
'''


def test_a_length_not_known_is_named_not_shown_as_a_mark() -> None:
    # probe 63b: "S=?" and JAX's message quoted as "Q 1, KV ?."
    [finding] = [f for f in lint_source(ONE_QUERY, "snippet.py", BASE) if f.code == "JCD201"]
    assert "S not resolved" in finding.message and "Q 1, KV <S>." in finding.message and "?" not in finding.message


TWICE = '''
import jax
import jax.numpy as jnp


def field(w, x):
    h = (x * w).astype(jnp.bfloat16).reshape(1, 64, 4, 16)
    return jax.nn.dot_product_attention(h, h, h, implementation="cudnn").astype(jnp.float32).sum()


def loss(w, x):
    return (jax.grad(field, argnums=INNER)(w, x) ** 2).sum()


jax.grad(loss, argnums=OUTER)(jnp.ones((4096,)), jnp.zeros((4096,)))
'''


def test_twice_differentiated_says_through_which_values() -> None:
    # probe 68c: a physics-informed loss, grad over the inputs inside grad over the weights
    [mixed] = [f for f in lint_source(TWICE.replace("INNER", "1").replace("OUTER", "0"), "snippet.py", BASE) if f.code == "JCD208"]
    assert "each through values of its own that reach it" in mixed.message
    assert any("and so do values the outer one differentiates" in line for line in mixed.evidence)
    [same] = [f for f in lint_source(TWICE.replace("INNER", "1").replace("OUTER", "1"), "snippet.py", BASE) if f.code == "JCD208"]
    assert "through the same values" in same.message


PROMOTED = '''
import jax
import jax.numpy as jnp


def layer(q, k, v, pe):
    return jax.nn.dot_product_attention(q + pe, k + pe, v, implementation="cudnn")


layer(jnp.zeros((2, 32, 4, 64), jnp.bfloat16), jnp.zeros((2, 32, 4, 64), jnp.bfloat16), jnp.zeros((2, 32, 4, 64), jnp.bfloat16), PE)
'''


def test_a_dtype_finding_names_the_operands_of_that_dtype_and_no_shape_origin() -> None:
    # probe 72c: "gets float32 query/key/value (query ... from jnp.zeros(..., jnp.bfloat16))"
    # where a float32 term promoted the query and key only
    # (the value's dtype not known: with a bfloat16 value jax.nn's mixed-dtype check comes
    # first, probe 77e)
    unknown_value = PROMOTED.replace("jnp.bfloat16), PE)", "jnp.bfloat16) * 0 + load_value(), PE)")
    [finding] = [f for f in lint_source(unknown_value.replace("PE", "jnp.asarray(load_table(), dtype=jnp.float32)"), "snippet.py", BASE) if f.code == "JCD203"]
    assert "gets float32 query and key:" in finding.message
    [finding] = [f for f in lint_source(PROMOTED.replace("PE", "jnp.asarray(load_table(), dtype=jnp.float32)"), "snippet.py", BASE) if f.code == "JCD203"]
    assert 'gets float32 query, float32 key, bfloat16 value: jax.nn raises ValueError("value dtype should be float32' in finding.message
    # a step that names the dtype is where it came from
    [finding] = [f for f in lint_source(PROMOTED.replace("PE", "jnp.float32(0.5)").replace("v, implementation", "v + pe, implementation"), "snippet.py", BASE) if f.code == "JCD203"]
    assert "gets float32 query/key/value" in finding.message


SYMBOLIC = '''
import jax
import jax.numpy as jnp


def loss(z):
    b, t = z.shape[0], z.shape[1] // 2
    q = z[:, : 2 * t - 1].reshape(b, 2 * t - 1, 4, 64)
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn").astype(jnp.float32).sum()


jax.grad(loss)
'''


def test_an_odd_length_known_only_as_a_formula_is_not_quoted_as_a_number() -> None:
    # probe 75e: 'JAX raises ... ("Unsupported sequence length Q 2*t - 1 ...")', and the
    # formula restated as its own arithmetic ("2*t - 1 = 2*t - 1")
    findings = [f for f in lint_source(SYMBOLIC, "snippet.py", BASE) if f.code in ("JCD201", "JCD202")]
    assert findings
    for finding in findings:
        assert "Unsupported sequence length Q <T>, KV <S>." in finding.message
        assert " - 1 = " not in finding.message


PERMUTED = '''
import jax
import jax.numpy as jnp


def view(x, *shape):
    return x.reshape(*shape)


def permute(x, *dims):
    return jnp.transpose(x, dims)


def sdpa(query, key, value):
    q, k, v = (permute(t, 0, 2, 1, 3) for t in (query, key, value))
    return jax.nn.dot_product_attention(q, k, v, implementation="cudnn")


def loss(w, x):
    B, T, C = x.shape
    nh = 2
    q, k, v = jnp.split(x @ w, 3, axis=-1)
    q = permute(view(q, B, T, nh, C // nh), 0, 2, 1, 3).astype(jnp.bfloat16)
    k = permute(view(k, B, T, nh, C // nh), 0, 2, 1, 3).astype(jnp.bfloat16)
    v = permute(view(v, B, T, nh, C // nh), 0, 2, 1, 3).astype(jnp.bfloat16)
    return sdpa(q, k, v).astype(jnp.float32).mean()


jax.grad(loss)(jnp.zeros((128, 384)), jax.ShapeDtypeStruct((2, 33, 128), jnp.float32))
'''


def test_a_memoised_length_keeps_its_own_provenance() -> None:
    # probe 77c: "S=33 (64 = 128 // 2 (C // nh) at line 23)": a helper's memoised result
    # retold the sequence length by the head dim's steps (both from one reshape(*shape))
    [finding] = [f for f in lint_source(PERMUTED, "snippet.py", BASE) if f.code == "JCD201"]
    assert "T = S = 33 (reshape x.reshape(*shape)" in finding.message
    assert "C // nh" not in finding.message


CAST = '''
import jax
import jax.numpy as jnp


def attend(x, dtype_name):
    q = x.reshape(1, 16, 2, 64).astype(jnp.dtype(dtype_name))
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn")


attend(jnp.zeros((1, 16, 128), jnp.float32), "float32")
'''


def test_a_dtype_finding_names_the_cast_that_decides_the_dtype() -> None:
    # probe 77c: a float32 query credited to its float32 input, where the
    # `.astype(config dtype)` would keep it float32 whatever the input
    [finding] = [f for f in lint_source(CAST, "snippet.py", BASE) if f.code == "JCD203"]
    assert "from x.reshape(1, 16, 2, 64).astype(jnp.dtype(dtype_name)) (float32) at line 7" in finding.message
    assert "jnp.zeros" not in finding.message


JVP_IN_GRAD = '''
import jax
import jax.numpy as jnp


def net(params, x):
    q = (x @ params).reshape(2, 64, 2, 16).astype(jnp.bfloat16)
    return jax.nn.dot_product_attention(q, q, q, implementation="cudnn").reshape(2, 64, 32).astype(jnp.float32)


def consistency_loss(params, x, dx):
    out, tangent = jax.jvp(lambda x: net(params, x), (x,), (dx,))
    return jnp.mean((out - jax.lax.stop_gradient(out - tangent)) ** 2)


x = jnp.zeros((2, 64, 32))
jax.eval_shape(jax.grad(consistency_loss), jnp.zeros((32, 32)), x, x)
'''


def test_a_jvp_inside_a_grad_is_reported_as_the_second_order_failure() -> None:
    # probe 77b: the call is also analysed without the grad (a jvp alone: the TypeError a
    # compiled jvp raises); the trace of the program raises the NotImplementedError
    [finding] = [f for f in lint_source(JVP_IN_GRAD, "snippet.py", BASE) if f.code == "JCD208"]
    assert finding.message.startswith("cuDNN attention is differentiated twice, by jvp at line 12 inside grad at line 17")


SET_AND_RESTORED = '''
import jax
import jax.numpy as jnp
from jax.experimental import rnn


def encode(w, x, lengths):
    h0 = jnp.zeros((1, 2, 8))
    return rnn.lstm(x, h0, h0, w, lengths, 4, 8, 1, 0.0, False)[0]


def main():
    jax.config.update("jax_default_matmul_precision", "bfloat16")
    try:
        encode(jnp.zeros((448,)), jnp.zeros((2, 3, 4)), jnp.array([3, 3], jnp.int32))
    finally:
        jax.config.update("jax_default_matmul_precision", None)
'''


def test_a_precision_set_by_an_update_restored_in_a_finally_is_not_called_a_with() -> None:
    # probe 94e: "inside `with jax.default_matmul_precision('bfloat16')`" for an update
    [finding] = [f for f in lint_source(SET_AND_RESTORED, "snippet.py", BASE) if f.code == "JCD103"]
    assert "with jax_default_matmul_precision='bfloat16'" in finding.message and "inside `with" not in finding.message
    assert "restored in a finally at line 13" in finding.message


LAZY_MASK = '''
import jax
import jax.numpy as jnp


def per_example(q, length):
    mask = (jnp.arange(128) < length)[None, None, None, :]
    return jax.nn.dot_product_attention(q, q, q, mask=mask, implementation="cudnn")


CALL
'''


def test_a_padding_mask_fix_under_vmap_broadcasts_the_heads_too() -> None:
    # probe 149a: under jax.vmap, (B, 1, T, S) is itself rejected (FA-21, JCD209)
    q = "jnp.zeros((1, 128, 4, 64), jnp.bfloat16)"
    mapped = LAZY_MASK.replace("CALL", "jax.vmap(per_example)(jnp.zeros((8, 1, 128, 4, 64), jnp.bfloat16), jnp.zeros((8,), jnp.int32))")
    [finding] = [f for f in lint_source(mapped, "snippet.py", BASE) if f.code == "JCD205"]
    assert "jnp.broadcast_to(mask, (B, N, 128, 128))" in finding.message
    plain = LAZY_MASK.replace("CALL", f"per_example({q}, 100)")
    [finding] = [f for f in lint_source(plain, "snippet.py", BASE) if f.code == "JCD205"]
    assert "jnp.broadcast_to(mask, (B, 1, 128, 128))" in finding.message
