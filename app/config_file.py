"""`[tool.jax-cudnn-lint]` in pyproject.toml: the command's project configuration.

The nearest pyproject.toml at or above the first path on the command line is read;
the command line wins over it.  Keys (kebab-case; snake_case is accepted too):

    select, ignore, extend-select   lists of codes or code prefixes
    exclude, extend-exclude         lists of fnmatch patterns; a pattern with a "/" is
                                    relative to the folder of the pyproject.toml
    jax-version, gpu, cudnn         targets (strings)
    jobs                            worker processes (integer)
    max-file-size                   MB; larger gated files are reported, not analysed
                                    (number, 0 for no limit)
    read-data-configs               read the project's JSON/YAML/TOML configs (boolean)

Reading TOML needs Python 3.11 (tomllib) or the `tomli` package on 3.10; without
either, the file is skipped with a warning.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

SECTION = "jax-cudnn-lint"
LIST_KEYS = ("select", "ignore", "extend-select", "exclude", "extend-exclude")
STRING_KEYS = ("jax-version", "gpu", "cudnn")
INT_KEYS = ("jobs",)
NUMBER_KEYS = ("max-file-size",)
BOOL_KEYS = ("read-data-configs",)


class ConfigError(Exception):
    """pyproject.toml has a [tool.jax-cudnn-lint] the command cannot use (exit 2)."""


@dataclass(frozen=True)
class FileConfig:
    """What pyproject.toml asked for; None / () where it said nothing."""

    path: str | None = None
    root: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] | None = None
    jax_version: str | None = None
    gpu: str | None = None
    cudnn: str | None = None
    jobs: int | None = None
    max_file_size: float | None = None
    read_data_configs: bool | None = None
    warnings: tuple[str, ...] = field(default=())


def find_pyproject(start: str) -> str | None:
    """The nearest pyproject.toml at or above `start` (a file or a folder)."""
    here = os.path.abspath(start)
    if not os.path.isdir(here):
        here = os.path.dirname(here)
    while True:
        candidate = os.path.join(here, "pyproject.toml")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _toml_loads() -> Callable[[str], dict[str, Any]] | None:
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib.loads
    try:  # pragma: no cover - Python 3.10 only
        module = importlib.import_module("tomli")
    except ImportError:  # pragma: no cover
        return None
    return cast("Callable[[str], dict[str, Any]]", module.loads)  # pragma: no cover


def _strings(key: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str):  # "JCD1,JCD2" like flake8's comma-separated lists
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list) and all(isinstance(v, str) for v in cast("list[object]", value)):
        return tuple(v.strip() for v in cast("list[str]", value) if v.strip())
    raise ConfigError(f"[tool.{SECTION}] {key} must be a list of strings")


def load_config(start: str) -> FileConfig:
    """Read [tool.jax-cudnn-lint] from the nearest pyproject.toml above `start`.

    A missing file or section gives an empty FileConfig; a malformed one raises
    ConfigError.
    """
    path = find_pyproject(start)
    if path is None:
        return FileConfig()
    root = os.path.dirname(path)
    loads = _toml_loads()
    if loads is None:  # pragma: no cover - Python 3.10 without tomli
        return FileConfig(
            path,
            root,
            warnings=(f"{path}: skipped (reading TOML needs Python 3.11 or `pip install tomli`)",),
        )
    try:
        with open(path, encoding="utf-8") as handle:
            document = loads(handle.read())
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except ValueError as exc:  # tomllib.TOMLDecodeError is a ValueError
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    tool: object = document.get("tool", {})
    section: object = (
        cast("dict[str, object]", tool).get(SECTION) if isinstance(tool, dict) else None
    )
    if section is None:
        return FileConfig(path, root)
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: [tool.{SECTION}] must be a table")
    values: dict[str, Any] = {}
    warnings: list[str] = []
    for raw_key, value in cast("dict[str, object]", section).items():
        key = raw_key.replace("_", "-")
        attr = key.replace("-", "_")
        if key in LIST_KEYS:
            values[attr] = _strings(key, value)
        elif key in STRING_KEYS:
            if isinstance(value, float) and key == "gpu":
                value = str(value)  # `gpu = 9.0`: a compute capability loses nothing as a number
            if isinstance(value, float):
                # TOML reads `cudnn = 9.10` as the number 9.1: the version is lost (probe 39b)
                raise ConfigError(f'{path}: [tool.{SECTION}] {key} = {value!r} is a number to TOML, which drops trailing zeros (9.10 reads as 9.1): write it as a string, {key} = "..."')
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                raise ConfigError(f"{path}: [tool.{SECTION}] {key} must be a string")
            values[attr] = str(value)
        elif key in NUMBER_KEYS:
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value < float("inf"):
                raise ConfigError(f"{path}: [tool.{SECTION}] {key} must be a number, 0 or more")
            values[attr] = float(value)
        elif key in BOOL_KEYS:
            if not isinstance(value, bool):
                raise ConfigError(f"{path}: [tool.{SECTION}] {key} must be true or false")
            values[attr] = value
        elif key in INT_KEYS:
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{path}: [tool.{SECTION}] {key} must be a positive integer")
            values[attr] = value
        else:
            warnings.append(f"{path}: unknown key [tool.{SECTION}] {raw_key} (ignored)")
    return FileConfig(path, root, warnings=tuple(warnings), **values)
