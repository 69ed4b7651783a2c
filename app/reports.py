"""Report formats of the command: text, json, sarif (2.1.0) and github annotations.

Every renderer takes a `Report` and returns the whole output as one string, so the
command can write it to stdout or to `--output FILE` alike.  Findings are rendered in
the order given (the command sorts them by `Finding.sort_key`).

Columns: `Finding.col` is 0-based as in `ast` (a UTF-8 byte offset).  Text, json and
github add 1, exactly as flake8 does.  SARIF declares `columnKind: utf16CodeUnits`
(what GitHub expects), so its columns are converted when the source line is available.
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jax_cudnn_lint.config import Config
from jax_cudnn_lint.discovery import SourceError, read_source, source_lines
from jax_cudnn_lint.finding import Finding, Location
from jax_cudnn_lint.lint_rules.registry import loaded_rules

TOOL_NAME = "jax-cudnn-lint"
JSON_SCHEMA_ID = "jax-cudnn-lint/report/1"
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/jax-cudnn-lint/jax-cudnn-lint"
RULE_PAGE_URI = INFORMATION_URI + "/blob/main/docs/rules/{code}.md"
FORMATS = ("text", "json", "sarif", "github")

# Codes that are not rules: problems of the run itself, reported per file.
ERROR_CODES = {
    "JCD900": "could not read or parse a file",
    "JCD901": "internal error of jax-cudnn-lint",
}

Verdict = dict[str, Any]


def tool_version() -> str:
    from jax_cudnn_lint import __version__

    return __version__


@dataclass
class Report:
    """One run's outcome, as every format needs it."""

    findings: Sequence[Finding]
    errors: Sequence[Finding] = ()
    verdicts: Sequence[Verdict] | None = None  # one per finding, with --confirm
    files: int = 0
    analysed: int = 0
    partial: Sequence[str] = ()  # analysed files whose analysis ran out of its work budget
    elapsed: float = 0.0
    config: Config = field(default_factory=Config)
    exit_code: int = 0


class SourceLines:
    """Lines of the files findings point at, read (and decoded) once each, lazily."""

    def __init__(self, preloaded: dict[str, str] | None = None) -> None:
        self._lines: dict[str, list[str] | None] = {
            path: source_lines(text) for path, text in (preloaded or {}).items()
        }

    def line(self, path: str, number: int) -> str | None:
        if path not in self._lines:
            try:
                self._lines[path] = source_lines(read_source(path)[0])
            except SourceError:
                self._lines[path] = None
        lines = self._lines[path]
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]


def _char_index(line: str, byte_col: int) -> int:
    """0-based UTF-8 byte offset -> 0-based index into `line` (code points)."""
    if line.isascii():
        return min(byte_col, len(line))
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", "ignore"))


def _utf16_col(line: str | None, byte_col: int) -> int:
    """0-based byte offset -> 1-based SARIF column in UTF-16 code units."""
    if line is None or line.isascii():
        return byte_col + 1
    prefix = line[: _char_index(line, byte_col)]
    return len(prefix.encode("utf-16-le")) // 2 + 1


@cache
def rule_page(code: str) -> str | None:
    """The shipped rule page docs/rules/{code}.md (package jax_cudnn_lint.rule_pages)."""
    if not re.fullmatch(r"[A-Z]+[0-9]+", code):
        return None
    try:
        return (resources.files("jax_cudnn_lint.rule_pages") / f"{code}.md").read_text("utf-8")
    except (OSError, ModuleNotFoundError):
        return None


def _first_paragraph(page: str, heading: str) -> str | None:
    match = re.search(
        rf"^#+\s*{re.escape(heading)}\s*\n+(.*?)(?:\n\s*\n|\n#|\Z)", page, re.MULTILINE | re.DOTALL
    )
    if match is None:
        return None
    return " ".join(match.group(1).split()) or None


# --- text -------------------------------------------------------------------


def _verdict_suffix(verdict: Verdict | None) -> str:
    if verdict is None:
        return ""
    detail = str(verdict.get("detail", "")).strip().splitlines()
    backend = verdict.get("backend")
    head = f"{verdict.get('verdict', 'inconclusive')}"
    if backend:
        head += f" by {backend}"
    return f" [{head}: {detail[0]}]" if detail else f" [{head}]"


def _verdicts(report: Report) -> list[Verdict | None]:
    if report.verdicts is None:
        return [None] * len(report.findings)
    return list(report.verdicts)


def _items(report: Report) -> list[tuple[Finding, Verdict | None]]:
    """Errors and findings (with their verdicts) together, by path, line, column, code."""
    items: list[tuple[Finding, Verdict | None]] = [(e, None) for e in report.errors]
    items += list(zip(report.findings, _verdicts(report)))
    return sorted(items, key=lambda item: item[0].sort_key())


def render_text(
    report: Report, show_source: bool = False, sources: SourceLines | None = None
) -> str:
    """`path:line:col: CODE message` per line (col 1-based), errors among the findings."""
    sources = sources or SourceLines()
    out: list[str] = []
    for finding, verdict in _items(report):
        out.append(
            f"{finding.path}:{finding.line}:{finding.col + 1}: "
            f"{finding.code} {finding.message}{_verdict_suffix(verdict)}"
        )
        if show_source:
            line = sources.line(finding.path, finding.line)
            if line is not None:
                index = _char_index(line, finding.col)
                indent = "".join(c if c == "\t" else " " for c in line[:index])
                out.append(line)
                out.append(f"{indent}^")
    return "".join(f"{line}\n" for line in out)


def statistics_lines(report: Report) -> list[str]:
    """flake8's --statistics: count, code and the rule's name, one code per line."""
    counts = Counter(f.code for f in (*report.errors, *report.findings))
    lines: list[str] = []
    for code in sorted(counts):
        rule = loaded_rules().get(code)
        name = rule.name if rule is not None else ERROR_CODES.get(code, "")
        lines.append(f"{counts[code]:<5} {code} {name}".rstrip())
    return lines


def summary_line(report: Report) -> str:
    """`N findings in M files (K analysed) in X.XXs` (+ errors / verdicts when any)."""

    def plural(n: int, word: str) -> str:
        return f"{n} {word}" if n == 1 else f"{n} {word}s"

    text = (
        f"{plural(len(report.findings), 'finding')} in {plural(report.files, 'file')} "
        f"({report.analysed} analysed) in {report.elapsed:.2f}s"
    )
    if report.partial:
        text += f"; {len(report.partial)} partly analysed (work budget: no finding there proves less)"
    if report.errors:
        text += f"; {plural(len(report.errors), 'file error')}"
    if report.verdicts:
        counts = Counter(str(v.get("verdict")) for v in report.verdicts)
        text += "; " + ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()))
    return text


# --- json -------------------------------------------------------------------


def _error_json(error: Finding) -> dict[str, Any]:
    return {
        "code": error.code,
        "path": error.path,
        "line": error.line,
        "col": error.col + 1,
        "message": error.message,
    }


def render_json(report: Report) -> str:
    """The versioned report object documented in docs/json-format.md."""
    findings: list[dict[str, Any]] = []
    for finding, verdict in zip(report.findings, _verdicts(report)):
        item = finding.to_json()
        rule = loaded_rules().get(finding.code)
        item["rule"] = rule.name if rule is not None else None
        if verdict is not None:
            item["confirm"] = verdict
        findings.append(item)
    summary: dict[str, Any] = {
        "findings": len(report.findings),
        "errors": len(report.errors),
        "files": report.files,
        "analysed": report.analysed,
        "partial": list(report.partial),
        "elapsed_s": round(report.elapsed, 3),
        "by_code": dict(sorted(Counter(f.code for f in report.findings).items())),
        "exit_code": report.exit_code,
    }
    if report.verdicts is not None:
        summary["confirm"] = dict(
            sorted(Counter(str(v.get("verdict")) for v in report.verdicts).items())
        )
    document = {
        "schema": JSON_SCHEMA_ID,
        "tool": {"name": TOOL_NAME, "version": tool_version()},
        "targets": {
            "jax_version": report.config.jax_version,
            "gpu": report.config.gpu,
            "cudnn": report.config.cudnn,
        },
        "findings": findings,
        "errors": [_error_json(e) for e in report.errors],
        "summary": summary,
    }
    return json.dumps(document, indent=2, default=str) + "\n"


# --- sarif ------------------------------------------------------------------


def _artifact_location(path: str) -> dict[str, Any]:
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    posix = Path(path).as_posix()
    # the name's bytes as the file system has them: a name that is not UTF-8 keeps its
    # bytes, percent-encoded, as Path.as_uri does (probe 43c)
    return {"uri": urllib.parse.quote(os.fsencode(posix), safe="/"), "uriBaseId": "%SRCROOT%"}


def _region(path: str, line: int, col: int, sources: SourceLines) -> dict[str, Any]:
    return {"startLine": max(line, 1), "startColumn": _utf16_col(sources.line(path, line), col)}


def _physical(path: str, line: int, col: int, sources: SourceLines) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": _artifact_location(path),
            "region": _region(path, line, col, sources),
        }
    }


def _sarif_rule(code: str) -> dict[str, Any]:
    rule = loaded_rules()[code]
    page = rule_page(code)
    full = (_first_paragraph(page, "What it does") if page else None) or rule.summary
    return {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": full},
        "help": {"text": page or rule.summary, **({"markdown": page} if page else {})},
        "helpUri": RULE_PAGE_URI.format(code=code),
        "defaultConfiguration": {"level": "error", "enabled": rule.default_on},
        "properties": {"confirmable": rule.confirmable},
    }


def _sarif_related(related: Sequence[Location], sources: SourceLines) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for index, loc in enumerate(related):
        item = {"id": index, **_physical(loc.path, loc.line, loc.col, sources)}
        if loc.note:
            item["message"] = {"text": loc.note}
        out.append(item)
    return out


def render_sarif(report: Report, sources: SourceLines | None = None) -> str:
    """A SARIF 2.1.0 log with one run (GitHub code scanning accepts it as is)."""
    sources = sources or SourceLines()
    codes = sorted(loaded_rules())
    index_of = {code: i for i, code in enumerate(codes)}
    results: list[dict[str, Any]] = []
    for finding, verdict in zip(report.findings, _verdicts(report)):
        text = finding.message
        if finding.evidence:
            text += "\nEvidence:\n" + "\n".join(f"- {e}" for e in finding.evidence)
        if verdict is not None:
            text += "\nConfirm:" + _verdict_suffix(verdict)
        result: dict[str, Any] = {
            "ruleId": finding.code,
            "level": "note"
            if verdict is not None and verdict.get("verdict") == "refuted"
            else "error",
            "message": {"text": text},
            "locations": [_physical(finding.path, finding.line, finding.col, sources)],
        }
        if finding.code in index_of:
            result["ruleIndex"] = index_of[finding.code]
        if finding.related:
            result["relatedLocations"] = _sarif_related(finding.related, sources)
        properties: dict[str, Any] = {"evidence": list(finding.evidence)}
        if finding.repro is not None:
            properties["repro"] = finding.repro
        if verdict is not None:
            properties["confirm"] = verdict
        result["properties"] = properties
        results.append(result)
    notifications: list[dict[str, Any]] = [
        {
            "level": "error",
            "message": {"text": f"{error.code} {error.message}"},
            "descriptor": {"id": error.code},
            "locations": [_physical(error.path, error.line, error.col, sources)],
        }
        for error in report.errors
    ]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": TOOL_NAME,
                "version": tool_version(),
                "semanticVersion": tool_version(),
                "informationUri": INFORMATION_URI,
                "rules": [_sarif_rule(code) for code in codes],
            }
        },
        "invocations": [
            {
                "executionSuccessful": not any(e.code == "JCD901" for e in report.errors),
                "toolExecutionNotifications": notifications,
            }
        ],
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(os.getcwd()).as_uri() + "/"}},
        "columnKind": "utf16CodeUnits",
        "results": results,
    }
    log = {"$schema": SARIF_SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, default=str) + "\n"


# --- github -----------------------------------------------------------------


def escape_data(text: str) -> str:
    """GitHub workflow-command data: % CR LF escaped (actions/toolkit escapeData)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """GitHub workflow-command property: data escapes plus ':' and ','."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report) -> str:
    """`::error file=...,line=...,col=...,title=CODE::message`, one per finding."""
    out: list[str] = []
    for finding, verdict in _items(report):
        command = (
            "notice" if verdict is not None and verdict.get("verdict") == "refuted" else "error"
        )
        props = (
            f"file={escape_property(finding.path)},line={finding.line},"
            f"col={finding.col + 1},title={escape_property(finding.code)}"
        )
        out.append(
            f"::{command} {props}::{escape_data(finding.message + _verdict_suffix(verdict))}"
        )
    return "".join(f"{line}\n" for line in out)


def render(
    report: Report, fmt: str, show_source: bool = False, sources: SourceLines | None = None
) -> str:
    renderers: dict[str, Callable[[], str]] = {
        "text": lambda: render_text(report, show_source, sources),
        "json": lambda: render_json(report),
        "sarif": lambda: render_sarif(report, sources),
        "github": lambda: render_github(report),
    }
    return renderers[fmt]()
