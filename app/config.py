"""Settings shared by the flake8 plugin and the command.

The command reads `[tool.jax-cudnn-lint]` from pyproject.toml; the plugin gets the
same fields through flake8's own options.  Target fields (JAX version, GPU, cuDNN)
feed the version- and target-gated rules; defaults are documented in README.md.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from importlib import metadata

from jax_cudnn_lint.kernels.gpu_names import DEFAULT_CUDNN, DEFAULT_GPU, parse_gpu


def installed_jax_version() -> str | None:
    """The installed JAX version from package metadata: never `import jax`."""
    try:
        return metadata.version("jax")
    except metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=64)  # (the rules ask for each call they judge)
def parse_version(text: str | None) -> tuple[int, ...] | None:
    """'0.4.31' -> (0, 4, 31); 'jax-v0.10.2rc1' -> (0, 10, 2); None on nonsense."""
    if not text:
        return None
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if match is None:
        return None
    return tuple(int(part) if part else 0 for part in match.groups())


def canonical_gpu(text: str) -> str | None:
    """The one spelling every part of the tool reads ('80', '8.0', 'sm_80a' -> 'sm80')."""
    try:
        major, minor = parse_gpu(text)
    except ValueError:
        return None
    return f"sm{major}{minor}"


def parse_cudnn(text: str) -> tuple[int, ...] | None:
    """'9.10' / '9.10.2' -> (9, 10[, 2]); None for anything else ('9.8x' is no version)."""
    return parse_version(text) if re.fullmatch(r"\d+\.\d+(?:\.\d+)?", text.strip()) else None


@dataclass(frozen=True)
class Config:
    """What a lint run is asked to do.  Frozen: one object per run, safe across processes."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    jax_version: str | None = field(default_factory=installed_jax_version)
    gpu: str = DEFAULT_GPU
    cudnn: str = DEFAULT_CUDNN
    enable_all: bool = False  # the flake8 plugin: compute every rule, flake8 selects
    # the command reads the project's JSON/YAML/TOML configs (shape_inference/data_files.py):
    # opt-in, since a file on disk is what runs only where nothing rewrites it first
    read_data_configs: bool = False

    def with_(self, **changes: object) -> Config:
        return replace(self, **changes)  # type: ignore[arg-type]

    @property
    def jax_version_tuple(self) -> tuple[int, ...] | None:
        return parse_version(self.jax_version)

    @property
    def gpu_capability(self) -> tuple[int, int]:
        try:
            return parse_gpu(self.gpu)
        except ValueError:
            return parse_gpu(DEFAULT_GPU)

    @property
    def cudnn_tuple(self) -> tuple[int, ...]:
        return parse_version(self.cudnn) or (9, 10)

    def enabled(self, code: str, default_on: bool) -> bool:
        """Select/ignore by prefix, the longest matching prefix wins (flake8's rule).

        A rule that is off by default is enabled only by selecting its full code.
        """
        if self.enable_all:
            return True
        selects = (*self.select, *self.extend_select)
        best_select = max((len(p) for p in selects if code.startswith(p)), default=-1)
        best_ignore = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        if not default_on:
            return code in selects and best_ignore < len(code)
        if self.select and best_select < 0:
            return False
        return best_ignore < 0 or best_select > best_ignore
