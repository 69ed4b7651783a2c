"""Which tests ask pytest for a fixture: read from the test files' syntax.

A fixture that patches the attention (`with mock.patch(...): yield`) holds for the tests
that request it: by a parameter, `@pytest.mark.usefixtures("xla")` on the test or on its
class or a base class (pytest's class marks are inherited), a module's or class's
`pytestmark`, `request.getfixturevalue("xla")` before the call (in the test, or in a helper
it calls first), or through another fixture that requests it.  Marks and names held in the
module's own variables (`ROUTE = pytest.mark.usefixtures("xla")`, `@ROUTE`) count too
(probes 36a, 38b, 40a, 42c).  Nothing is run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence, Set as AbstractSet

from jax_cudnn_lint.shape_inference.scopes import dotted_name, every_statement

MAX_DEPTH = 12


def requests_fixture(module: ast.Module, line: int, fixture: str, fixture_modules: Sequence[ast.Module], defined_here: bool = False) -> bool:
    """Is `line` of `module` in a test (or fixture) that requests `fixture`, directly or
    through the fixtures of `fixture_modules` (the module itself and its conftest.py
    files) that request it?  `defined_here`: the patching fixture is the module's own (one
    of its name there otherwise overrides a conftest's)."""
    reader = _Reader(module, fixtures_requesting(fixture, fixture_modules))
    if any(reader.names_fixture(mark, "usefixtures") for mark in reader.pytestmarks(module.body)):
        return True
    overridden = not defined_here and any(isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == fixture and _is_fixture(stmt) for stmt in module.body)
    if not overridden and any(_autouse(stmt) and stmt.name in reader.wanted and stmt.name != fixture for fixtures in fixture_modules for stmt in fixtures.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))):
        # a module-level autouse fixture that requests it: every test of its module or
        # folder (probe 43a), unless the test module has a fixture of that name of its own
        return True
    for stmt in every_statement(module.body):
        if not (isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno)):
            continue
        if isinstance(stmt, ast.ClassDef):
            if reader.class_marks(stmt, 0):
                return True
        elif any(arg.arg in reader.wanted for arg in (*stmt.args.args, *stmt.args.kwonlyargs)) or reader.gets_before(stmt, line):
            return True
        if any(reader.names_fixture(d, "usefixtures") for d in reader.resolved_all(stmt.decorator_list)):
            return True
    return False


def fixtures_requesting(fixture: str, modules: Iterable[ast.Module]) -> frozenset[str]:
    """`fixture` and the fixtures of `modules` that ask for it, directly or through each
    other: by a parameter (`def model(xla): ...`) or `request.getfixturevalue("xla")`."""
    fixtures = [
        stmt
        for module in modules
        for stmt in every_statement(module.body)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_fixture(stmt)
    ]
    found = {fixture}
    grew = True
    while grew:
        grew = False
        for stmt in fixtures:
            # (a request after the fixture's yield comes after the test: probe 45a)
            before = _first_yield(stmt)
            if stmt.name not in found and (any(arg.arg in found for arg in (*stmt.args.args, *stmt.args.kwonlyargs)) or any(isinstance(node, ast.Call) and _gets(node, found) and node.lineno < before for node in ast.walk(stmt))):
                found.add(stmt.name)
                grew = True
    return frozenset(found)


class _Reader:
    """One module's marks and helpers, read against the fixtures wanted."""

    def __init__(self, module: ast.Module, wanted: frozenset[str]) -> None:
        self.module = module
        self.wanted = wanted
        self.names = {target.id: stmt.value for stmt in module.body if isinstance(stmt, ast.Assign) for target in stmt.targets if isinstance(target, ast.Name)}
        self.classes = {stmt.name: stmt for stmt in module.body if isinstance(stmt, ast.ClassDef)}
        self.functions = {stmt.name: stmt for stmt in module.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def resolved(self, node: ast.expr) -> ast.expr:
        """A module name as the value it is bound to (`@ROUTE`, `usefixtures(FIX)`)."""
        for _ in range(4):
            if not (isinstance(node, ast.Name) and node.id in self.names):
                break
            node = self.names[node.id]
        return node

    def resolved_all(self, nodes: Iterable[ast.expr]) -> list[ast.expr]:
        found: list[ast.expr] = []
        for node in nodes:
            value = self.resolved(node)
            found.extend(self.resolved(item) for item in value.elts) if isinstance(value, (ast.List, ast.Tuple)) else found.append(value)
        return found

    def names_fixture(self, call: ast.expr, marker: str) -> bool:
        return isinstance(call, ast.Call) and (dotted_name(call.func) or "").endswith(marker) and any(isinstance(a := self.resolved(arg), ast.Constant) and a.value in self.wanted for arg in call.args)

    def pytestmarks(self, body: list[ast.stmt]) -> list[ast.expr]:
        """The marks a module's or class's `pytestmark = ...` sets."""
        return self.resolved_all(stmt.value for stmt in body if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets))

    def class_marks(self, cls: ast.ClassDef, depth: int) -> bool:
        """Does the class, or a base class of the module, carry the usefixtures mark?"""
        if depth > MAX_DEPTH:
            return False
        if any(self.names_fixture(mark, "usefixtures") for mark in (*self.pytestmarks(cls.body), *self.resolved_all(cls.decorator_list))):
            return True
        return any(self.class_marks(self.classes[base.id], depth + 1) for base in cls.bases if isinstance(base, ast.Name) and base.id in self.classes and base.id != cls.name)

    def gets_before(self, func: ast.FunctionDef | ast.AsyncFunctionDef, line: int) -> bool:
        """Does the function ask for a wanted fixture at run time before `line`: itself,
        or in a helper of the module it calls (`_route(request)`, `self._setup(request)`,
        `_use(request, "xla")`)?"""
        for node in ast.walk(func):
            if not isinstance(node, ast.Call) or node.lineno >= line:
                continue
            if _gets(node, self.wanted):
                return True
            helper = self._helper(node.func)
            if helper is None:
                continue
            # the names it may ask for: the literals the call passes, its defaults (probe 43a)
            given = [*node.args, *(k.value for k in node.keywords), *helper.args.defaults, *(d for d in helper.args.kw_defaults if d is not None)]
            if any(isinstance(inner, ast.Call) and _is_getfixturevalue(inner) and (_gets(inner, self.wanted) or any(isinstance(a, ast.Constant) and a.value in self.wanted for a in given)) for inner in ast.walk(helper)):
                return True
        return False

    def _helper(self, callee: ast.expr) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        if isinstance(callee, ast.Name):
            return self.functions.get(callee.id)
        if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name) and callee.value.id == "self":
            return next((stmt for cls in self.classes.values() for stmt in cls.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == callee.attr), None)
        return None


def _is_fixture(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any((dotted_name(d.func if isinstance(d, ast.Call) else d) or "").endswith("fixture") for d in func.decorator_list)


def _first_yield(func: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The line of a generator fixture's first yield (past its end where it has none)."""
    lines = [node.lineno for node in ast.walk(func) if isinstance(node, (ast.Yield, ast.YieldFrom))]
    return min(lines, default=(func.end_lineno or func.lineno) + 1)


def _autouse(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`@pytest.fixture(autouse=True)`."""
    return any(isinstance(d, ast.Call) and (dotted_name(d.func) or "").endswith("fixture") and any(k.arg == "autouse" and isinstance(k.value, ast.Constant) and k.value.value is True for k in d.keywords) for d in func.decorator_list)


def _is_getfixturevalue(call: ast.Call) -> bool:
    return (dotted_name(call.func) or "").endswith("getfixturevalue")


def _gets(node: ast.AST, wanted: AbstractSet[str]) -> bool:
    """`request.getfixturevalue("xla")` of a wanted fixture."""
    return isinstance(node, ast.Call) and _is_getfixturevalue(node) and any(isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value in wanted for a in node.args)
