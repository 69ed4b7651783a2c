"""Configs read from the project's data files: JSON, YAML and TOML, when the command is
asked to (`--read-data-configs`: off by default, DESIGN-NOTES says why).

`json.load(open("configs/lm.json"))`, `yaml.safe_load(f)` under `with open(args.config)
as f:` (an option's default naming the file), `tomllib.load(open(path, "rb"))`: the
lengths a training script runs at are often written in such a file beside it.  The
file is read as the program would read it, and only where that is certain:

* the path is a known relative path (a literal, an option's default, `os.path.join` of
  literals) and names exactly one file among the reading module's folder and each
  folder above it (the program's working directory is one of them; two copies make
  it unknown, as `configdict`'s config-file default does);
* the command's scan found that file (app/data_scan.py: a literal of the analysed
  files names it), so the result cache is keyed on its content; the flake8
  plugin, which sees one file, reads none;
* no file of the project may write a file of that name (`open(..., "w")`, `write_text`,
  a copy or move onto it: a prepare step run before training), and none writes a file
  its text does not name (`open(path, "w")` in a helper) or changes folder (`os.chdir`):
  then no data file is read at all (app/data_scan.py, read by project_set over the
  whole project).

Data is parsed, never run: `json`, `tomllib` and PyYAML's safe loader (whatever
loader the code names: a tag that builds a Python object is not data, and the file is
then unknown).  A value of a type the analysis does not hold (a date) is unknown.
"""

from __future__ import annotations

import ast
import json
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from jax_cudnn_lint.shape_inference.dims import Step
from jax_cudnn_lint.shape_inference.modules import folders_above
from jax_cudnn_lint.shape_inference.paths import path_text
from jax_cudnn_lint.shape_inference.values import UNKNOWN, ConstV, DictV, ExternalV, ExtObjectV, TupleV, Value, const_value, make_int

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

Args = list[Value]
Kwargs = dict[str, Value]

MAX_TEXT = 100_000  # characters of a data file (or a literal) that is parsed
_LEVELS = 8  # folders above the reading module a relative path is looked for in
OPENED = "builtins.open"  # an opened data file: ExtObjectV(OPENED, (its text, its path as shown))
EXTENSIONS = (".json", ".yaml", ".yml", ".toml")


def candidates(folder: str, relative: str) -> Iterator[str]:
    """Where a relative path may name a file: from `folder` and each folder above."""
    for base in folders_above(os.path.join(folder, "x"), _LEVELS):
        yield os.path.normpath(os.path.join(base, relative))


def data_value(value: object, why: tuple[Step, ...]) -> Value:
    """A parsed JSON / YAML / TOML value (or a literal's) as the analysis holds it: the
    dict or list a display would give.  At most _MAX_NODES values, 8 levels deep: YAML's
    aliases share one value among many places (`*a` nine times in each of eight levels
    is 43 million of them), so the walk is bounded, and beyond it the whole is unknown."""
    budget = [_MAX_NODES]
    made = _data_value(value, why, 0, budget)
    return made if budget[0] >= 0 else UNKNOWN


_MAX_NODES = 20_000


def _data_value(value: object, why: tuple[Step, ...], depth: int, budget: list[int]) -> Value:
    budget[0] -= 1
    if budget[0] < 0:
        return UNKNOWN
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return ConstV(value, why)
    if isinstance(value, int):
        return make_int(value, why)
    if isinstance(value, float):
        return ConstV(value, why)
    if depth >= 8:
        return UNKNOWN
    if isinstance(value, list):
        items = cast("list[object]", value)
        return TupleV(tuple(_data_value(item, why, depth + 1, budget) for item in items), True, why)
    if isinstance(value, dict):
        entries = cast("dict[object, object]", value)
        if not all(isinstance(key, (str, int)) and not isinstance(key, bool) for key in entries):
            return UNKNOWN
        return DictV(tuple((key, _data_value(item, why, depth + 1, budget)) for key, item in entries.items()), why)
    return UNKNOWN


def _parse(kind: str, text: str) -> tuple[bool, object]:
    """(parsed, the value) of a data text; (False, None) where it is not that format."""
    try:
        if kind == "json":
            return True, json.loads(text)
        if kind == "toml":
            if sys.version_info < (3, 11):
                return False, None  # (no tomllib before 3.11: TOML is not read there)
            import tomllib

            return True, tomllib.loads(text)
        import yaml  # PyYAML: a dependency of the command (pyproject.toml)

        return True, yaml.safe_load(text)
    except ImportError:
        return False, None
    except Exception:  # noqa: BLE001 - any parse failure (a YAML tag, a bad file) is "not known"
        return False, None


def _text_of(value: Value | None) -> str | None:
    """The text an argument holds: a string, or an opened data file's."""
    if isinstance(value, ExtObjectV) and value.qualname == OPENED and value.args:
        value = value.args[0]
    ok, text = const_value(value or UNKNOWN)
    if ok and isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return text if ok and isinstance(text, str) and len(text) <= MAX_TEXT else None


def h_load(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`json.load(f)` / `json.loads(s)`, `yaml.safe_load(f)` / `yaml.load(f, Loader=...)`,
    `tomllib.load(f)` / `tomllib.loads(s)`: the data, as a display would give it."""
    module = q.split(".")[0]
    kind = "json" if module == "json" else "toml" if module in ("tomllib", "tomli", "toml") else "yaml"
    extra = [name for name in kwargs if name not in ("Loader", "stream", "fp", "s")]
    text = _text_of(args[0] if args else kwargs.get("stream") or kwargs.get("fp") or kwargs.get("s"))
    if text is None or extra or len(args) > (2 if kind == "yaml" else 1):
        return UNKNOWN  # (`json.loads(s, object_hook=...)`: what the hook makes is not followed)
    if q == "yaml.load":
        loader = args[1] if len(args) > 1 else kwargs.get("Loader")
        if not (isinstance(loader, ExternalV) and loader.qualname in _SAFE_AS_SAFE_LOAD):
            return UNKNOWN  # (a loader of the code's own may resolve scalars its way; BaseLoader reads strings)
    ok, parsed = _parse(kind, text)
    if not ok:
        return UNKNOWN
    opened = args[0] if args else None
    shown = opened.args[1] if isinstance(opened, ExtObjectV) and opened.qualname == OPENED and len(opened.args) > 1 else None
    source = f"{kind.upper()} file {shown.value}" if isinstance(shown, ConstV) else f"{kind.upper()} text"
    return data_value(parsed, (interp.step(fr, node, f"the {source}, read"),))


# the loaders that read plain data as `yaml.safe_load` does (the same resolvers)
_SAFE_AS_SAFE_LOAD = frozenset(f"yaml.{prefix}{name}" for prefix in ("", "C") for name in ("SafeLoader", "FullLoader", "Loader", "UnsafeLoader"))


def h_open(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`open("configs/lm.yaml")` (for reading): the project's data file, where it is
    certain which (module docstring)."""
    path = path_text(args[0] if args else kwargs.get("file"))
    okm, mode = const_value(args[1] if len(args) > 1 else kwargs.get("mode") or ConstV("r"))
    if not (path is not None and okm and isinstance(mode, str)) or set(mode) - set("rtb") or len(args) > 2:
        return UNKNOWN
    found = read(interp, path, fr)
    if found is None:
        return UNKNOWN
    where, text = found
    why = (interp.step(fr, node, f"the project file {where}"),)
    return ExtObjectV(OPENED, (ConstV(text.encode("utf-8") if "b" in mode else text, why), ConstV(where)), (), why)


def h_exists(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`os.path.exists("configs/lm.json")`: true of the data file the analysis would read
    (a loader's fallback for a name that is not a path: probe 128b); else not known."""
    path = path_text(args[0] if len(args) == 1 and not kwargs else None)
    if path is None or read(interp, path, fr) is None:
        return UNKNOWN
    return ConstV(True, (interp.step(fr, node, f"{path!r} is the project's file"),))


def h_read(interp: Interpreter, args: Args, kwargs: Kwargs, node: ast.AST, fr: Frame, q: str) -> Value:
    """`f.read()` of an opened data file: its text."""
    opened = args[0] if args else None
    if len(args) != 1 or kwargs or not (isinstance(opened, ExtObjectV) and opened.qualname == OPENED and opened.args):
        return UNKNOWN
    return opened.args[0]


def read(interp: Interpreter, path: str, fr: Frame) -> tuple[str, str] | None:
    """(the file as shown, its text) of the one data file `path` names from the reading
    module (or, absolute, built from `__file__`), or None."""
    if not path.endswith(EXTENSIONS) or not interp.project.data_files:
        return None
    if os.path.isabs(path):
        found = [os.path.normpath(path)]
    else:
        folder = os.path.dirname(os.path.abspath(fr.module.path))
        found = [c for c in dict.fromkeys(candidates(folder, path)) if os.path.isfile(c)]
    if len(found) != 1 or found[0] not in interp.project.data_files:
        return None
    try:
        with open(found[0], encoding="utf-8") as handle:
            text = handle.read(MAX_TEXT + 1)
    except (OSError, UnicodeDecodeError):
        return None
    if len(text) > MAX_TEXT:
        return None
    try:
        shown = os.path.relpath(found[0])
    except ValueError:  # (another drive)
        shown = found[0]
    return shown, text


READERS = ("json.load", "json.loads", "yaml.safe_load", "yaml.load", "yaml.full_load", "tomllib.load", "tomllib.loads", "tomli.load", "tomli.loads", "toml.loads")
