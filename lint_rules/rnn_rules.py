"""Rules for `jax.experimental.rnn` (JCD1xx)."""

from __future__ import annotations

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.kernels.repro import expect_message, lstm_repro
from jax_cudnn_lint.lint_rules.evidence import context_lines, evidence_lines, origin_phrase, related_locations
from jax_cudnn_lint.lint_rules.registry import rule
from jax_cudnn_lint.lint_rules.targets import LSTM_REF, bind
from jax_cudnn_lint.shape_inference.context import CallEvent
from jax_cudnn_lint.shape_inference.handlers import caught
from jax_cudnn_lint.shape_inference.values import const_value, int_value

JCD101 = rule(
    "JCD101",
    "lstm-ref-nonzero-dropout",
    "jax.experimental.rnn.lstm_ref called with a nonzero dropout: it always raises NotImplementedError",
)

LSTM_REF_DROPOUT_MESSAGE = "Dropout not supported in LSTM reference because we cannot determine CUDNN dropout mask."


def check_jcd101(events: list[CallEvent], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    for event in events:
        if event.qualname != LSTM_REF or caught(event.ctx.handled, "NotImplementedError"):
            continue
        bound = bind(event)
        if bound is None:
            continue
        dropout = bound.get("dropout")
        if dropout is None:
            continue
        ok, value = const_value(dropout)
        if not ok or isinstance(value, (str, bytes, tuple, list)):
            continue  # (None is not 0.0 either: lstm_ref raises for it too)
        try:
            nonzero = value != 0.0
        except Exception:
            continue
        if not nonzero:
            continue
        here = event.module.path
        origin = origin_phrase(dropout.why, here)
        source = "passed" if bound.passed("dropout") else "given"
        message = (
            f"lstm_ref is {source} dropout={value!r}"
            + (f" ({origin})" if origin else "")
            + f': JAX raises NotImplementedError("{LSTM_REF_DROPOUT_MESSAGE}") on every backend; '
            "compare against the reference with dropout=0.0, and test dropout through rnn.lstm on a GPU"
        )
        evidence = [f"callee: {LSTM_REF}", *evidence_lines("dropout", dropout.why, here), *context_lines(event)]
        findings.append(
            Finding(
                JCD101.code,
                here,
                event.node.lineno,
                event.node.col_offset,
                message,
                tuple(evidence),
                _lstm_ref_repro(bound.get("input_size"), bound.get("hidden_size"), bound.get("num_layers"), bound.get("bidirectional"), value),
                related_locations(event, dropout.why),
            )
        )
    return findings


def _lstm_ref_repro(input_size: object, hidden_size: object, num_layers: object, bidirectional: object, dropout: object) -> dict[str, object]:
    """A runnable repro: the dropout check comes first, so small sizes reproduce it."""
    from jax_cudnn_lint.shape_inference.values import Value

    def small(v: object, default: int) -> int:
        n = int_value(v) if isinstance(v, Value) else None
        return n if n is not None and 0 < n <= 64 else default

    bidi_ok, bidi = const_value(bidirectional) if isinstance(bidirectional, Value) else (False, None)
    rate = None if dropout is None else float(dropout) if isinstance(dropout, (int, float)) else float(bool(dropout))
    return lstm_repro(
        code="JCD101",
        expect=expect_message("NotImplementedError", LSTM_REF_DROPOUT_MESSAGE),
        batch=2,
        seq_len=3,
        input_size=small(input_size, 4),
        hidden_size=small(hidden_size, 8),
        num_layers=small(num_layers, 1),
        bidirectional=bool(bidi) if bidi_ok else False,
        dropout=rate,
        shrunk=["batch", "time", "sizes"],
    )


CHECKS = (check_jcd101,)
