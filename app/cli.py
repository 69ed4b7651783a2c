"""The `jax-cudnn-lint` command (also `python -m jax_cudnn_lint`).

    jax-cudnn-lint [PATH ...] [options]     lint files and folders (default: ".")
    jax-cudnn-lint rules                    list the rules
    jax-cudnn-lint rule JCD101              print a rule's page

The command analyses the whole project, not one file at a time: every file that
passes the substring gate, the project files that import what leads to those and
differentiate (`project_set`), and, on demand, the project files that any of them
import.  Reading, decoding and gating run in worker processes (`-j`); so does the
analysis, one unit of the project set at a time (an import component, or a shard of a
large one: `project_lint`).  Output is sorted by `Finding.sort_key`, and the units do not
depend on `-j`, so neither does the output.

Exit status: 0 clean, 1 findings (or a file that could not be read or parsed,
JCD900), 2 usage error or internal error (JCD901, reported per file; the run goes on).
With --confirm, a finding that JAX refutes no longer fails the run on its own.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import re
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, TextIO, cast

from jax_cudnn_lint import __version__, noqa, result_cache
from jax_cudnn_lint.config import Config, canonical_gpu, parse_cudnn, parse_version
from jax_cudnn_lint.config_file import ConfigError, FileConfig, load_config
from jax_cudnn_lint.discovery import (
    ScannedFile,
    discover,
    normalize_pattern,
    scan_file,
)
from jax_cudnn_lint.finding import Finding
from jax_cudnn_lint.gate import DEFAULT_MAX_FILE_MB
from jax_cudnn_lint.project_lint import (
    LintResult,
    describe,
    file_error,
    gc_paused,
    lint_components,
    merged,
    raise_internal,
)
from jax_cudnn_lint.project_set import ProjectSet, project_set
from jax_cudnn_lint.lint_rules.registry import RULES
from jax_cudnn_lint.reports import (
    FORMATS,
    Report,
    SourceLines,
    render,
    rule_page,
    statistics_lines,
    summary_line,
)

PROG = "jax-cudnn-lint"
# Below this many files, worker processes cost more than they save.
PARALLEL_MIN_FILES = 64
CODE_PREFIX_RE = re.compile(r"[A-Z]{1,3}[0-9]{0,3}")
DEFAULT_CONFIRM_TIMEOUT = 120.0


class UsageError(Exception):
    """Bad arguments or configuration: message on stderr, exit 2."""


# --- arguments --------------------------------------------------------------


def _comma_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return value


def _positive_float(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def _non_negative_float(text: str) -> float:
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Catch the JAX calls that cuDNN rejects on a GPU, before the job runs. "
            f"Other commands: '{PROG} rules' lists the rules, '{PROG} rule CODE' shows one."
        ),
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files and folders (default: .)")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sel = parser.add_argument_group("rule selection (codes or prefixes, comma-separated)")
    sel.add_argument("--select", type=_comma_list, action="extend", help="only these codes")
    sel.add_argument("--ignore", type=_comma_list, action="extend", help="skip these codes")
    sel.add_argument(
        "--extend-select", type=_comma_list, action="extend", help="add to the selection"
    )
    files = parser.add_argument_group("files")
    files.add_argument(
        "--exclude", type=_comma_list, action="extend", help="fnmatch patterns to skip"
    )
    files.add_argument(
        "--extend-exclude", type=_comma_list, action="extend", help="more patterns to skip"
    )
    out = parser.add_argument_group("output")
    out.add_argument("--format", choices=FORMATS, default="text", help="report format")
    out.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")
    out.add_argument("--show-source", action="store_true", help="show the line and a caret")
    out.add_argument("--statistics", action="store_true", help="count findings per code")
    out.add_argument(
        "--exit-zero", action="store_true", help="exit 0 even when there are findings (errors still exit 2)"
    )
    out.add_argument("--disable-noqa", action="store_true", help="report findings that `# noqa` comments silence")
    tgt = parser.add_argument_group("targets")
    tgt.add_argument("--jax-version", help="JAX version the code targets (default: installed)")
    tgt.add_argument("--gpu", help="target GPU, e.g. sm80, sm90, sm100 (default: sm90)")
    tgt.add_argument("--cudnn", help="target cuDNN version, e.g. 9.10")
    run = parser.add_argument_group("run")
    run.add_argument(
        "-j", "--jobs", type=_positive_int, help="worker processes (default: CPU count)"
    )
    run.add_argument("--no-cache", action="store_true", help="do not read or write caches")
    run.add_argument(
        "--read-data-configs",
        action="store_true",
        help="read the project's JSON/YAML/TOML configs where a run opens them by a known path (off by default: a config a pipeline rewrites before training would be misread)",
    )
    run.add_argument(
        "--max-file-size",
        type=_non_negative_float,
        metavar="MB",
        help=f"report, not analyse, gated files over this size (default: {DEFAULT_MAX_FILE_MB:g}; 0: no limit)",
    )
    conf = parser.add_argument_group("confirm (runs JAX: needs jax-cudnn-lint[confirm])")
    conf.add_argument(
        "--confirm", action="store_true", help="prove each finding by running or tracing JAX"
    )
    conf.add_argument("--confirm-backend", choices=("auto", "execute", "trace"), default="auto")
    conf.add_argument(
        "--confirm-timeout",
        type=_positive_float,
        default=DEFAULT_CONFIRM_TIMEOUT,
        metavar="S",
        help=f"seconds per repro (default: {DEFAULT_CONFIRM_TIMEOUT:g})",
    )
    return parser


@dataclass(frozen=True)
class Options:
    """The parsed command line merged with pyproject.toml (the command line wins)."""

    paths: tuple[str, ...]
    config: Config
    exclude: tuple[str, ...]
    root: str
    jobs: int
    fmt: str = "text"
    output: str | None = None
    show_source: bool = False
    statistics: bool = False
    use_cache: bool = True
    confirm: bool = False
    confirm_backend: str = "auto"
    confirm_timeout: float = DEFAULT_CONFIRM_TIMEOUT
    exit_zero: bool = False
    disable_noqa: bool = False
    max_file_mb: float = DEFAULT_MAX_FILE_MB
    warnings: tuple[str, ...] = field(default=())


def _codes(values: Iterable[str], what: str) -> tuple[str, ...]:
    codes = tuple(v.upper() for v in values)
    for code in codes:
        if not CODE_PREFIX_RE.fullmatch(code):
            raise UsageError(f"{what}: {code!r} is not a code or code prefix (like JCD or JCD101)")
    return codes


def resolve_options(args: argparse.Namespace) -> Options:
    paths = tuple(cast("list[str]", args.paths) or ["."])
    for path in paths:
        if not os.path.lexists(path):
            raise UsageError(f"no such file or folder: {path}")
    try:
        file_config = load_config(paths[0])
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    fc = file_config

    def pick(cli: object, from_file: object, default: object) -> Any:
        return cli if cli is not None else from_file if from_file is not None else default

    select = _codes(pick(args.select, fc.select, ()), "select")
    ignore = _codes(pick(args.ignore, fc.ignore, ()), "ignore")
    extend_select = _codes(
        (*(fc.extend_select or ()), *(args.extend_select or ())), "extend-select"
    )
    jax_version = pick(args.jax_version, fc.jax_version, None)
    gpu = pick(args.gpu, fc.gpu, None)
    cudnn = pick(args.cudnn, fc.cudnn, None)
    if jax_version is not None and parse_version(jax_version) is None:
        raise UsageError(f"jax-version: cannot read {jax_version!r} as a version")
    if gpu is not None:
        if canonical_gpu(gpu) is None:
            raise UsageError(f"gpu: cannot read {gpu!r} (use e.g. sm80, sm90, sm100 or 9.0)")
        gpu = canonical_gpu(gpu)  # `--gpu 80`: --confirm's kernels read "sm80" (probe 39a)
    if cudnn is not None and parse_cudnn(cudnn) is None:
        raise UsageError(f"cudnn: cannot read {cudnn!r} as a version (e.g. 9.10)")
    changes: dict[str, object] = {
        "select": select,
        "ignore": ignore,
        "extend_select": extend_select,
    }
    if jax_version is not None:
        changes["jax_version"] = jax_version
    if gpu is not None:
        changes["gpu"] = gpu
    if cudnn is not None:
        changes["cudnn"] = cudnn
    changes["read_data_configs"] = bool(pick(True if args.read_data_configs else None, fc.read_data_configs, False))
    config = Config().with_(**changes)

    exclude = _patterns(args.exclude, fc.exclude, fc) + _patterns(None, fc.extend_exclude, fc)
    exclude += tuple(normalize_pattern(p) for p in args.extend_exclude or ())
    root = fc.root if fc.root is not None and _all_under(paths, fc.root) else _common_folder(paths)
    jobs = pick(args.jobs, fc.jobs, None) or os.cpu_count() or 1
    return Options(
        paths=paths,
        config=config,
        exclude=exclude,
        root=root,
        jobs=int(jobs),
        fmt=args.format,
        output=args.output,
        show_source=args.show_source,
        statistics=args.statistics,
        use_cache=not args.no_cache,
        confirm=args.confirm,
        confirm_backend=args.confirm_backend,
        confirm_timeout=args.confirm_timeout,
        exit_zero=args.exit_zero,
        disable_noqa=args.disable_noqa,
        max_file_mb=float(pick(args.max_file_size, fc.max_file_size, DEFAULT_MAX_FILE_MB)),
        warnings=fc.warnings,
    )


def _all_under(paths: Sequence[str], folder: str) -> bool:
    """Is every path at or under `folder`?  The first path's pyproject.toml names the
    project root only where it holds them all (probe 122d: `jax-cudnn-lint repo_a/
    repo_b/` with a pyproject.toml in repo_a left repo_b's files outside the root, named
    by their stems, and its `vit.model` lost its blocks)."""
    top = os.path.abspath(folder)
    try:
        return all(os.path.commonpath([top, os.path.abspath(path)]) == top for path in paths)
    except ValueError:  # paths on different drives (Windows)
        return False


def _common_folder(paths: Sequence[str]) -> str:
    """The folder that holds every path given (a folder itself, or a file's folder): the
    project root, so that `jax-cudnn-lint exp1/ exp2/` names each file as one run of
    `jax-cudnn-lint .` would (a root taken from the first path alone left the other
    folders' files outside it, named by their stems, and their `model.py` files collided)."""
    folders = [path if os.path.isdir(path) else os.path.dirname(path) for path in map(os.path.abspath, paths)]
    try:
        return os.path.commonpath(folders)
    except ValueError:  # paths on different drives (Windows)
        return folders[0]


def _patterns(
    cli: Sequence[str] | None, from_file: Sequence[str] | None, fc: FileConfig
) -> tuple[str, ...]:
    if cli is not None:
        return tuple(normalize_pattern(p) for p in cli)
    return tuple(normalize_pattern(p, fc.root or os.curdir) for p in from_file or ())


# --- the run ----------------------------------------------------------------


def scan_all(files: Sequence[str], jobs: int, max_file_mb: float | None = DEFAULT_MAX_FILE_MB, data_configs: bool = False) -> list[ScannedFile]:
    """scan_file over every file, in worker processes when it pays; order kept."""
    scan = functools.partial(scan_file, max_file_mb=max_file_mb, data_configs=data_configs)
    if jobs <= 1 or len(files) < PARALLEL_MIN_FILES:
        return [scan(path) for path in files]
    workers = min(jobs, len(files))
    chunksize = max(1, len(files) // (workers * 4))
    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(scan, files, chunksize=chunksize))
    except (BrokenProcessPool, PermissionError, NotImplementedError):
        # No working multiprocessing here (a sandbox without /dev/shm): do it inline.
        return [scan(path) for path in files]


@dataclass
class Analysis:
    findings: list[Finding]
    errors: list[Finding]  # JCD900 / JCD901
    files: int
    analysed: int
    partial: list[str] = field(default_factory=lambda: [])  # entry files whose budget ran out


def analyse(options: Options) -> Analysis:
    """Discover, scan, select the project set, then lint it (or take it from the cache)."""
    with gc_paused():
        return _analyse(options)


def _analyse(options: Options) -> Analysis:
    files = discover(options.paths, options.exclude)
    scanned = scan_all(files, options.jobs, options.max_file_mb, options.config.read_data_configs)
    errors: list[Finding] = []
    for s in scanned:
        if s.error is not None:
            errors.append(
                file_error(
                    "JCD900",
                    s.path,
                    f"could not read/parse {s.path}: {s.error.message}",
                    s.error.line,
                    s.error.col,
                )
            )
        elif s.internal_error is not None:
            errors.append(file_error("JCD901", s.path, f"internal error: {s.internal_error}"))
    chosen = project_set(scanned, options.root, read_data_configs=options.config.read_data_configs)
    by_path = {s.path: s for s in scanned}
    linted = _lint_with_cache(options, chosen, by_path)
    all_errors = sorted(errors + linted.parse_errors + linted.internal, key=Finding.sort_key)
    return Analysis(linted.findings, all_errors, len(files), len(chosen.entries), linted.partial)


def _lint_with_cache(options: Options, chosen: ProjectSet, by_path: Mapping[str, ScannedFile]) -> LintResult:
    """Each component from the result cache, or analysed (then stored).

    A component's key covers the content of every file it can reach, so a change
    re-analyses the components that could see it, and only those.
    """
    components = chosen.components
    parts: list[LintResult | None] = [None] * len(components)
    keys: list[str | None] = [None] * len(components)
    if options.use_cache:
        for i, component in enumerate(components):
            files = [(path, by_path[path].sha256 or "") for path in (*component.entries, *component.reachable, *component.callers)]
            files += sorted(chosen.data_files_of(component).items())
            keys[i] = key = result_cache.make_key(__version__, options.config, files, extra=(options.root,))
            hit = result_cache.load(key)
            if hit is not None:
                parts[i] = LintResult(hit.findings, hit.errors, [], hit.partial)
    missing = [i for i, part in enumerate(parts) if part is None]
    texts = {path: by_path[path].text for i in missing for path in components[i].entries}
    fresh = lint_components(chosen, [components[i] for i in missing], texts, options.config, options.root, options.jobs)
    for i, part in zip(missing, fresh):
        parts[i] = part
        key = keys[i]
        if key is not None and not part.internal:
            result_cache.store(key, part.findings, part.parse_errors, part.partial)
    return merged((part for part in parts if part is not None), chosen.entries)


def _run_confirm(findings: Sequence[Finding], options: Options) -> list[dict[str, Any]]:
    """Lazy: jax (through jax_cudnn_lint.confirm) is imported only on this path."""
    if not findings:
        return []
    try:
        from jax_cudnn_lint.confirm import run_confirm
    except ImportError as exc:
        raise UsageError(
            f"--confirm needs JAX: pip install 'jax-cudnn-lint[confirm]' ({describe(exc)})"
        ) from None
    try:
        verdicts = run_confirm(
            list(findings),
            backend=options.confirm_backend,
            gpu=options.config.gpu,
            cudnn=options.config.cudnn,
            use_cache=options.use_cache,
            timeout=options.confirm_timeout,
            progress=sys.stderr.isatty(),
            jax_version=options.config.jax_version,
        )
    except ValueError as exc:  # documented: a bad backend, target or timeout
        raise UsageError(f"--confirm: {exc}") from None
    checked = list(cast("Iterable[object]", verdicts))
    if len(checked) != len(findings) or not all(isinstance(v, dict) for v in checked):
        raise RuntimeError(f"confirm returned {len(checked)} verdicts for {len(findings)} findings")
    return cast("list[dict[str, Any]]", checked)


def exit_code(
    findings: Sequence[Finding],
    errors: Sequence[Finding],
    verdicts: Sequence[dict[str, Any]] | None,
) -> int:
    if any(e.code == "JCD901" for e in errors):
        return 2
    if verdicts is not None:
        failing = [v for v in verdicts if v.get("verdict") != "refuted"]
    else:
        failing = list(findings)
    return 1 if failing or errors else 0


def _write(text: str, output: str | None, stream: TextIO) -> None:
    if output is None:
        stream.write(text)
        stream.flush()
        return
    try:
        # (surrogateescape: a file name that is not UTF-8 is written back as its bytes)
        with open(output, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as handle:
            handle.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None


def run(options: Options) -> int:
    start = time.perf_counter()
    for warning in options.warnings:
        print(f"{PROG}: warning: {warning}", file=sys.stderr)
    result = analyse(options)
    sources = SourceLines()
    if not options.disable_noqa:
        result.findings = noqa.unsuppressed(result.findings, sources.line)
    verdicts: list[dict[str, Any]] | None = None
    if options.confirm:
        try:
            verdicts = _run_confirm(result.findings, options)
        except UsageError:
            raise
        except Exception as exc:
            if raise_internal():
                raise
            print(f"{PROG}: error: --confirm failed: {describe(exc)}", file=sys.stderr)
            return 2
    code = exit_code(result.findings, result.errors, verdicts)
    if options.exit_zero and code == 1:
        code = 0
    report = Report(
        findings=result.findings,
        errors=result.errors,
        verdicts=verdicts,
        files=result.files,
        analysed=result.analysed,
        partial=tuple(result.partial),
        elapsed=time.perf_counter() - start,
        config=options.config,
        exit_code=code,
    )
    text = render(report, options.fmt, options.show_source, sources)
    stats = statistics_lines(report) if options.statistics else []
    if stats and options.fmt == "text":
        text += "".join(f"{line}\n" for line in stats)
        stats = []
    _write(text, options.output, sys.stdout)
    for line in stats:
        print(line, file=sys.stderr)
    report.elapsed = time.perf_counter() - start
    print(summary_line(report), file=sys.stderr)
    return code


# --- rules / rule -----------------------------------------------------------


def _load_rules() -> None:
    """Rules register themselves when the analysis is imported."""
    importlib.import_module("jax_cudnn_lint.engine")


def cmd_rules(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog=f"{PROG} rules", description="List the rules.")
    parser.parse_args(argv)
    _load_rules()
    rows = [
        (code, rule.name, "on" if rule.default_on else "off", rule.summary)
        for code, rule in sorted(RULES.items())
    ]
    if not rows:
        print("no rules registered", file=sys.stderr)
        return 0
    width = max(len(r[1]) for r in rows)
    for code, name, on, summary in rows:
        print(f"{code}  {name:<{width}}  {on:<3}  {summary}")
    return 0


def cmd_rule(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog=f"{PROG} rule", description="Print a rule's page.")
    parser.add_argument("code", help="a rule code, e.g. JCD101")
    args = parser.parse_args(argv)
    code = str(args.code).strip().upper()
    page = rule_page(code)
    if page is not None:
        sys.stdout.write(page if page.endswith("\n") else page + "\n")
        return 0
    _load_rules()
    if code in RULES:
        rule = RULES[code]
        print(f"{PROG}: no page shipped for {code} ({rule.name}): {rule.summary}", file=sys.stderr)
        return 2
    known = ", ".join(sorted(RULES)) or "none"
    print(f"{PROG}: error: unknown rule {code!r} (known: {known})", file=sys.stderr)
    return 2


# --- entry point ------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_list[:1] == ["rules"]:
            return cmd_rules(args_list[1:])
        if args_list[:1] == ["rule"]:
            return cmd_rule(args_list[1:])
        parser = build_parser()
        args = parser.parse_args(args_list)
        try:
            return run(resolve_options(args))
        except UsageError as exc:
            parser.exit(2, f"{PROG}: error: {exc}\n")
    except SystemExit as exc:  # argparse: --help (0), usage errors (2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except BrokenPipeError:  # `jax-cudnn-lint | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if raise_internal():
            raise
        print(f"{PROG}: internal error: {describe(exc)}", file=sys.stderr)
        return 2
