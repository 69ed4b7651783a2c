"""The flake8 adapter: `JCD` codes in editors and lint gates.

flake8 builds one `JcdChecker` per file with the tree it has already parsed and the
lines it has already read (stdin and editor buffers included): this adapter never
reopens the file and never reparses it.  The substring gate runs first, on the
joined lines, because the plugin runs on every file of a repository and nearly all
of them stop there.

Per-file only: cross-file facts (a model differentiated in another module) need the
`jax-cudnn-lint` command, which analyses the whole project.

Options (also readable from flake8's config files):

    --jcd-jax-version  JAX version the code targets (default: the installed one)
    --jcd-gpu          target GPU, e.g. sm80, sm90, sm100
    --jcd-cudnn        target cuDNN version, e.g. 9.10

Rules that are off by default are added to flake8's default ignore list; select
them by code (`extend-select = JCD301`).
"""

from __future__ import annotations

import argparse
import ast
import gc
import logging
import os
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from jax_cudnn_lint import __version__
from jax_cudnn_lint.config import Config, canonical_gpu, parse_cudnn, parse_version
from jax_cudnn_lint.gate import DEFAULT_MAX_FILE_MB, might_matter, too_large
from jax_cudnn_lint.lint_rules.registry import DEFAULT_OFF_CODES, RULES

# A child of flake8's logger, so that `flake8 -vv` shows our debug messages.
LOG = logging.getLogger("flake8.jax_cudnn_lint")

RAISE_ENV = "JCD_RAISE_INTERNAL_ERRORS"


def lint_tree(tree: ast.Module, path: str, config: Config) -> list[Any]:
    """The engine's lint_tree, imported the first time a file passes the gate: flake8
    loads this plugin in every process, and most files never need the analysis.

    The cyclic garbage collector is paused meanwhile, as the command pauses it: the
    analysis makes many short-lived objects and few cycles, and collections passing
    over flake8's own objects cost a tenth of a model file's analysis."""
    from jax_cudnn_lint.engine import lint_tree as engine_lint_tree

    enabled = gc.isenabled()
    gc.disable()
    try:
        return engine_lint_tree(tree, path, config)
    finally:
        if enabled:
            gc.enable()


class JcdChecker:
    """flake8 tree plugin; yields `(line, col, "JCDxxx message", type)`."""

    name = "jax-cudnn-lint"
    version = __version__

    # Parsed from flake8's options once per process (each --jobs worker parses
    # them again or receives them pickled): no state is shared between files.
    config: ClassVar[Config | None] = None
    max_file_mb: ClassVar[float] = DEFAULT_MAX_FILE_MB

    def __init__(self, tree: ast.AST, lines: Sequence[str], filename: str) -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, option_manager: Any) -> None:
        option_manager.add_option(
            "--jcd-jax-version",
            default=None,
            type=_jax_version_option,
            parse_from_config=True,
            help="JAX version the checked code targets (default: the installed jax).",
        )
        option_manager.add_option(
            "--jcd-gpu",
            default=None,
            type=_gpu_option,
            parse_from_config=True,
            help="Target GPU for jax-cudnn-lint rules, e.g. sm80, sm90, sm100 (default: sm90).",
        )
        option_manager.add_option(
            "--jcd-max-file-size",
            default=DEFAULT_MAX_FILE_MB,
            type=_size_option,
            parse_from_config=True,
            help=(
                "jax-cudnn-lint reports (JCD900), and does not analyse, files that pass its"
                f" gate and are larger than this many MB (default: {DEFAULT_MAX_FILE_MB:g}; 0: no limit)."
            ),
        )
        option_manager.add_option(
            "--jcd-cudnn",
            default=None,
            type=_cudnn_option,
            parse_from_config=True,
            help="Target cuDNN version for jax-cudnn-lint rules, e.g. 9.10.",
        )
        off_by_default = sorted(set(DEFAULT_OFF_CODES) | {code for code, rule in RULES.items() if not rule.default_on})
        if off_by_default:
            option_manager.extend_default_ignore(off_by_default)

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        cls.max_file_mb = float(getattr(options, "jcd_max_file_size", DEFAULT_MAX_FILE_MB) or 0)
        cls.config = make_config(
            getattr(options, "jcd_jax_version", None),
            getattr(options, "jcd_gpu", None),
            getattr(options, "jcd_cudnn", None),
        )

    def run(self) -> Iterator[tuple[int, int, str, type[Any]]]:
        text = "".join(self.lines)
        if not might_matter(text):
            return
        message = too_large(len(text.encode("utf-8", "surrogatepass")), type(self).max_file_mb)
        if message is not None:
            yield 1, 0, f"JCD900 {message}", type(self)
            return
        try:
            if not isinstance(self.tree, ast.Module):
                return
            findings = lint_tree(self.tree, self.filename, type(self).config or make_config())
        except Exception as exc:  # flake8 would abort the whole run on our bug
            if os.environ.get(RAISE_ENV) == "1":
                raise
            LOG.debug("jax-cudnn-lint: internal error on %s: %r", self.filename, exc, exc_info=True)
            # reported as the command reports it (README: JCD901 is always reported), so
            # that the file's lost findings do not vanish unseen (probe 43c)
            yield 1, 0, f"JCD901 internal error: {type(exc).__name__}: {exc}", type(self)
            return
        for finding in findings:
            yield finding.line, finding.col, f"{finding.code} {finding.message}", type(self)


# Option types: flake8 stops with argparse's usage error on a value the command would
# refuse too, where a typo (`--jcd-gpu sm8O`) used to fall back to the defaults unseen
# (probe 39b).  A config file's values go through them as well.
def _gpu_option(text: str) -> str:
    gpu = canonical_gpu(text)
    if gpu is None:
        raise argparse.ArgumentTypeError(f"cannot read {text!r} as a GPU (use e.g. sm80, sm90, sm100 or 9.0)")
    return gpu


def _cudnn_option(text: str) -> str:
    if parse_cudnn(text) is None:
        raise argparse.ArgumentTypeError(f"cannot read {text!r} as a cuDNN version (e.g. 9.10)")
    return text.strip()


def _jax_version_option(text: str) -> str:
    if parse_version(text) is None:
        raise argparse.ArgumentTypeError(f"cannot read {text!r} as a JAX version (e.g. 0.4.35)")
    return text.strip()


def _size_option(text: str) -> float:
    try:
        size = float(text)
    except ValueError:
        size = -1.0
    if not 0 <= size < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is no size in MB (0 or more; 0: no limit)")
    return size


def make_config(
    jax_version: str | None = None, gpu: str | None = None, cudnn: str | None = None
) -> Config:
    """The plugin's Config: every rule is computed, flake8 does select/ignore itself."""
    changes: dict[str, object] = {"enable_all": True}
    if jax_version:
        changes["jax_version"] = jax_version
    if gpu:
        changes["gpu"] = gpu
    if cudnn:
        changes["cudnn"] = cudnn
    return Config().with_(**changes)
