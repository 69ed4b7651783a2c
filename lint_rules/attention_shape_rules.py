"""Shape rules for dot-product attention (catalog FA-14, FA-10, NN-3, NN-5).

* JCD204: a head dim cuDNN's flash kernel does not take on the target (not a multiple
  of 8, or above H_max, which depends on the GPU, cuDNN and JAX version).
* JCD205: a bias / mask that does not span exactly (T, S) in its last two axes (the
  common `(B, 1, 1, S)` padding mask).
* JCD206: query heads that are not a multiple of the key/value heads (every
  implementation of jax.nn.dot_product_attention).
* JCD207: cuDNN with a right attention window and no plain causal mask.
"""

from __future__ import annotations

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.lint_rules import attention_checks as C
from jax_cudnn_lint.lint_rules import versions
from jax_cudnn_lint.lint_rules.attention_call import AttentionCall, attention_calls
from jax_cudnn_lint.lint_rules.attention_dtype_rules import attention_finding
from jax_cudnn_lint.lint_rules.evidence import evidence_lines, origin_phrase
from jax_cudnn_lint.lint_rules.registry import rule
from jax_cudnn_lint.shape_inference.context import CallEvent
from jax_cudnn_lint.shape_inference.dims import Dim, Why

JCD204 = rule(
    "JCD204",
    "cudnn-attention-head-dim",
    "cuDNN attention with a head dim that is not a multiple of 8 or exceeds the target's limit (128 or 256)",
)
JCD205 = rule(
    "JCD205",
    "cudnn-attention-bias-mask-shape",
    "cuDNN attention with a bias or mask whose last two axes are not exactly (T, S)",
)
JCD206 = rule(
    "JCD206",
    "attention-gqa-heads",
    "jax.nn.dot_product_attention with query heads that are not a multiple of the key/value heads",
)
JCD207 = rule(
    "JCD207",
    "cudnn-right-window-without-causal",
    "cuDNN attention with a right local window but no plain causal mask: JAX raises ValueError on every host",
)


def _dim_phrase(name: str, dim: Dim | None, here: str) -> str:
    if dim is None:
        return f"{name}=?"
    origin = origin_phrase(dim.why, here)
    return f"{name}={dim.render()}" + (f" from {origin}" if origin else "")


def _whys(*dims: Dim | None) -> list[Why]:
    return [d.why for d in dims if d is not None]


# -- JCD204: head dim (FA-14) -----------------------------------------------------------------
def check_jcd204(events: list[CallEvent], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    for call in attention_calls(events, config):
        failure = C.head_dim(call, config)
        ops = C.operands(call)
        limit = versions.head_dim_max(config)
        if failure is None or ops is None or ops.Hq is None or limit is None or C.handled(call, config, failure.exception, failure.catalog):
            continue
        here = call.event.module.path
        h = ops.Hq.value
        h_max, why_max = limit
        problem = "not a multiple of 8" if h is not None and h % 8 else f"above {h_max}"
        if h is not None and h % 8 == 0 and h <= 256:
            fix = "use a head dim <= " + str(h_max) + f" (or target a GPU that allows 256: {why_max})"
        elif h is not None and h % 8:
            fix = f"pad the head dim to {((h + 7) // 8) * 8} (zero-pad q and k; zero-pad v and slice the output; pass scale={h}**-0.5, as JAX would take the padded dim's) or use implementation=\"xla\""
        else:
            fix = "split the head dim over more heads or use implementation=\"xla\""
        note = C.first_note(call, config, failure.catalog)
        message = (
            f"cuDNN attention with head dim {_dim_phrase('H', ops.Hq, here)}, {problem}: JAX raises {failure.quoted()} "
            f"for the target {versions.target_phrase(config)}{note}; {fix}"
        )
        evidence = [*evidence_lines("H", ops.Hq.why, here), f"H_max: {h_max} ({why_max})", f"target: {versions.target_phrase(config)}"]
        repro = C.repro_for(call, config, failure, JCD204.code, differentiated=False)
        findings.append(attention_finding(call, JCD204.code, message, evidence, repro, *_whys(ops.Hq)))
    return findings


# -- JCD205: bias / mask sequence axes (FA-10) --------------------------------------------------------
def _fix_205(call: AttentionCall, bT: Dim, bS: Dim) -> str:
    T, S = call.T, call.S
    t = T.render() if T is not None else "T"
    s = S.render() if S is not None else "S"
    if bT.value == 1 and call.api_is_nn:
        # under jax.vmap a batched mask must not broadcast the heads either (FA-21, JCD209: probe 149a)
        heads = "N" if call.event.ctx.vmaps else "1"
        return (
            f"for a padding mask pass key_value_seq_lengths=<int32 (B,)> (and query_seq_lengths) instead, "
            f"or broadcast it: jnp.broadcast_to(mask, (B, {heads}, {t}, {s}))"
        )
    if bT.value == 1:
        return f"pass q_seqlen/kv_seqlen with mask_type=MaskType.PADDING instead, or broadcast it to (B, N, {t}, {s})"
    return f"make the last two axes exactly ({t}, {s}) (jnp.broadcast_to, or slice the bias to the query and key lengths)"


def check_jcd205(events: list[CallEvent], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    for call in attention_calls(events, config):
        failure = C.bias_seq(call, config)
        seq = C.combined_bias_seq(call)
        if failure is None or seq is None or call.T is None or call.S is None or C.handled(call, config, failure.exception, failure.catalog):
            continue
        bT, bS, what = seq
        here = call.event.module.path
        note = C.first_note(call, config, failure.catalog)
        message = (
            f"cuDNN attention with {what}: its last two axes ({bT.render()}, {bS.render()}) must be exactly "
            f"({_dim_phrase('T', call.T, here)}, {_dim_phrase('S', call.S, here)}) - cuDNN broadcasts batch and heads, "
            f"never the sequence axes: JAX raises {failure.quoted()}{note}; {_fix_205(call, bT, bS)}"
        )
        evidence = [*evidence_lines("bias/mask", bT.why + bS.why, here), *evidence_lines("T", call.T.why, here), *evidence_lines("S", call.S.why, here)]
        for name in ("bias", "mask"):
            arr = C.array(call.arg(name))
            if arr is not None:
                evidence += evidence_lines(name, arr.why, here)
        repro = C.repro_for(call, config, failure, JCD205.code, differentiated=False)
        findings.append(attention_finding(call, JCD205.code, message, evidence, repro, bT.why, bS.why, call.T.why, call.S.why))
    return findings


# -- JCD206: GQA head counts (NN-3) -----------------------------------------------------------------
def check_jcd206(events: list[CallEvent], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    for call in attention_calls(events, config):
        failure = C.gqa_heads(call, config)
        ops = C.operands(call)
        if failure is None or ops is None or ops.Nq is None or ops.Nk is None or C.handled(call, config, failure.exception, failure.catalog):
            continue
        here = call.event.module.path
        note = C.first_note(call, config, failure.catalog)
        impl = "every implementation (xla, cudnn, None)"
        message = (
            f"dot_product_attention with {_dim_phrase('N_q', ops.Nq, here)} query heads and "
            f"{_dim_phrase('N_kv', ops.Nk, here)} key/value heads: grouped-query attention needs N_q to be a multiple of N_kv, "
            f"so JAX raises {failure.quoted()} on {impl}, on every host{note}; "
            "fix the head counts (repeat the key/value heads with jnp.repeat if they are meant to be shared)"
        )
        evidence = [*evidence_lines("N_q", ops.Nq.why, here), *evidence_lines("N_kv", ops.Nk.why, here)]
        repro = C.repro_for(call, config, failure, JCD206.code, differentiated=False)
        findings.append(attention_finding(call, JCD206.code, message, evidence, repro, *_whys(ops.Nq, ops.Nk)))
    return findings


# -- JCD207: right window without a causal mask (NN-5) ------------------------------------------------
def check_jcd207(events: list[CallEvent], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    for call in attention_calls(events, config):
        failure = C.right_window(call, config)
        win = C.window(call)
        if failure is None or win is None or C.handled(call, config, failure.exception, failure.catalog):
            continue
        here = call.event.module.path
        window = call.arg("local_window_size")
        causal = C.const_bool(call.arg("is_causal"))
        if causal:
            why_not = "is_causal=True with query_seq_lengths/key_value_seq_lengths makes the mask PADDING_CAUSAL, not CAUSAL"
            fix = "drop the right window (local_window_size=(left, 0)) or the sequence lengths"
        elif causal is None:
            why_not = "with query_seq_lengths/key_value_seq_lengths the mask is PADDING or PADDING_CAUSAL, whatever is_causal is"
            fix = "drop the right window (local_window_size=(left, 0)) or the sequence lengths"
        else:
            why_not = "is_causal is False"
            fix = f"use local_window_size=({win[0]}, 0) with is_causal=True for a causal sliding window, or implementation=\"xla\" for a two-sided window"
        origin = origin_phrase(window.why, here) if window is not None else ""
        message = (
            f"cuDNN attention with local_window_size={win}" + (f" ({origin})" if origin else "")
            + f": cuDNN takes a right window only under a plain causal mask and {why_not}; JAX raises {failure.quoted()} "
            f"before any cuDNN probing, on every host{C.first_note(call, config, failure.catalog)}; {fix}"
        )
        evidence = [*(evidence_lines("local_window_size", window.why, here) if window is not None else []), f"is_causal: {'not resolved' if causal is None else causal}"]
        repro = C.repro_for(call, config, failure, JCD207.code, differentiated=False)
        findings.append(attention_finding(call, JCD207.code, message, evidence, repro, *([window.why] if window is not None else [])))
    return findings


CHECKS = (check_jcd204, check_jcd205, check_jcd206, check_jcd207)

__all__ = ["CHECKS", "JCD204", "JCD205", "JCD206", "JCD207", "AttentionCall"]
