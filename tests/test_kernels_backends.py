"""The backends, in-process (the child runs exactly this code): what the trace backend
confirms and refutes for a target, LSTM execution on the CPU, and the inputs."""

from __future__ import annotations

from typing import Any

import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from jax_cudnn_lint.kernels import backends as B
from jax_cudnn_lint.kernels import repro as R
from jax_cudnn_lint.kernels.targets import Target, make_target

SM90 = make_target("sm90", "9.10")


@pytest.fixture(autouse=True, scope="module")
def _fast_compiles() -> Any:
    """As in the child without a CUDA device (kernels/child.py)."""
    before = jax.config.read("jax_disable_most_optimizations")
    jax.config.update("jax_disable_most_optimizations", True)
    yield
    jax.config.update("jax_disable_most_optimizations", before)


@pytest.fixture(scope="module")
def env() -> dict[str, Any]:
    return B.environment_info()


def attention(t: int, s: int | None = None, *, h: int = 64, **kw: Any) -> dict[str, Any]:
    s = t if s is None else s
    kw.setdefault("expect", R.odd_seqlen_expect(t, s))
    kw.setdefault("differentiated", True)
    return R.attention_repro(code="JCD201", query=[2, t, 2, h], key=[2, s, 2, h], **kw)


def trace(repro: dict[str, Any], env: dict[str, Any], target: Target = SM90) -> B.Outcome:
    assert R.validate_repro(repro) == []
    return B.run_repro(repro, B.TRACE, target, env)


def test_environment(env: dict[str, Any]) -> None:
    assert env["jax"] == jax.__version__
    assert env["platform"] == jax.devices()[0].platform
    assert B.resolve_backend("auto", {"cuda": False}) == "trace"
    assert B.resolve_backend("auto", {"cuda": True}) == "execute"
    assert B.resolve_backend("trace", {"cuda": True}) == "trace"


@pytest.mark.parametrize(
    ("t", "s", "extra"),
    [
        (511, 511, {}),
        (7, 7, {"bias": [2, 2, 7, 7]}),
        (7, 7, {"bias": [1, 2, 7, 7], "wrt": ["bias"]}),  # bias only: still training
        (7, 7, {"mask": [2, 1, 7, 7]}),
        (8, 7, {}),
        (7, 8, {"kwargs": {"implementation": "cudnn", "is_causal": True}}),
        (197, 197, {"wrt": ["value"]}),
    ],
)
def test_odd_lengths_under_grad_are_confirmed(
    t: int, s: int, extra: dict[str, Any], env: dict[str, Any]
) -> None:
    out = trace(attention(t, s, **extra), env)
    assert out.verdict == B.CONFIRMED, out.detail
    assert out.backend == "trace"
    assert f"NotImplementedError: Unsupported sequence length Q {t}, KV {s}." in out.detail
    assert "tracing for sm90 with cuDNN 9.10" in out.detail
    assert "the fix (jax_cudnn_lint.kernels.padded_dot_product_attention) traces clean" in (
        out.detail
    )


@pytest.mark.parametrize("extra", [{}, {"bias": [2, 2, 512, 512]}])
def test_even_lengths_are_refuted(extra: dict[str, Any], env: dict[str, Any]) -> None:
    out = trace(attention(512, expect=R.odd_seqlen_expect(512, 512), **extra), env)
    assert out.verdict == B.REFUTED, out.detail
    assert out.detail.startswith("ran clean tracing for sm90")


def test_inference_is_refuted(env: dict[str, Any]) -> None:
    repro = attention(7, differentiated=False)
    assert trace(repro, env).verdict == B.REFUTED


def test_the_direct_fused_attention_api(env: dict[str, Any]) -> None:
    repro = attention(
        7,
        api=R.API_FA_ATTENTION,
        kwargs={"mask_type": "CAUSAL", "qkv_layout": "BTNH", "scale": 0.125},
    )
    out = trace(repro, env)
    assert out.verdict == B.CONFIRMED, out.detail
    assert "the fix" not in out.detail  # the padded kernel wraps jax.nn only
    bnth = R.attention_repro(
        code="JCD201",
        api=R.API_FA_ATTENTION,
        query=[1, 2, 9, 64],
        expect=R.odd_seqlen_expect(9, 9),
        differentiated=True,
        kwargs={"qkv_layout": "BNTH"},
    )
    assert trace(bnth, env).verdict == B.CONFIRMED


def test_other_catalog_checks_follow_the_target(env: dict[str, Any]) -> None:
    fp32 = attention(
        8,
        dtype="float32",
        differentiated=False,
        expect={"exception": "NotImplementedError", "message_regex": r"Q must be fp16/bf16"},
    )
    assert trace(fp32, env).verdict == B.CONFIRMED  # FA-8

    cc103 = attention(
        8,
        expect=R.expect_message(
            "NotImplementedError", "Compute capability 10.3 requires cuDNN version >= 9.11."
        ),
    )
    assert trace(cc103, env, make_target("sm103", "9.10")).verdict == B.CONFIRMED  # FA-13
    assert trace(cc103, env, make_target("sm103", "9.11")).verdict == B.REFUTED
    assert trace(cc103, env, make_target("sm100", "9.10")).verdict == B.REFUTED

    h192 = attention(
        8,
        h=192,
        expect=R.expect_message(
            "NotImplementedError", "The head dim must be <= 128 and a multiple of 8, but got 192."
        ),
    )
    assert trace(h192, env, make_target("sm80", "9.10")).verdict == B.CONFIRMED  # FA-14
    assert trace(h192, env, make_target("sm90", "9.10")).verdict == B.REFUTED


def test_a_different_error_is_inconclusive(env: dict[str, Any]) -> None:
    wrong = attention(7, expect=R.expect_message("ValueError", "something else"))
    out = trace(wrong, env)
    assert out.verdict == B.INCONCLUSIVE
    assert "NotImplementedError: Unsupported sequence length Q 7, KV 7." in out.detail
    assert "predicted ValueError" in out.detail
    # The JAX traceback-filtering note is not part of what is matched or shown.
    assert "For simplicity" not in out.detail


def test_missing_probes_make_the_trace_backend_unavailable(
    env: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from jax._src.cudnn import fused_attention_stablehlo as fa

    monkeypatch.delattr(fa, "is_cuda_compute_capability_equal")
    out = trace(attention(7), env)
    assert out.verdict == B.INCONCLUSIVE
    assert out.detail.startswith(f"trace backend unavailable for jax {jax.__version__}")
    assert "is_cuda_compute_capability_equal" in out.detail


def test_execute_needs_cuda(env: dict[str, Any]) -> None:
    if env["cuda"]:
        pytest.skip("this host has a CUDA device")
    out = B.run_repro(attention(7), B.EXECUTE, SM90, env)
    assert out.verdict == B.INCONCLUSIVE
    assert "needs a CUDA device" in out.detail


# ------------------------------------------------------------------ LSTM


def lstm(**kw: Any) -> dict[str, Any]:
    kw.setdefault("expect", R.expect_message("NotImplementedError", R.LSTM_REF_DROPOUT_MESSAGE))
    return R.lstm_repro(code="JCD101", batch=2, seq_len=5, input_size=3, hidden_size=4, **kw)


@pytest.mark.parametrize("backend", [B.TRACE, B.EXECUTE])
def test_lstm_ref_with_dropout_is_confirmed_by_execution(backend: str, env: dict[str, Any]) -> None:
    out = B.run_repro(lstm(dropout=0.5, differentiated=True), backend, SM90, env)
    assert out.verdict == B.CONFIRMED, out.detail
    assert out.backend == "execute"
    assert "executing on" in out.detail


def test_lstm_ref_without_dropout_runs(env: dict[str, Any]) -> None:
    for differentiated in (False, True):
        out = B.run_repro(lstm(dropout=0.0, differentiated=differentiated), B.TRACE, SM90, env)
        assert out.verdict == B.REFUTED, out.detail
    two_layers = lstm(dropout=0, num_layers=2, bidirectional=True, differentiated=True)
    assert B.run_repro(two_layers, B.TRACE, SM90, env).verdict == B.REFUTED


def test_lstm_seq_lengths_dtype(env: dict[str, Any]) -> None:
    expect = R.expect_message("NotImplementedError", "`seq_lengths` can only be int32.")
    assert (
        B.run_repro(lstm(seq_lengths_dtype="uint32", expect=expect), B.TRACE, SM90, env).verdict
        == B.CONFIRMED
    )
    # int64 is canonicalised to int32 unless x64 is on (catalog RNN-2).
    assert (
        B.run_repro(lstm(seq_lengths_dtype="int64", expect=expect), B.TRACE, SM90, env).verdict
        == B.REFUTED
    )
    x64 = lstm(seq_lengths_dtype="int64", expect=expect, config={"jax_enable_x64": True})
    assert B.run_repro(x64, B.TRACE, SM90, env).verdict == B.CONFIRMED
    assert not jax.config.read("jax_enable_x64")  # restored


def test_cudnn_lstm_precision_checks_run_on_any_host(env: dict[str, Any]) -> None:
    bf16 = lstm(
        api=R.API_LSTM,
        precision="bfloat16",
        expect=R.expect_message("NotImplementedError", "bfloat16 support not implemented for LSTM"),
    )
    assert B.run_repro(bf16, B.TRACE, SM90, env).verdict == B.CONFIRMED
    by_config = lstm(
        api=R.API_LSTM,
        expect=bf16["expect"],
        config={"jax_default_matmul_precision": "bfloat16"},
    )
    assert B.run_repro(by_config, B.TRACE, SM90, env).verdict == B.CONFIRMED
    if env["cuda"]:
        return
    highest = lstm(api=R.API_LSTM, precision="highest", expect=bf16["expect"])
    out = B.run_repro(highest, B.TRACE, SM90, env)
    assert out.verdict == B.INCONCLUSIVE
    assert "needs a CUDA jaxlib" in out.detail


# ------------------------------------------------------------------ inputs


def test_random_inputs() -> None:
    repro = attention(
        7,
        5,
        bias=[2, 2, 7, 5],
        mask=[2, 1, 7, 5],
        extra_arrays={
            "query_seq_lengths": {"shape": [2], "dtype": "int32"},
            "key_value_seq_lengths": {"shape": [2], "dtype": "int32"},
        },
    )
    arrays = B.random_inputs(repro)
    assert arrays["query"].dtype == jnp.bfloat16 and arrays["query"].shape == (2, 7, 2, 64)
    for name in ("query", "key", "value", "bias"):
        assert bool(jnp.all(arrays[name] != 0)) or float(jnp.mean(arrays[name] == 0)) < 0.01
        assert not bool(jnp.array_equal(arrays[name], jnp.zeros_like(arrays[name])))
    mask = arrays["mask"]
    assert mask.dtype == jnp.bool_
    assert bool(jnp.all(jnp.any(mask, axis=-1)))  # every query row sees a key
    assert bool(jnp.all(mask[..., jnp.arange(5), jnp.arange(5)]))  # the diagonal is kept
    assert not bool(jnp.all(mask))  # and it is random
    q_len, kv_len = arrays["query_seq_lengths"], arrays["key_value_seq_lengths"]
    assert q_len.dtype == jnp.int32
    assert bool(jnp.all((q_len >= 4) & (q_len <= 7))) and bool(
        jnp.all((kv_len >= 3) & (kv_len <= 5))
    )
    again = B.random_inputs(repro)
    assert bool(jnp.array_equal(again["query"], arrays["query"]))  # deterministic


def test_offsets_cannot_be_synthesised() -> None:
    repro = attention(
        7,
        api=R.API_FA_ATTENTION,
        kwargs={},
        extra_arrays={"q_offsets": {"shape": [2, 3], "dtype": "int32"}},
    )
    with pytest.raises(B.CannotSynthesize, match="q_offsets"):
        B.random_inputs(repro)
