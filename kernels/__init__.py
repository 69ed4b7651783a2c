"""jax_cudnn_lint.kernels: repro inputs, the confirm backends, the padded-attention fix.

Importing this package does not import jax: the fix kernel imports it when called, the
backends run in a child process (`python -m jax_cudnn_lint.kernels.child`).  The runner
and targets (subprocess, hashing, the verdict cache) load on first use: the static
rules import `repro` on every flake8 run that reaches the analysis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .padded import padded_dot_product_attention
from .repro import (
    SCHEMA,
    attention_repro,
    canonical_json,
    lstm_num_params,
    lstm_repro,
    validate_repro,
)

if TYPE_CHECKING:
    from .runner import BACKENDS as BACKENDS
    from .runner import confirm_repros as confirm_repros
    from .targets import Target as Target
    from .targets import make_target as make_target

_LAZY = {"BACKENDS": "runner", "confirm_repros": "runner", "Target": "targets", "make_target": "targets"}

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


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
