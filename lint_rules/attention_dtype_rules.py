"""Dtype rules of dot-product attention.

JCD203: cuDNN attention with inputs cuDNN does not take (catalog FA-5, FA-8, FA-24b).

`check_layout` accepts float16, bfloat16 and the two fp8 types for Q (float32 is the
usual failure); a boolean mask is turned into a bias of the query's dtype first, which
only works for 16-bit floats; fp8 inputs outside the direct API's fp8 path pass the
check and fail when the call is compiled.
"""

from __future__ import annotations

import re

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.lint_rules import attention_checks as C
from jax_cudnn_lint.lint_rules import versions
from jax_cudnn_lint.lint_rules.attention_call import AttentionCall, attention_calls
from jax_cudnn_lint.lint_rules.evidence import (
    context_lines,
    evidence_lines,
    origin_phrase,
    related_locations,
)
from jax_cudnn_lint.lint_rules.registry import rule
from jax_cudnn_lint.shape_inference.context import CallEvent
from jax_cudnn_lint.shape_inference.dims import Why
from jax_cudnn_lint.shape_inference.values import ArrayV

JCD203 = rule(
    "JCD203",
    "cudnn-attention-dtype",
    "cuDNN attention with query/key/value that are not float16/bfloat16 (or a boolean mask with non-16-bit inputs)",
)

JCD212 = rule(
    "JCD212",
    "attention-mask-not-bool",
    "jax.nn.dot_product_attention with a mask that is not boolean (flax's mask helpers make float32 masks): JAX raises ValueError on every implementation",
)

FIX = 'cast query, key and value to jnp.bfloat16 (or float16) for the cuDNN call, or use implementation="xla"'


def attention_finding(call: AttentionCall, code: str, message: str, evidence: list[str], repro: dict[str, object] | None, *whys: Why) -> Finding:
    """A finding at the attention call, with the callee and context in its evidence."""
    event: CallEvent = call.event
    here = event.module.path
    lines = [f"callee: {event.qualname} ({call.cudnn_reason})", *evidence, *context_lines(event)]
    node = event.node
    return Finding(code, here, node.lineno, node.col_offset, message, tuple(lines), repro, related_locations(event, *whys))


def _dtype_phrase(call: AttentionCall, dtype: str) -> tuple[str, Why]:
    """Where the query came from, said only where that step names the dtype
    (`jnp.float32(0.125)`): the steps follow the shape, and the array that gave the
    query its shape (int32 tokens, a bfloat16 input) is not what made it float32
    (probes 71a, 72b, 72c)."""
    q = call.query
    if q is None:
        return "", ()
    origin = origin_phrase(q.why, call.event.module.path)
    named = any(re.search(rf"\b{re.escape(name)}\b", origin) for name in (dtype, _SHORT_DTYPES.get(dtype, dtype)))
    return (f" (query{q.shape_words()} from {origin})" if origin and named else ""), q.why


_SHORT_DTYPES = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16"}


def _qkv(call: AttentionCall) -> tuple[tuple[str, ArrayV | None], ...]:
    """Query, key and value by name, as the call passes them."""
    return (("query", call.query), ("key", C.array(call.arg("key"))), ("value", C.array(call.arg("value"))))


def _operands_of(call: AttentionCall, dtype: str) -> str:
    """The operands of that dtype ("query and key"; "query/key/value" when all three):
    JAX's check names the query, the rest may be fine (probe 72c)."""
    names = [name for name, array in _qkv(call) if array is not None and array.dtype == dtype]
    if len(names) == 3:
        return "query/key/value"
    return " and ".join(names) if names else "query"


def check_jcd203(events: list[CallEvent], config: Config) -> list[Finding]:
    # (whether the call's context knows the key's and value's dtypes, the finding)
    found: list[tuple[bool, Finding]] = []
    for call in attention_calls(events, config):
        failure = C.bool_mask_dtype(call, config) or C.qkv_dtype(call, config)
        lowering = False
        if failure is None:
            failure = C.fp8_without_use_fp8(call, config)
            lowering = failure is not None
        mixed = _mixed_dtypes(call, config)
        if failure is None or mixed is not None and not lowering and C.first_failure(call, config, failure.catalog) == mixed:
            # jax.nn's check of mixed dtypes comes first (probe 77e: a float32 query beside
            # bfloat16 keys is that ValueError, not cuDNN's dtype check)
            if mixed is not None and not C.handled(call, config, mixed.exception, mixed.catalog):
                found.append((True, mixed_dtypes_finding(call, mixed)))
            continue
        if C.handled(call, config, failure.exception, C.LOWERING if lowering else failure.catalog):
            continue
        dtype = call.dtype or "?"
        shown, _, wide_note = C.dtype_as_seen(call, dtype)
        where, why = _dtype_phrase(call, dtype)
        operands = _operands_of(call, dtype)
        here = call.event.module.path
        note = C.first_note(call, config, C.LOWERING if lowering else failure.catalog)
        if failure.catalog == "FA-5":
            mask = C.array(call.arg("mask"))
            mask_shape = mask.shape_words() if mask is not None else ""
            message = (
                f"cuDNN attention with a boolean mask{mask_shape} and {shown} inputs{where}: JAX turns the mask into a bias "
                f"of the query's dtype and raises {failure.quoted()} (bfloat16/float16 only){note}; {FIX}"
            )
        elif failure.catalog == "FA-8":
            message = (
                f"cuDNN attention gets {shown} {operands}{where}: JAX raises {failure.quoted()}{wide_note} "
                f"while tracing on the GPU host{note}; {FIX}"
            )
        else:
            message = (
                f"cuDNN attention gets {shown} {operands}{where} without the fp8 path: the dtype check lets fp8 through, "
                f"then compiling fails with {failure.exception}({failure.message}) (this kernel lowers bfloat16/float16 only){note}; "
                "use bfloat16/float16 inputs, or the direct fused_attention_stablehlo API with use_fp8=True and fp8_params"
            )
        evidence = [*evidence_lines("query", why, here), f"query dtype: {dtype}"]
        mask = C.array(call.arg("mask"))
        if failure.catalog == "FA-5" and mask is not None:
            evidence += [*evidence_lines("mask", mask.why, here), f"mask dtype: {mask.dtype or 'bool (jax.nn takes boolean masks only)'}"]
        repro = C.repro_for(call, config, failure, JCD203.code, differentiated=False)
        known = all(array is not None and array.dtype is not None for name, array in _qkv(call) if name != "query")
        found.append((known, attention_finding(call, JCD203.code, message, evidence, repro, why)))
    # a call reached in several contexts is reported once, the first kept: first the one
    # that knows the key's and value's dtypes, whose message can say which error JAX
    # raises first (probe 73a: a context where they are not known named the later one)
    return [finding for _, finding in sorted(found, key=lambda pair: not pair[0])]


def _mixed_dtypes(call: AttentionCall, config: Config) -> C.Failure | None:
    """NN-2: query, key and value of different dtypes (a bfloat16 query beside a float32
    key: probe 73a; a float32 query beside bfloat16 keys: 77e); jax.nn raises before any
    cuDNN check, on every implementation."""
    if not call.is_cudnn or versions.before(config, (0, 4, 32)):
        return None
    failure = C.nn_generic(call, config)
    if failure is None or not failure.message.startswith(("query dtype should be", "value dtype should be")):
        return None
    return failure


def mixed_dtypes_finding(call: AttentionCall, failure: C.Failure) -> Finding:
    operands = [(name, array) for name, array in _qkv(call) if array is not None]
    shown = ", ".join(f"{C.dtype_as_seen(call, array.dtype or '?')[0]} {name}" for name, array in operands)
    # where the query got its dtype, said where that step names it (probe 81a: a query
    # scaled by `jnp.float32(...)` beside bfloat16 keys)
    where = _dtype_phrase(call, call.query.dtype)[0] if call.query is not None and call.query.dtype is not None else ""
    message = (
        f"cuDNN attention gets {shown}{where}: jax.nn raises {failure.quoted()} before any cuDNN check (on every implementation); "
        "cast query, key and value to one dtype (jnp.bfloat16 or float16 for the cuDNN call)"
    )
    here = call.event.module.path
    evidence: list[str] = []
    for name, array in operands:
        evidence += [*evidence_lines(name, array.why, here), f"{name} dtype: {array.dtype}"]
    return attention_finding(call, JCD203.code, message, evidence, None)


# -- JCD212: a mask that is not boolean (NN-2) ---------------------------------------------------
def check_jcd212(events: list[CallEvent], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    if versions.before(config, (0, 4, 32)):
        return findings  # 0.4.31 said "Mask must be boolean dtype"; not modelled
    for call in attention_calls(events, config):
        failure = C.nn_generic(call, config)
        mask = C.array(call.arg("mask"))
        if failure is None or failure.code != JCD212.code or mask is None or C.handled(call, config, failure.exception, failure.catalog):
            continue
        here = call.event.module.path
        origin = origin_phrase(mask.why, here)
        shown = C.dtype_as_seen(call, mask.dtype or "")[0]
        message = (
            f"dot_product_attention gets {'an' if shown[:1] in 'aeiou' or shown.startswith(('int', 'uint')) else 'a'} {shown} mask{mask.shape_words()}" + (f" (from {origin})" if origin else "")
            + f": jax.nn takes boolean masks only and raises {failure.quoted()} on every implementation (xla, cudnn, None), "
            "on every host; pass mask.astype(bool) (flax's make_attention_mask / make_causal_mask return float32 unless "
            "given dtype=jnp.bool_), or pass an additive float mask as bias="
        )
        evidence = [*evidence_lines("mask", mask.why, here), f"mask dtype: {mask.dtype}"]
        repro = C.repro_for(call, config, failure, JCD212.code, differentiated=False)
        findings.append(attention_finding(call, JCD212.code, message, evidence, repro, mask.why))
    return findings


CHECKS = (check_jcd203, check_jcd212)
