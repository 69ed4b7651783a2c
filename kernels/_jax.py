"""jax, imported on demand and typed as `Any`.

jax's annotations leave parts Unknown (devices, tree utilities, many jnp signatures), which
strict pyright reports at every call.  The kernels treat jax as dynamically typed in one
place instead of scattering ignores; this is the only module that imports it, and only
when one of these functions is called.
"""

from __future__ import annotations

import importlib
from typing import Any


def jax() -> Any:
    return importlib.import_module("jax")


def jnp() -> Any:
    return importlib.import_module("jax.numpy")


def module(name: str) -> Any:
    """Any jax submodule by its dotted name, e.g. "jax.experimental.rnn"."""
    return importlib.import_module(name)
