"""One engine, thin adapters: `lint_source` and `lint_project` know nothing of flake8.

Data flow (DESIGN.md): text -> substring gate -> parse -> call sites resolved to
qualified names -> facts (abstract values, differentiation context) -> rules ->
findings.  The static path never imports jax and never runs the code it reads.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.lint_rules.analysis import analyse_modules
from jax_cudnn_lint.shape_inference import recursion
from jax_cudnn_lint.shape_inference.lazy_defs import skeleton

from jax_cudnn_lint.gate import might_matter  # noqa: E402 - re-exported: the cheap test


def parse(text: str, path: str) -> ast.Module:
    """Parse without executing anything; raises SyntaxError (or ValueError for NUL bytes)."""
    return recursion.parse(text, path)


def parse_reached(text: str, path: str) -> ast.Module:
    """A module reached through an import: its top-level definitions are parsed on first
    use (shape_inference/lazy_defs.py)."""
    return skeleton(text, path)


def lint_tree(tree: ast.Module, path: str, config: Config | None = None) -> list[Finding]:
    """Lint one already-parsed file on its own (the flake8 plugin's view)."""
    return analyse_modules({path: tree}, config or Config())


def lint_source(text: str, path: str = "<string>", config: Config | None = None) -> list[Finding]:
    """Lint one file's text on its own.  Raises SyntaxError/ValueError if it does not parse."""
    if not might_matter(text):
        return []
    return lint_tree(parse(text, path), path, config)


def lint_project(
    trees: Mapping[str, ast.Module],
    config: Config | None = None,
    root: str | None = None,
    lazy: Mapping[str, Callable[[], ast.Module | None]] | None = None,
    importers: Mapping[str, frozenset[str] | None] | None = None,
    partial: list[str] | None = None,
    drivers: frozenset[str] = frozenset(),
    imported_by: Mapping[str, tuple[str, ...]] | None = None,
    data_files: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Whole-project analysis of the entry files `trees` (path -> parsed module).

    Imports between project files are followed (functions, classes and shapes flow
    across modules), so a `train.py` that differentiates a model from `model.py` is
    seen as differentiating it.  `lazy` maps the project's other files to a parser
    that runs only if an analysed import reaches them; entry files listed in
    `importers` (they import the analysed code but name no watched API; each maps to
    the names it binds that lead to watched calls, None if unknown) are entered
    only through their functions that name a differentiation transform, those also in
    `drivers` (a main.py calling training code it imports) through their functions that
    use those names.  `root` is
    the folder module names are relative to.  `partial`, when given, receives the entry
    files whose analysis ran out of its work budget.  `imported_by` maps files to the
    files that import them (callers whose overrides of a default count).  `data_files`
    are the configs (JSON, YAML, TOML) the analysis may read (absolute paths; the
    command's scan found them and keys its cache on them).
    """
    return analyse_modules(
        dict(trees), config or Config(), root=root, lazy=lazy, importers=importers, partial=partial, drivers=drivers, imported_by=imported_by, data_files=data_files
    )
