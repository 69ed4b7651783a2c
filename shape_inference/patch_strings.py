"""The strings a test builds its patch targets from.

`mock.patch("jax.nn.dot_product_attention", fake)` names what it replaces in a literal,
but test suites also write `mock.patch(f"{MODULE}.dot_product_attention")`, `MODULE +
".attend"`, `"%s.%s" % (MODULE, NAME)`, `".".join(PARTS)` or `consts.ATTENTION`.  This
reads such an expression as the string it is where every part is: literals, names bound
to one such value earlier in the module (a test's local too), constants of the project
module a name is imported from.  Nothing is run: the operations are Python's own on
strings the code spells (probes 38b, 40a).
"""

from __future__ import annotations

import ast
from collections import ChainMap
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, cast

from jax_cudnn_lint.shape_inference.scopes import CALLED_LATER

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.modules import ModuleInfo, Project

BUILT_AT_RUN_TIME = "<built at run time>"  # the module part of a patch target string that is not known
OWN_CLASS = "<class>"  # in the strings a method reads: the name of its class (self.TARGET)
# str methods of one string that give one string (their arguments strings too)
_STRING_METHODS = frozenset({"replace", "lower", "upper", "strip", "lstrip", "rstrip", "removeprefix", "removesuffix"})
ANY_NAME = "*"  # the name of a patch target built from parts none of which is known
StringValue = str | tuple[str, ...]  # a string, or a list or tuple of them (`PARTS = ["jax.nn", ...]`)
MAX_DEPTH = 8


class PatchStrings:
    """String values of expressions, with the project's module-level strings cached."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.module_strings: dict[int, dict[str, StringValue | None]] = {}
        self.imported_strings: dict[tuple[int, str], StringValue | None] = {}
        self.class_strings: dict[tuple[int, str], dict[str, StringValue]] = {}

    def record(self, info: ModuleInfo, stmt: ast.stmt, bound: dict[str, StringValue], visible: Mapping[str, StringValue], deep: bool = False) -> None:
        """What a statement binds, in the order statements come: `name = <string
        expression>` the string; any other binding of a name forgets it.  `deep`: also
        in the blocks the statement holds (an `if`, a loop, a `try`: a module's top
        level read statement by statement, probe 41a); else the caller visits them."""
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            found = self.value(info, stmt.value, visible)
            if found is not None:
                bound[stmt.targets[0].id] = found
                return
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(names := stmt.targets[0], (ast.Tuple, ast.List)) and all(isinstance(name, ast.Name) for name in names.elts):
            found = self.value(info, stmt.value, visible)  # `MODULE, NAME = "jax.nn", "dot_product_attention"`
            if isinstance(found, tuple) and len(found) == len(names.elts):
                for name, item in zip(names.elts, found):
                    bound[cast("ast.Name", name).id] = item
                return
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.pop(stmt.name, None)  # (its body is its own scope)
            return
        if isinstance(stmt, ast.ImportFrom) and (source := self.project.find(self.project.from_base(info, stmt))) is not None and source is not info:
            for alias in stmt.names:  # `from tests_support.consts import ATTN` in a test's body
                found = self.of_module(source).get(alias.name) if alias.name != "*" else None
                if found is not None:
                    bound[alias.asname or alias.name] = found
                else:
                    bound.pop(alias.asname or alias.name, None)
            return
        if not bound:
            return
        if not deep:
            for target in _own_targets(stmt):
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        bound.pop(node.id, None)
            for alias in stmt.names if isinstance(stmt, (ast.Import, ast.ImportFrom)) else ():
                bound.pop(alias.asname or alias.name.split(".")[0], None)
            return
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                bound.pop(node.id, None)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.pop(node.name, None)
            elif isinstance(node, ast.alias):
                bound.pop(node.asname or node.name.split(".")[0], None)

    def target(self, info: ModuleInfo, node: ast.expr, strings: Mapping[str, StringValue]) -> str | None:
        """A patch target as the string it is; for one built from parts not known whose
        last name is literal, that name in BUILT_AT_RUN_TIME (whichever module it names);
        None else."""
        text = self.value(info, node, strings)
        if isinstance(text, str):
            return text
        tail = _literal_tail(node)
        if tail is not None and "." in tail and (name := tail.rpartition(".")[2]).isidentifier():
            return f"{BUILT_AT_RUN_TIME}.{name}"
        if tail is None and not isinstance(node, ast.Constant):
            return f"{BUILT_AT_RUN_TIME}.{ANY_NAME}"  # `mock.patch(target)` with a target not known: it may be any API
        return None

    def value(self, info: ModuleInfo, node: ast.expr, strings: Mapping[str, StringValue], depth: int = 0) -> StringValue | None:
        """The string (or strings) `node` certainly is; None where a part is not known."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, str) else None
        if isinstance(node, ast.Name):
            return strings[node.id] if node.id in strings else self._imported(info, node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in ("self", "cls") and isinstance(owner := strings.get(OWN_CLASS), str):
                return self.of_class(info, owner).get(node.attr)  # `self.TARGET`: the class's own (or a base's)
            if node.value.id not in strings and (named := self.of_class(info, node.value.id)):
                return named.get(node.attr)  # `TestAttention.TARGET`
            module = self._imported_module(info, node.value.id)
            return self.of_module(module).get(node.attr) if module is not None else None  # `consts.ATTENTION`
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) and node.value.func.id == "type" and len(node.value.args) == 1:
            return self.value(info, ast.Attribute(node.value.args[0], node.attr, ast.Load()), strings, depth + 1)  # `type(self).TARGET`
        if isinstance(node, ast.Subscript):
            held = self.value(info, node.value, strings, depth + 1)  # `TARGETS[1]`, `PARTS[:2]`
            index = _index(node.slice)
            if held is None or index is None:
                return None
            try:
                return held[index]
            except (IndexError, TypeError, ValueError):
                return None
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self.value(info, item, strings, depth + 1) for item in node.elts]
            return tuple(item for item in items if isinstance(item, str)) if all(isinstance(item, str) for item in items) else None
        if isinstance(node, ast.JoinedStr):
            pieces: list[str] = []
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    if part.conversion != -1 or part.format_spec is not None:
                        return None
                    found = self.value(info, part.value, strings, depth + 1)
                    if not isinstance(found, str):
                        return None
                    pieces.append(found)
                elif isinstance(part, ast.Constant) and isinstance(part.value, str):
                    pieces.append(part.value)
                else:
                    return None
            return "".join(pieces)
        if isinstance(node, ast.NamedExpr):
            return self.value(info, node.value, strings, depth + 1)  # `mock.patch(t := "jax.nn.relu")`
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            left = self.value(info, node.left, strings, depth + 1)
            right = self.value(info, node.right, strings, depth + 1)
            if isinstance(node.op, ast.Add) and isinstance(left, tuple) and isinstance(right, tuple):
                return left + right  # `BASE + ["dot_product_attention"]`
            if not isinstance(left, str) or right is None:
                return None
            if isinstance(node.op, ast.Add):
                return left + right if isinstance(right, str) else None
            try:
                return left % right  # `"%s.%s" % (MODULE, NAME)`
            except (TypeError, ValueError):
                return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _STRING_METHODS and not node.keywords:
            held = self.value(info, node.func.value, strings, depth + 1)
            given = [self.value(info, a, strings, depth + 1) for a in node.args]
            if not isinstance(held, str) or not all(isinstance(a, str) for a in given):
                return None
            try:
                return str(getattr(held, node.func.attr)(*given))  # `"jax.nn.x".replace("nn", "image")`
            except (TypeError, ValueError):
                return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("format", "join"):
            template = self.value(info, node.func.value, strings, depth + 1)
            arguments: list[StringValue | None] = []
            for a in node.args:
                if isinstance(a, ast.Starred):  # `"{}.{}".format(*PARTS)`
                    spread = self.value(info, a.value, strings, depth + 1)
                    if not isinstance(spread, tuple):
                        return None
                    arguments.extend(spread)
                else:
                    arguments.append(self.value(info, a, strings, depth + 1))
            if not isinstance(template, str) or any(a is None for a in arguments):
                return None
            if node.func.attr == "join":
                parts = arguments[0] if len(arguments) == 1 and not node.keywords else None
                return template.join(parts) if isinstance(parts, tuple) else None
            named = {k.arg: self.value(info, k.value, strings, depth + 1) for k in node.keywords if k.arg is not None}
            if len(named) != len(node.keywords) or not all(isinstance(a, str) for a in (*arguments, *named.values())):
                return None
            try:
                return template.format(*arguments, **named)
            except (IndexError, KeyError, ValueError):
                return None
        return None

    def parameter_values(self, info: ModuleInfo, func: ast.FunctionDef | ast.AsyncFunctionDef, name: str, strings: Mapping[str, StringValue]) -> tuple[tuple[str, ...], bool] | None:
        """Every string the parameter `name` of the module's function `func` may hold: its
        `pytest.mark.parametrize` rows (pytest calls a test with each), else the
        arguments the module's calls pass it or its default.  None where one of them is
        not known, or the function may be called from elsewhere (probe 43a: a target
        from a row or a helper's parameter, taken for any API, hid what patches relu).
        With them, whether they are rows: each row runs the same lines, while each call
        patches in its own place."""
        rows = _parametrize_rows(func, name)
        if rows is not None:
            found = [self.value(info, row, strings) for row in rows]
        else:
            calls = info.facts.direct_calls(func.name)
            positional = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
            if not calls or name not in positional and name not in {a.arg for a in func.args.kwonlyargs} or func.name.startswith("test"):
                return None
            defaults = dict(zip(positional[len(positional) - len(func.args.defaults) :], func.args.defaults))
            defaults.update((a.arg, d) for a, d in zip(func.args.kwonlyargs, func.args.kw_defaults) if d is not None)
            found: list[StringValue | None] = []
            for call in calls:
                if call is CALLED_LATER or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                    return None
                index = positional.index(name) if name in positional else len(call.args)
                given = call.args[index] if index < len(call.args) else next((k.value for k in call.keywords if k.arg == name), defaults.get(name))
                found.append(self.value(info, given, strings) if given is not None else None)
        values = [value for value in found if isinstance(value, str)]
        return (tuple(values), rows is not None) if len(values) == len(found) and values else None

    def of_module(self, info: ModuleInfo) -> dict[str, StringValue | None]:
        """The strings a module's top level leaves its names bound to (None: rebound by a
        function's `global`); a name bound last in a block that may not run is left out."""
        found = self.module_strings.get(id(info))
        if found is None:
            found = self.module_strings[id(info)] = {}  # (a module that imports itself back reads nothing)
            self.project.load(info)
            strings: dict[str, StringValue] = {}
            for stmt in info.tree.body:
                self.record(info, stmt, strings, strings, deep=True)  # (the last plain binding is what the module ends with)
            rebound = info.facts.global_names()
            for name, value in strings.items():
                found[name] = value if name not in rebound else None
        return found

    def of_class(self, info: ModuleInfo, name: str) -> dict[str, StringValue]:
        """The strings a module's class binds in its body or takes from a base of the
        module (`TARGET = "jax.nn.dot_product_attention"`), as `self.TARGET` reads them
        in its methods; not a name a subclass of the module binds again, nor one code
        sets on some object (`obj.TARGET = ...`): those may differ when the test runs."""
        key = (id(info), name)
        found = self.class_strings.get(key)
        if found is None:
            found = self.class_strings[key] = {}  # (a class that is its own base reads nothing)
            classes = {stmt.name: stmt for stmt in info.tree.body if isinstance(stmt, ast.ClassDef)}
            if name in classes:
                for base in reversed(classes[name].bases):
                    found.update(self.of_class(info, base.id) if isinstance(base, ast.Name) else {})
                own: dict[str, StringValue] = {}
                visible = ChainMap(own, dict(self.as_functions_read(info)))  # the class body reads module names too
                for stmt in classes[name].body:
                    self.record(info, stmt, own, visible, deep=True)
                found.update(own)
                if found:
                    for rebound in _rebound_below(info.tree, classes, name):
                        found.pop(rebound, None)
        return found

    def as_functions_read(self, info: ModuleInfo) -> Mapping[str, StringValue]:
        """The module's strings as its functions read them when they run (after the
        module ran): of_module without the names it cannot tell, computed when first read."""
        return _FinalStrings(self, info)


    def _imported(self, info: ModuleInfo, name: str) -> StringValue | None:
        """`name` as `from consts import name` takes it from a project module."""
        key = (id(info), name)
        if key not in self.imported_strings:
            self.imported_strings[key] = self._find_imported(info, name)
        return self.imported_strings[key]

    def _find_imported(self, info: ModuleInfo, name: str) -> StringValue | None:
        for stmt in info.facts.imports():
            if isinstance(stmt, ast.ImportFrom):
                for alias in stmt.names:
                    if (alias.asname or alias.name) == name and (source := self.project.find(self.project.from_base(info, stmt))) is not None and source is not info:
                        return self.of_module(source).get(alias.name)
                    if alias.name == "*" and (source := self.project.find(self.project.from_base(info, stmt))) is not None and source is not info and (found := self.of_module(source).get(name)) is not None:
                        return found  # `from consts import *`
        return None

    def _imported_module(self, info: ModuleInfo, name: str) -> ModuleInfo | None:
        """The project module `import consts` (or `import pkg.consts as consts`, `from pkg
        import consts`) binds to `name`."""
        for stmt in info.facts.imports():
            for alias in stmt.names:
                if (alias.asname or alias.name.split(".")[0]) == name and (found := self.project.bound_module(info, stmt, alias)) is not None and found is not info:
                    return found
        return None


def _literal_tail(node: ast.expr) -> str | None:
    """The literal end of a string built at run time: `f"{MOD}.dot_product_attention"`,
    `MOD + ".dot_product_attention"`, `"%s.lstm_ref" % MOD`, `"{}.lstm".format(MOD)`,
    `".".join([MOD, "dot_product_attention"])`; None where its end is not literal."""
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(last := node.values[-1], ast.Constant) and isinstance(last.value, str):
        return last.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        right = node.right
        return right.value if isinstance(right, ast.Constant) and isinstance(right.value, str) else _literal_tail(right)
    template = node.left if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) else node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" else None
    if isinstance(template, ast.Constant) and isinstance(template.value, str):
        end = template.value[template.value.rfind(".") :]
        return end if "." in template.value and not any(mark in end for mark in "%{}") else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "join" and isinstance(node.func.value, ast.Constant) and node.func.value.value == ".":
        parts = node.args[0] if len(node.args) == 1 else None
        if isinstance(parts, (ast.List, ast.Tuple)) and parts.elts and isinstance(last := parts.elts[-1], ast.Constant) and isinstance(last.value, str):
            return f".{last.value}"
    return None


def _parametrize_rows(func: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> list[ast.expr] | None:
    """The values `@pytest.mark.parametrize` gives the parameter `name` (a `pytest.param`
    row's first values), where the decorator lists its rows literally; None else."""
    for decorator in func.decorator_list:
        if not (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute) and decorator.func.attr == "parametrize" and len(decorator.args) >= 2):
            continue
        names_node, rows_node = decorator.args[0], decorator.args[1]
        if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
            names = [part.strip() for part in names_node.value.split(",") if part.strip()]
        elif isinstance(names_node, (ast.List, ast.Tuple)) and all(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in names_node.elts):
            names = [str(cast("ast.Constant", n).value) for n in names_node.elts]
        else:
            return None
        if name not in names:
            continue
        if not isinstance(rows_node, (ast.List, ast.Tuple)):
            return None
        index = names.index(name)
        values: list[ast.expr] = []
        for row in rows_node.elts:
            if isinstance(row, ast.Call) and isinstance(row.func, ast.Attribute) and row.func.attr == "param":
                row = row.args[0] if len(names) == 1 and row.args else ast.Tuple(list(row.args), ast.Load())
            if len(names) == 1:
                values.append(row)
            elif isinstance(row, (ast.List, ast.Tuple)) and len(row.elts) == len(names):
                values.append(row.elts[index])
            else:
                return None
        return values
    return None


def _rebound_below(tree: ast.Module, classes: Mapping[str, ast.ClassDef], name: str) -> set[str]:
    """The names the module's subclasses of `name` bind in their bodies, and every
    attribute code stores (`obj.TARGET = ...`, `setattr` aside)."""
    below = {name}
    grew = True
    while grew:
        grew = False
        for cls in classes.values():
            if cls.name not in below and any(isinstance(b, ast.Name) and b.id in below or isinstance(b, ast.Attribute) and b.attr in below for b in cls.bases):
                below.add(cls.name)
                grew = True
    rebound: set[str] = set()
    for cls in classes.values():
        if cls.name in below and cls.name != name:
            rebound.update(target.id for stmt in cls.body for target in _own_targets(stmt) if isinstance(target, ast.Name))
    rebound.update(node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load))
    return rebound


def _index(node: ast.expr) -> int | slice | None:
    """A literal index or slice (`[1]`, `[:-1]`, `[0:2]`), else None."""
    if isinstance(node, ast.Slice):
        bounds = [_int(part) if part is not None else None for part in (node.lower, node.upper, node.step)]
        if any(b is None and part is not None for b, part in zip(bounds, (node.lower, node.upper, node.step))):
            return None
        return slice(*bounds)
    return _int(node)


def _int(node: ast.expr) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand)
        return -inner if inner is not None else None
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool) else None


def _own_targets(stmt: ast.stmt) -> list[ast.expr]:
    """What a statement itself binds (not the blocks it holds)."""
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        return [stmt.target]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in stmt.items if item.optional_vars is not None]
    return [node for node in ast.walk(stmt) if isinstance(node, ast.NamedExpr)] if isinstance(stmt, (ast.Expr, ast.If, ast.While)) else []


class _FinalStrings(Mapping[str, StringValue]):
    """PatchStrings.of_module of one module, read lazily: most modules never ask."""

    def __init__(self, strings: PatchStrings, info: ModuleInfo) -> None:
        self.strings = strings
        self.info = info
        self.found: dict[str, StringValue] | None = None

    def _known(self) -> dict[str, StringValue]:
        if self.found is None:
            self.found = {name: value for name, value in self.strings.of_module(self.info).items() if value is not None}
        return self.found

    def __getitem__(self, name: str) -> StringValue:
        return self._known()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._known())

    def __len__(self) -> int:
        return len(self._known())
