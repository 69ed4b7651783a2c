"""Set JAX's three cuDNN environment probes to a target GPU and cuDNN (catalog section 5).

`jax._src.cudnn.fused_attention_stablehlo` asks three module globals about the host:

* `check_cudnn_version()` -> the cuDNN version as an int (it raises "cuDNN is not
  detected." on a host without a CUDA jaxlib: catalog FA-1; patching it is what makes
  tracing possible on a CPU);
* `check_compute_capability(c)` -> device capability >= c;
* `is_cuda_compute_capability_equal(c)` -> device capability == c.

Every other check on the attention path is plain Python at trace time, so with the probes
set, `jax.eval_shape` raises exactly what that GPU would raise.  These are private names:
`probe_support()` says whether this JAX has them.

jax is imported inside the functions only.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Generator
from typing import Any

from . import _jax
from .targets import Target

FA_MODULE = "jax._src.cudnn.fused_attention_stablehlo"
PROBES = ("check_cudnn_version", "check_compute_capability", "is_cuda_compute_capability_equal")


def _fa_module() -> Any:
    return importlib.import_module(FA_MODULE)


def probe_support() -> str | None:
    """None when the probes can be set on this JAX, else why not."""
    version = _jax.jax().__version__
    try:
        fa = _fa_module()
    except ImportError as e:
        return f"trace backend unavailable for jax {version}: no {FA_MODULE} ({e})"
    missing = [name for name in PROBES if not callable(getattr(fa, name, None))]
    if missing:
        return f"trace backend unavailable for jax {version}: {FA_MODULE} has no " + ", ".join(
            missing
        )
    return None


@contextlib.contextmanager
def patched_probes(target: Target) -> Generator[None]:
    """Within the block, the probes answer as `target` would; restored on exit."""
    fa = _fa_module()
    saved = {name: getattr(fa, name) for name in PROBES}

    def check_cudnn_version() -> int:
        return target.cudnn_version

    def check_compute_capability(capability: str) -> bool:
        return target.cc_at_least(capability)

    def is_cuda_compute_capability_equal(capability: str) -> bool:
        return target.cc_equal(capability)

    fa.check_cudnn_version = check_cudnn_version
    fa.check_compute_capability = check_compute_capability
    fa.is_cuda_compute_capability_equal = is_cuda_compute_capability_equal
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(fa, name, fn)
