"""Finding, reading and decoding the files the command lints.

`discover` walks the paths it is given the way flake8 does (fnmatch excludes on the
basename and on the absolute path; a symlink to a folder is entered only where it leads
to a folder inside the path given, so `sub/parent -> ../..` cannot lead outside it (probe
145a) while a package's `layers -> ../shared/layers` is still read as its part (probe
148b)), skips
the folders no project wants linted (version control, caches, virtual environments, build
output), and enters every folder once by its real path.

`read_source` turns a file's bytes into text the way Python itself would: a BOM or a
PEP 263 coding cookie decides the encoding (`tokenize.detect_encoding`), and a NUL
byte or an undecodable byte is an error the caller reports as JCD900, never a crash.
`scan_file` is the per-file work the command hands to its worker processes: read,
hash, gate (`gate.might_matter`), and list what project_set needs without parsing: the
file's imports (a cheap regex), its top-level def/class names, and whether it uses a
differentiation transform as code.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
import tokenize
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatch
from typing import NamedTuple

from jax_cudnn_lint.gate import DIFFERENTIATION_NAMES, might_matter, too_large
from jax_cudnn_lint.data_scan import data_file_names, data_file_refs
from jax_cudnn_lint.shape_inference.data_files import MAX_TEXT

# Folders never walked into (an explicitly named path is still linted).
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "build",
        "dist",
        "node_modules",
        "site-packages",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)
SKIP_DIR_SUFFIXES = (".egg-info",)
PYTHON_SUFFIXES = (".py",)


def normalize_pattern(pattern: str, parent: str = os.curdir) -> str:
    """flake8's rule: a pattern with a path separator is anchored at `parent`."""
    separators = os.sep + (os.altsep or "")
    if pattern == "." or any(sep in pattern for sep in separators):
        pattern = os.path.abspath(os.path.join(parent, pattern))
    return pattern.rstrip(separators) or pattern


def is_excluded(path: str, patterns: Sequence[str]) -> bool:
    """fnmatch on the basename, then on the absolute path (flake8's `matches_filename`)."""
    if not patterns:
        return False
    basename = os.path.basename(os.path.normpath(path))
    if basename not in {".", ".."} and any(fnmatch(basename, p) for p in patterns):
        return True
    absolute = os.path.abspath(path)
    return any(fnmatch(absolute, p) for p in patterns)


def _skip_dir(path: str, name: str) -> bool:
    if name in SKIP_DIRS or name.endswith(SKIP_DIR_SUFFIXES):
        return True
    # Any virtual environment, whatever its name.
    return os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def _walk(top: str, patterns: Sequence[str], seen_dirs: set[str], inside: str | None = None) -> Iterator[tuple[str, str]]:
    """(path, real path) of each file: depth-first, sorted, entering each real folder
    once, and a folder through a symlink only where it lies inside `inside` (the real
    path of the folder given; a linked file is taken).  A file's real path is its real
    folder's plus its name unless the file is itself a link: one `realpath` per folder,
    not per file."""
    real = os.path.realpath(top)
    if inside is None:
        inside = real
    if real in seen_dirs:
        return
    seen_dirs.add(real)
    try:
        entries = sorted(os.scandir(top), key=lambda e: e.name)
    except OSError:
        return
    subdirs: list[str] = []
    for entry in entries:
        path = os.path.join(top, entry.name)
        try:
            is_dir = entry.is_dir()  # (a link to a folder is a folder, as os.walk lists it)
        except OSError:
            is_dir = False
        if is_dir:
            if entry.is_symlink() and not _within(os.path.realpath(path), inside):
                continue
            if not _skip_dir(path, entry.name) and not is_excluded(path, patterns):
                subdirs.append(path)
        elif entry.name.endswith(PYTHON_SUFFIXES) and not is_excluded(path, patterns):
            try:
                link = entry.is_symlink()
            except OSError:
                link = True
            yield path, (os.path.realpath(path) if link else os.path.join(real, entry.name))
    for sub in subdirs:
        yield from _walk(sub, patterns, seen_dirs, inside)


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def discover(paths: Iterable[str], exclude: Sequence[str] = ()) -> list[str]:
    """The Python files under `paths`, each once, in a stable order.

    Folders are walked; a file named explicitly is taken whatever its suffix (as
    flake8 does).  `exclude` holds fnmatch patterns, already normalised with
    `normalize_pattern`; they apply to named paths too.  A file reached twice (two
    arguments, or through a symlink) is listed once, under its own name if that was
    reached, else under the first name found.
    """
    seen_dirs: set[str] = set()
    by_real: dict[str, str] = {}
    for given in paths:
        given = os.path.normpath(given)
        if is_excluded(given, exclude):
            continue
        if os.path.isdir(given):
            candidates = _walk(given, exclude, seen_dirs)
        else:
            candidates = iter(((given, os.path.realpath(given)),))
        for path, real in candidates:
            path = os.path.normpath(path)
            kept = by_real.get(real)
            # Prefer the file's own name to a symlink's.
            if kept is None or (_is_link_path(kept) and not _is_link_path(path)):
                by_real[real] = path
    return list(by_real.values())


def _is_link_path(path: str) -> bool:
    return os.path.realpath(path) != os.path.abspath(path)


class SourceError(Exception):
    """A file that cannot be read or decoded (reported as JCD900)."""

    def __init__(self, message: str, line: int = 1, col: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


def decode_source(data: bytes) -> str:
    """Bytes -> text as Python decodes a source file (BOM, PEP 263 cookie, UTF-8 default).

    Raises SourceError for NUL bytes, an unknown or wrong encoding.
    """
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise SourceError("source contains a NUL byte", line)
    # The common case, without tokenize: no BOM and no PEP 263 cookie (it can only sit
    # on the first two lines), so UTF-8; anything else takes the exact path below.
    head_end = data.find(b"\n", data.find(b"\n") + 1)
    head = data if head_end < 0 else data[:head_end]
    if not data.startswith(b"\xef\xbb\xbf") and b"coding" not in head:
        try:
            return _universal_newlines(data.decode("utf-8"))
        except UnicodeDecodeError:
            pass  # reported with its line and column below
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # bad cookie, a BOM that contradicts it, or not UTF-8
        message = str(exc.msg)
        if message.startswith("invalid or missing encoding declaration"):
            message = "not valid UTF-8 and no PEP 263 coding declaration"
        elif not message.startswith("encoding problem"):
            message = f"bad encoding declaration: {message}"
        raise SourceError(message, exc.lineno or 1) from None
    try:
        text = data.decode(encoding)
    except LookupError:
        raise SourceError(f"unknown encoding {encoding!r}") from None
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.end].hex(" ")
        raise SourceError(
            f"cannot decode as {encoding}: {exc.reason} (byte {bad})", line, exc.start - line_start
        ) from None
    return _universal_newlines(text)


def _universal_newlines(text: str) -> str:
    """As the interpreter reads source."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def source_lines(text: str) -> list[str]:
    """The lines of a source text as Python numbers them: split at \n, \r\n and \r
    only (str.splitlines also splits at form feeds, \x1c-\x1e, \x85, U+2028 and U+2029,
    which made `# noqa` and `--show-source` read the wrong line: probe 43c)."""
    return _universal_newlines(text).split("\n")


def read_source(path: str) -> tuple[str, str]:
    """(text, sha256 of the bytes) of a file; SourceError when unreadable or undecodable."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block open()
            raise SourceError("not a regular file")
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise SourceError(f"cannot read file: {exc.strerror or exc}") from None
    return decode_source(data), hashlib.sha256(data).hexdigest()


def hashed_files(paths: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """(path, sha256 of its bytes) of each readable file of `paths` small enough to be
    read as a config (a dataset's JSON is not: the analysis does not read it either)."""
    found: list[tuple[str, str]] = []
    for path in paths:
        try:
            if os.stat(path).st_size > 4 * MAX_TEXT:
                continue
            with open(path, "rb") as handle:
                found.append((path, hashlib.sha256(handle.read()).hexdigest()))
        except OSError:
            continue
    return tuple(found)


# One import statement: `import a.b as c, d` or `from ..x import (y, z as w)`.
# Over-matching (an import inside a string) only widens the analysed set.
_IMPORT_RE = re.compile(
    r"^[ \t]*(?:"
    # the base is dots then a dotted name (one way to split it: no backtracking blow-up)
    r"from[ \t]+(?P<base>\.+(?:\w+(?:\.\w+)*)?|\w+(?:\.\w+)*)[ \t]+import[ \t]*(?P<names>\([^)]*\)|(?:[^\n\\#;]|\\\n)*)"
    r"|import[ \t]+(?P<mods>(?:[^\n\\#;]|\\\n)+))",
    re.MULTILINE,
)
_WORD_RE = re.compile(r"\w+")
# a statement at column 0 that is a bare call (`main()`, `print(...)`, `trainer.fit(...)`)
_TOP_LEVEL_CALL = re.compile(r"^[A-Za-z_][\w.]*\(", re.MULTILINE)
_NOT_CALLS = frozenset({"if", "elif", "while", "for", "with", "return", "assert", "del", "not", "lambda", "await", "yield", "raise", "except"})
_NAME_RE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


class ImportRef(NamedTuple):
    """An import as written: `level` leading dots, `module`, and imported `names`.

    `bound` holds, for each of `names`, the name it is bound to in the importer
    (`from m import a as b` binds `b`).
    """

    level: int
    module: str
    names: tuple[str, ...] = ()
    bound: tuple[str, ...] = ()


def _split_names(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """'(a, b as c)' -> (('a', 'b'), ('a', 'c')): the names and what they are bound to."""
    text = text.replace("\\\n", " ").strip().strip("()")
    names: list[str] = []
    bound: list[str] = []
    for part in text.split(","):
        words = part.split("#", 1)[0].split()
        if words and _NAME_RE.fullmatch(words[0]):
            names.append(words[0])
            alias = words[2] if len(words) == 3 and words[1] == "as" else words[0]
            bound.append(alias)
    return tuple(names), tuple(bound)


def _import_statements(text: str) -> Iterator[re.Match[str]]:
    """_IMPORT_RE's matches, tried only at the start of lines that say `import`.

    Every match starts on such a line, so this finds what `finditer` would, without
    trying the pattern at every line of the file.
    """
    consumed = 0
    at = text.find("import")
    while at >= 0:
        line_start = text.rfind("\n", 0, at) + 1
        if line_start >= consumed:
            match = _IMPORT_RE.match(text, line_start)
            if match is not None:
                consumed = match.end()
                yield match
        at = text.find("import", max(at + len("import"), consumed))


def scan_imports(text: str) -> tuple[ImportRef, ...]:
    """Every module a file may import, by regex: no parsing (the file may be broken)."""
    refs: list[ImportRef] = []
    for match in _import_statements(text):
        base = match.group("base")
        if base is not None:
            module = base.lstrip(".")
            if module and not _NAME_RE.fullmatch(module):
                continue
            names, bound = _split_names(match["names"])
            refs.append(ImportRef(len(base) - len(module), module, names, bound))
        else:
            refs.extend(ImportRef(0, name) for name in _split_names(match["mods"])[0])
    if "DEFINE_config_file" in text:
        # `config_flags.DEFINE_config_file("config", "configs/lm.py:tiny")`: absl loads that
        # file at parse time and calls its get_config (shape_inference/configdict.py)
        for path in _CONFIG_FILE_DEFAULT.findall(text):
            dotted = path.removeprefix("./").replace("/", ".")
            if _NAME_RE.fullmatch(dotted):
                refs.append(ImportRef(0, dotted))
    if "import_module(" in text:
        # `importlib.import_module("models.encoder")` with a literal dotted name: a launcher
        # that loads its model so (probe 96d) imports it as `import models.encoder` would
        refs.extend(ImportRef(0, name) for name in _IMPORT_MODULE_LITERAL.findall(text) if _NAME_RE.fullmatch(name))
        # `import_module(args.config)` with `default="configs.base"`: a dotted string the
        # file spells may be the module it loads (probe 122d); a name that is no module of
        # the project leads nowhere
        dotted = _DOTTED_LITERAL.findall(text)
        if len(dotted) <= _MAX_DOTTED_LITERALS:
            refs.extend(ImportRef(0, name) for name in dotted if _NAME_RE.fullmatch(name))
        # `import_module(f"configs.{name}")`, `import_module("configs." + name)`: an
        # experiment chosen by name at run time, one of the package's modules (probe 100d)
        built = (match[1] or match[2] for match in _IMPORT_MODULE_BUILT.finditer(text))
        refs.extend(ImportRef(0, name, (EVERY_SUBMODULE,)) for name in built if _NAME_RE.fullmatch(name))
        # `import_module(".frames", package="configs")`, `import_module(f".{name}", "configs")`,
        # `import_module(f".models.{name}", package="vision")` (probe 126a)
        for match in _IMPORT_MODULE_RELATIVE.finditer(text):
            built_name, name, package = match["built"], match["name"], match["package"]
            if built_name:
                within = (match["within"] or "").rstrip(".")
                refs.append(ImportRef(0, f"{package}.{within}" if within else package, (EVERY_SUBMODULE,)))
            elif _NAME_RE.fullmatch(f"{package}.{name}"):
                refs.append(ImportRef(0, f"{package}.{name}"))
        # `import_module(".vit", __name__)` in a package's lazy `__getattr__`: a module of
        # the importer's own package, as `from . import vit` (probe 107d)
        for match in _IMPORT_MODULE_OWN_PACKAGE.finditer(text):
            built_name, name = match["built"], match["name"]
            if built_name or match["held"]:  # (`import_module(_LAZY[name], __name__)`: any of them)
                refs.append(ImportRef(1, (match["within"] or "").rstrip("."), (EVERY_SUBMODULE,)))
            elif _NAME_RE.fullmatch(name):
                refs.append(ImportRef(1, name))
    return tuple(refs)


_CONFIG_FILE_DEFAULT = re.compile(r"""\bDEFINE_config_file\(\s*(?:name\s*=\s*)?["'][\w.-]*["']\s*,\s*(?:default\s*=\s*)?["']([\w./]+)\.py(?::[^"'\n]*)?["']""")
_DOTTED_LITERAL = re.compile(r"""["']([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)["']""")
_MAX_DOTTED_LITERALS = 64  # (a file spelling more is a table of names, not a config choice)
_IMPORT_MODULE_LITERAL = re.compile(r"""\bimport_module\(\s*["']([A-Za-z_][\w.]*)["']\s*\)""")
_IMPORT_MODULE_BUILT = re.compile(r"""\bimport_module\(\s*(?:f["']([A-Za-z_][\w.]*)\.\{|["']([A-Za-z_][\w.]*)\.["']\s*\+)""")
_IMPORT_MODULE_RELATIVE = re.compile(
    r"""\bimport_module\(\s*(?P<built>f)?["']\.(?P<name>[A-Za-z_][\w.]*|(?P<within>(?:[A-Za-z_]\w*\.)*)\{[^}'"]*\})["']\s*,\s*(?:package\s*=\s*)?["'](?P<package>[A-Za-z_][\w.]*)["']\s*\)"""
)
_IMPORT_MODULE_OWN_PACKAGE = re.compile(
    r"""\bimport_module\(\s*(?:(?P<built>f)?["']\.(?P<name>[A-Za-z_][\w.]*|(?P<within>(?:[A-Za-z_]\w*\.)*)\{[^}'"]*\})["']|(?P<held>[\w.\[\]]+))\s*,\s*(?:package\s*=\s*)?(?:__name__|__package__)\s*\)"""
)
# the names of an ImportRef for a module of a package chosen at run time (no name is "*")
EVERY_SUBMODULE = "*"


@dataclass(frozen=True)
class Problem:
    """Why a file could not be used, at a line (sent back from worker processes)."""

    message: str
    line: int = 1
    col: int = 0


@dataclass(frozen=True)
class ScannedFile:
    """What a worker learns about one file without parsing it.

    `text` is kept only for gated files (the others are re-read if the project
    analysis needs them), so the workers send little back.
    """

    path: str
    sha256: str | None = None
    gated: bool = False
    imports: tuple[ImportRef, ...] = ()
    text: str | None = None
    error: Problem | None = None
    internal_error: str | None = None
    differentiates: bool = False  # names a JAX differentiation transform (grad, vjp, ...)
    # says "__main__" (`if __name__ == "__main__":`), or calls something at its top level
    # (`print(attend(q).shape)` in an eval script): it runs as a script
    main_guard: bool = False
    defines: tuple[str, ...] = ()  # names of its top-level defs and classes
    functions: tuple[str, ...] = ()  # the defs among them
    # a package __init__'s top-level assignments: (name, the words of its value), so that
    # `MODELS = {"vit": ViT}` beside `from .vit import ViT` leads where ViT does (probe 50b)
    bindings: tuple[tuple[str, frozenset[str]], ...] = ()
    # a gated file's top-level decorators' first names (`@register("vit")` -> "register"):
    # a registry module whose decorator a leading file uses leads too (project_set, probe
    # 50b; another leading file's are read there, when it leads: few files do)
    decorators: frozenset[str] = frozenset()
    size: int = 0  # characters of text: what analysing the file may cost
    # the data files (JSON, YAML, TOML) its literals may name: (absolute path, sha256),
    # which the analysis may read (shape_inference/data_files.py) and the cache keys on
    data_files: tuple[tuple[str, str], ...] = ()
    # the names of the data files its literals spell, wherever they lie (project_set finds
    # them under the root: `os.path.join(CONFIG_DIR, "x.json")`, CONFIG_DIR in paths.py)
    data_names: frozenset[str] = frozenset()


# Every name in DIFFERENTIATION_NAMES contains one of these (jacrev, jacfwd and jacobian
# share "jac": one pass over the text instead of three).
_DIFFERENTIATION_WORDS = ("grad", "vjp", "jvp", "linearize", "jac", "hessian")


def mentions_differentiation(text: str) -> bool:
    """Cheap: could this file differentiate something (and so be an entry point)?

    True when a transform's name (gate.DIFFERENTIATION_NAMES, the names the analysis
    looks for) is used as code is: an attribute (`jax.grad`), a call (`grad(`) or on
    an import line.  Prose in comments and docstrings ("compute the grad"),
    `gradient_checkpointing` and PyTorch's `torch.no_grad()` do not count.  `str.find`
    only (C speed) until a candidate shows up; a candidate is widened to the whole
    identifier around it.
    """
    size = len(text)
    for word in _DIFFERENTIATION_WORDS:
        at = text.find(word)
        while at >= 0:
            end = at + len(word)
            while end < size and _is_word_char(text[end]):
                end += 1
            start = at
            while start > 0 and _is_word_char(text[start - 1]):
                start -= 1
            if text[start:end] in DIFFERENTIATION_NAMES and _used_as_code(text, start, end):
                return True
            at = text.find(word, end)
    return False


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _used_as_code(text: str, start: int, end: int) -> bool:
    """Is the word text[start:end] an attribute, a callee, or on an import line?"""
    after = text[end : end + 2].lstrip(" ")
    if (start > 0 and text[start - 1] == ".") or after.startswith("("):
        return True
    line = text[text.rfind("\n", 0, start) + 1 : start].lstrip()
    return line.startswith(("from ", "import ")) or (
        # a name inside a parenthesised `from m import (\n    grad,\n)` list
        not line and text.rfind("import (", 0, start) > text.rfind(")", 0, start)
    )


def _after_line_starts(text: str, word: str) -> Iterator[int]:
    """The offsets just after `word` wherever a line starts with it."""
    if text.startswith(word):
        yield len(word)
    at = text.find("\n" + word)
    while at >= 0:
        yield at + 1 + len(word)
        at = text.find("\n" + word, at + 1)


def top_level_definitions(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Cheap: the names of the defs and classes that start a line, and of the defs among
    them (`str.find` only, one pass per keyword)."""
    found: dict[str, list[str]] = {}
    for keyword in ("def ", "class ", "async def "):
        names = found[keyword] = []
        for start in _after_line_starts(text, keyword):
            name = _WORD_RE.match(text, start)
            if name is not None:
                names.append(name.group())
    functions = (*found["def "], *found["async def "])
    return (*found["def "], *found["class "], *found["async def "]), functions


_TOP_LEVEL_ASSIGNMENT = re.compile(r"^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)", re.MULTILINE)
_NEXT_TOP_LEVEL_STATEMENT = re.compile(r"\n(?=[A-Za-z_@])")


def top_level_bindings(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Cheap: each `NAME = value` (or `NAME: T = value`) that starts a line, with the
    words of its value up to the next statement that starts a line (dunders skipped:
    `__all__` and `__version__` lead nowhere)."""
    found: list[tuple[str, frozenset[str]]] = []
    for match in _TOP_LEVEL_ASSIGNMENT.finditer(text):
        name = match.group(1)
        if name.startswith("__"):
            continue
        end = _NEXT_TOP_LEVEL_STATEMENT.search(text, match.end())
        value = text[match.end() : end.start() if end is not None else len(text)]
        found.append((name, frozenset(_WORD_RE.findall(value))))
    return tuple(found)


def decorator_names(text: str) -> frozenset[str]:
    """Cheap: the first name of each decorator of a top-level definition, where a
    registration is (`@registry.register(...)` -> "registry"; a method's decorators are
    indented): each `@` that starts a line."""
    found: set[str] = set()
    for start in _after_line_starts(text, "@"):
        name = _WORD_RE.match(text, start)
        if name is not None and not name.group()[0].isdigit():
            found.add(name.group())
    return frozenset(found)


def _calls_at_top_level(text: str) -> bool:
    """Does a line at column 0 call something (not `if(`, `return(`...)?"""
    return any(found.group().split(".")[0].rstrip("(") not in _NOT_CALLS for found in _TOP_LEVEL_CALL.finditer(text))


def scan_file(path: str, max_file_mb: float | None = None, data_configs: bool = False) -> ScannedFile:
    """Read, hash, gate and list imports of one file.  Never raises.

    A gated file over `max_file_mb` comes back as an error: it will not be parsed.  With
    `data_configs`, the data files its literals may name too (--read-data-configs).
    """
    try:
        text, digest = read_source(path)
        gated = might_matter(text)
        if gated:
            message = too_large(len(text.encode("utf-8", "surrogatepass")), max_file_mb)
            if message is not None:
                return ScannedFile(path, error=Problem(message))
        defines, functions = top_level_definitions(text)
        return ScannedFile(
            path, digest, gated, scan_imports(text), text if gated else None,
            differentiates=mentions_differentiation(text),
            main_guard="__main__" in text or _calls_at_top_level(text),
            defines=defines,
            functions=functions,
            bindings=top_level_bindings(text) if os.path.basename(path).startswith("__init__.") else (),
            decorators=decorator_names(text) if gated else frozenset(),
            size=len(text),
            data_files=hashed_files(data_file_refs(path, text)) if data_configs else (),
            data_names=data_file_names(text) if data_configs else frozenset(),
        )
    except SourceError as exc:
        return ScannedFile(path, error=Problem(exc.message, exc.line, exc.col))
    except Exception as exc:
        if os.environ.get("JCD_RAISE_INTERNAL_ERRORS") == "1":
            raise
        return ScannedFile(path, internal_error=f"{type(exc).__name__}: {exc}")
