"""Lint a project set, one unit at a time, inline or in worker processes.

The entry files of a large tree (a monorepo, a folder of vendored packages, the
benchmark corpus) fall into components that share no file, and a large component into
shards (`project_set.Component`).  Each unit is analysed from a fresh state, knowing
only the files its entries reach, so the units can run in parallel and nothing
depends on `-j` or on which worker ran what: `-j1` runs the same units one after
another, in the same process.

A unit is parsed where it is analysed: the workers parse their own entry files, so
parsing, the other large cost, is parallel too.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
import importlib
import os
import re
import sys
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.discovery import SourceError, read_source, source_lines
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.lint_rules.registry import RULES, one_per_place
from jax_cudnn_lint.project_set import Component, Names, ProjectSet

RAISE_ENV = "JCD_RAISE_INTERNAL_ERRORS"


def raise_internal() -> bool:
    """Tests set JCD_RAISE_INTERNAL_ERRORS=1 so that our own bugs are not swallowed."""
    return os.environ.get(RAISE_ENV) == "1"


def file_error(code: str, path: str, message: str, line: int = 1, col: int = 0) -> Finding:
    return Finding(code=code, path=path, line=max(line, 1), col=max(col, 0), message=message)


def describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


@dataclass
class LintResult:
    """What the analysis of some components gave."""

    findings: list[Finding] = field(default_factory=lambda: [])
    parse_errors: list[Finding] = field(default_factory=lambda: [])  # JCD900: entry files that do not parse
    internal: list[Finding] = field(default_factory=lambda: [])  # JCD901
    partial: list[str] = field(default_factory=lambda: [])  # entry files whose budget ran out

    def add(self, other: LintResult) -> None:
        self.findings += other.findings
        self.parse_errors += other.parse_errors
        self.internal += other.internal
        self.partial += other.partial


@dataclass(frozen=True)
class ComponentTask:
    """One component and what its analysis needs (sent to a worker: plain data)."""

    component: Component
    texts: Mapping[str, str | None]  # entry path -> text already read by the scan
    importer_names: Mapping[str, Names]
    drivers: frozenset[str]
    config: Config
    root: str
    # each of the component's files -> its importers among them and its callers
    # (ProjectSet.imported_by)
    imported_by: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: {})
    data_files: frozenset[str] = frozenset()  # the data files its files name (data_files.py)


def lint_components(
    chosen: ProjectSet,
    components: Sequence[Component],
    texts: Mapping[str, str | None],
    config: Config,
    root: str,
    jobs: int,
) -> list[LintResult]:
    """Each of `components` (of `chosen`), one result each, in their order."""
    tasks = [
        ComponentTask(
            component,
            {path: texts.get(path) for path in component.entries},
            {p: chosen.importer_names[p] for p in component.entries if p in chosen.importer_names},
            chosen.drivers & frozenset(component.entries),
            config,
            root,
            _imported_within(chosen, component),
            frozenset(chosen.data_files_of(component)),
        )
        for component in components
    ]
    return _run_tasks(tasks, jobs)


def merged(parts: Iterable[LintResult], entries: Sequence[str]) -> LintResult:
    """One result, in the order of `parts`: one finding per place (shards of a
    component can both reach a file), sorted; `partial` in the order of `entries`."""
    result = LintResult()
    for part in parts:
        result.add(part)
    order = {path: i for i, path in enumerate(entries)}
    result.findings = one_per_place(result.findings)
    result.partial.sort(key=lambda path: order.get(path, len(order)))
    return result


def lint_project_set(
    chosen: ProjectSet,
    texts: Mapping[str, str | None],
    config: Config,
    root: str,
    jobs: int,
) -> LintResult:
    """Every component of `chosen`, merged."""
    return merged(lint_components(chosen, chosen.components, texts, config, root, jobs), chosen.entries)


def _run_tasks(tasks: Sequence[ComponentTask], jobs: int) -> list[LintResult]:
    """lint_component over `tasks`, the largest first (so that no worker is left with
    a large one at the end); results in the order of `tasks`."""
    by_size = sorted(range(len(tasks)), key=lambda i: -tasks[i].component.size)
    workers = min(jobs, len(tasks))
    results: list[LintResult | None] = [None] * len(tasks)
    if workers > 1:
        # Imported before the fork, so that the workers start with the analysis loaded.
        importlib.import_module("jax_cudnn_lint.engine")

        try:
            with ProcessPoolExecutor(max_workers=workers, initializer=gc.disable) as pool:
                for i, part in zip(by_size, pool.map(lint_component, [tasks[i] for i in by_size])):
                    results[i] = part
            return [r for r in results if r is not None]
        except (BrokenProcessPool, PermissionError, NotImplementedError, OSError):
            # No working multiprocessing here (a sandbox without /dev/shm), or a worker
            # died: do it all inline.
            pass
    with gc_paused():
        return [lint_component(task) for task in tasks]


@contextlib.contextmanager
def gc_paused() -> Generator[None]:
    """No cyclic garbage collection while files are scanned, parsed and analysed.

    The scan results, the trees and the analysis allocate millions of objects that live
    to the end, and each full collection walks all of them: on the benchmark corpus
    collections took half the analysis time (21.8 s -> 10.2 s without them,
    benchmarks/RESULTS.md) and a quarter of the project set's (0.85 s -> 0.62 s).
    What the analysis frees, reference counting frees.  Its cyclic garbage is frozen,
    not collected, when the collector comes back: the first collection after the
    pause walked it all (1.2 s on the corpus) for memory the run gives back at exit.
    (Worker processes run with the collector off: they exit when the run ends.)
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.enable()


def _imported_within(chosen: ProjectSet, component: Component) -> dict[str, tuple[str, ...]]:
    files = {*component.entries, *component.reachable, *component.callers}
    found: dict[str, tuple[str, ...]] = {}
    for path in files:
        importers = tuple(p for p in chosen.imported_by.get(path, ()) if p in files)
        if importers:
            found[path] = importers
    return found


def lint_component(task: ComponentTask) -> LintResult:
    """Parse the component's entry files and analyse them with the files they reach."""
    from jax_cudnn_lint import engine

    result = LintResult()
    trees: dict[str, ast.Module] = {}
    for path in task.component.entries:
        tree = _parse_entry(engine.parse, path, task.texts.get(path), result.parse_errors)
        if tree is not None:
            trees[path] = tree
    lazy = {
        path: functools.partial(_parse_quietly, engine.parse_reached, path)
        for path in (*task.component.reachable, *task.component.callers)
    }
    result.findings = _lint(
        engine.lint_project, engine.lint_tree, trees, task, result.internal, lazy, result.partial
    )
    return result


def _parse_entry(
    parse: Callable[[str, str], ast.Module], path: str, text: str | None, errors: list[Finding]
) -> ast.Module | None:
    """An entry file's tree, or a JCD900 in `errors`."""
    try:
        if text is None:
            text = read_source(path)[0]
        return parse(text, path)
    except SourceError as exc:
        errors.append(file_error("JCD900", path, f"could not read/parse {path}: {exc.message}", exc.line))
    except SyntaxError as exc:
        errors.append(
            file_error(
                "JCD900",
                path,
                f"could not read/parse {path}: SyntaxError: {exc.msg}{newer_syntax_hint(text or '', exc)}",
                exc.lineno or 1,
                (exc.offset or 1) - 1,
            )
        )
    except (ValueError, RecursionError, MemoryError) as exc:
        errors.append(file_error("JCD900", path, f"could not read/parse {path}: {describe(exc)}"))
    return None


# Python 3.12's generic syntax: `type Alias = ...`, `def first[T](...)`, `class Box[T]:`
_NEWER_SYNTAX = re.compile(r"^[ \t]*(?:type[ \t]+\w+[ \t]*[\[=]|(?:async[ \t]+)?def[ \t]+\w+[ \t]*\[|class[ \t]+\w+[ \t]*\[)", re.MULTILINE)


def newer_syntax_hint(text: str, exc: SyntaxError) -> str:
    """Why a file that parses on a newer Python fails here: the line at fault uses
    3.12's type-parameter syntax and this interpreter is older."""
    if sys.version_info >= (3, 12) or not exc.lineno:
        return ""
    lines = source_lines(text)
    line = lines[exc.lineno - 1] if 0 < exc.lineno <= len(lines) else ""
    if not _NEWER_SYNTAX.match(line):
        return ""
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    return f" (Python 3.12 syntax; the linter runs on Python {running}: run it with the project's Python)"


def _parse_quietly(parse: Callable[[str, str], ast.Module], path: str) -> ast.Module | None:
    """Parse a file the analysis reached through an import; None if it cannot be read."""
    try:
        return parse(read_source(path)[0], path)
    except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _lint(
    lint_project: Callable[..., list[Finding]],
    lint_tree: Callable[..., list[Finding]],
    trees: Mapping[str, ast.Module],
    task: ComponentTask,
    internal: list[Finding],
    lazy: Mapping[str, Callable[[], ast.Module | None]],
    partial: list[str],
) -> list[Finding]:
    """The component's analysis; if it fails, file by file so one bad file costs only itself."""
    if not trees:
        return []
    try:
        importers = {p: names for p, names in task.importer_names.items() if p in trees}
        findings = lint_project(trees, task.config, task.root, lazy, importers, partial, task.drivers, task.imported_by, task.data_files)
        return _enabled(findings, task.config)
    except Exception as project_exc:
        if raise_internal():
            raise
        findings: list[Finding] = []
        failed = False
        for path, tree in trees.items():
            try:
                findings += lint_tree(tree, path, task.config)
            except Exception as exc:  # noqa: BLE001
                failed = True
                internal.append(file_error("JCD901", path, f"internal error: {describe(exc)}"))
        if not failed:
            first = next(iter(trees))
            internal.append(
                file_error(
                    "JCD901",
                    first,
                    f"internal error in whole-project analysis: {describe(project_exc)}",
                )
            )
        return _enabled(findings, task.config)


def _enabled(findings: Iterable[Finding], config: Config) -> list[Finding]:
    """The findings of enabled rules (one per place is `merged`'s job)."""
    out: list[Finding] = []
    for f in findings:
        rule = RULES.get(f.code)
        if config.enabled(f.code, rule.default_on if rule is not None else True):
            out.append(f)
    return out
