"""The fix kernel: padded_dot_product_attention equals the unpadded call (XLA, float32,
values and gradients) and traces clean on cuDNN where the unpadded call is rejected."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from jax_cudnn_lint.kernels import padded_dot_product_attention
from jax_cudnn_lint.kernels.probes import patched_probes, probe_support
from jax_cudnn_lint.kernels.targets import make_target

SM90 = make_target("sm90", "9.10")


@pytest.fixture(autouse=True, scope="module")
def _fast_compiles() -> Any:
    """XLA:CPU compiles 4-5x faster without its optimisation passes; values are unchanged
    to far within the float32 tolerance used here."""
    before = jax.config.read("jax_disable_most_optimizations")
    jax.config.update("jax_disable_most_optimizations", True)
    yield
    jax.config.update("jax_disable_most_optimizations", before)


def _normal(i: int, shape: tuple[int, ...]) -> Any:
    return jax.random.normal(jax.random.fold_in(jax.random.key(42), i), shape, jnp.float32)


def _mask(shape: tuple[int, ...], i: int = 7) -> Any:
    m = jax.random.bernoulli(jax.random.fold_in(jax.random.key(1), i), 0.5, shape)
    t, s = shape[-2], shape[-1]
    keep = jnp.zeros((t, s), bool).at[jnp.arange(t), jnp.arange(t) % s].set(True)
    return m | keep


def _values_and_grads(
    fn: Callable[..., Any], q: Any, k: Any, v: Any, bias: Any, kwargs: dict[str, Any]
) -> tuple[Any, Any]:
    out_shape = jax.eval_shape(lambda: fn(q, k, v, bias, **kwargs))
    if isinstance(out_shape, tuple):
        out_shape = out_shape[0]
    cot = _normal(99, out_shape.shape)

    def loss(q: Any, k: Any, v: Any, bias: Any) -> Any:
        out = fn(q, k, v, bias, **kwargs)
        if isinstance(out, tuple):
            out = out[0]
        return jnp.sum(out * cot)

    argnums = (0, 1, 2, 3) if bias is not None else (0, 1, 2)

    @jax.jit
    def both(q: Any, k: Any, v: Any, bias: Any) -> tuple[Any, Any]:
        return fn(q, k, v, bias, **kwargs), jax.grad(loss, argnums=argnums)(q, k, v, bias)

    return both(q, k, v, bias)


def _check(
    q_shape: tuple[int, ...],
    k_shape: tuple[int, ...],
    bias_shape: tuple[int, ...] | None = None,
    **kwargs: Any,
) -> None:
    q = _normal(0, q_shape)
    k = _normal(1, k_shape)
    v = _normal(2, k_shape)
    bias = _normal(3, bias_shape) if bias_shape is not None else None
    kwargs.setdefault("implementation", "xla")
    multiple = kwargs.pop("multiple", 2)
    want = _values_and_grads(jax.nn.dot_product_attention, q, k, v, bias, dict(kwargs))
    got = _values_and_grads(
        padded_dot_product_attention, q, k, v, bias, {**kwargs, "multiple": multiple}
    )
    assert jax.tree.structure(got) == jax.tree.structure(want)
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        assert g.shape == w.shape
        assert jnp.allclose(g, w, rtol=2e-5, atol=2e-5), float(jnp.max(jnp.abs(g - w)))


def test_odd_self_attention() -> None:
    _check((2, 7, 4, 16), (2, 7, 4, 16))


def test_odd_t_and_s_differ() -> None:
    _check((2, 8, 4, 16), (2, 9, 4, 16))  # only S padded
    _check((2, 9, 4, 16), (2, 8, 4, 16))  # only T padded


def test_gqa() -> None:
    _check((2, 7, 6, 16), (2, 9, 2, 16))


def test_bias_full_and_broadcast() -> None:
    _check((2, 7, 4, 16), (2, 5, 4, 16), bias_shape=(2, 4, 7, 5))
    _check((2, 7, 4, 16), (2, 5, 4, 16), bias_shape=(1, 1, 1, 5))  # broadcast over B, N, T


def test_mask() -> None:
    _check((2, 7, 4, 16), (2, 5, 4, 16), mask=_mask((2, 1, 7, 5)))
    _check((2, 7, 4, 16), (2, 5, 4, 16), bias_shape=(2, 4, 7, 5), mask=_mask((1, 4, 7, 5)))


def test_causal() -> None:
    _check((2, 7, 4, 16), (2, 9, 4, 16), is_causal=True)
    _check((2, 9, 4, 16), (2, 7, 4, 16), is_causal=True, bias_shape=(2, 4, 9, 7))


def test_causal_with_a_window() -> None:
    _check((2, 9, 4, 16), (2, 9, 4, 16), is_causal=True, local_window_size=(3, 2))
    _check((2, 9, 4, 16), (2, 9, 4, 16), local_window_size=(2, 1))


def test_three_d_inputs() -> None:
    _check((7, 4, 16), (5, 2, 16), is_causal=True)
    _check((7, 4, 16), (5, 4, 16), bias_shape=(4, 7, 5))


def test_user_lengths_are_kept() -> None:
    q_len = jnp.array([5, 7], jnp.int32)
    kv_len = jnp.array([3, 4], jnp.int32)
    # Rows past query_seq_lengths are padding in both; compare the full arrays anyway:
    # XLA gives them the same values padded or not (they see the same real keys).
    _check((2, 7, 4, 16), (2, 5, 4, 16), query_seq_lengths=q_len, key_value_seq_lengths=kv_len)
    _check((2, 7, 4, 16), (2, 7, 4, 16), query_seq_lengths=q_len, is_causal=True)


def test_scale_and_residual() -> None:
    _check((2, 7, 4, 16), (2, 5, 4, 16), scale=0.3)
    q, k = _normal(0, (2, 7, 4, 16)), _normal(1, (2, 5, 4, 16))
    kw = {"implementation": "xla", "return_residual": True}
    out, res = jax.jit(lambda q, k: padded_dot_product_attention(q, k, k, **kw))(q, k)
    want_out, want_res = jax.jit(lambda q, k: jax.nn.dot_product_attention(q, k, k, **kw))(q, k)
    assert out.shape == want_out.shape and res.shape == want_res.shape == (2, 7, 4)
    assert jnp.allclose(out, want_out, atol=1e-5) and jnp.allclose(res, want_res, atol=1e-5)


def test_multiple_and_even_lengths() -> None:
    _check((2, 7, 4, 16), (2, 5, 4, 16), multiple=4)
    q = _normal(0, (1, 8, 2, 8))
    assert jnp.array_equal(  # nothing to pad: the plain call
        padded_dot_product_attention(q, q, q, implementation="xla"),
        jax.nn.dot_product_attention(q, q, q, implementation="xla"),
    )
    with pytest.raises(ValueError, match="multiple"):
        padded_dot_product_attention(
            _normal(0, (1, 3, 1, 8)),
            _normal(0, (1, 3, 1, 8)),
            _normal(0, (1, 3, 1, 8)),
            multiple=0,
        )


def test_jax_reports_bad_layouts_itself() -> None:
    q = _normal(0, (1, 1, 3, 1, 8))
    with pytest.raises(ValueError, match="too many values to unpack"):
        padded_dot_product_attention(q, q, q, implementation="xla")


# ------------------------------------------------------------------ cuDNN, traced


def _bf16(*shape: int) -> Any:
    return jax.ShapeDtypeStruct(shape, jnp.bfloat16)


def _trace_grad(fn: Callable[..., Any], q: Any, k: Any, v: Any, **kwargs: Any) -> Any:
    def loss(q: Any, k: Any, v: Any) -> Any:
        return fn(q, k, v, implementation="cudnn", **kwargs).astype(jnp.float32).sum()

    with patched_probes(SM90):
        return jax.eval_shape(jax.grad(loss, argnums=(0, 1, 2)), q, k, v)


def test_the_probes_are_available_on_this_jax() -> None:
    assert probe_support() is None


def test_unpadded_is_rejected_padded_traces_clean_on_cudnn() -> None:
    q = _bf16(2, 7, 4, 64)
    with pytest.raises(NotImplementedError, match=r"^Unsupported sequence length Q 7, KV 7\."):
        _trace_grad(jax.nn.dot_product_attention, q, q, q)
    grads = _trace_grad(padded_dot_product_attention, q, q, q)
    assert [g.shape for g in grads] == [(2, 7, 4, 64)] * 3
    assert all(g.dtype == jnp.bfloat16 for g in grads)


@pytest.mark.parametrize(
    ("t", "s", "kv_heads", "kwargs"),
    [
        (7, 9, 4, {}),
        (7, 7, 2, {"is_causal": True}),
        (511, 511, 4, {"is_causal": True, "local_window_size": (128, 0)}),
        (7, 5, 1, {"query_seq_lengths": jnp.array([7, 6], jnp.int32)}),
    ],
)
def test_padded_traces_clean_on_cudnn(
    t: int, s: int, kv_heads: int, kwargs: dict[str, Any]
) -> None:
    q, k = _bf16(2, t, 4, 64), _bf16(2, s, kv_heads, 64)
    with pytest.raises(NotImplementedError, match=f"Unsupported sequence length Q {t}, KV {s}"):
        _trace_grad(jax.nn.dot_product_attention, q, k, k, **kwargs)
    grads = _trace_grad(padded_dot_product_attention, q, k, k, **kwargs)
    assert grads[0].shape == (2, t, 4, 64) and grads[1].shape == (2, s, kv_heads, 64)


def test_padded_with_bias_and_mask_traces_clean_on_cudnn() -> None:
    q, k = _bf16(2, 7, 4, 64), _bf16(2, 9, 4, 64)
    bias = _bf16(1, 4, 7, 9)
    mask = jax.ShapeDtypeStruct((2, 1, 7, 9), jnp.bool_)

    def grads(fn: Callable[..., Any]) -> Any:
        def loss(q: Any, k: Any, bias: Any, mask: Any) -> Any:
            out = fn(q, k, k, bias, mask, implementation="cudnn")
            return out.astype(jnp.float32).sum()

        return jax.eval_shape(jax.grad(loss, argnums=(0, 1, 2)), q, k, bias, mask)

    with patched_probes(SM90):
        with pytest.raises(NotImplementedError, match="Unsupported sequence length Q 7, KV 9"):
            grads(jax.nn.dot_product_attention)
        dq, dk, dbias = grads(padded_dot_product_attention)
    assert dq.shape == q.shape and dk.shape == k.shape and dbias.shape == bias.shape


def test_padded_under_vmap_traces_clean_on_cudnn() -> None:
    """The lengths follow the query's batching: no unbatched operand (catalog FA-20)."""
    q, k = _bf16(3, 7, 4, 64), _bf16(3, 5, 2, 64)

    def per_example(q: Any, k: Any, v: Any) -> Any:
        return padded_dot_product_attention(q, k, v, implementation="cudnn")

    def loss(q: Any, k: Any, v: Any) -> Any:
        return jax.vmap(per_example)(q, k, v).astype(jnp.float32).sum()

    with patched_probes(SM90):
        grads = jax.eval_shape(jax.grad(loss, argnums=(0, 1, 2)), q, k, k)
    assert grads[0].shape == (3, 7, 4, 64)


def test_probes_are_restored() -> None:
    from jax._src.cudnn import fused_attention_stablehlo as fa

    before = fa.check_cudnn_version
    with patched_probes(SM90):
        assert fa.check_cudnn_version() == 91000
        assert fa.check_compute_capability("9.0") and not fa.check_compute_capability("10.0")
        assert fa.is_cuda_compute_capability_equal("9.0")
    assert fa.check_cudnn_version is before
