"""Static shape inference for JAX code: constants, dimensions, shapes and dtypes.

Knows Python and array semantics, nothing about rules or cuDNN.  The entry point is
`analyse(trees, watch)`: it runs the abstract interpreter over the given modules and
returns every evaluated call to a watched API, with each argument as an abstract value
(`values.Value`) that carries its provenance.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from jax_cudnn_lint.shape_inference.context import CallEvent, Ctx
from jax_cudnn_lint.shape_inference.interpreter import Interpreter
from jax_cudnn_lint.shape_inference.modules import Project


@dataclass
class Analysis:
    events: list[CallEvent]
    project: Project
    exhausted: bool  # the work budget ran out: some code was not analysed
    exhausted_paths: list[str]  # the entry files where it ran out


def analyse(
    trees: dict[str, ast.Module],
    watch: Callable[[str], bool],
    root: str | None = None,
    step_budget: int | None = None,
    seconds: float | None = None,
    lazy: Mapping[str, Callable[[], ast.Module | None]] | None = None,
    importers: Mapping[str, frozenset[str] | None] | None = None,
    drivers: frozenset[str] = frozenset(),
    imported_by: Mapping[str, tuple[str, ...]] | None = None,
    data_files: frozenset[str] = frozenset(),
) -> Analysis:
    project = Project(trees, root, lazy, importers, drivers, imported_by, data_files)
    kwargs: dict[str, float] = {}
    if step_budget is not None:
        kwargs["step_budget"] = step_budget
    if seconds is not None:
        kwargs["seconds"] = seconds
    interp = Interpreter(project, watch, **kwargs)  # type: ignore[arg-type]
    interp.run()
    return Analysis(interp.events, project, interp.exhausted, interp.exhausted_paths)


__all__ = ["Analysis", "CallEvent", "Ctx", "analyse"]
