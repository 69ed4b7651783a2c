"""The execute backend on a real CUDA GPU (pytest -m gpu on a host with a CUDA jaxlib).

Deselected by default (pyproject addopts: -m 'not gpu') and skipped without a CUDA device.
"""

from __future__ import annotations

from typing import Any

import pytest
from jax_cudnn_lint.kernels import repro as R


def _cuda_device() -> bool:
    try:
        import jax

        return any(d.platform == "gpu" for d in jax.devices())
    except Exception:  # noqa: BLE001 - no jax, no plugin, no driver: no GPU
        return False


pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not _cuda_device(), reason="needs a CUDA device and a CUDA jaxlib"),
]


@pytest.fixture(scope="module")
def env() -> dict[str, Any]:
    from jax_cudnn_lint.kernels import backends as B

    info = B.environment_info()
    assert info["cuda"], info
    return info


def attention(t: int, s: int | None = None, **kw: Any) -> dict[str, Any]:
    s = t if s is None else s
    kw.setdefault("expect", R.odd_seqlen_expect(t, s))
    kw.setdefault("differentiated", True)
    return R.attention_repro(code="JCD201", query=[2, t, 4, 64], key=[2, s, 4, 64], **kw)


def execute(repro: dict[str, Any], env: dict[str, Any]) -> Any:
    from jax_cudnn_lint.kernels import backends as B
    from jax_cudnn_lint.kernels.targets import make_target

    assert R.validate_repro(repro) == []
    return B.run_repro(repro, B.EXECUTE, make_target(), env)


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"bias": [1, 4, 9, 7], "wrt": ["query", "key", "value", "bias"]},
        {"mask": [2, 1, 9, 7], "kwargs": {"implementation": "cudnn", "is_causal": True}},
        {
            "extra_arrays": {
                "query_seq_lengths": {"shape": [2], "dtype": "int32"},
                "key_value_seq_lengths": {"shape": [2], "dtype": "int32"},
            }
        },
    ],
)
def test_odd_lengths_confirmed_and_the_fix_matches_xla(
    extra: dict[str, Any], env: dict[str, Any]
) -> None:
    out = execute(attention(9, 7, **extra), env)
    assert out.verdict == "confirmed", out.detail
    assert out.backend == "execute"
    assert "Unsupported sequence length Q 9, KV 7." in out.detail
    assert "vs implementation='xla': max abs error out" in out.detail, out.detail
    assert "(within the bfloat16 tolerance" in out.detail, out.detail


def test_even_lengths_run_clean(env: dict[str, Any]) -> None:
    out = execute(attention(16, expect=R.odd_seqlen_expect(16, 16)), env)
    assert out.verdict == "refuted", out.detail


def test_cudnn_lstm_runs_on_the_gpu(env: dict[str, Any]) -> None:
    from jax_cudnn_lint.kernels import backends as B
    from jax_cudnn_lint.kernels.targets import make_target

    expect = R.expect_message("NotImplementedError", "bfloat16 support not implemented for LSTM")
    common: dict[str, Any] = {
        "code": "JCD102",
        "api": R.API_LSTM,
        "expect": expect,
        "batch": 2,
        "seq_len": 5,
        "input_size": 3,
        "hidden_size": 4,
        "differentiated": True,
    }
    bf16 = B.run_repro(R.lstm_repro(precision="bfloat16", **common), B.EXECUTE, make_target(), env)
    assert bf16.verdict == "confirmed", bf16.detail
    fp32 = B.run_repro(R.lstm_repro(precision="highest", **common), B.EXECUTE, make_target(), env)
    assert fp32.verdict == "refuted", fp32.detail


def test_auto_picks_execute_through_run_confirm() -> None:
    from jax_cudnn_lint.confirm import run_confirm
    from jax_cudnn_lint.finding import Finding

    (result,) = run_confirm(
        [Finding("JCD201", "t.py", 1, 0, "m", repro=attention(7))], use_cache=False
    )
    assert result["backend"] == "execute", result
    assert result["verdict"] == "confirmed", result["detail"]
    target = result["environment"]["target"]
    assert target["emulated"] is False and target["gpu"].startswith("sm")
    assert result["environment"]["cudnn"]


def test_padded_kernel_matches_xla_on_cudnn() -> None:
    import jax
    import jax.numpy as jnp
    from jax_cudnn_lint.kernels import padded_dot_product_attention

    keys = jax.random.split(jax.random.key(0), 4)
    q = jax.random.normal(keys[0], (2, 9, 4, 64), jnp.bfloat16)
    k = jax.random.normal(keys[1], (2, 7, 2, 64), jnp.bfloat16)
    v = jax.random.normal(keys[2], (2, 7, 2, 64), jnp.bfloat16)

    def loss(fn: Any, impl: str) -> Any:
        def f(q: Any, k: Any, v: Any) -> Any:
            out = fn(q, k, v, is_causal=True, implementation=impl)
            return jnp.sum(out.astype(jnp.float32) ** 2)

        return jax.jit(jax.value_and_grad(f, argnums=(0, 1, 2)))(q, k, v)

    got = loss(padded_dot_product_attention, "cudnn")
    want = loss(jax.nn.dot_product_attention, "xla")
    for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
        scale = max(1.0, float(jnp.max(jnp.abs(w.astype(jnp.float32)))))
        err = float(jnp.max(jnp.abs(g.astype(jnp.float32) - w.astype(jnp.float32))))
        assert err <= 4e-2 * scale, (err, scale)
