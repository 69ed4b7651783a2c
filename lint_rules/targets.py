"""The JAX APIs the rules are about, by canonical qualified name, and their signatures.

Callees are resolved by qualified name through the file's imports, never by
spelling: a `lstm_ref` from PyTorch or the user's own helper is not JAX's.
"""

from __future__ import annotations

from dataclasses import dataclass

from jax_cudnn_lint.shape_inference.context import CallEvent
from jax_cudnn_lint.shape_inference.values import ConstV, Value
from jax_cudnn_lint.shape_inference.watched_apis import FA_ATTENTION as FA_ATTENTION
from jax_cudnn_lint.shape_inference.watched_apis import LSTM as LSTM
from jax_cudnn_lint.shape_inference.watched_apis import LSTM_REF as LSTM_REF
from jax_cudnn_lint.shape_inference.watched_apis import NN_ATTENTION as NN_ATTENTION
from jax_cudnn_lint.shape_inference.watched_apis import WATCHED


def watch(qualname: str) -> bool:
    return qualname in WATCHED


@dataclass(frozen=True)
class Signature:
    positional: tuple[str, ...]
    keyword_only: tuple[str, ...]
    defaults: tuple[tuple[str, object], ...]


SIGNATURES: dict[str, Signature] = {
    LSTM_REF: Signature(
        ("x", "h_0", "c_0", "W_ih", "W_hh", "b_ih", "b_hh", "seq_lengths", "input_size", "hidden_size", "num_layers", "dropout", "bidirectional"),
        (),
        (),
    ),
    LSTM: Signature(
        ("x", "h_0", "c_0", "weights", "seq_lengths", "input_size", "hidden_size", "num_layers", "dropout", "bidirectional", "precision"),
        (),
        (("precision", None),),
    ),
    NN_ATTENTION: Signature(
        ("query", "key", "value", "bias", "mask"),
        ("scale", "is_causal", "query_seq_lengths", "key_value_seq_lengths", "local_window_size", "implementation", "return_residual"),
        (("bias", None), ("mask", None), ("scale", None), ("is_causal", False), ("query_seq_lengths", None),
         ("key_value_seq_lengths", None), ("local_window_size", None), ("implementation", None), ("return_residual", False)),
    ),
    FA_ATTENTION: Signature(
        ("query", "key", "value", "bias", "mask", "q_seqlen", "kv_seqlen", "q_offsets", "kv_offsets", "fp8_params"),
        ("scale", "mask_type", "seed", "dropout_rate", "qkv_layout", "sliding_window_length", "use_fp8", "return_residual"),
        (("bias", None), ("mask", None), ("q_seqlen", None), ("kv_seqlen", None), ("q_offsets", None), ("kv_offsets", None),
         ("fp8_params", None), ("scale", 1.0), ("mask_type", "NO_MASK"), ("seed", 42), ("dropout_rate", 0.0),
         ("qkv_layout", "BTNH"), ("sliding_window_length", None), ("use_fp8", False), ("return_residual", False)),
    ),
}


class Bound:
    """The arguments of one call bound to parameter names.

    `get(name)` is the argument's abstract value, the parameter's default when the
    call leaves it out, or None when unknowable (a `*args`/`**kwargs` that could
    not be resolved may have supplied it).
    """

    def __init__(self, values: dict[str, Value], explicit: frozenset[str], opaque_star: bool) -> None:
        self.values = values
        self.explicit = explicit
        self.opaque_star = opaque_star

    def get(self, name: str) -> Value | None:
        return self.values.get(name)

    def passed(self, name: str) -> bool:
        return name in self.explicit


def bind(event: CallEvent) -> Bound | None:
    """Bind an event's arguments to its API's parameters; None if the call cannot fit."""
    sig = SIGNATURES.get(event.qualname)
    if sig is None:
        return None
    values: dict[str, Value] = {}
    explicit: set[str] = set()
    if len(event.args) > len(sig.positional):
        return None
    for name, value in zip(sig.positional, event.args):
        values[name] = value
        explicit.add(name)
    for name, value in event.kwargs.items():
        if name not in sig.positional and name not in sig.keyword_only:
            return None
        if name in explicit:
            return None
        values[name] = value
        explicit.add(name)
    if not event.star_unknown:
        optional = {name for name, _ in sig.defaults}
        if any(name not in values for name in sig.positional if name not in optional):
            return None  # a required argument is missing: Python raises TypeError first
        for name, default in sig.defaults:
            if name not in values:
                values[name] = ConstV(default)
    return Bound(values, frozenset(explicit), event.star_unknown)
