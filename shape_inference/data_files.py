"""Configs read from the project's data files: JSON, YAML and TOML.

`json.load(open("configs/lm.json"))`, `yaml.safe_load(f)` under `with open(args.config)
as f:` (an option's default naming the file), `tomllib.load(open(path, "rb"))`: the
lengths a training script runs at are often written in such a file beside it.  The
file is read as the program would read it, and only where that is certain:

* the path is a known relative path (a literal, an option's default, `os.path.join` of
  literals) and names exactly one file among the reading module's folder and each
  folder above it (the program's working directory is one of them; two copies make
  it unknown, as `configdict`'s config-file default does);
* the command's scan found that file (`discovery.data_file_refs`: a literal of the
  analysed files names it), so the result cache is keyed on its content; the flake8
  plugin, which sees one file, reads none;
* no file of the project may write a file of that name (`open(..., "w")`, `write_text`,
  a copy or move onto it: a prepare step run before training), and none writes a file
  its text does not name (`open(path, "w")` in a helper) or changes folder (`os.chdir`):
  then no data file is read at all (`data_file_writes`, read by project_set over the
  whole project, as the scan sees it).

Data is parsed, never run: `json`, `tomllib` and PyYAML's safe loader (whatever
loader the code names: a tag that builds a Python object is not data, and the file is
then unknown).  A value of a type the analysis does not hold (a date) is unknown.
"""

from __future__ import annotations

import ast
import json
import os
import re
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
_EXTENSIONS = (".json", ".yaml", ".yml", ".toml")
# a string literal naming a data file (the scan's and the write check's)
DATA_LITERAL = re.compile(r"""["']([\w][\w./-]*\.(?:json|ya?ml|toml))["']""")
# the literals that end a call's arguments (`os.path.join(here, "configs", "lm.json")`)
_SLASHED_CHAIN = re.compile(r"""((?:["'][\w./-]+["']\s*/\s*)+["'][\w./-]*\.(?:json|ya?ml|toml)["'])""")
_SLASHED_PART = re.compile(r"""/\s*["']([\w.-]+(?:/[\w.-]+)*)["']""")
_JOIN_ARGUMENTS = re.compile(r"""\bjoin\(([^()]*)\)""")
_MAX_FOLDERS = 16  # (folder names and data file names a file's joins combine: a few each)
_DATA_EXTENSION = re.compile(r"""\.(?:json|ya?ml|toml)\b""")
_JOINED_LITERALS = re.compile(r"""((?:["'][\w./-]+["']\s*,\s*)+["'][\w./-]*\.(?:json|ya?ml|toml)["'])\s*\)""")
_STRING_PARTS = re.compile(r"""["']([\w./-]+)["']""")


def candidates(folder: str, relative: str) -> Iterator[str]:
    """Where a relative path may name a file: from `folder` and each folder above."""
    for base in folders_above(os.path.join(folder, "x"), _LEVELS):
        yield os.path.normpath(os.path.join(base, relative))


def data_file_names(text: str) -> frozenset[str]:
    """The names (basenames) of the data files a file's literals spell."""
    if not _DATA_EXTENSION.search(text):  # (one regex pass: four substring tests cost 3.6x as much)
        return frozenset()
    return frozenset(os.path.basename(literal) for literal in DATA_LITERAL.findall(text))


def data_file_refs(path: str, text: str) -> tuple[str, ...]:
    """The existing data files a file's literals may name (absolute, normalised): what
    the analysis of it may read, for the result cache's key.  No parsing."""
    if not _DATA_EXTENSION.search(text):
        return ()
    folder = os.path.dirname(os.path.abspath(path))
    found: dict[str, None] = {}
    literals = DATA_LITERAL.findall(text)
    # `os.path.join("configs", "lm.json")`, `os.path.join(here, "configs", "lm.json")`: the
    # literal parts joined (relative to the file's folder, or to one above it)
    literals += ["/".join(_STRING_PARTS.findall(joined)) for joined in _JOINED_LITERALS.findall(text)]
    # `CONFIG_DIR = os.path.join(HERE, "configs")` then `os.path.join(CONFIG_DIR, "lm.yaml")`
    # (probe 130b): a folder a join of the file names, with each data file name under it
    folders = [part for joined in _JOIN_ARGUMENTS.findall(text) for part in _STRING_PARTS.findall(joined) if not part.endswith(_EXTENSIONS)]
    # `Path(__file__).parent / "configs" / "lm.yaml"`, `CONFIG_DIR = HERE / "configs"`
    literals += ["/".join(_STRING_PARTS.findall(chain)) for chain in _SLASHED_CHAIN.findall(text)]
    folders = [*folders, *(part for part in _SLASHED_PART.findall(text) if not part.endswith(_EXTENSIONS))][:_MAX_FOLDERS]
    literals += [f"{named}/{literal}" for named in dict.fromkeys(folders) for literal in list(dict.fromkeys(literals))[:_MAX_FOLDERS]]
    for literal in dict.fromkeys(literals):
        if not os.path.isabs(literal):
            found.update(dict.fromkeys(c for c in candidates(folder, literal) if os.path.isfile(c)))
    return tuple(found)


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
    if not path.endswith(_EXTENSIONS) or not interp.project.data_files:
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


def data_file_writes(text: str) -> frozenset[str]:
    """The names (basenames) of the data files a file may write or move onto; EVERY_FILE
    where it may write a file whose name its text does not settle (`open(path, "w")`,
    `open(PATHS.get("config", "x.json"), "w")`, `shutil.copy(src, dst)`,
    `target.write_text(...)`, `os.fdopen(fd, "w")`, `open(path, mode)`) or runs in another
    folder (`os.chdir`, a subprocess's `cwd=`): then no relative or other path is certain.
    By text, no parsing: a call's literals (a data file's name, or another file's:
    `"log.txt"`), and a module constant it names (`CONFIG_PATH = "configs/lm.json"`).
    Probes 127a, 128a and 129b broke the first versions with each of these."""
    if "chdir(" in text or _SUBPROCESS_IN_FOLDER.search(text) or _OPEN_HANDED_ON.search(text) or _EXTRACTS.search(text):
        return frozenset({EVERY_FILE})  # (`partial(open, mode="w")`, `GFile = open`: writes not spelled as opens)
    names: set[str] = set()
    constants: dict[str, str] | None = None
    settled: list[str] = []  # the writes whose file the text must show
    if "open(" in text or "fileinput" in text:
        settled += [match.group(0) for match in _OPEN_WRITING.finditer(text)]
    if _MAY_WRITE_OTHERWISE.search(text):
        settled += [_line_of(text, match) for match in _OTHER_WRITE.finditer(text)]
        # `np.savetxt("config.yaml", ...)`, `save_json(cfg, "configs/lm.json")`, a shell
        # command line (`subprocess.run(["cp", preset, "configs/active.json"])`): the data
        # files they show (one a helper or a command built elsewhere writes is out of sight)
        for match in _NAMED_WRITE.finditer(text):
            line = _line_of(text, match)
            if constants is None:
                constants = dict(_STRING_CONSTANT.findall(text))
            shown = [*_FILE_NAME.findall(line), *(constants[name] for name in _WORD.findall(line) if name in constants)]
            data_shown = [name for name in shown if name.endswith(_EXTENSIONS)]
            if not data_shown and match.group(0).startswith(("subprocess", "os.")) and _CHANGING_COMMAND.search(line):
                return frozenset({EVERY_FILE})  # (`subprocess.run(["git", "apply", PATCH])`: which files, not shown; probe 132a)
            names.update(os.path.basename(name) for name in data_shown)
    for call in settled:
        shown = _FILE_NAME.findall(call)
        if not shown:
            if constants is None:
                constants = dict(_STRING_CONSTANT.findall(text))
            shown = [constants[name] for name in _WORD.findall(call) if name in constants and "." in os.path.basename(constants[name])]
        if not shown or _CHOSEN.search(call):
            return frozenset({EVERY_FILE})  # (`PATHS.get("config", "backup.json")` writes config.json)
        names.update(os.path.basename(literal) for literal in shown if literal.endswith(_EXTENSIONS))
    return frozenset(names)


def data_file_uses(text: str, names: frozenset[str]) -> frozenset[str]:
    """The data file names of `names` a file uses other than to read them: a line that
    names one (or a module constant naming one) and calls anything but a reader, or
    says anything that may write (`io.FileIO(CONFIG, "w")`, `logging.FileHandler(path,
    mode="w")`, `arr.tofile("x.json")`, `getattr(p, "write_text")`).  Fails closed:
    probe 132a found fourteen ways to write a file that a list of writers misses; a
    file named only where it is read, built, passed as a default or listed is read."""
    found = [name for name in names if name in text]
    if not found:
        return frozenset()
    constants = {constant: os.path.basename(value) for constant, value in _STRING_CONSTANT.findall(text) if os.path.basename(value) in found}
    used: set[str] = set()
    for line in text.splitlines():
        named = [name for name in found if name in line] + [value for constant, value in constants.items() if re.search(rf"\b{re.escape(constant)}\b", line)]
        if named and not _only_reads(line):
            used.update(named)
    return frozenset(used)


def _only_reads(line: str) -> bool:
    """Does a line that names a data file only read, build, pass on as a default or list
    it (every call a reader's, nothing that may write)?"""
    if _MAY_WRITE_HERE.search(line):
        return False
    return all(_READER_CALL.search(call) for call in _CALLED.findall(line))


_CALLED = re.compile(r"""([A-Za-z_][\w.]*)\s*\(""")
# the callees that only read, build a path or declare an option, by their last name
_READER_CALL = re.compile(
    r"""(?:^|\.)(?:open|load|loads|safe_load|full_load|read|read_text|read_bytes|Path|PurePath|PosixPath|join|joinpath|exists|isfile|is_file|"""
    r"""dirname|abspath|realpath|normpath|resolve|absolute|get|getenv|add_argument|option|Option|argument|Argument|field|print|str|repr|"""
    r"""format|info|debug|warning|DEFINE_\w+|\w*(?:load|read|parse)\w*)$""",
    re.IGNORECASE,
)
_MAY_WRITE_HERE = re.compile(r"""["'](?:[wax]|r?[bt]?\+|[wax][bt+]*|[rb]+\+)["']|\bmode\s*=|\*|write|dump|save|tofile|extract|unpack|Handler|FileIO|copy|move|rename|replace|link|creat|touch|truncate|getattr|setattr""", re.IGNORECASE)


def _line_of(text: str, match: re.Match[str]) -> str:
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    return text[start : end if end >= 0 else len(text)]


EVERY_FILE = "*"  # (data_file_writes: a write whose file is not known)
_ARGS = r"""(?:[^()]|\([^()]*\))*"""  # a call's arguments, one level of parentheses inside
# an open() whose mode writes or is not a literal (`open(path, mode)`), `os.open` (flags),
# `os.fdopen(fd, "w")`, `fileinput.input(..., inplace=True)`
_OPEN_WRITING = re.compile(
    rf"""\b\w*open\({_ARGS}?(?:["'](?:[wax][bt+]*|r[bt]?\+[bt]*)["']|\bmode\s*=\s*(?!["']r[bt]?["']))({_ARGS})\)"""
    rf"""|\b\w*open\((?:[^(),]|\([^()]*\))*,\s*(?!["'\s]|(?:mode|encoding|newline|errors|buffering|closefd|opener)\s*=)(?:[A-Za-z_]|\*){_ARGS}\)"""
    rf"""|\bos\.open\({_ARGS}\)|\bfdopen\({_ARGS}\)|\bfileinput\.input\({_ARGS}\binplace\b{_ARGS}\)"""
)
_MAY_WRITE_OTHERWISE = re.compile(r"""write_|symlink|hardlink|shutil\.|copyfile|copy2|copytree|extract|unpack_archive|os\.(?:rename|replace|link)|\.(?:replace|rename)\(|save|dump|subprocess\.|os\.(?:system|popen)""")
# a write whose file the line must show: pathlib's, shutil's, os's renames, and pathlib's
# `tmp.replace(target)` / `.rename(target)` (one bare argument: not str.replace)
_OTHER_WRITE = re.compile(
    r"""\.(?:write_text|write_bytes|symlink_to|hardlink_to)\(|\bshutil\.(?:copy\w*|move)\(|\b(?:copyfile|copy2|copytree)\("""
    r"""|\bos\.(?:renames?|replace|link|symlink)\(|\.(?:replace|rename)\(\s*[A-Za-z_][\w.]*\s*\)"""
)
# writes known by the data files their line shows, never by what it does not
_NAMED_WRITE = re.compile(r"""\b(?:save\w*|\w*_save|savetxt|dump|safe_dump|to_json|to_yaml|write_json|write_yaml|write_toml)\(|\bsubprocess\.\w+\(|\bos\.(?:system|popen)\(""")
_OPEN_HANDED_ON = re.compile(r"""\bgetattr\([^()\n]*["'](?:write\w*|open|unlink|rename|replace|touch|symlink_to)["']|\bpartial\(\s*(?:[\w.]+\.)?open\b|^\s*\w+\s*=\s*(?:io\.|builtins\.|codecs\.)?open\s*(?:#.*)?$|\bimport\s+open\s+as\b""", re.MULTILINE)
# a command that may change files it does not name (git's, a patch, an archive, a copy)
_CHANGING_COMMAND = re.compile(r"""["'](?:apply|checkout|restore|reset|pull|merge|am|patch|cp|mv|tar|unzip|rsync|sed|curl|wget|make|dvc|ln)["']|\b(?:git\s+(?:apply|checkout|restore|reset|pull|merge)|patch|cp|mv|tar|unzip|rsync|sed\s+-i|curl|wget|make|dvc|ln)\s""")
_EXTRACTS = re.compile(r"""\.extract(?:all)?\(|\bunpack_archive\(""")  # (an archive's files are not named)
_SUBPROCESS_IN_FOLDER = re.compile(r"""\bsubprocess\.\w+\([^\n]*\bcwd\s*=|\bcwd\s*=\s*[^\n]*\)\s*$""", re.MULTILINE)
_CHOSEN = re.compile(r"""\.get\(|\[|\bor\b|\bif\b""")  # a path chosen at run time among several
_STRING_CONSTANT = re.compile(r"""^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=\s*["']([\w./-]+)["']\s*(?:#.*)?$""", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z_]\w*")
_FILE_NAME = re.compile(r"""([\w-][\w.-]*\.\w+)["']""")  # a file name ending a string (f-strings too)


READERS = ("json.load", "json.loads", "yaml.safe_load", "yaml.load", "yaml.full_load", "tomllib.load", "tomllib.loads", "tomli.load", "tomli.loads", "toml.loads")
