"""Which files the command analyses: the project set, from the scan alone (no parsing).

Entry files are the gated ones (they name a watched API) and the files that import
what leads to them and name a differentiation transform (a train.py).  "What leads
to them" is followed by name through the import graph:

* a gated file leads to a watched call through any of its names;
* a module that imports a leading name (or a leading module, or `*`) leads there
  too, through all its names if it defines code of its own, else (a package
  `__init__.py` that only re-exports) only through the names it re-exports;

so `from transformers import AutoTokenizer` does not make a file an entry because
transformers' `__init__.py` also re-exports a Flax attention model.  The files the
entries import, transitively, are reachable: parsed only if the analysis follows an
import into them.

Imports are matched to project files by dotted suffix, so a `src/` layout or a script
run from its own folder resolves; a suffix counts only where the folder that would have
to be on sys.path is not itself a package (keras/src/ops/math.py is never `import
math`), and imports of the libraries the analysis models (jax, flax, ...) and of the
standard library never resolve to project files, as in `shape_inference.modules.Project.find`.

Entries that can reach a common file form one component; components share nothing, so
each is analysed on its own (`project_lint`), in parallel where there are several, and a
large one in shards (SHARD_CHARS).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple
from dataclasses import dataclass, field, replace

from jax_cudnn_lint.discovery import EVERY_SUBMODULE, ImportRef, ScannedFile, SourceError, decorator_names, hashed_files, read_source
from jax_cudnn_lint.data_scan import EVERY_FILE, data_file_uses, data_file_writes
from jax_cudnn_lint.shape_inference.modules import conftest_paths, folders_above, import_root, is_test_path

# The names through which a module leads to a watched call: ALL of them (None), or
# the ones a re-exporting package __init__ took from modules that lead there.
Names = frozenset[str] | None
ALL: Names = None


class Taken(NamedTuple):
    """What one import takes from a project module: `pairs` of (name, bound name)
    for `from m import a as b`; else the whole module, bound to `module_as`
    (`from pkg import m`), or everything (`from m import *`, or `import a.b`,
    which binds the top package).  A NamedTuple: one is made per import edge."""

    pairs: tuple[tuple[str, str], ...] = ()
    module_as: str | None = None
    # `from pkg.layers import attention` where attention is a submodule: Python still runs
    # pkg/layers/__init__.py, whose `from .attention import attention` may rebind the name
    # to a function.  Such an edge makes the __init__ reachable and leads nowhere.
    reach_only: bool = False


def module_parts(path: str, root: str) -> tuple[str, ...]:
    """'pkg/sub/mod.py' -> ('pkg', 'sub', 'mod'); '__init__' names its package."""
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute, import_root(root))
    if rel.startswith(os.pardir):
        rel = absolute.lstrip(os.sep)
    parts = list(os.path.normpath(rel).split(os.sep))
    parts[-1] = os.path.splitext(parts[-1])[0]
    if parts[-1] == "__init__":
        parts.pop()
    return tuple(p for p in parts if p and p != os.curdir)


def _is_init(path: str) -> bool:
    return os.path.basename(path).startswith("__init__.")


class ModuleIndex:
    """Project files by every dotted suffix they can be imported as.

    Matching an import by suffix works whatever the import root is (a src/ layout,
    scripts run from their folder): `pkg.model` finds src/pkg/model.py.  An ambiguous
    name finds every candidate; an extra file in the analysed set costs little.
    """

    def __init__(self, paths: Iterable[str], root: str) -> None:
        from jax_cudnn_lint.shape_inference.modules import NOT_PROJECT_MODULES

        self.root = root
        self.external = NOT_PROJECT_MODULES
        self.parts: dict[str, tuple[str, ...]] = {}
        self.by_suffix: dict[str, list[str]] = {}
        self._package_dirs: dict[str, bool] = {}
        self._absolute: dict[ImportRef, list[tuple[str, Taken]]] = {}
        self._folders: dict[str, str] = {}  # importer -> its folder (_beside)
        paths = list(paths)
        for path in paths:
            if _is_init(path):
                self._package_dirs[os.path.dirname(os.path.abspath(path))] = True
        for path in paths:
            parts = module_parts(path, root)
            self.parts[path] = parts
            # The folder a suffix import would need on sys.path, from the innermost out.
            folder = os.path.dirname(os.path.abspath(path))
            if _is_init(path):
                folder = os.path.dirname(folder)
            for start in range(len(parts) - 1, -1, -1):
                if not start or not self._is_package_dir(folder):
                    self.by_suffix.setdefault(".".join(parts[start:]), []).append(path)
                folder = os.path.dirname(folder)

    def _is_package_dir(self, folder: str) -> bool:
        known = self._package_dirs.get(folder)
        if known is None:
            known = self._package_dirs[folder] = os.path.isfile(os.path.join(folder, "__init__.py"))
        return known

    def _base(self, importer: str, ref: ImportRef) -> list[str] | None:
        if not ref.level:
            base = ref.module.split(".")
            return None if base[0] in self.external else base
        package = list(self.parts.get(importer, ()))
        if not _is_init(importer):
            package = package[:-1]
        drop = ref.level - 1
        if drop > len(package):
            return None
        base = package[: len(package) - drop] if drop else package
        return base + (ref.module.split(".") if ref.module else [])

    def edges(self, importer: str, ref: ImportRef) -> list[tuple[str, Taken]]:
        """The project files an import reaches, each with what it takes from them."""
        if not ref.level:  # the same wherever it is written: computed once per import
            found = self._absolute.get(ref)
            if found is None:
                found = self._absolute[ref] = self._edges(importer, ref)
            beside = self._beside(importer, ref, found)
            return [edge for edge in (*found, *beside) if edge[0] != importer]
        return [edge for edge in self._edges(importer, ref) if edge[0] != importer]

    def _beside(self, importer: str, ref: ImportRef, found: list[tuple[str, Taken]]) -> list[tuple[str, Taken]]:
        """`from model import attn` in src/train.py, run as a script from its folder: the
        model.py beside it, which a suffix match misses where src/ has an `__init__.py`
        (a root model.py matched instead: probe 102b).  Not in a real package, whose
        programs run with `-m` from the root (tests/test_sibling_projects.py)."""
        if not ref.module or ref.names == (EVERY_SUBMODULE,):
            return []
        folder = self._folders.get(importer)
        if folder is None:
            folder = self._folders[importer] = os.path.dirname(importer)
        if os.path.basename(folder) != "src" and self._is_package_dir(os.path.dirname(os.path.abspath(importer))):
            return []  # (a program inside a real package runs as `python -m pkg.train`: from the root)
        path = os.path.join(folder, *ref.module.split(".")) + ".py"
        if path not in self.parts or any(target == path for target, _ in found):
            return []
        return [(path, Taken(pairs=tuple(zip(ref.names, ref.bound or ref.names))))]

    def _edges(self, importer: str, ref: ImportRef) -> list[tuple[str, Taken]]:
        base = self._base(importer, ref)
        if not base:
            return []
        found: list[tuple[str, Taken]] = []
        if ref.names == (EVERY_SUBMODULE,):
            # `import_module(f"configs.{name}")`: any module of the package, and its
            # __init__, reachable (the analysis reads the name where it is known); each
            # module leads, as `from .m import *` would: a train.py that loads its model
            # so (`import_module(f"models.{config.model_name}")`, probe 125d) is an entry,
            # as is a package's own lazy `__getattr__` (`import_module(_LAZY[name],
            # __name__)`, probe 107d)
            prefix = ".".join(base) + "."
            children = [paths for dotted, paths in self.by_suffix.items() if dotted.startswith(prefix) and "." not in dotted[len(prefix) :]]
            found.extend((path, Taken()) for paths in children for path in paths)
            found.extend((path, Taken(reach_only=True)) for path in self.by_suffix.get(".".join(base), []))
            return found
        from_base: list[tuple[str, str]] = []
        for name, bound in zip(ref.names, ref.bound or ref.names):
            submodules = self.by_suffix.get(".".join(base + name.split(".")), ())
            found.extend((path, Taken(module_as=bound)) for path in submodules)
            if not submodules:
                from_base.append((name, bound))
        if from_base or not ref.names:
            taken = Taken(pairs=tuple(from_base))
            found.extend((path, taken) for path in self.by_suffix.get(".".join(base), ()))
        else:
            found.extend((path, Taken(reach_only=True)) for path in self.by_suffix.get(".".join(base), ()) if _is_init(path))
        if not ref.names and not ref.level:
            # `import pkg.k` binds `pkg`, whose __init__ Python runs first: `pkg.k.attend`
            # is read through it (probe 96d), so it is reachable, and leads nowhere
            for depth in range(1, len(base)):
                found.extend((path, Taken(reach_only=True)) for path in self.by_suffix.get(".".join(base[:depth]), ()) if _is_init(path))
        return found


def _names_taken(taken: Taken, target: ScannedFile, leads_through: frozenset[str] | set[str] | None) -> frozenset[str] | set[str] | None:
    """The names an import binds that lead to a watched call (empty: none do; None: all)."""
    if taken.module_as is not None:
        return frozenset((taken.module_as,))
    if not taken.pairs:  # `import a.b`, or `from m import *`
        if leads_through is not None or not target.defines:
            return leads_through
        return frozenset(target.defines)
    if leads_through is None:
        return frozenset(bound for _, bound in taken.pairs)
    return frozenset(bound for name, bound in taken.pairs if name in leads_through)


# A component whose entry files hold more source than this is analysed in shards of
# about this size, contiguous in scan (path) order so that a folder's files stay
# together.  Each shard knows only the files its own entries can reach and evaluates
# again what it shares with the others (on the corpus: 1.3x the work in three shards),
# so the shards can run in parallel.  More shards than two workers, because an entry's
# cost is not its size: the pool hands the third to whichever worker is free first
# (docs/DESIGN-NOTES.md, "Components and shards").  A constant, not derived from -j:
# the output must not depend on -j.
SHARD_CHARS = 1_500_000


@dataclass(frozen=True)
class Component:
    """The unit of analysis: entry files with every file they can reach through
    imports.  Entries that can reach a common file are one component, independent of
    every other; a large component is split into shards (SHARD_CHARS), which may share
    reachable files."""

    entries: tuple[str, ...]
    reachable: tuple[str, ...]
    size: int  # characters of source in all its files: how long it may take
    # files outside it that import one of its files (a model.py that imports layers.py
    # and is neither gated nor reached): parsed only where the analysis asks who calls
    # a function whose default it would report (probe 34a: every call overrides it)
    callers: tuple[str, ...] = ()


@dataclass
class ProjectSet:
    """The files of one analysis, in scan order."""

    entries: list[str]  # analysed: gated files and the importers that differentiate
    reachable: list[str]  # parsed only if an analysed import reaches them
    # each importer entry (not gated) -> the names it binds that lead to a watched
    # call (ALL: cannot tell); the analysis skips an importer that never uses one
    importer_names: dict[str, Names]
    # the importer entries that name no transform: drivers of training code (_drivers)
    drivers: frozenset[str] = frozenset()
    # the units of analysis, in order of their first entry
    components: list[Component] = field(default_factory=lambda: [])
    # each file -> the files that import names from it or it whole: callers of its
    # functions that the analysis may not enter (a default they override is not reported)
    imported_by: dict[str, tuple[str, ...]] = field(default_factory=lambda: {})
    # each file -> the data files (absolute path, sha256) its literals may name
    data_files: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=lambda: {})

    def data_files_of(self, component: Component) -> dict[str, str]:
        """The data files (path -> sha256) the analysis of a component may read."""
        return {path: digest for file in (*component.entries, *component.reachable, *component.callers) for path, digest in self.data_files.get(file, ())}


def project_set(scanned: Sequence[ScannedFile], root: str, read_data_configs: bool = False) -> ProjectSet:
    """The entry and reachable files of a scanned project (see the module docstring)."""
    readable = [s for s in scanned if s.sha256 is not None]
    by_path = {s.path: s for s in readable}
    index = ModuleIndex(by_path, root)
    imports: dict[str, set[str]] = {}
    importers: dict[str, list[tuple[str, Taken]]] = {}
    # the project modules each file takes names from, and the names it binds: a leading
    # file's `@register("vit")` fills a registry module's dict with what leads (probe 50b)
    taken_from: dict[str, list[tuple[str, frozenset[str]]]] = {}
    for s in readable:
        targets: set[str] = set()
        for ref in s.imports:
            for target, taken in index.edges(s.path, ref):
                targets.add(target)
                if not taken.reach_only:
                    importers.setdefault(target, []).append((s.path, taken))
                    if target != s.path and (registering := _registering_names(taken)):
                        taken_from.setdefault(s.path, []).append((target, registering))
        # pytest gives a test its conftest.py fixtures without an import, by name: as if
        # `from conftest import *`, a test requesting a fixture that builds the model
        # leads to it (probe 108d: the model came from a conftest fixture)
        for conftest in conftest_paths(s.path, root):
            if conftest in by_path:
                targets.add(conftest)
                importers.setdefault(conftest, []).append((s.path, Taken()))
        imports[s.path] = targets

    # Worklist over what changed: `pending` holds the names a module newly leads
    # through, so each import is looked at once per change, not once per name.  The
    # name sets grow in place (None: ALL): a package __init__ that re-exports thousands
    # of names gains them a few at a time, and copying its set at each gain was
    # quadratic (half of this function's time on the benchmark corpus).
    growing: dict[str, set[str] | None] = {s.path: None for s in readable if s.gated}
    pending: dict[str, set[str] | None] = dict.fromkeys(growing)
    bound_through: dict[str, set[str] | None] = {}  # the names an importer binds that lead somewhere
    while pending:
        target, new_names = pending.popitem()
        sources = taken_from.pop(target, None)
        if sources:
            decorators = _decorators(by_path[target])
            for registry, bound in sources:
                if not decorators.isdisjoint(bound) and growing.get(registry, ()) is not None:
                    growing[registry] = pending[registry] = None  # (leads through all its names)
        for importer, taken in importers.get(target, ()):
            hits = _names_taken(taken, by_path[target], new_names)
            if hits is not None and not hits:
                continue
            if hits is None:
                bound_through[importer] = None
            elif importer not in bound_through:
                bound_through[importer] = set(hits)
            elif (bound := bound_through[importer]) is not None:
                bound |= hits
            if importer in growing and growing[importer] is None:
                continue
            pure_reexport = _is_init(importer) and not by_path[importer].defines
            if hits is None or not pure_reexport:
                growing[importer] = pending[importer] = None
                continue
            current = growing.get(importer)
            if current is None:
                current = growing[importer] = set()
            added = set(hits) - current
            if by_path[importer].bindings:
                added |= _assigned_from(by_path[importer], current, added) - current
            current |= added
            if added:
                if importer not in pending:
                    pending[importer] = set(added)
                elif (queued := pending[importer]) is not None:
                    queued |= added
    leads: dict[str, Names] = {path: None if names is None else frozenset(names) for path, names in growing.items()}
    through: dict[str, Names] = {path: None if names is None else frozenset(names) for path, names in bound_through.items()}

    entries = {p for p in leads if by_path[p].gated or by_path[p].differentiates}
    drivers = _drivers(leads, entries, importers, by_path)
    entries |= drivers
    # a module's `__getattr__` (PEP 562) serves names it does not bind: any attribute of it may lead
    importer_names = {p: _lazy_as_all(through[p]) for p in entries if not by_path[p].gated}
    reachable: set[str] = set()
    groups = _UnionFind()
    frontier = list(entries)
    while frontier:
        path = frontier.pop()
        for target in imports.get(path, ()):
            groups.union(path, target)
            if target not in entries and target not in reachable:
                reachable.add(target)
                frontier.append(target)
    order = {s.path: i for i, s in enumerate(readable)}
    entry_list = sorted(entries, key=order.__getitem__)
    reachable_list = sorted(reachable, key=order.__getitem__)
    imported_by = {target: tuple(dict.fromkeys(importer for importer, _ in edges)) for target, edges in importers.items()}
    components: list[Component] = []
    for component in _components(entry_list, reachable_list, groups, by_path):
        components += [_with_callers(shard, imported_by, order) for shard in _shards(component, imports, by_path, order)]
    data_files = _data_files(readable, root) if read_data_configs else {}
    return ProjectSet(entry_list, reachable_list, importer_names, drivers=frozenset(drivers), components=components, imported_by=imported_by, data_files=data_files)


def _data_files(readable: Sequence[ScannedFile], root: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """Each file's data files the analysis may read: none that a file of the project may
    write (anywhere in it: a prepare step run before training), and none at all where
    one writes a file it does not name or changes folder (data_scan.data_file_writes).
    The writes are read only in a project whose literals name a data file: the scan of
    every file for them cost more than the rest of the scan (probe corpus, 7,247 files)."""
    if not any(s.data_names for s in readable):
        return {}
    scripts, found_under_root = _project_files(root, frozenset[str]().union(*(s.data_names for s in readable)))
    if scripts == [EVERY_FILE]:
        return {}
    # a data file a file names by its name alone, wherever it lies under the root (the folder
    # built in another module: probe 131a); the analysis reads it only where the path it
    # computes names exactly it
    by_name: dict[str, list[tuple[str, str]]] = {}
    for entry in hashed_files(found_under_root):
        by_name.setdefault(os.path.basename(entry[0]), []).append(entry)
    readable = [replace(s, data_files=tuple(dict.fromkeys([*s.data_files, *(entry for name in s.data_names for entry in by_name.get(name, ()))]))) if s.data_names else s for s in readable]
    if not any(s.data_files for s in readable):
        return {}
    written: set[str] = set()
    names = frozenset(os.path.basename(path) for s in readable for path, _ in s.data_files)
    for s in readable:
        try:
            text = s.text if s.text is not None else read_source(s.path)[0]
        except SourceError:
            continue
        written |= data_file_writes(text) | data_file_uses(text, names)
        if EVERY_FILE in written:
            return {}
    # a shell script, Makefile or notebook of the project that names one may write it
    # (`python make_config.py > configs/train.yaml`: probes 129b, 131b)
    for text in _texts(scripts):
        if _CHANGES_FOLDER.search(text):
            return {}  # (`cd experiments/h100 && python train.py`: relative paths from elsewhere, probe 132a)
        written |= {name for name in names if name in text}
    # (a link's target may be written by its own name: probe 128a)
    found = {s.path: tuple(entry for entry in s.data_files if not {os.path.basename(entry[0]), os.path.basename(os.path.realpath(entry[0]))} & written) for s in readable if s.data_files}
    return {path: entries for path, entries in found.items() if entries}


_CHANGES_FOLDER = re.compile(r"""(?:^|[;&|(]|\bthen|\bdo)\s*(?:cd|pushd)\s""", re.MULTILINE)
_SCRIPT_SUFFIXES = (".sh", ".bash", ".zsh", ".mk", ".ipynb")
_SCRIPT_NAMES = frozenset({"Makefile", "makefile", "GNUmakefile", "justfile", "Justfile", "Dockerfile", "Taskfile.yml"})
_NOT_THE_PROJECT = frozenset({"node_modules", "site-packages", "__pycache__", "venv", "build", "dist"})
_MAX_SCRIPTS = 2000
_MAX_VISITED = 200_000  # files looked at under the root for scripts and configs


def _project_files(root: str, data_names: frozenset[str]) -> tuple[list[str], list[str]]:
    """The project's shell scripts, Makefiles and notebooks, and its data files of those
    names (hidden folders but .githooks, virtual environments and build output left out;
    at most _MAX_SCRIPTS of each)."""
    scripts: list[str] = []
    data: list[str] = []
    visited = 0
    for folder, subfolders, files in os.walk(root):
        visited += len(files)
        if visited > _MAX_VISITED:
            # (a tree this large is not read whole for configs: the scan's own references stand,
            # and a script that may write one is not known, so none is read)
            return [EVERY_FILE], []
        subfolders[:] = [d for d in subfolders if (not d.startswith(".") or d == ".githooks") and d not in _NOT_THE_PROJECT]
        for name in files:
            if name.endswith(_SCRIPT_SUFFIXES) or name in _SCRIPT_NAMES or os.path.basename(folder) == ".githooks":
                if len(scripts) < _MAX_SCRIPTS:
                    scripts.append(os.path.join(folder, name))
            elif name in data_names and len(data) < _MAX_SCRIPTS:
                data.append(os.path.normpath(os.path.abspath(os.path.join(folder, name))))
    return scripts, data


def _texts(paths: Iterable[str]) -> Iterable[str]:
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                yield handle.read(1_000_000)
        except OSError:
            continue


def _decorators(scanned: ScannedFile) -> frozenset[str]:
    """A file's top-level decorators' first names: the scan's for a gated file, else
    read now (a file that leads and takes names from project modules: few are)."""
    if scanned.gated:
        return scanned.decorators
    try:
        text, _ = read_source(scanned.path)
    except SourceError:
        return frozenset()
    return decorator_names(text)


def _registering_names(taken: Taken) -> frozenset[str]:
    """The names an import binds that may be a registry's decorator, by the convention
    every registry we saw follows (`register`, `register_model`, `registry`, `REGISTRY`):
    only a file taking one is read for its decorators."""
    bound = (taken.module_as,) if taken.module_as is not None else tuple(bound for _, bound in taken.pairs)
    return frozenset(name for name in bound if "regist" in name.lower())


def _assigned_from(init: ScannedFile, leading: set[str], added: set[str]) -> set[str]:
    """The names a package __init__ assigns from leading names (`MODELS = {"vit": ViT}`,
    and `ALL = {**MODELS}` after it): they lead where those do (probe 50b).  `leading`
    and `added`: the names it led through, and those it now leads through too (two sets,
    not their union: a large __init__ gains names a few at a time)."""
    found: set[str] = set()
    grew = True
    while grew:
        grew = False
        for name, words in init.bindings:
            if name not in found and not (words.isdisjoint(added) and words.isdisjoint(leading) and words.isdisjoint(found)):
                found.add(name)
                grew = True
    return found


def _lazy_as_all(names: Names) -> Names:
    """Every name (None) where a module's `__getattr__` (PEP 562) leads: it serves names it
    does not bind, so any attribute an importer reads may lead (probe 36b)."""
    return None if names is None or "__getattr__" in names else names


def _drivers(
    leads: dict[str, Names],
    entries: set[str],
    importers: dict[str, list[tuple[str, Taken]]],
    by_path: dict[str, ScannedFile],
) -> set[str]:
    """Files no project file imports (scripts, CLIs, tests) that take a leading
    function from a module that differentiates (a main.py calling `train(seq_len=...)`
    from trainer.py): the values they pass are what the training code runs with, so
    they are entries too, though they name no transform themselves.  A library module
    that does the same is itself imported: its callers are where the values come from.
    A class taken (a test building a layer) does not make a driver: on the corpus,
    keras' layer tests cost 10 % more analysis for no finding."""
    found: set[str] = set()

    def script(importer: str, entry_ok: bool = False) -> bool:
        """A file that can be a driver: nothing imports it, it is not an entry already
        (`entry_ok`: unless it is one for what it differentiates), it is no package
        __init__ (that runs when any module of its package does), and it runs as a
        program: a test, a file with a `__main__` guard, or one outside any package (a
        library module nothing in the project imports is used from outside: what its own
        calls pass is not what the training code runs with)."""
        if importer in entries and not (entry_ok and not by_path[importer].gated):
            return False
        scanned = by_path[importer]
        # (a program outside any package, a file with a `__main__` guard, is one even
        # where a test or a harness imports it to reach one of its functions: probe 100d;
        # not a library's module with a demo under its guard, nor one that the library's
        # own modules import: +8 and +3 drivers on the corpus, paxml's main.py among them)
        if importer not in leads or importers.get(importer) and not _imported_only_by_harnesses(importer, scanned, importers) or _is_init(importer) or os.path.basename(importer) == "conftest.py":
            return False  # (a conftest gives tests their fixtures: reached from them, never run on its own; probe 61b)
        return scanned.main_guard or is_test_path(importer) or not _in_package(importer)

    for target in entries:
        functions = by_path[target].functions
        if not by_path[target].differentiates:
            # a test calling a gated module's function (`attend(q, kv, kv)` with tiny
            # shapes) runs it forward: a dtype, head dim, GQA ratio or mask fails there.
            # A class or the module whole too, for a project's own tests outside any
            # package (`Attn()(q)`, `model.apply(...)`: probe 33b; `import model` then
            # `model.reference(...)`: probe 56b); not a library's tests inside its package
            # (keras' layer tests: +10 % analysis on the corpus for nothing).  A project's
            # test that differentiates elsewhere runs its forward-only tests too (probe 56b)
            for importer, taken in importers.get(target, ()):
                if not (by_path[target].gated and is_test_path(importer) and script(importer, entry_ok=not _under_package(importer))):
                    continue
                taken_names = {name for name, _ in taken.pairs}
                whole = taken.module_as is not None or not taken.pairs  # `import model`, `from pkg import model`: probe 56b
                if taken_names & set(functions) or ((whole or taken_names & set(by_path[target].defines)) and not _under_package(importer)):
                    found.add(importer)
            continue
        for importer, taken in importers.get(target, ()):
            if taken.pairs and not any(name in functions for name, _ in taken.pairs) and (is_test_path(importer) or not any(name in by_path[target].defines for name, _ in taken.pairs)):
                continue  # (a class counts for a script, not for a test: keras' layer tests)
            if _is_init(importer) and taken.module_as is None and importer not in entries:
                # a package re-exporting the functions (`from .trainer import train`, or `*`):
                # the scripts that take them from it, through up to three packages, drive them too
                classes = set(by_path[target].defines) - set(functions)
                kinds = (set(functions), classes)
                if taken.pairs:
                    kinds = ({bound for name, bound in taken.pairs if name in functions}, {bound for name, bound in taken.pairs if name in classes})
                found |= _scripts_taking(importer, kinds, importers, script)
                continue
            if _names_taken(taken, by_path[target], leads[target]) == frozenset():
                continue
            if script(importer):
                found.add(importer)
            elif _relays(importer, entries, leads, importers):
                # a program's launcher (cli.py -> launch.main() -> train_step(x)): the
                # scripts that call its functions are where the values come from
                for outer, outer_taken in importers.get(importer, ()):
                    # its functions by name, or the module whole by a program that runs it
                    # (`import launch; launch.main()`: probe 33a)
                    whole = not outer_taken.pairs and by_path[outer].main_guard
                    if (whole or any(name in by_path[importer].functions for name, _ in outer_taken.pairs)) and script(outer):
                        found.add(outer)
    # a script (or test) that takes the model from one module and the training step from
    # another that differentiates but imports no model (`train_step(model, params, x)` in
    # engine.py): it joins the two, so the values it passes are what the training runs with
    # (`import engine` takes the module whole too: no pairs, no module_as)
    trains = {importer for target, scanned in by_path.items() if scanned.differentiates for importer, taken in importers.get(target, ()) if taken.module_as is not None or not taken.pairs or any(name in scanned.functions for name, _ in taken.pairs)}
    # ... or takes the training function from a package that re-exports it (`import tinylm`,
    # then `tinylm.make_train_step(model, opt)` in examples/: probe 94d), from outside that
    # package's tree (keras' own tests import `keras.src.backend`: +41 drivers on the
    # corpus for nothing)
    for package, exported in _training_exports(by_path, importers).items():
        for importer, taken in importers.get(package, ()):
            if importer in trains or _is_init(importer) or _package_root(importer) == _package_root(package):
                continue
            if any(name in exported for name, _ in taken.pairs) or not taken.pairs and _calls_an_attribute(importer, exported):
                trains.add(importer)
    for target, names in leads.items():
        for importer, taken in importers.get(target, ()):
            if importer not in trains or importer in found or _names_taken(taken, by_path[target], names) == frozenset():
                continue
            if script(importer):
                found.add(importer)
            elif not by_path[target].differentiates and _joins_for_callers(importer, entries, by_path):
                # an experiment module (`main()` calling `trainer.fit(models.Transformer,
                # cfg)`) run by a launcher or a smoke test that imports it: they drive it
                # (probe 93d)
                for outer, outer_taken in importers.get(importer, ()):
                    takes_code = not outer_taken.pairs or any(name in by_path[importer].functions for name, _ in outer_taken.pairs)
                    # (not a library's own tests beside it: keras' ops tests import ops
                    # modules that take a backend and a layer, +10 drivers on the corpus)
                    # (and a program only outside any package: maxtext's utils/estimator.py,
                    # a library's own tool, cost 1.7 s of the corpus for nothing)
                    if takes_code and outer not in found and script(outer) and _package_root(outer) != _package_root(importer) and (is_test_path(outer) or not _under_package(outer)):
                        found.add(outer)
    # a program beside the code that only runs the model forward (an eval or generate
    # script, with a `__main__` guard or its code at the top level: nothing imports it):
    # a float32 input, a float mask, a head dim fail without any grad (JCD203, JCD204,
    # JCD205, JCD212).  Only for code in its own folder or below (`generate.py` beside
    # `model.py`, over `src/pkg/`), and not in a package: a library's own converters and
    # servers, which import the library from its root, cost +60 % analysis on the
    # benchmark corpus for no finding.  Not tests.
    for target, names in leads.items():
        for importer, taken in importers.get(target, ()):
            folder = _program_folder(importer)
            if importer in found or not by_path[importer].main_guard or is_test_path(importer) or _under_package(importer) or not target.startswith(os.path.join(folder, "")):
                continue
            if script(importer) and _names_taken(taken, by_path[target], names) != frozenset():
                found.add(importer)
    # a project's test (outside any package) that takes a function from a helper module
    # leading to the attention (`from helpers import run_small`, tests/helpers.py calling
    # the model with tiny shapes): it runs the model forward as one calling it directly does
    for target, names in leads.items():
        if target in entries:
            continue
        for importer, taken in importers.get(target, ()):
            if importer in found or not is_test_path(importer) or _under_package(importer) or not script(importer):
                continue
            if any(name in by_path[target].functions for name, _ in taken.pairs) and _names_taken(taken, by_path[target], names) != frozenset():
                found.add(importer)
    # a test that runs a program of the project it imports (`runner.invoke(app,
    # ["--seq-len", "127"])` with the typer app or click command of a cli.py, `main([...])`):
    # the lists it gives are runs of that program, as its own main's is (probe 138b)
    for program in sorted(found | entries):
        if not by_path[program].main_guard:
            continue
        for importer, taken in importers.get(program, ()):
            if importer not in found and is_test_path(importer) and (taken.pairs or taken.module_as is not None) and script(importer):
                found.add(importer)
    return found


def _imported_only_by_harnesses(path: str, scanned: ScannedFile, importers: dict[str, list[tuple[str, Taken]]]) -> bool:
    """A program (a `__main__` guard) that only tests and, outside any package, files
    nothing imports (a harness, another script) import: still a program of its own.  A
    package's module run as `python -m pkg.train` that only tests import is one too
    (probe 138b: a test importing `ctxlm.train` hid the run of its main)."""
    if not scanned.main_guard:
        return False
    outers = [outer for outer, _ in importers.get(path, ())]
    if _in_package(path):
        return all(is_test_path(outer) for outer in outers)
    return all(is_test_path(outer) or not importers.get(outer) for outer in outers)


# folders that hold a project's programs, run over the project beside them (`python
# scripts/sample.py` reading models/decoder.py: probe 101d)
_PROGRAM_FOLDERS = frozenset({"scripts", "tools", "bin"})


def _program_folder(path: str) -> str:
    """The folder whose code a program runs forward: its own, or the project's where it
    sits in a scripts/ folder (or tools/, bin/)."""
    folder = os.path.dirname(path)
    return os.path.dirname(folder) if os.path.basename(folder) in _PROGRAM_FOLDERS else folder


def _relays(
    path: str,
    entries: set[str],
    leads: dict[str, Names],
    importers: dict[str, list[tuple[str, Taken]]],
) -> bool:
    """A file outside any package that takes a training function and is run in turn by
    another program (launch.py, imported by cli.py): its callers are drivers one hop
    further.  Not a test, a package __init__ or a module of a package (a library's own
    modules are imported by many files that pass nothing of the training's values)."""
    return (
        path not in entries
        and path in leads
        and bool(importers.get(path))
        and not _is_init(path)
        and not is_test_path(path)
        and not _in_package(path)
    )


def _joins_for_callers(path: str, entries: set[str], by_path: dict[str, ScannedFile]) -> bool:
    """A module that takes a model and a training step and that other files run (not an
    entry, a package __init__, a conftest or a test): the scripts importing it drive the
    training with its values."""
    return path not in entries and not _is_init(path) and os.path.basename(path) != "conftest.py" and not is_test_path(path) and bool(by_path[path].functions)


def _package_root(path: str) -> str | None:
    """The folder of the outermost package holding `path` (None outside any package)."""
    folder, found = os.path.dirname(os.path.abspath(path)), None
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        found, folder = folder, os.path.dirname(folder)
    return found


def _in_package(path: str) -> bool:
    return os.path.isfile(os.path.join(os.path.dirname(path), "__init__.py"))


def _under_package(path: str, levels: int = 4) -> bool:
    """In a package, or in a folder of one (a namespace folder inside `maxtext/`)."""
    return any(os.path.isfile(os.path.join(folder, "__init__.py")) for folder in folders_above(path, levels))


def _scripts_taking(
    package: str,
    exported: tuple[set[str], set[str]],
    importers: dict[str, list[tuple[str, Taken]]],
    script: Callable[[str], bool],
) -> set[str]:
    """The scripts that import any of the (functions, classes) `exported` by name from
    the package `__init__` `package`, directly or through packages that re-export them
    in turn (three at most); a class counts for a script, not for a test."""
    found: set[str] = set()
    frontier = [(package, exported)]
    for _ in range(3):
        further: list[tuple[str, tuple[set[str], set[str]]]] = []
        for current, (functions, classes) in frontier:
            for outer, taken in importers.get(current, ()):
                names = {bound for name, bound in taken.pairs if name in functions}
                class_names = {bound for name, bound in taken.pairs if name in classes}
                if _is_init(outer):
                    if not taken.pairs and taken.module_as is None:
                        names, class_names = set(functions), set(classes)  # `from .sub import *`: all of them
                    if names or class_names:
                        further.append((outer, (names, class_names)))
                elif (names or (class_names and not is_test_path(outer))) and script(outer):
                    found.add(outer)  # a script takes them by name
                elif not taken.pairs and _package_root(outer) != _package_root(current) and script(outer) and _calls_an_attribute(outer, functions if is_test_path(outer) else functions | classes):
                    # the package whole (`import tinylm`, then `tinylm.train(seq_len=255)` in
                    # examples/: probe 94d): only a script outside the package's tree whose
                    # text calls one of them, as every script importing a package would
                    # otherwise be analysed for no value it passes (keras' own tests: +41
                    # drivers on the corpus)
                    found.add(outer)
        frontier = further
    return found


def _training_exports(by_path: dict[str, ScannedFile], importers: dict[str, list[tuple[str, Taken]]]) -> dict[str, set[str]]:
    """The package `__init__`s that re-export functions of modules that differentiate
    (`from .training.trainer import make_train_step`, or `*`), through up to three
    packages: the names they bind them to."""
    found: dict[str, set[str]] = {}
    frontier = [(path, set(scanned.functions)) for path, scanned in by_path.items() if scanned.differentiates and scanned.functions]
    for _ in range(3):
        further: list[tuple[str, set[str]]] = []
        for current, functions in frontier:
            for outer, taken in importers.get(current, ()):
                if not _is_init(outer) or taken.module_as is not None:
                    continue
                names = functions if not taken.pairs else {bound for name, bound in taken.pairs if name in functions}
                new = names - found.setdefault(outer, set())
                if new:
                    found[outer] |= new
                    further.append((outer, new))
        frontier = further
    return {path: names for path, names in found.items() if names}


def _calls_an_attribute(path: str, names: set[str]) -> bool:
    """Does the file's text call `<x>.name(` for one of `names`?"""
    if not names:
        return False
    try:
        text, _ = read_source(path)
    except SourceError:
        return False
    return re.search(r"\.\s*(?:" + "|".join(sorted(map(re.escape, names))) + r")\s*\(", text) is not None


class _UnionFind:
    """Disjoint sets of paths (path halving)."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, path: str) -> str:
        parent = self.parent
        parent.setdefault(path, path)
        while parent[path] != path:
            parent[path] = parent[parent[path]]
            path = parent[path]
        return path

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def _components(
    entries: list[str], reachable: list[str], groups: _UnionFind, by_path: dict[str, ScannedFile]
) -> list[Component]:
    """Entries joined by the files they can reach: no file belongs to two components."""
    entries_of: dict[str, list[str]] = {}
    reachable_of: dict[str, list[str]] = {}
    size_of: dict[str, int] = {}
    for path in entries:
        group = groups.find(path)
        entries_of.setdefault(group, []).append(path)
        size_of[group] = size_of.get(group, 0) + by_path[path].size
    for path in reachable:
        group = groups.find(path)
        reachable_of.setdefault(group, []).append(path)
        size_of[group] = size_of.get(group, 0) + by_path[path].size
    return [
        Component(tuple(members), tuple(reachable_of.get(group, ())), size_of[group])
        for group, members in entries_of.items()
    ]


def _with_callers(component: Component, imported_by: dict[str, tuple[str, ...]], order: dict[str, int]) -> Component:
    """`component` with the files outside it that import its files (Component.callers)."""
    files = {*component.entries, *component.reachable}
    callers = {importer for path in files for importer in imported_by.get(path, ()) if importer not in files}
    return replace(component, callers=tuple(sorted(callers, key=order.__getitem__))) if callers else component


def _shards(
    component: Component, imports: dict[str, set[str]], by_path: dict[str, ScannedFile], order: dict[str, int]
) -> list[Component]:
    """`component` itself, or shards of it whose entries hold about SHARD_CHARS each
    (as many as the entries' source holds SHARD_CHARS, rounded, cut evenly)."""
    total = sum(by_path[path].size for path in component.entries)
    count = round(total / SHARD_CHARS)
    if count <= 1 or len(component.entries) < 2:
        return [component]
    chunks: list[list[str]] = [[]]
    done = 0
    for path in component.entries:
        if chunks[-1] and done >= total * len(chunks) / count:
            chunks.append([])
        chunks[-1].append(path)
        done += by_path[path].size
    shards: list[Component] = []
    for chunk in chunks:
        members = set(chunk)
        reached: set[str] = set()
        frontier = list(chunk)
        while frontier:
            for target in imports.get(frontier.pop(), ()):
                if target not in members and target not in reached:
                    reached.add(target)
                    frontier.append(target)
        reachable = sorted(reached, key=order.__getitem__)
        size = sum(by_path[path].size for path in (*chunk, *reachable))
        shards.append(Component(tuple(chunk), tuple(reachable), size))
    return shards
