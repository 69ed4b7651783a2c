"""Rules for cuDNN fused attention (JCD2xx): the odd-sequence-length check in training.

JAX's `check_is_flash_attention` raises `Unsupported sequence length Q {T}, KV {S}.`
when the call is differentiated and T or S is odd.  The documented trigger is a bias
or mask; since JAX 0.4.29 the training path is handed a placeholder bias, so the
check fires without one too (catalog, section 2).
"""

from __future__ import annotations

import ast

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.lint_rules.attention_call import AttentionCall, attention_calls
from jax_cudnn_lint.lint_rules.attention_checks import first_note, handled, neutral_dtype_repro, only_dtype_before, use_fp8
from jax_cudnn_lint.lint_rules.evidence import context_lines, evidence_lines, origin_phrase, related_locations
from jax_cudnn_lint.lint_rules.registry import rule
from jax_cudnn_lint.shape_inference.context import UNKNOWN_ARGNUMS
from jax_cudnn_lint.shape_inference.dims import Dim, Step
from jax_cudnn_lint.shape_inference.jax_api import FORWARD_MODE, GRAD_LIKE

JCD201 = rule(
    "JCD201",
    "cudnn-attention-odd-seqlen-in-training",
    "cuDNN attention is differentiated with an odd query or key/value sequence length",
)
JCD202 = rule(
    "JCD202",
    "cudnn-attention-odd-seqlen",
    "cuDNN attention with an odd query or key/value sequence length: raises once the call is differentiated",
)

FIX = "pad T and S to even lengths and mask the padded keys (jax_cudnn_lint.kernels.padded_dot_product_attention does both)"


# reverse-mode transforms (and jax.linearize, which marks its primals as vjp does): under
# one, values the taint does not mark are not differentiated (probe 55b: a linearize of a
# head's parameters over a frozen encoder gave JCD202)
_REVERSE_MODE = (GRAD_LIKE - FORWARD_MODE) | {"jax.vjp", "flax.linen.vjp", "equinox.filter_vjp", "flax.nnx.vjp", "jax.linearize"}
_DIFFERENTIATING = GRAD_LIKE | _REVERSE_MODE


def under_reverse_mode(transforms: tuple[tuple[str, object], ...]) -> bool:
    """Is the call inside a reverse-mode transform the analysis followed?  Then the
    taint says what it differentiates: JCD202's "not proven" would be "disproven"."""
    return any(kind in _REVERSE_MODE for kind, _ in transforms)


def forward_only(transforms: tuple[tuple[str, object], ...]) -> bool:
    """No differentiating transform around the call, not even one whose arguments the
    analysis could not tell (`nnx.grad(f, argnums=nnx.DiffState(0, a_callable))`, probe
    112a: a fine-tuning path at 255 is no init beside the training)."""
    return not any(kind.removesuffix(UNKNOWN_ARGNUMS) in _DIFFERENTIATING for kind, _ in transforms)


def _odd(dim: Dim | None) -> bool:
    # (a negative length fails where the array is made, before any attention: probe 43c)
    return dim is not None and dim.parity() == 1 and (dim.value is None or 0 < dim.value < 2**63)  # (10 ** 30 + 1 overflows first)


def _even(dim: Dim | None) -> bool:
    return dim is not None and dim.parity() == 0


def _other_dtype_fails_first(call: AttentionCall) -> bool:
    """With one operand's shape unknown, is the known one's dtype one cuDNN rejects (not
    float16/bfloat16/fp8)?  Then whatever the other is, a dtype check (NN-2's mismatch
    or FA-8) raises before the length check, and JCD201's message would be wrong."""
    known = [arr for arr in (call.query, call.key, call.value) if arr is not None and arr.dtype is not None]
    return any(not (arr.dtype in ("float16", "bfloat16") or (arr.dtype or "").startswith("float8")) for arr in known)


def _shown(dim: Dim | None, name: str) -> str:
    """A length as JAX's message would print it; a placeholder with its name where its
    number is not known (JAX prints a number, not `2*obs.shape[1] - 1`: probe 75e; nor
    the letter, which read as JAX's own text: probe 101c)."""
    return dim.render() if dim is not None and dim.value is not None else f"<{name}>"


def _describe(name: str, dim: Dim | None, here: str) -> str:
    if dim is None or dim.render() == "?":
        return f"{name} not resolved"  # (probe 63b: "S=?" and "KV ?" said nothing)
    origin = origin_phrase(dim.why, here)
    return f"{name}={dim.render()}" + (f" ({origin})" if origin and dim.parity() == 1 else "")


def _trained_in_sight(events: list[object], config: Config) -> set[tuple[str, int, int]]:
    """The attention lines, with the analysis root (CallEvent.root), that some path
    reaches inside a reverse-mode transform that does not differentiate them, or does
    with lengths known to be even: there the analysis saw the program's training of the
    line, and a forward-only path of the same program to it (the model's `init`, at the
    training length or another) is no hazard of its own (probe 59b: an encoder frozen by
    stop_gradient on its params got JCD202 from init; 111c: `init` at 127 tokens beside
    training at 128).  A root that hands a function or a model to code out of sight may
    train it there: not counted."""
    return {
        (call.event.module.path, call.event.node.lineno, id(call.event.root))
        for call in attention_calls(events, config)  # type: ignore[arg-type]
        if call.is_cudnn and under_reverse_mode(call.event.ctx.transforms) and call.event.root is not None and not call.event.root.open
        and (not call.differentiated or _even(call.T) and _even(call.S))
    }


def _trained_arms(calls: list[AttentionCall]) -> set[tuple[str, int, Step, int, bool]]:
    """Each arm of an undecided `if` in which a call line is differentiated with an odd
    length made from a number the test reads: (path, line, origin, test, sense)."""
    return {
        (call.event.module.path, call.event.node.lineno, origin, test, sense)
        for call in calls
        if call.is_cudnn and call.differentiated and (_odd(call.T) or _odd(call.S))
        for origin, test, sense in call.event.ctx.guarded
    }


def _guarded_by_itself(call: AttentionCall, trained: set[tuple[str, int, Step, int, bool]]) -> bool:
    """Is an odd length made from a number that an enclosing `if` the analysis could not
    decide reads (`if t in eval_only: forward else: grad` with eval_only unknown), where
    the other arm does not train this line with it too?  Which arm that number takes is
    the question, so its odd length is not certain to reach this call (probes 101a, 103a:
    eleven false JCD201s behind changed sets; 105a: both arms training, reported)."""
    where = (call.event.module.path, call.event.node.lineno)
    for dim in (call.T, call.S):
        if not _odd(dim) or dim is None:
            continue
        for origin, test, sense in call.event.ctx.guarded:
            if origin in dim.why and (*where, origin, test, not sense) not in trained:
                return True
    return False


def check_odd_seqlen(events: list[object], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    version = config.jax_version_tuple
    trained_in_sight = _trained_in_sight(events, config)
    calls = list(attention_calls(events, config))  # type: ignore[arg-type]
    trained = _trained_arms(calls)
    for call in calls:
        if not call.is_cudnn or (call.T is None and call.S is None) or call.never_differentiated:
            continue  # (one length unknown: the other, odd, is enough)
        if not (_odd(call.T) or _odd(call.S)):
            continue
        if handled(call, config, "NotImplementedError", "FA-15", differentiation=True):
            continue
        if _guarded_by_itself(call, trained):
            continue
        if (call.T is None or call.S is None or call.T.parity() is None or call.S.parity() is None) and _other_dtype_fails_first(call):
            continue  # a float32 memory against an unknown query: a dtype check fails first (probe 31a)
        if use_fp8(call) is True:
            continue  # fp8 has its own length limits (multiples of 128 in training): JCD210 says which
        if not call.differentiated and (call.T is None or call.T.parity() is None):
            continue  # JCD202 needs the query's length: a decode step's token of unknown length reads an odd cache (probe 31a)
        if not call.differentiated and call.T is not None and call.T.value == 1:
            continue  # one query token against a cache: a decode step, which nobody trains
        if not call.differentiated and (under_reverse_mode(call.event.ctx.transforms) or forward_only(call.event.ctx.transforms) and (call.event.module.path, call.event.node.lineno, id(call.event.root)) in trained_in_sight):
            # the differentiation is in sight (and does not reach q, k, v or the bias, or
            # does at even lengths, judged on its own); the same program's forward-only
            # path beside it is no hazard of its own, but a function analysed for callers
            # out of sight may be differentiated there (probe 60a: a loss handed to an
            # unseen trainer's fit)
            continue
        # None: a `*args`/`**kwargs` the analysis could not resolve may pass a bias or mask.
        # The placeholder-bias behaviour exists since 0.4.29, so from then on the length
        # check runs either way; before, only a bias triggers it
        has_bias = call.has_bias_or_mask
        if version is not None and version < (0, 4, 29) and not has_bias:
            continue
        if version is not None and call.api_is_nn and version < (0, 4, 31):
            continue  # jax.nn has no cuDNN implementation before 0.4.31
        findings.append(_finding(call, has_bias, config))
    return findings


def _finding(call: AttentionCall, has_bias: bool | None, config: Config) -> Finding:
    event = call.event
    here = event.module.path
    T, S = call.T, call.S
    if T is not None and S is not None and T.same_as(S) and origin_phrase(T.why, here) == origin_phrase(S.why, here):
        lengths = _describe("T = S", T, here).replace("T = S=", "T = S = ", 1)
    else:
        lengths = f"{_describe('T', T, here)}, {_describe('S', S, here)}"
    error = f'"Unsupported sequence length Q {_shown(T, "T")}, KV {_shown(S, "S")}."'
    if has_bias:
        trigger = "with the bias or mask it passes (the documented trigger)"
    elif has_bias is None:
        trigger = "with or without a bias or mask (JAX >= 0.4.29 checks a placeholder bias)"
    else:
        trigger = "even without a bias or mask (JAX >= 0.4.29 checks a placeholder bias)"
    dtype_note = first_note(call, config, "FA-15")
    if call.differentiated:
        code = "JCD201"
        message = (
            f"cuDNN attention is differentiated with an odd sequence length ({lengths}): "
            f"JAX raises NotImplementedError({error}) in training, {trigger}{dtype_note}; {FIX}"
        )
    else:
        code = "JCD202"
        message = (
            f"cuDNN attention with an odd sequence length ({lengths}): raises NotImplementedError({error}) "
            f"once this call is differentiated (training; its forward pass alone is fine), {trigger}{dtype_note}; {FIX}"
        )
    evidence = [
        f"callee: {event.qualname} ({call.cudnn_reason})",
        *(evidence_lines("T", T.why, here) if T is not None else ["T: not resolved (the query's shape is not known here)"]),
        *(evidence_lines("S", S.why, here) if S is not None else ["S: not resolved (the key's shape is not known here)"]),
        *context_lines(event),
        "differentiated: " + ("yes, query/key/value/bias depend on differentiated values" if call.differentiated else "not proven in the analysed code"),
    ]
    repro = call.repro(code, differentiated=True, expect_regex=rf"Unsupported sequence length Q {T.render()}, KV {S.render()}") if T is not None and S is not None else None
    earlier = only_dtype_before(call, config, "FA-15")
    if earlier is True:
        repro = neutral_dtype_repro(repro, call)  # show the length check on its own
    elif earlier is False:
        repro = None  # JAX raises another error first: no repro can show this one
    node = event.node
    return Finding(code, here, node.lineno, node.col_offset, message, tuple(evidence), repro, related_locations(event, *(dim.why for dim in (T, S) if dim is not None)))


CHECKS = (check_odd_seqlen,)

__all__ = ["CHECKS", "JCD201", "JCD202", "ast"]
