"""The analysed project: its modules by dotted name, and how imports reach them.

Only files handed to the analysis are ever loaded; an import of anything else
(jax, flax, numpy, the user's installed packages) becomes an external name that
our own API tables model.  Nothing is imported or executed.
"""

from __future__ import annotations

import ast
import functools
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference.scopes import ScopeFacts

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.values import Value


# Libraries whose APIs are modelled by our tables: an import of them is theirs even
# where the project vendors a copy (third_party/jax/jax) or is the library itself.
MODELLED_PACKAGES = frozenset(
    {"jax", "jaxlib", "flax", "numpy", "equinox", "optax", "einops", "haiku", "jaxtyping",
     "ml_collections", "functools", "dataclasses", "typing", "pytest", "hypothesis"}
)
# Top-level names an absolute import never takes from the project: the modelled
# libraries and the standard library.  `import math` is not the math.py of some
# jaxlib/mlir/dialects/ folder that a suffix match would otherwise find (a project
# file that shadows the standard library is a bug of its own).  `test` is left out:
# projects have test/ packages, and the standard library's is often not installed.
NOT_PROJECT_MODULES = MODELLED_PACKAGES | (frozenset(sys.stdlib_module_names) - {"test"})


@dataclass(eq=False)
class ModuleInfo:
    name: str  # dotted module name ("pkg.model"), or the file stem for a lone file
    path: str
    tree: ast.Module
    is_package: bool = False
    loader: Callable[[], ast.Module | None] | None = None  # parses the file on first use
    namespace: dict[str, Value] = field(default_factory=lambda: {})
    state: str = "new"  # new -> running -> done
    facts: ScopeFacts = field(default_factory=ScopeFacts)
    entry: str = "full"  # how a root is analysed: every function, only those naming a grad-like transform, or (a driver) those using what it imports
    # for a "differentiating" root: the names it imports that lead to watched calls (None: unknown)
    entry_names: frozenset[str] | None = None
    # globals another module sets (`consts.MAX_LEN = 256`, monkeypatch.setattr): which
    # value a function reads depends on which program ran first, so it is unknown
    patched: set[str] = field(default_factory=lambda: set())
    # does the module's top level force the CPU platform (externals._forces_cpu, once)
    forces_cpu: bool | None = None
    # was it run because code imported it (an import, importlib), not only as an entry
    # the analysis runs on its own (Interpreter.run_entry): what it registers holds
    imported: bool = False

    @property
    def global_names(self) -> frozenset[str]:
        """Names some function of the module rebinds with `global`."""
        return self.facts.global_names()




# the methods of a list that change it in place (`sys.argv.append`, `sys.path.insert`)
LIST_CHANGERS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "__setitem__"})


def is_test_path(path: str) -> bool:
    """A test file by pytest's naming (test_*.py, *_test.py) or under a tests folder."""
    name = os.path.basename(path)
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or f"{os.sep}tests{os.sep}" in path or f"{os.sep}test{os.sep}" in path


def folders_above(path: str, levels: int) -> Iterator[str]:
    """The folder of `path`, then each parent, `levels` of them at most (up to the root)."""
    folder = os.path.dirname(path)
    for _ in range(levels):
        yield folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return
        folder = parent


def conftest_paths(path: str, root: str | None = None) -> list[str]:
    """The conftest.py files pytest loads for a test file, closest first: its folder's and
    each parent's up to `root` (as path strings of the same form as `path`)."""
    name = os.path.basename(path)
    if not (name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"):
        return []
    top = os.path.abspath(root) if root is not None else None
    found: list[str] = []
    folder = os.path.dirname(path)
    for _ in range(12):
        candidate = os.path.join(folder, "conftest.py")
        if candidate != path:
            found.append(candidate)
        parent = os.path.dirname(folder)
        if parent == folder or not folder or (top is not None and os.path.abspath(folder) == top):
            break
        folder = parent
    return found


@functools.lru_cache(maxsize=64)
def import_root(root: str) -> str:
    """The folder imports start from: `root` itself, or, where `root` is a package (the
    command run on `mypkg/`, whose files say `from mypkg import model`), the folder
    above its outermost package."""
    folder = os.path.normpath(os.path.abspath(root))
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parent = os.path.dirname(folder)
        if parent == folder or not os.path.basename(folder).isidentifier():
            break
        folder = parent
    return folder


def _src_roots(root: str) -> list[str]:
    roots = [root]
    src = os.path.join(root, "src")
    if os.path.isdir(src):
        roots.insert(0, src)
    return roots


def module_name_for(path: str, root: str | None) -> tuple[str, bool]:
    """The dotted name a file is imported as, relative to the project root.

    Packages are folders (with or without __init__.py: namespace packages count);
    a `src/` layout is recognised.
    """
    norm = os.path.normpath(os.path.abspath(path))
    base = os.path.basename(norm)
    stem = base[:-3] if base.endswith(".py") else base
    is_package = stem == "__init__"
    if root is None:
        return (os.path.basename(os.path.dirname(norm)) if is_package else stem), is_package
    for candidate_root in _src_roots(import_root(root)):
        rel = os.path.relpath(norm, candidate_root)
        if rel.startswith(".."):
            continue
        parts = rel[:-3].split(os.sep) if rel.endswith(".py") else rel.split(os.sep)
        if parts and parts[-1] == "__init__":
            parts = parts[:-1]
        # A folder whose name is no identifier (my-project/, orbax-checkpoint/) cannot
        # be a package: the import root is below it.
        while parts and not all(p.isidentifier() for p in parts):
            parts = parts[1:]
        if parts:
            return ".".join(parts), is_package
    return stem, is_package


def _under_src_as(info: ModuleInfo, dotted: str) -> bool:
    """Is the module's file src/<dotted as folders>(.py or /__init__.py)?"""
    parts = dotted.split(".")
    tail = os.path.join("src", *parts) + (os.sep + "__init__.py" if info.is_package else ".py")
    return os.path.normpath(os.path.abspath(info.path)).endswith(os.sep + tail)


def _runs_from_its_folder(info: ModuleInfo) -> str:
    """Is the module's folder first on sys.path when it runs: "script" for a script (`if
    __name__ == "__main__":` at its top level), "test" for a test file, whose folder
    pytest puts on sys.path (its default "prepend" import mode; in a package, the first
    folder above it that is none), "" for neither."""
    name = os.path.basename(info.path)
    if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
        return "test"
    return "script" if any(isinstance(stmt, ast.If) and is_main_guard(stmt.test) for stmt in info.tree.body) else ""


def is_main_guard(test: ast.expr | None) -> bool:
    """`__name__ == "__main__"`: true when the module runs as the program."""
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


class Project:
    """All modules of one analysis run, addressable by dotted name and by path."""

    def __init__(
        self,
        trees: Mapping[str, ast.Module],
        root: str | None = None,
        lazy: Mapping[str, Callable[[], ast.Module | None]] | None = None,
        importers: Mapping[str, frozenset[str] | None] | None = None,
        drivers: frozenset[str] = frozenset(),
        imported_by: Mapping[str, tuple[str, ...]] | None = None,
        data_files: frozenset[str] = frozenset(),
    ) -> None:
        """`trees` are the modules to analyse (entry points); `lazy` are the other files
        of the project, parsed only if an analysed import reaches them.  Entry files in
        `importers` (a train.py importing the analysed code) are entered only through
        their functions that name a differentiation transform; those in `drivers` (a
        main.py calling training code it imports) through their uses of those names.
        `imported_by`: each file's importers among them, as the project scan found them;
        `data_files`: the data files (absolute paths) the analysis may read (data_files.py)."""
        self.by_name: dict[str, ModuleInfo] = {}
        self.by_path: dict[str, ModuleInfo] = {}
        self.suffix_index: dict[str, list[ModuleInfo]] = {}
        self.roots: list[ModuleInfo] = []
        self.abs_paths: set[str] = set()
        self.parsed: list[ModuleInfo] = []  # the modules with their tree, in the order they got it
        # (the defining module's path, class name) -> attributes another file sets
        # (`Config.SEQ = 128`): unknown to readers
        self.patched_class_attrs: dict[tuple[str, str], set[str]] = {}
        # absolute folder -> the dotted name it is imported as (packages and namespace
        # packages), and absolute file path -> module: a script's siblings (absolute_import)
        self.dir_names: dict[str, str] = {}
        self.by_abs_path: dict[str, ModuleInfo] = {}
        self._siblings: dict[tuple[str, str, str], str | None] = {}
        self._nearest: dict[tuple[str, str], str | None] = {}  # (folder, dotted) -> _nearest_match
        self._scripts: dict[str, str] = {}  # path -> "script", "test" or "" (absolute_import)
        self.imported_by: Mapping[str, tuple[str, ...]] = imported_by or {}  # (importers_of)
        self.data_files = data_files
        # (what a scan looks for, module path) -> whether the module does it (Project.scan)
        self._scans: dict[tuple[str, str], bool] = {}
        self._reads: dict[tuple[str, str], object] = {}
        lazy = {p: f for p, f in (lazy or {}).items() if p not in trees}
        # one file on its own (the flake8 plugin): the project's other files are not seen
        self.alone = root is None and not lazy and len(trees) == 1
        every = [*trees, *lazy]
        if root is None and len(every) > 1:
            # files handed over together: name them from the folder they share
            try:
                root = os.path.commonpath([os.path.dirname(os.path.abspath(p)) for p in every])
            except ValueError:
                root = None
        self._import_root = import_root(root) if root is not None else None
        for path, tree in trees.items():
            info = self._register(path, root, tree, None)
            if importers is not None and path in importers:
                info.entry = "driver" if path in drivers else "differentiating"
                info.entry_names = importers[path]
            self.roots.append(info)
        for path, loader in lazy.items():
            self._register(path, root, ast.Module(body=[], type_ignores=[]), loader)

    def _register(self, path: str, root: str | None, tree: ast.Module, loader: Callable[[], ast.Module | None] | None) -> ModuleInfo:
        name, is_package = module_name_for(path, root)
        info = ModuleInfo(name, path, tree, is_package, loader, facts=ScopeFacts(tree))
        if loader is None:
            self.parsed.append(info)
        abs_path = os.path.abspath(path)
        self.abs_paths.add(abs_path)
        self.by_abs_path[abs_path] = info
        folder, parts = os.path.dirname(abs_path), name.split(".")[: None if is_package else -1]
        while parts and folder not in self.dir_names:
            self.dir_names[folder] = ".".join(parts)
            folder, parts = os.path.dirname(folder), parts[:-1]
        self.by_path[path] = info
        known = self.by_name.get(name)
        if known is not None and (under_src := [m for m in (known, info) if _under_src_as(m, name)]) and len(under_src) == 1:
            # src/model.py named as a src/ layout installs it, and a model.py at the root:
            # the one in src/ is `src.model` too, so that its folder's scripts (`from model
            # import attn` in src/train.py) read it and not the root's (probe 102b)
            self._rename(under_src[0], "src." + name)
            known = self.by_name.get(name)
        if known is None or (is_package and not known.is_package and os.path.dirname(os.path.dirname(abs_path)) == os.path.dirname(os.path.abspath(known.path))):
            self.by_name[name] = info  # `model/__init__.py` beside a leftover `model.py`: Python imports the package
        parts = info.name.split(".")
        for i in range(len(parts)):
            self.suffix_index.setdefault(".".join(parts[i:]), []).append(info)
        return info

    def _rename(self, info: ModuleInfo, name: str) -> None:
        """Give a registered module its longer name (and its folder's): by that name, and
        by its suffixes, as registering it so would."""
        if self.by_name.get(info.name) is info:
            del self.by_name[info.name]
        info.name = name
        self.by_name.setdefault(name, info)
        self.suffix_index.setdefault(name, []).append(info)
        folder, parts = os.path.dirname(os.path.abspath(info.path)), name.split(".")[: None if info.is_package else -1]
        while parts:
            self.dir_names[folder] = ".".join(parts)
            folder, parts = os.path.dirname(folder), parts[:-1]

    def scan(self, info: ModuleInfo, test: Callable[[ast.AST], bool]) -> bool:
        """Does any node of the module pass `test` (a module-wide question, asked once per
        module and test: does it patch sys.argv, change sys.path, rename a function)?"""
        key = (test.__qualname__, info.path)
        found = self._scans.get(key)
        if found is None:
            found = self._scans[key] = any(test(node) for node in ast.walk(info.tree))
        return found

    def read_once(self, info: ModuleInfo, compute: Callable[[ast.Module], object]) -> object:
        """What `compute` reads off the module's whole tree, once per module and reader
        (a question that needs more than one node at a time: scan's are node by node)."""
        key = (compute.__qualname__, info.path)
        if key not in self._reads:
            self._reads[key] = compute(info.tree)
        return self._reads[key]

    def conftests(self) -> list[ModuleInfo]:
        """The project's conftest.py modules, parsed."""
        found = [info for path, info in self.by_path.items() if os.path.basename(path) == "conftest.py"]
        for info in found:
            self.load(info)
        return found

    def importers_of(self, module: ModuleInfo) -> list[ModuleInfo]:
        """The project's modules that import `module` (its names or it whole, as the
        project scan found them), parsed: callers of a function whose default is in
        reach, whose calls may override it (model.py between layers.py and train.py:
        probe 32b).  Direct importers only: through a package `__init__` that re-exports
        it, every importer of a large package was read, and the corpus's whole-project
        run (benchmarks/project.py) took 8 % longer."""
        found: list[ModuleInfo] = []
        for path in self.imported_by.get(module.path, ()):
            info = self.by_path.get(path)
            if info is not None and info is not module and not info.is_package:
                self.load(info)
                found.append(info)
        return found

    def load(self, info: ModuleInfo) -> None:
        """Parse a lazily known module the first time an import reaches it."""
        if info.loader is None:
            return
        loader, info.loader = info.loader, None
        self.parsed.append(info)
        try:
            tree = loader()
        except (SyntaxError, ValueError, RecursionError, MemoryError, OSError):
            tree = None
        if tree is not None:
            info.tree = tree
            info.facts = ScopeFacts(tree)

    def find(self, dotted: str) -> ModuleInfo | None:
        """The project module an absolute import names, if the project has it.

        Exact names first; then a unique suffix match, which covers projects
        analysed from a folder below their import root (`python train.py` beside
        `model.py`, or a repo whose package sits under another folder).
        """
        if dotted.split(".", 1)[0] in NOT_PROJECT_MODULES:
            return None  # a modelled library (never a vendored copy) or the standard library
        if dotted in self.by_name:
            return self.by_name[dotted]
        matches = [m for m in self.suffix_index.get(dotted, []) if self._importable_as(m, dotted)]
        if len(matches) == 1:
            return matches[0]
        first, _, rest = dotted.partition(".")
        if first == "src" and rest and not matches:
            # `from src.model import attn` run from the repository's root: its src/ folder
            # is a package there (or a namespace one), though the analysis names src/'s
            # modules as a src/ layout installs them (probe 101d)
            inner = self.find(rest)
            if inner is not None and _under_src_as(inner, rest):
                return inner
        return None

    def _importable_as(self, info: ModuleInfo, dotted: str) -> bool:
        """Could `import dotted` reach this module from some folder on sys.path?

        Only if the folder that would have to be on sys.path is not itself inside a
        package: keras/src/backend/jax/ is never what `import jax` means.
        """
        depth = len(info.name.split(".")) - len(dotted.split("."))
        if depth <= 0:
            return True
        folder = os.path.dirname(os.path.abspath(info.path))
        if info.is_package:
            folder = os.path.dirname(folder)
        for _ in range(len(dotted.split(".")) - 1):
            folder = os.path.dirname(folder)
        return not self._is_package_dir(folder)

    def _is_package_dir(self, folder: str) -> bool:
        init = os.path.join(folder, "__init__.py")
        return init in self.abs_paths or os.path.isfile(init)

    def bound_module(self, current: ModuleInfo, stmt: ast.Import | ast.ImportFrom, alias: ast.alias) -> ModuleInfo | None:
        """The project module an import binds to its local name: `import pkg.consts as c`
        (pkg.consts), `import pkg.consts` (pkg), `from pkg import consts` (pkg.consts)."""
        if isinstance(stmt, ast.Import):
            return self.find(self.absolute_import(current, alias.name if alias.asname else alias.name.split(".")[0]))
        base = self.from_base(current, stmt)
        return self.find(f"{base}.{alias.name}" if base else alias.name)

    def from_base(self, current: ModuleInfo, stmt: ast.ImportFrom) -> str:
        """The absolute module a `from ... import` statement of `current` imports from."""
        return self.resolve_relative(current, stmt.module, stmt.level) if stmt.level else self.absolute_import(current, stmt.module or "")

    def absolute_import(self, current: ModuleInfo, dotted: str) -> str:
        """The registered name that `import dotted` in `current` means, where a suffix
        match alone could be ambiguous (a tree of experiments, one `model.py` each), as
        sys.path is when the code runs:

        - a script (`if __name__ == "__main__":`) runs from its own folder: `python
          p1/train.py` saying `from model import attend` imports p1/model.py, even where
          the import root has a model.py; so does a test file (pytest's prepend mode);
        - a module or a test file inside a package, from the folder above its outermost
          package (`p1t/pkg/train.py` means p1t/model.py when several projects are linted
          at once; pytest puts exp_a/ on sys.path for exp_a/tests/test_model.py);
        - any other module, from the outermost folder between the import root and its own
          that has such a module (`exp/common.py`, imported as `exp.common` by the
          project's run.py, reads the project's model.py, not exp/model.py), and a name a
          module at the import root has is kept.
        """
        first, dot, rest = dotted.partition(".")
        if not first or first in NOT_PROJECT_MODULES:
            return dotted
        script = self._scripts.get(current.path)
        if script is None:
            script = self._scripts[current.path] = _runs_from_its_folder(current)
        if first in self.by_name and not script:
            return dotted  # (a module of that name at the import root: the name is not ambiguous)
        folder = os.path.dirname(os.path.abspath(current.path))
        key = (folder, first, script)
        if key not in self._siblings:
            found: str | None = None
            if script or self._is_package_dir(folder):
                base = folder
                for _ in range(32 if script != "script" else 0):  # a package's modules and tests: from the folder above its outermost package
                    if not self._is_package_dir(base) or os.path.dirname(base) == base:
                        break
                    base = os.path.dirname(base)
                found = self._sibling_name(base, first)
                if found is None and script == "test":
                    found = self._from_conftest_folders(current.path, first)
            else:
                for candidate in self._folders_down_to(folder):
                    found = self._sibling_name(candidate, first)
                    if found is not None:
                        break
            self._siblings[key] = found
        sibling = self._siblings[key]
        if sibling is None and first not in self.by_name:
            return self._nearest_match(folder, dotted) or dotted
        return dotted if sibling is None else sibling + dot + rest

    def _nearest_match(self, folder: str, dotted: str) -> str | None:
        """Where several projects linted at once each have a `settings.py` (a suffix match
        alone is ambiguous), the one whose import folder holds the importer, the nearest
        (`a/scripts/train.py` saying `import settings` reads a/settings.py, run from a/ as
        the project does alone: probe 101d); its registered name, or None."""
        key = (folder, dotted)
        if key not in self._nearest:
            matches = [m for m in self.suffix_index.get(dotted, []) if self._importable_as(m, dotted)]
            depths: dict[int, list[ModuleInfo]] = {}
            for module in matches if len(matches) > 1 else ():
                base = os.path.dirname(os.path.abspath(module.path))
                for _ in range(len(dotted.split(".")) - (0 if module.is_package else 1)):
                    base = os.path.dirname(base)
                if folder == base or folder.startswith(base + os.sep):
                    depths.setdefault(len(base), []).append(module)
            nearest = depths[max(depths)] if depths else []
            self._nearest[key] = nearest[0].name if len(nearest) == 1 else None
        return self._nearest[key]

    def _from_conftest_folders(self, path: str, first: str) -> str | None:
        """pytest (prepend mode) also puts on sys.path the folder of each conftest.py it
        loads for a test (the folder above its package, in one): `from kernels.flash
        import ...` in exp/tests/ finds exp/kernels/ through exp/conftest.py (probe 31b)."""
        for candidate in conftest_paths(path):
            conftest = os.path.abspath(candidate)
            if conftest not in self.by_abs_path:
                continue
            base = os.path.dirname(conftest)
            for _ in range(32):
                if not self._is_package_dir(base) or os.path.dirname(base) == base:
                    break
                base = os.path.dirname(base)
            found = self._sibling_name(base, first)
            if found is not None:
                return found
        return None

    def _folders_down_to(self, folder: str) -> list[str]:
        """The folders from the import root down to `folder` (just `folder` outside it)."""
        top = self._import_root
        if top is None or not (folder == top or folder.startswith(top + os.sep)):
            return [folder]
        chain = [folder]
        while chain[-1] != top and os.path.dirname(chain[-1]) != chain[-1]:
            chain.append(os.path.dirname(chain[-1]))
        return chain[::-1]

    def _sibling_name(self, folder: str, first: str) -> str | None:
        """The registered name of `first.py` or the package `first/` in `folder`."""
        module = self.by_abs_path.get(os.path.join(folder, first + ".py"))
        if module is not None:
            return module.name
        return self.dir_names.get(os.path.join(folder, first))

    def resolve_relative(self, current: ModuleInfo, module: str | None, level: int) -> str:
        parts = current.name.split(".")
        if not current.is_package:
            parts = parts[:-1]
        if level > 1:
            parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
        if module:
            parts.append(module)
        return ".".join(p for p in parts if p)
