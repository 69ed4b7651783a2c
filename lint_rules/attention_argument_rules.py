"""JCD213: arguments the cuDNN attention path rejects before it looks at lengths or
dtypes (catalog FA-2, FA-4a, FA-4b, FA-4c, FA-7, FA-9).

Most of them belong to the direct `fused_attention_stablehlo.dot_product_attention`
API: a `qkv_layout` it does not know, a PADDING mask type or packed `q_offsets` without
both sequence lengths, Q, K and V that do not agree.  A sliding window that leaves no
key (FA-4b) is reached from `jax.nn` too, by a left window below 0.  Each raises
ValueError while tracing on a cuDNN host only (a CPU-only host stops at "cuDNN is not
detected" first), so a CPU test run does not show it.
"""

from __future__ import annotations

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.lint_rules import attention_checks as C
from jax_cudnn_lint.lint_rules.attention_call import attention_calls
from jax_cudnn_lint.lint_rules.attention_dtype_rules import attention_finding
from jax_cudnn_lint.lint_rules.registry import rule
from jax_cudnn_lint.shape_inference.context import CallEvent

JCD213 = rule(
    "JCD213",
    "cudnn-attention-arguments",
    "cuDNN attention given arguments it rejects on a cuDNN host: an unknown qkv_layout, a padding mask or packed offsets without sequence lengths, a window with no key, Q/K/V that disagree",
)

_CHECKS = (C.layout_name, C.padding_without_lengths, C.sliding_window, C.offsets_without_lengths, C.fa_layout)

_WHY = {
    "FA-2": "fused_attention_stablehlo takes qkv_layout BTNH, BNTH, BSNH or BNSH (any case)",
    "FA-4a": "a PADDING or PADDING_CAUSAL mask type is built from q_seqlen and kv_seqlen, and both are needed",
    "FA-4b": "the window must keep at least the query's own key (sliding_window_length = left window + 1 > 0)",
    "FA-4c": "packed sequences (q_offsets) are read with q_seqlen and kv_seqlen, and both are needed",
    "FA-7": "fused_attention_stablehlo takes 4-D query, key and value",
    "FA-9": "query, key and value must agree in batch, head dim, key/value heads and key/value length",
}
_FIX = {
    "FA-2": "pass one of the four layouts (a layout of other axes needs a transpose first)",
    "FA-4a": "pass q_seqlen and kv_seqlen (int32, shape (B,)), or use mask_type NO_MASK / CAUSAL",
    "FA-4b": "use a left window >= 0 (or no window)",
    "FA-4c": "pass q_seqlen and kv_seqlen with the offsets, or leave q_offsets out",
    "FA-7": "add the missing axis (batch or heads) before the call",
    "FA-9": "make key and value the same shape and give the query the key's batch and head dim",
}


def check_jcd213(events: list[CallEvent], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    for call in attention_calls(events, config):
        failure = C.first_unhandled(call, config, _CHECKS) if call.is_cudnn else None
        if failure is None:
            continue
        note = C.first_note(call, config, failure.catalog)
        message = (
            f"cuDNN attention rejects its arguments: {_WHY[failure.catalog]}; JAX raises {failure.quoted()} "
            f"while tracing on a cuDNN host (a CPU-only host stops earlier, at 'cuDNN is not detected'){note}; {_FIX[failure.catalog]}"
        )
        evidence = [f"catalog: {failure.catalog}"]
        if failure.catalog == "FA-9":
            evidence += C.operand_evidence(call, ("B", "H (query)", "H (key)", "S", "S (value)"))
        repro = C.repro_for(call, config, failure, JCD213.code, differentiated=False)
        findings.append(attention_finding(call, JCD213.code, message, evidence, repro))
    return findings


CHECKS = (check_jcd213,)
