"""The command's scan of a project for data configs (--read-data-configs): which JSON,
YAML and TOML files a file's literals may name (the analysis may read them, the result
cache keys on them), and which a project may write or use otherwise, so that none of
those is read (shape_inference/data_files.py says what reading one means).  By text, no
parsing; used only when the option is given, so the plugin never compiles these
patterns.
"""

from __future__ import annotations

import os
import re

from jax_cudnn_lint.shape_inference.data_files import EXTENSIONS
from jax_cudnn_lint.shape_inference.data_files import candidates

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
    folders = [part for joined in _JOIN_ARGUMENTS.findall(text) for part in _STRING_PARTS.findall(joined) if not part.endswith(EXTENSIONS)]
    # `Path(__file__).parent / "configs" / "lm.yaml"`, `CONFIG_DIR = HERE / "configs"`
    literals += ["/".join(_STRING_PARTS.findall(chain)) for chain in _SLASHED_CHAIN.findall(text)]
    folders = [*folders, *(part for part in _SLASHED_PART.findall(text) if not part.endswith(EXTENSIONS))][:_MAX_FOLDERS]
    literals += [f"{named}/{literal}" for named in dict.fromkeys(folders) for literal in list(dict.fromkeys(literals))[:_MAX_FOLDERS]]
    for literal in dict.fromkeys(literals):
        if not os.path.isabs(literal):
            found.update(dict.fromkeys(c for c in candidates(folder, literal) if os.path.isfile(c)))
    return tuple(found)


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
            data_shown = [name for name in shown if name.endswith(EXTENSIONS)]
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
        names.update(os.path.basename(literal) for literal in shown if literal.endswith(EXTENSIONS))
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
