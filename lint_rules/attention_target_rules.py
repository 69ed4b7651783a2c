"""Target-dependent and fp8 rules for cuDNN attention (catalog FA-3, FA-13, FA-16,
FA-17, FA-18; NN-6).

* JCD210: what the chosen GPU / cuDNN cannot run (compute capability 10.3 before cuDNN
  9.11, packed layouts before Hopper, MLA before cuDNN 9.10 / Hopper) and the fp8
  constraints of the direct `fused_attention_stablehlo` API.
* JCD211 (off by default): JAX 0.4.35-0.7.2 refuse a bias gradient unless the bias has
  batch 1 and the query's head count.
"""

from __future__ import annotations

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.lint_rules import attention_checks as C
from jax_cudnn_lint.lint_rules import versions
from jax_cudnn_lint.lint_rules.attention_call import attention_calls
from jax_cudnn_lint.lint_rules.attention_dtype_rules import attention_finding
from jax_cudnn_lint.lint_rules.evidence import evidence_lines, origin_phrase
from jax_cudnn_lint.lint_rules.registry import rule
from jax_cudnn_lint.shape_inference.context import CallEvent

JCD210 = rule(
    "JCD210",
    "cudnn-fp8-and-target",
    "cuDNN attention the target GPU/cuDNN cannot run, or fp8 attention outside its shape and argument limits",
)
JCD211 = rule(
    "JCD211",
    "cudnn-bias-grad-batch",
    "JAX 0.4.35-0.7.2: a differentiated cuDNN attention bias must have batch 1 and the query's head count",
    default_on=False,
)

_CHECKS_210 = (C.fp8_arguments, C.compute_capability_10_3, C.fp8_shape, C.packed_layout, C.mla)

_WHY_210 = {
    "FA-3": "the fp8 path of fused_attention_stablehlo takes fp8_params, a NO_MASK or CAUSAL mask_type and no bias, mask or sequence lengths",
    "FA-13": "cuDNN supports compute capability 10.3 from 9.11 on, and JAX checks it before the head-dim and length limits (after the dtype and layout checks)",
    "FA-18": "fp8 attention runs only for head dim 128 with T and S multiples of 128 in training, and head dims <= 256 that are multiples of 16 in inference",
    "FA-16": "a packed layout (q_offsets with several segments per batch) needs a Hopper GPU",
    "FA-17": "a value head dim different from the query's (multi-head latent attention) needs cuDNN >= 9.10 on Hopper or newer",
}
_FIX_210 = {
    "FA-3": "pass fp8_params with every scale/descale key, mask_type NO_MASK or CAUSAL, and leave bias, mask, q_seqlen and kv_seqlen out",
    "FA-13": "upgrade cuDNN to 9.11 or newer on this GPU (or lint for the GPU and cuDNN you deploy with: --gpu, --cudnn)",
    "FA-18": "use head dim 128 and sequence lengths that are multiples of 128 for fp8 training (head dims multiple of 16 up to 256 for inference), or bf16",
    "FA-16": "run packed sequences on Hopper or newer, or unpack them into a padded batch with q_seqlen/kv_seqlen",
    "FA-17": "use the same head dim for value as for query and key, or run on Hopper with cuDNN >= 9.10",
}


def check_jcd210(events: list[CallEvent], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    for call in attention_calls(events, config):
        failure = C.first_unhandled(call, config, _CHECKS_210)
        if failure is None:
            continue
        target = versions.target_phrase(config)
        note = C.first_note(call, config, failure.catalog)
        training = ""
        if failure.catalog == "FA-18":
            training = " (this call is differentiated: the training limits apply)" if call.differentiated else " (the inference limits already fail)"
        message = (
            f"cuDNN attention for the target {target}: {_WHY_210[failure.catalog]}{training}; "
            f"JAX raises {failure.quoted()}{note}; {_FIX_210[failure.catalog]}"
        )
        evidence = [f"target: {target}", f"catalog: {failure.catalog}", *C.operand_evidence(call, ("T", "S", "H (query)", "H (value)"))]
        repro = None
        if failure.catalog != "FA-18" and C.use_fp8(call) is not True:
            repro = C.repro_for(call, config, failure, JCD210.code, differentiated=False)
        findings.append(attention_finding(call, JCD210.code, message, evidence, repro))
    return findings


def check_jcd211(events: list[CallEvent], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    if not versions.within(config, (0, 4, 35), (0, 7, 2)):
        return findings
    for call in attention_calls(events, config):
        if not call.api_is_nn or not call.is_cudnn:
            continue
        bias = C.array(call.arg("bias"))
        ops = C.operands(call)
        if bias is None or not bias.diff or bias.stopped or bias.shape is None or not 1 <= len(bias.shape) <= 4 or ops is None:
            continue
        full = (1,) * (4 - len(bias.shape)) + tuple(C.exact(d) or -1 for d in bias.shape)
        b, n, nq = full[0], full[1], C.exact(ops.Nq)
        if b < 0 or n < 0 or nq is None or (b == 1 and n == nq) or C.handled(call, config, "ValueError", C.TRACE_END, differentiation=True):
            continue
        message_text = (
            "cuDNN only supports bias gradient when the batch size is 1 and the head number matches the query, "
            f"but got B={b}, N={n}."
        )
        here = call.event.module.path
        origin = origin_phrase(bias.why, here)
        note = C.first_note(call, config, C.TRACE_END)
        message = (
            f"cuDNN attention differentiates its bias {bias.render_shape()}" + (f" (from {origin})" if origin else "")
            + f" with batch {b} and {n} heads (the query has {nq}): {versions.render_version(versions.jax_version(config))} "
            f'raises ValueError("{message_text}") in the backward pass (JAX 0.4.35-0.7.2; removed in 0.8.0){note}; '
            "stop the gradient to the bias (jax.lax.stop_gradient) if it is not trained, give it shape "
            f"(1, {nq}, T, S), or upgrade JAX"
        )
        evidence = [*evidence_lines("bias", bias.why, here), "bias: differentiated (depends on what the enclosing transform differentiates)"]
        regex = C.literal_regex(message_text)
        failure = C.Failure("NN-6", "JCD211", "ValueError", message_text, regex)
        repro = C.repro_for(call, config, failure, JCD211.code, differentiated=True, before=C.TRACE_END)
        if repro is not None:
            wrt = repro.get("wrt")
            repro["wrt"] = [*(wrt if isinstance(wrt, list) else []), "bias"]  # pyright: ignore[reportUnknownArgumentType]
        findings.append(attention_finding(call, JCD211.code, message, evidence, repro, bias.why))
    return findings


CHECKS = (check_jcd210, check_jcd211)
