"""The verdict cache: one JSON file per verdict under the user cache directory.

Location: `$XDG_CACHE_HOME/jax-cudnn-lint/confirm/` (an absolute XDG_CACHE_HOME only),
else `~/.cache/jax-cudnn-lint/confirm/`.  A key is the sha256 of the canonical JSON of the
repro, the installed jax / jaxlib / CUDA plugin / jax-cudnn-lint versions (package
metadata, never `import jax`), the backend and the target; for the execute and auto
backends also the host name and CUDA_VISIBLE_DEVICES, because their verdicts depend on
the machine.  Only confirmed and refuted verdicts are stored: an inconclusive one (a
timeout, a crash) is worth trying again.  Writes are atomic (a temporary file in the same
directory, then `os.replace`), so an interrupted run never leaves half a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import tempfile
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

from .repro import canonical_json, json_object

CACHE_FORMAT = "jax-cudnn-lint/confirm-cache/1"
CACHEABLE = ("confirmed", "refuted")
_RESULT_KEYS = ("verdict", "detail", "backend", "environment")


def cache_dir() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "jax-cudnn-lint" / "confirm"


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def installed_versions() -> dict[str, Any]:
    """jax, jaxlib, the jax CUDA plugins and this package, from package metadata only."""
    plugins: dict[str, str] = {}
    for dist in metadata.distributions():
        name = str(dist.metadata["Name"] or "").lower().replace("_", "-")
        if name.startswith(("jax-cuda", "jax-rocm")):
            plugins[name] = dist.version
    return {
        "jax": _version("jax"),
        "jaxlib": _version("jaxlib"),
        "plugins": dict(sorted(plugins.items())),
        "jax-cudnn-lint": _version("jax-cudnn-lint"),
    }


def cache_key(
    repro: Mapping[str, Any],
    *,
    backend: str,
    target: Mapping[str, Any],
    versions: Mapping[str, Any],
) -> str:
    material: dict[str, Any] = {
        "format": CACHE_FORMAT,
        "repro": repro,
        "versions": dict(versions),
        "backend": backend,
        "target": dict(target),
    }
    if backend != "trace":
        material["host"] = [socket.gethostname(), os.environ.get("CUDA_VISIBLE_DEVICES")]
    return hashlib.sha256(canonical_json(material).encode("utf-8")).hexdigest()


class VerdictCache:
    """get/put of verdict dicts by key; every failure reads as a miss, never an error."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory if directory is not None else cache_dir()

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            with open(self._path(key), encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            return None
        envelope = json_object(data)
        if envelope is None or envelope.get("format") != CACHE_FORMAT:
            return None
        result = json_object(envelope.get("result"))
        if result is None or any(k not in result for k in _RESULT_KEYS):
            return None
        if result.get("verdict") not in CACHEABLE:
            return None
        return result

    def put(self, key: str, result: Mapping[str, Any]) -> bool:
        """Store a confirmed/refuted verdict atomically; False if not stored."""
        if result.get("verdict") not in CACHEABLE:
            return False
        payload = {
            "format": CACHE_FORMAT,
            "result": {k: result[k] for k in _RESULT_KEYS if k in result},
        }
        tmp_name: str | None = None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, tmp_name = tempfile.mkstemp(
                prefix=f".{key[:16]}.", suffix=".tmp", dir=self.directory
            )
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(payload, f, sort_keys=True, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp_name, self._path(key))
            tmp_name = None
            return True
        except OSError:
            return False
        finally:
            if tmp_name is not None:
                try:
                    os.unlink(tmp_name)
                except OSError:
                    pass
