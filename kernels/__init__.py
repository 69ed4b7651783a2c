"""jax_cudnn_lint.kernels: repro inputs, the confirm backends, the padded-attention fix.

Importing this package does not import jax: the fix kernel imports it when called, the
backends run in a child process (`python -m jax_cudnn_lint.kernels.child`).  Every name
loads its module on first use: the static rules import `repro` on every flake8 run that
reaches the analysis, the plugin's settings only `gpu_names`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .padded import padded_dot_product_attention as padded_dot_product_attention
    from .repro import SCHEMA as SCHEMA
    from .repro import attention_repro as attention_repro
    from .repro import canonical_json as canonical_json
    from .repro import lstm_num_params as lstm_num_params
    from .repro import lstm_repro as lstm_repro
    from .repro import validate_repro as validate_repro
    from .runner import BACKENDS as BACKENDS
    from .runner import confirm_repros as confirm_repros
    from .targets import Target as Target
    from .targets import make_target as make_target

# every name loads its module on first use: the plugin's settings read `gpu_names` alone
_LAZY = {
    "BACKENDS": "runner",
    "confirm_repros": "runner",
    "Target": "targets",
    "make_target": "targets",
    "padded_dot_product_attention": "padded",
    "SCHEMA": "repro",
    "attention_repro": "repro",
    "canonical_json": "repro",
    "lstm_num_params": "repro",
    "lstm_repro": "repro",
    "validate_repro": "repro",
}

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
