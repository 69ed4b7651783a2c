"""Environment variables' defaults as seeds, like argparse's (SHAPES.md): after

    SEQ_LEN = int(os.environ.get("SEQ_LEN", "1024"))

`SEQ_LEN` is 1024 on a run without the variable set, with the read as its provenance;
a finding built on it holds for that run, as one built on an option's default holds for
the run without the option (probes 109a, 111d).

Only a read with its default spelled out (`os.environ.get(name, default)`,
`os.getenv(name, default)`), of a name no analysed module may set: a module that writes
it (`os.environ[name] = ...`, `setdefault`, `update`, pytest's `monkeypatch.setenv`,
`mock.patch.dict(os.environ, ...)`) or may write names it does not spell (a loop over a
dict, `load_dotenv()`, `os.environ.clear()`, an alias of `os.environ` or a helper it is
handed to) makes the read Unknown.
A read without a default (None when unset) stays Unknown: code branches on whether a
variable is set far more often than it sizes arrays from its absence.
"""

from __future__ import annotations

import ast
import re
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference import recursion
from jax_cudnn_lint.shape_inference.lazy_defs import LazyDef
from jax_cudnn_lint.shape_inference.modules import conftest_paths
from jax_cudnn_lint.shape_inference.scopes import dotted_name
from jax_cudnn_lint.shape_inference.values import UNKNOWN, ConstV, IntV, Value, const_value

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter
    from jax_cudnn_lint.shape_inference.modules import ModuleInfo, Project

READS = ("os.environ.get", "os.getenv")
# calls that set or unset the variable named by their first argument (`os.putenv` changes
# the process's environment, not `os.environ`, which the reads read: not one)
_SETS_ONE = ("environ.setdefault", "environ.pop", "environ.__setitem__", "environ.__delitem__", "setenv", "delenv")
# calls that set what their dict or keywords name
_SETS_MANY = ("environ.update",)
# calls that may set any variable
_SETS_ANY = ("environ.clear", "load_dotenv", "environ.popitem")
# os.environ's methods that write it: the call pass reads them where they are called
_WRITE_METHODS = frozenset({"setdefault", "pop", "update", "clear", "popitem", "__setitem__", "__delitem__", "__ior__"})
# os.environ's methods that read it, or write it as the call pass reads
_READS_OR_CALL_PASS = frozenset({"get", "copy", "items", "keys", "values", "__contains__", "__getitem__", "__iter__", "__len__"}) | _WRITE_METHODS
# calls handed os.environ that only copy or show it
_COPIES = frozenset({"dict", "copy.copy", "copy.deepcopy", "len", "sorted", "list", "print", "repr", "str", "set", "frozenset"})

# text without any of these sets no variable
_MARKERS = ("environ", "setenv", "delenv", "dotenv")
# (a project) -> the writes of its modules folded so far; weak: a flake8 process makes a
# project for every file it checks
_folded: weakref.WeakKeyDictionary[Project, _Folded] = weakref.WeakKeyDictionary()
# (a module's tree) -> the names it may set, and whether it may set names it does not spell
_written: weakref.WeakKeyDictionary[ast.Module, tuple[frozenset[str], bool]] = weakref.WeakKeyDictionary()


def read_default(interp: Interpreter, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> Value:
    """The default of `os.environ.get(name, default)` / `os.getenv(name, default)` where
    no analysed module may set `name`; else Unknown."""
    ok, name = const_value(args[0]) if args else (False, None)
    default = args[1] if len(args) == 2 and not kwargs else kwargs.get("default") if len(args) == 1 and set(kwargs) == {"default"} else None
    if not ok or not isinstance(name, str) or default is None or may_be_set(interp, fr, name):
        return UNKNOWN
    step = interp.step(fr, node, f"default of ${name} (unset in the environment)")
    if isinstance(default, IntV):
        return IntV(default.dim.with_why(step))
    if isinstance(default, ConstV):
        return ConstV(default.value, (*default.why, step))
    return default


def may_be_set(interp: Interpreter, fr: Frame, name: str) -> bool:
    """Does the reading module, the program's entry module, any conftest.py of the
    project (a fixture's `monkeypatch.setenv`, autouse or not: the function that reads
    may be judged from its own module before a test's run reaches it, probe 112d), the
    project's roots, any other module the analysis has parsed, or a file these import,
    set `name` or variables it does not spell?"""
    project = interp.project
    entry = fr.ctx.chain[0].path if fr.ctx.chain else fr.module.path
    around: list[ModuleInfo] = [fr.module]
    for path in (entry, *conftest_paths(entry)):
        info = project.by_path.get(path)
        if info is not None:
            project.load(info)
            around.append(info)
    for module in around:
        names, any_name = _module_writes(module)
        if any_name or name in names:
            return True
    return _project_writes(project).answers(project, name)


class _Folded:
    """The writes of a project's modules, folded as reads need them, each module once,
    and no further once any name may be set: its conftests and roots first, then what the
    analysis parsed, then the files these import that the analysis never parsed (a
    module imported only for what its import does, `import pkg.hooks`: probe 117a), read
    from disk and parsed only where the text may set a variable.  (215 reads over
    the corpus scanned every module each time: 2 s.)"""

    def __init__(self, project: Project) -> None:
        self.names: set[str] = set()
        self.any_name = False
        self.fixed = [*project.conftests(), *project.roots]
        self.fixed_done = 0  # how many of `fixed` are folded in
        self.parsed_done = 0  # how many of project.parsed
        self.done: set[str] = set()  # the paths folded in
        self.others: list[ModuleInfo] | None = None  # the rest of the project, once reached

    def answers(self, project: Project, name: str) -> bool:
        """May `name` be set by what is folded, folding on until it may or all is?"""
        while not (self.any_name or name in self.names):
            if self.fixed_done < len(self.fixed):
                module = self.fixed[self.fixed_done]
                self.fixed_done += 1
                written = _module_writes(module)
            elif self.parsed_done < len(project.parsed):
                module = project.parsed[self.parsed_done]
                self.parsed_done += 1
                written = _module_writes(module)
            else:
                if self.others is None:
                    # the files those import (a module imported for what its import does)
                    self.others = [info for info in project.by_path.values() if info.path not in self.done and any(importer in self.done for importer in project.imported_by.get(info.path, ()))]
                if not self.others:
                    return False
                module = self.others.pop()
                if module.path in self.done:
                    continue
                written = _module_writes(module) if module.loader is None else _file_writes(module.path)
            self.done.add(module.path)
            self.names |= written[0]
            self.any_name = self.any_name or written[1]
        return True


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except (OSError, ValueError):
        return None


def _file_writes(path: str) -> tuple[frozenset[str], bool]:
    """_writes of a project file the analysis has not parsed, from its text."""
    text = _read(path)
    if text is None or _sets_nothing(text):
        return frozenset(), False
    try:
        tree = recursion.parse(text.decode("utf-8", "replace"), path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset(), False  # (a file that does not parse sets nothing when imported: it fails)
    return _writes(tree)


def _project_writes(project: Project) -> _Folded:
    folded = _folded.get(project)
    if folded is None:
        folded = _folded[project] = _Folded(project)
    return folded


def _module_writes(module: ModuleInfo) -> tuple[frozenset[str], bool]:
    """_writes of a module, skipping the walk where its file's text names none of the
    markers (most of a large project: walking every tree cost 9 ms a module)."""
    held = _written.get(module.tree)
    if held is not None:
        return held
    text = _read(module.path)
    if text is not None and _sets_nothing(text):
        _written[module.tree] = (frozenset(), False)
        return frozenset(), False
    return _writes(module.tree)


# `environ` read by `.get(` / `.copy(` or as a `os.environ["X"]` value (not followed by `=`)
_ENVIRON_READ = re.compile(rb"environ(?:\.(?:get|copy|items|keys|values)\(|\[[^\]\n]*\](?!\s*(?:=[^=]|\|=)))")


_DELETES = re.compile(rb"\bdel\b[^\n]*environ")


def _sets_nothing(text: bytes) -> bool:
    """Is it plain from a file's text that it sets no variable: no marker at all, or
    `environ` only read (`os.environ.get(`, `os.environ["X"]`), and no `setenv`,
    `delenv` or dotenv?  (Most files that touch the environment only read it; walking
    their trees was most of this module's cost on the corpus.)"""
    if not any(marker.encode() in text for marker in _MARKERS):
        return True
    if any(marker in text for marker in (b"setenv", b"delenv", b"dotenv", b"environb")) or _DELETES.search(text):
        return False
    return text.count(b"environ") == len(_ENVIRON_READ.findall(text))


def _writes(tree: ast.Module) -> tuple[frozenset[str], bool]:
    """The environment variables a module's code sets or unsets, and whether it may set
    others it does not spell; once per tree.  `os.environ` used other than read (`.get`,
    an item, `in`, a copy) or written by a method that names its variables counts as
    setting any: an alias (`env = os.environ`), a helper it is handed to, `operator.
    setitem`, `os.environb` (probe 112a)."""
    held = _written.get(tree)
    if held is not None:
        return held
    names: set[str] = set()
    any_name = False
    called: set[int] = set()  # the callee expressions of the calls met so far
    for parent in _nodes(tree):
        if isinstance(parent, ast.Call):
            called.add(id(parent.func))
        if isinstance(parent, ast.Constant) and parent.value in ("environ", "os.environ", "environb"):
            any_name = True  # `setattr(os, "environ", ...)`, `vars(os)["environ"]`, `patch.object(os, "environ", ...)` (probe 113a)
        elif isinstance(parent, ast.Attribute) and parent.attr in ("environ", "environb") and dotted_name(parent.value) is None:
            any_name = True  # `sys.modules["os"].environ`, `__import__("os").environ`
        elif isinstance(parent, ast.Attribute) and parent.attr in _WRITE_METHODS and _is_environ(parent.value) and id(parent) not in called:
            any_name = True  # `put = os.environ.__setitem__`: a write called later
        if isinstance(parent, ast.ImportFrom) and parent.module == "os":
            # `from os import environ as ENV` (an alias the reads below do not know), environb
            any_name = any_name or any(alias.name == "environb" or alias.name == "environ" and alias.asname not in (None, "environ") for alias in parent.names)
        elif isinstance(parent, ast.Call):
            callee = dotted_name(parent.func) or ""
            if callee.endswith(_SETS_ANY):
                any_name = True
            elif callee.endswith(_SETS_ONE):
                first = parent.args[0] if parent.args else None
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    names.add(first.value)
                else:
                    any_name = True
            elif callee.endswith(_SETS_MANY) or callee.endswith("patch.dict") and parent.args and _names_environ(parent.args[0]):
                spelled = _spelled_keys(parent) if callee.endswith("patch.dict") else _spelled_keys(parent, 0)
                if spelled is None:
                    any_name = True
                else:
                    names |= spelled
        for child in ast.iter_child_nodes(parent):
            if isinstance(child, ast.expr) and (_is_environ(child) or _names_environb(child)):
                written = _written_through(child, parent)
                if written is None:
                    any_name = True
                elif written:
                    names.add(written)
    _written[tree] = (frozenset(names), any_name)
    return frozenset(names), any_name


def _written_through(environ: ast.expr, parent: ast.AST) -> str | None:
    """How code uses `os.environ` (`environ`, the child of `parent`): "" for a read or a
    write the call pass above reads (`.setdefault("X", ...)`), the variable's name for an
    item set or deleted by name, None for anything that may set any variable."""
    if _names_environb(environ):
        return None
    if isinstance(parent, ast.Subscript) and parent.value is environ:
        if isinstance(parent.ctx, ast.Load):
            return ""
        key = parent.slice
        return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
    if isinstance(parent, ast.Attribute) and parent.value is environ:
        return "" if parent.attr in _READS_OR_CALL_PASS else None
    if isinstance(parent, ast.Compare) and environ in parent.comparators and all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops):
        return ""
    if isinstance(parent, ast.Call) and environ in parent.args:
        callee = dotted_name(parent.func) or ""
        return "" if callee in _COPIES or callee.endswith("patch.dict") else None
    if isinstance(parent, ast.Dict) and environ in parent.values or isinstance(parent, ast.Starred):
        return ""  # `{**os.environ, "X": "1"}`: a copy
    if isinstance(parent, ast.keyword) and parent.arg == "env":
        return ""  # `subprocess.run(cmd, env=os.environ)`: the child's copy
    return None


def _nodes(tree: ast.Module) -> Iterator[ast.AST]:
    """Every node of a module, the definitions a skeleton left unparsed (lazy_defs)
    included where their text may touch the environment; one that does not parse alone
    counts as setting any name."""
    for stmt in tree.body:
        if isinstance(stmt, LazyDef):
            if not any(marker in stmt.text for marker in _MARKERS):
                continue
            parsed = stmt.parse("<environment>")
            if parsed is None:
                yield ast.Call(ast.Name("load_dotenv"), [], [])  # (read as: may set any name)
                continue
            stmt = parsed
        yield from ast.walk(stmt)


def _spelled_keys(call: ast.Call, first: int | None = None) -> set[str] | None:
    """The keys an `os.environ.update(...)` (its arguments from `first`) or a
    `mock.patch.dict(os.environ, values, clear=False, **kw)` sets: those of dict
    displays of string keys and of keywords; None where any is not spelled (a dict built
    elsewhere, `**kw`, `clear=True`)."""
    dicts = call.args[first:] if first is not None else call.args[1:]
    found: set[str] = set()
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg == "clear":
            return None
        if first is None and keyword.arg == "values":
            dicts = [*dicts, keyword.value]
        else:
            found.add(keyword.arg)
    for arg in dicts:
        if not isinstance(arg, ast.Dict) or not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in arg.keys):
            return None
        found |= {k.value for k in arg.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    return found


def _is_environ(node: ast.AST) -> bool:
    name = dotted_name(node) if isinstance(node, ast.expr) else None
    return name is not None and (name == "environ" or name.endswith(".environ"))


def _names_environb(node: ast.AST) -> bool:
    name = dotted_name(node) if isinstance(node, ast.expr) else None
    return name is not None and (name == "environb" or name.endswith(".environb"))


def _names_environ(node: ast.expr) -> bool:
    """`os.environ`, or the string "os.environ" that mock.patch.dict also takes."""
    return _is_environ(node) or isinstance(node, ast.Constant) and node.value == "os.environ"
