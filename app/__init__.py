"""jax-cudnn-lint: catch the JAX calls that cuDNN rejects on a GPU, before the job runs.

Public API::

    from jax_cudnn_lint import lint_source, lint_project, Finding, Config

    findings = lint_source(text, "train.py", Config(gpu="sm90"))

`lint_source(text, path, config)` lints one file's text (raises SyntaxError/ValueError
when it does not parse); `lint_project({path: ast.Module}, config, root)` analyses a
whole project, following imports between its files.  Neither imports jax nor runs
the code it reads.  The engine is imported on first use of either function, so
importing this package stays cheap.
"""

from __future__ import annotations

from importlib import metadata
from typing import TYPE_CHECKING

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.finding import Finding, Location

if TYPE_CHECKING:
    from jax_cudnn_lint.engine import lint_project as lint_project
    from jax_cudnn_lint.engine import lint_source as lint_source

try:
    __version__ = metadata.version("jax-cudnn-lint")
except metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

__all__ = ["Config", "Finding", "Location", "__version__", "lint_project", "lint_source"]


def __getattr__(name: str) -> object:
    if name in ("lint_source", "lint_project"):
        from jax_cudnn_lint import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
