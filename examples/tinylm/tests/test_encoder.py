"""The cuDNN LSTM encoder must match JAX's reference implementation."""

import jax
import jax.numpy as jnp
import pytest
from jax.experimental import rnn

from tinylm.config import Config


@pytest.mark.parametrize("bidirectional", [False, True])
def test_lstm_matches_reference(bidirectional):
    cfg = Config()
    B, T, I, H = 2, 7, 16, cfg.lstm_hidden
    dirs = 2 if bidirectional else 1
    key = jax.random.PRNGKey(0)
    x = jax.random.normal(key, (B, T, I))
    h0 = jnp.zeros((dirs, B, H))
    c0 = jnp.zeros((dirs, B, H))
    seq_lengths = jnp.array([T, T - 2], jnp.int32)
    weights = rnn.init_lstm_weight(key, I, H, 1, bidirectional)
    y, _, _ = rnn.lstm(x, h0, c0, weights, seq_lengths, I, H, 1, 0.0, bidirectional)
    W_ih, W_hh, b_ih, b_hh = rnn.unpack_lstm_weights(weights, I, H, 1, bidirectional)
    y_ref, _, _ = rnn.lstm_ref(x, h0, c0, W_ih, W_hh, b_ih, b_hh, seq_lengths, I, H, 1, cfg.lstm_dropout, bidirectional)
    assert jnp.allclose(y, y_ref, atol=1e-5)
