"""The command's result cache: the findings of each unit of analysis of the project set
(`project_set.Component`: an import component, or a shard of a large one), keyed by
everything they depend on.

One JSON file per key (never pickle: a cache file is data, not code) under
`$XDG_CACHE_HOME/jax-cudnn-lint/` (default `~/.cache/jax-cudnn-lint/`).  The key is the
sha256 of the tool version, the configuration, the installed JAX version (package
metadata; jax is never imported) and the path and content hash of every file of the
component (its entry files and every file they can reach), sorted: any change to any of
them is a miss, and a change elsewhere in the project is not.  The size and
modification time of the analyser's own modules are in the key too, so that an edited
rule in a development install never serves stale results under an unchanged version.  Writes are atomic
(a temporary file, then `os.replace`); an unwritable or corrupt cache is ignored.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any, cast

from jax_cudnn_lint.config import Config, installed_jax_version
from jax_cudnn_lint.finding import Finding, Location

FORMAT = 1
MAX_ENTRIES = 4096  # one per component: a monorepo has many


def cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jax-cudnn-lint")


# The packages whose code decides the findings.
ANALYSER_PACKAGES = (
    "jax_cudnn_lint",
    "jax_cudnn_lint.lint_rules",
    "jax_cudnn_lint.shape_inference",
)


@cache
def code_fingerprint() -> str:
    """sha256 over (name, size, mtime) of the analyser's modules: cheap, a few dozen stats."""
    entries: list[tuple[str, int, int]] = []
    for name in ANALYSER_PACKAGES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        for folder in getattr(module, "__path__", ()):
            try:
                with os.scandir(folder) as scan:
                    for entry in scan:
                        if entry.name.endswith(".py") and entry.is_file():
                            stat = entry.stat()
                            entries.append((f"{name}.{entry.name}", stat.st_size, stat.st_mtime_ns))
            except OSError:
                continue
    return hashlib.sha256(json.dumps(sorted(entries)).encode("utf-8")).hexdigest()


def make_key(
    tool_version: str,
    config: Config,
    files: Iterable[tuple[str, str]],
    extra: Sequence[str] = (),
) -> str:
    """sha256 over the version, config, installed jax and (path, sha256) of each file."""
    payload = {
        "format": FORMAT,
        "tool": tool_version,
        "config": dataclasses.asdict(config),
        "jax": installed_jax_version(),
        "code": code_fingerprint(),
        "files": sorted(files),
        "extra": list(extra),
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def finding_to_cache(finding: Finding) -> dict[str, Any]:
    """Finding -> plain JSON (0-based columns, unlike the report's `to_json`)."""
    return {
        "code": finding.code,
        "path": finding.path,
        "line": finding.line,
        "col": finding.col,
        "message": finding.message,
        "evidence": list(finding.evidence),
        "repro": finding.repro,
        "related": [[r.path, r.line, r.col, r.note] for r in finding.related],
    }


def finding_from_cache(data: dict[str, Any]) -> Finding:
    related = tuple(
        Location(str(path), int(line), int(col), str(note))
        for path, line, col, note in cast("list[list[Any]]", data["related"])
    )
    repro = data["repro"]
    if repro is not None and not isinstance(repro, dict):
        raise ValueError("repro must be an object")
    return Finding(
        code=str(data["code"]),
        path=str(data["path"]),
        line=int(data["line"]),
        col=int(data["col"]),
        message=str(data["message"]),
        evidence=tuple(str(e) for e in cast("list[Any]", data["evidence"])),
        repro=cast("dict[str, Any] | None", repro),
        related=related,
    )


@dataclasses.dataclass(frozen=True)
class CachedResult:
    findings: list[Finding]
    errors: list[Finding]
    partial: list[str]  # entry files whose analysis ran out of budget


def load(key: str) -> CachedResult | None:
    """What was stored for `key`, or None on a miss."""
    path = os.path.join(cache_dir(), f"{key}.json")
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        if not isinstance(data, dict):
            return None
        entry = cast("dict[str, Any]", data)
        if entry.get("format") != FORMAT or entry.get("key") != key:
            return None
        lists = {
            name: [finding_from_cache(item) for item in cast("list[dict[str, Any]]", entry[name])]
            for name in ("findings", "errors")
        }
        partial = [str(path) for path in cast("list[object]", entry.get("partial", []))]
        _touch(path)  # pruning keeps what is used, not only what is new
        return CachedResult(lists["findings"], lists["errors"], partial)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store(
    key: str, findings: Sequence[Finding], errors: Sequence[Finding] = (), partial: Sequence[str] = ()
) -> bool:
    """Write atomically; False (and no exception) when the cache cannot be written."""
    folder = cache_dir()
    data = {
        "format": FORMAT,
        "key": key,
        "findings": [finding_to_cache(f) for f in findings],
        "errors": [finding_to_cache(f) for f in errors],
        "partial": list(partial),
    }
    tmp_path: str | None = None
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp_path = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.replace(tmp_path, os.path.join(folder, f"{key}.json"))
        tmp_path = None
        _prune(folder)
        return True
    except (OSError, TypeError, ValueError):
        return False
    finally:
        if tmp_path is not None:
            try:
                os.unlink(tmp_path)
            except OSError:
                pass


def _touch(path: str) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


def _prune(folder: str) -> None:
    """Keep the newest MAX_ENTRIES entries: the cache must not grow without bound."""
    try:
        entries = [
            e for e in os.scandir(folder) if e.name.endswith(".json") and not e.name.startswith(".")
        ]
        if len(entries) <= MAX_ENTRIES:
            return
        entries.sort(key=lambda e: e.stat().st_mtime, reverse=True)
        for entry in entries[MAX_ENTRIES:]:
            os.unlink(entry.path)
    except OSError:
        pass
