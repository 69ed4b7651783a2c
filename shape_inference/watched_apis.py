"""The JAX APIs the linter watches, by canonical qualified name: one list for the
analysis (which calls it records, which patches replace one) and the rules
(lint_rules.targets, which judges them)."""

from __future__ import annotations

LSTM_REF = "jax.experimental.rnn.lstm_ref"
LSTM = "jax.experimental.rnn.lstm"
NN_ATTENTION = "jax.nn.dot_product_attention"
CUDNN_ATTENTION_MODULE = "jax._src.cudnn.fused_attention_stablehlo"
FA_ATTENTION = f"{CUDNN_ATTENTION_MODULE}.dot_product_attention"

WATCHED = frozenset({LSTM_REF, LSTM, NN_ATTENTION, FA_ATTENTION})
# their last names: a patch of another name never replaces one
WATCHED_NAMES = frozenset(qualname.rpartition(".")[2] for qualname in WATCHED)
