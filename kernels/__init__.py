"""jax_cudnn_lint.kernels: repro inputs, the confirm backends, the padded-attention fix.

Importing this package does not import jax: the fix kernel imports it when called, the
backends run in a child process (`python -m jax_cudnn_lint.kernels.child`).
"""

from __future__ import annotations

from .padded import padded_dot_product_attention
from .repro import (
    SCHEMA,
    attention_repro,
    canonical_json,
    lstm_num_params,
    lstm_repro,
    validate_repro,
)
from .runner import BACKENDS, confirm_repros
from .targets import Target, make_target

__all__ = [
    "BACKENDS",
    "SCHEMA",
    "Target",
    "attention_repro",
    "canonical_json",
    "confirm_repros",
    "lstm_num_params",
    "lstm_repro",
    "make_target",
    "padded_dot_product_attention",
    "validate_repro",
]
