"""Per-scope facts of a module, computed on demand and cached.

The interpreter needs, for a function, the names local to it and whether it is a
generator; for a class, the attributes its methods assign on `self`; for a module,
the names some function rebinds with `global`; for an importing module (a
train.py), which functions name a differentiation transform.

Only statements are walked, never whole expression trees (binding happens in
statements; a walrus binds in the frame when it runs), and a nested function is
walked once, for itself: this costs a fraction of `ast.parse`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from typing import cast

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda

from jax_cudnn_lint.gate import DIFFERENTIATION_NAMES
from jax_cudnn_lint.shape_inference.identity import IdentityTable
from jax_cudnn_lint.shape_inference.lazy_defs import LazyDef
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def parameter_names(args: ast.arguments) -> set[str]:
    """Every parameter a function binds, *args and **kwargs included."""
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    if args.vararg:
        names.add(args.vararg.arg)
    if args.kwarg:
        names.add(args.kwarg.arg)
    return names


# The statement lists each compound statement holds (in order), by its type; a
# statement of any other type holds none.  A table, since these walks run over every
# statement of every analysed file several times (locals, stores, constructors).
_BLOCKS: dict[type, tuple[str, ...]] = {
    ast.If: ("body", "orelse"),
    ast.For: ("body", "orelse"),
    ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"),
    ast.With: ("body",),
    ast.AsyncWith: ("body",),
    ast.Try: ("body", "handlers", "orelse", "finalbody"),
    ast.Match: ("cases",),
}
if hasattr(ast, "TryStar"):
    _BLOCKS[ast.TryStar] = _BLOCKS[ast.Try]  # type: ignore[attr-defined]


def _push_blocks(stmt: ast.stmt, stack: list[ast.stmt], names: tuple[str, ...]) -> None:
    """Push the statements of `stmt`'s nested blocks on a walk's stack, in reverse, so
    that they pop in source order."""
    for name in reversed(names):
        block = getattr(stmt, name)
        if name in ("handlers", "cases"):
            for clause in reversed(block):
                stack.extend(reversed(clause.body))
        else:
            stack.extend(reversed(block))


def statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of a scope's body, nested blocks included, nested scopes not."""
    stack = list(reversed(body))
    blocks = _BLOCKS
    while stack:
        stmt = stack.pop()
        yield stmt
        names = blocks.get(type(stmt))
        if names:
            _push_blocks(stmt, stack, names)


def every_statement(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of a module, nested scopes (def, class bodies) included; no
    expression is walked."""
    stack = list(reversed(body))
    blocks = _BLOCKS
    while stack:
        stmt = stack.pop()
        yield stmt
        names = blocks.get(type(stmt))
        if names:
            _push_blocks(stmt, stack, names)
        elif isinstance(stmt, _NESTED):
            stack.extend(reversed(stmt.body))


def _target_names(target: ast.expr, out: set[str]) -> None:
    if isinstance(target, ast.Name):
        out.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _target_names(elt, out)
    elif isinstance(target, ast.Starred):
        _target_names(target.value, out)


def _bound_by(stmt: ast.stmt, out: set[str]) -> None:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out.add(stmt.name)
    elif isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            _target_names(target, out)
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        _target_names(stmt.target, out)
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        _target_names(stmt.target, out)
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        for item in stmt.items:
            if item.optional_vars is not None:
                _target_names(item.optional_vars, out)
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for alias in stmt.names:
            out.add((alias.asname or alias.name).split(".")[0])
    elif isinstance(stmt, ast.Delete):
        for target in stmt.targets:
            _target_names(target, out)
    elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
        for handler in getattr(stmt, "handlers", ()):
            if handler.name:
                out.add(handler.name)
    elif type(stmt).__name__ == "TypeAlias":  # `type Length = int` (3.12)
        name = getattr(stmt, "name", None)
        if isinstance(name, ast.Name):
            out.add(name.id)


class ScopeFacts:
    """Facts of one module's scopes, each computed the first time it is asked for."""

    def __init__(self, tree: ast.Module | None = None) -> None:
        self.tree = tree
        self._locals: IdentityTable[FunctionNode, frozenset[str]] = IdentityTable()
        self._generators: IdentityTable[FunctionNode, bool] = IdentityTable()
        self._forwards_varargs: IdentityTable[FunctionNode, bool] = IdentityTable()
        self._rebound: IdentityTable[FunctionNode, frozenset[str]] = IdentityTable()
        self._self_attrs: IdentityTable[ast.ClassDef, tuple[str, ...]] = IdentityTable()
        self._overrides: dict[frozenset[str], tuple[frozenset[str], frozenset[str]]] = {}
        self._class_index_cache: tuple[dict[str, list[tuple[str, frozenset[str], ast.ClassDef | LazyDef]]], dict[str, list[ast.ClassDef | LazyDef]]] | None = None
        self._class_list: list[tuple[str, frozenset[str], ast.ClassDef | LazyDef]] | None = None
        self._imports: list[ast.Import | ast.ImportFrom] | None = None
        self._names: IdentityTable[FunctionNode | ast.stmt, frozenset[str]] = IdentityTable()
        self._global_names: frozenset[str] | None = None
        self._mutated_globals: frozenset[str] = frozenset()
        self._written_by_code: frozenset[str] = frozenset()
        self._registries: frozenset[str] | None = None
        self._replaces_parameters: bool | None = None
        self._mock_names: frozenset[str] | None = None
        self._changed_otherwise: frozenset[str] = frozenset()
        self._rebound_around_calls: frozenset[str] | None = None
        self._calls_reaching: dict[frozenset[str], tuple[int, ...]] = {}
        self._top_call_names: list[tuple[int, frozenset[str]]] | None = None
        self._top_binding_names: list[tuple[frozenset[str], frozenset[str]]] | None = None
        self._rewritten: frozenset[str] | None = None
        self._strings: frozenset[str] | None = None
        self._stored_transforms: frozenset[str] | None = None
        self._calls: dict[str, list[ast.Call]] | None = None
        self._other_uses: set[str] = set()
        self._attribute_calls: dict[str, list[ast.Call]] = {}
        self._attribute_uses: dict[str, int] = {}
        self._aliases: dict[str, list[str]] = {}  # a function's name -> names bound to it through a transform
        self._constructed: dict[str, str | None] | None = None
        self._parents: dict[int, ast.AST] | None = None
        self._instance_calls: dict[frozenset[str], list[ast.Call] | None] = {}
        self._attr_stores: tuple[frozenset[str], bool, frozenset[int]] | None = None
        self._class_stores: frozenset[tuple[str | None, str]] = frozenset()

    def locals_of(self, func: FunctionNode) -> frozenset[str]:
        found = self._locals.get(func)
        if found is None:
            names = parameter_names(func.args)
            # `def step[T](x: T)` (3.12): T is the function's own, not the module's T (probe 43c)
            names.update(str(getattr(param, "name", "")) for param in getattr(func, "type_params", ()))
            declared: set[str] = set()
            if not isinstance(func, ast.Lambda):
                for stmt in statements(func.body):
                    if isinstance(stmt, (ast.Global, ast.Nonlocal)):
                        declared.update(stmt.names)
                    else:
                        _bound_by(stmt, names)
            found = self._locals[func] = frozenset(names - declared)
        return found

    def rebound(self, func: FunctionNode) -> frozenset[str]:
        """The names a function's own body binds again (`seq_len = seq_len or 255`):
        its locals other than the parameters it only reads."""
        found = self._rebound.get(func)
        if found is None:
            names: set[str] = set()
            if not isinstance(func, ast.Lambda):
                for stmt in statements(func.body):
                    _bound_by(stmt, names)
            found = self._rebound[func] = frozenset(names)
        return found

    def is_generator(self, func: FunctionNode) -> bool:
        found = self._generators.get(func)
        if found is None:
            found = False
            if not isinstance(func, ast.Lambda):
                for stmt in statements(func.body):
                    value = getattr(stmt, "value", None)
                    if isinstance(value, (ast.Yield, ast.YieldFrom)):
                        found = True
                        break
            self._generators[func] = found
        return found

    def forwards_varargs(self, func: FunctionNode) -> bool:
        """Whether a function hands its `*args` on whole to a method (`self.call(*args,
        **kwargs)`, `super().__call__(*args)`: a dispatch), rather than only reading them
        or handing them to a function it names (`attention(*args)`: probe 84d)."""
        found = self._forwards_varargs.get(func)
        if found is None:
            vararg = func.args.vararg
            found = vararg is not None and any(
                isinstance(inner, ast.Call)
                and not isinstance(inner.func, ast.Name)
                and any(isinstance(given, ast.Starred) and isinstance(given.value, ast.Name) and given.value.id == vararg.arg for given in inner.args)
                for inner in ast.walk(func)
            )
            self._forwards_varargs[func] = found
        return found

    def self_attrs(self, cls: ast.ClassDef) -> tuple[str, ...]:
        found = self._self_attrs.get(cls)
        if found is None:
            names: set[str] = set()
            for member in cls.body:
                if not isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for stmt in statements(member.body):
                    targets: list[ast.expr] = []
                    if isinstance(stmt, ast.Assign):
                        targets = list(stmt.targets)
                    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
                        targets = [stmt.target]
                    elif isinstance(stmt, ast.Expr) and (named := _setattr_on_self(stmt.value)) is not None:
                        names.add(named)  # setattr(self, "name", v)
                    for target in targets:
                        for node in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                                names.add(node.attr)
            found = self._self_attrs[cls] = tuple(sorted(names))
        return found

    def subclass_overrides(self, parents: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
        """The module's subclasses of the classes named `parents` (direct or not, by the
        names their bases give), and the names they bind again: in their class body
        (tuples and definitions included: a @property overrides a value), or as
        `self.name` in their methods.  A method of a parent analysed without a caller
        may run on such a subclass's instance."""
        found = self._overrides.get(parents)
        if found is None:
            names: set[str] = set()
            grown_parents = set(parents)
            by_base, by_name = self._class_index()
            subs: list[tuple[ast.ClassDef, frozenset[str]]] = []
            frontier = list(parents)
            while frontier:  # (by the bases' names: not every class for each parent, probe 145a's 2,000 layers)
                for name, bases, node in by_base.get(frontier.pop(), ()):
                    if name in grown_parents:
                        continue
                    sub = node.parse("<lazy>") if isinstance(node, LazyDef) else node
                    if not isinstance(sub, ast.ClassDef):
                        continue
                    grown_parents.add(sub.name)
                    frontier.append(sub.name)
                    subs.append((sub, bases))
            for sub, bases in subs:
                names.update(self.self_attrs(sub))
                # a mixin beside the parent (`class Eval(EvalMixin, Base)`) may come
                # first in the method resolution order: what it binds may be the one
                mixins = [other.parse("<lazy>") if isinstance(other, LazyDef) else other for other_name in sorted(bases - grown_parents) for other in by_name.get(other_name, ())]
                for stmt in [s for mixin in mixins if isinstance(mixin, ast.ClassDef) for s in mixin.body] + sub.body:
                    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        names.add(stmt.name)
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) else []
                    for target in targets:
                        for node in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]:
                            if isinstance(node, ast.Name):
                                names.add(node.id)
            found = self._overrides[parents] = (frozenset(grown_parents - parents), frozenset(names))
        return found

    def attribute_stores(self) -> tuple[frozenset[str], bool, frozenset[int]]:
        """What the module's code stores on objects: the attribute names it stores on
        anything but `self` (`m.p = 0.0`, `Knob.DROPOUT = 0.0`, `type(self).seq = 256`,
        `setattr(m, "p", 0.0)`); whether it stores names it does not spell on such an
        object (`setattr(cfg, k, v)`, `cfg.__dict__.update(kw)`, `vars(cfg)[k] = v`);
        and the top-level classes (ids) whose methods do that to `self`."""
        if self._attr_stores is None:
            names: set[str] = set()
            dynamic = False
            classes: set[int] = set()
            on_classes: set[tuple[str | None, str]] = set()
            for top in self.tree.body if self.tree is not None else ():
                in_function = isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                enclosing = top.name if isinstance(top, ast.ClassDef) else None
                for node in _stores_and_calls(top):
                    stored: list[ast.expr] = []
                    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                        stored = [n for t in targets if type(t) is not ast.Name for n in ast.walk(t) if isinstance(n, (ast.Attribute, ast.Subscript))]
                    if isinstance(node, ast.AugAssign) and (obj := dict_of(node.target)) is not None:
                        # `self.__dict__ |= overrides`: names it does not spell (probe 115a)
                        if _is_self(obj):
                            classes.add(id(top))
                        else:
                            dynamic = True
                    for target in stored:
                        if isinstance(target, ast.Attribute) and not _is_self(target.value):
                            names.add(target.attr)
                            if in_function and (stored_on := _class_named_by(target.value, enclosing)) is not False:
                                on_classes.add((stored_on if isinstance(stored_on, str) else None, target.attr))
                        elif isinstance(target, ast.Subscript) and (obj := dict_of(target.value)) is not None:
                            if _is_self(obj):
                                classes.add(id(top))
                            else:
                                dynamic = True
                    if isinstance(node, ast.Call):
                        obj = _dynamic_store(node)
                        if obj is None:
                            if isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") and len(node.args) >= 2 and not _is_self(node.args[0]) and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
                                names.add(node.args[1].value)
                                if in_function and (stored_on := _class_named_by(node.args[0], enclosing)) is not False:
                                    on_classes.add((stored_on if isinstance(stored_on, str) else None, node.args[1].value))
                        elif _is_self(obj):
                            classes.add(id(top))
                        else:
                            dynamic = True
            self._attr_stores = (frozenset(names), dynamic, frozenset(classes))
            self._class_stores = frozenset(on_classes)
        return self._attr_stores

    def class_stores(self) -> frozenset[tuple[str | None, str]]:
        """(class name, attribute name) for what the module's functions store on a class
        (`Knob.DROPOUT = 0.0`, `cls.seq = 256` or `type(self).seq = 256` in a method of
        Knob, `setattr(Knob, "rate", 0.0)`; None: a class we cannot name, as in
        `x.__class__.seq = 256`): code that runs in an order the analysis does not follow
        may read either value."""
        self.attribute_stores()
        return self._class_stores

    def classes_named(self) -> dict[str, list[tuple[frozenset[str], ast.ClassDef | LazyDef]]]:
        """The module's top-level classes by name: the names of their bases, the class."""
        found: dict[str, list[tuple[frozenset[str], ast.ClassDef | LazyDef]]] = {}
        for name, bases, node in self._classes():
            found.setdefault(name, []).append((bases, node))
        return found

    def constructed(self) -> dict[str, str | None]:
        """Names and attribute names (`layer`, `self.layer`) the module binds only to
        the result of calling one CapWords callable (`layer = XlaAttn()`): that
        callable's name; LITERAL where only to literals or builtin-typed parameters
        (`d = {}`, `text: str`); None for a name bound otherwise too.  Says which class a
        method call's receiver is (`layer.attend(q)`), where it is certain."""
        if self._constructed is None:
            found: dict[str, str | None] = {}
            for node in _binding_nodes(self.tree.body if self.tree is not None else []):
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    value = node.value if not isinstance(node, ast.AugAssign) else None
                    for target in targets:
                        key = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else None
                        if key is None:
                            for inner in ast.walk(target):  # tuples, subscripts: whatever they bind is unknown
                                if isinstance(inner, (ast.Name, ast.Attribute)):
                                    found[inner.id if isinstance(inner, ast.Name) else inner.attr] = None
                            continue
                        made = _made_by(value) if len(targets) == 1 else None
                        found[key] = made if found.get(key, made) == made else None
                elif isinstance(node, ast.arg) and isinstance(node.annotation, ast.Name) and node.annotation.id in _BUILTIN_TYPES:
                    found[node.arg] = LITERAL if found.get(node.arg, LITERAL) == LITERAL else None  # `text: str`
                elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.arg)):
                    for bound in _bound_names_of(node):
                        found[bound] = None
            self._constructed = found
        return self._constructed

    def instance_calls(self, class_names: frozenset[str]) -> list[ast.Call] | None:
        """Every call of an instance of the class the module knows by one of
        `class_names`, as a call of its `__call__` (self left out): `Block(f)(x, d)`,
        `layer(x)` with `layer` bound in its scope only to `Block(...)`, `self.layer(x)`
        with the attribute bound in the module only to `Block(...)`, flax's
        `layer.apply(variables, x)` / `layer.init(rng, x)`.  None where the module uses
        the class or such an instance any other way: passed on, stored elsewhere,
        subclassed, or called with `method=`."""
        if class_names in self._instance_calls:
            return self._instance_calls[class_names]
        found: list[ast.Call] | None = []
        parents = self._parent_map()
        attributes: set[str] = set()
        names: dict[int, tuple[ast.AST, set[str]]] = {}  # scope -> the names bound there to an instance
        for node, parent in self._nodes_with_parents():
            if isinstance(node, ast.ClassDef) and any(_base_name(b) in class_names for b in node.bases):
                found = None  # a subclass's instances run it too
                break
            named = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
            if named not in class_names or not isinstance(getattr(node, "ctx", None), ast.Load):
                continue
            if not (isinstance(parent, ast.Call) and parent.func is node):
                if isinstance(parent, (ast.arg, ast.AnnAssign)) or (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in ("isinstance", "issubclass")):
                    continue  # an annotation, a type test
                found = None
                break
            made, outer = parent, parents.get(id(parent))
            if isinstance(outer, ast.Call) and outer.func is made:
                found.append(outer)  # `Block(f)(x)`
            elif isinstance(outer, (ast.Assign, ast.AnnAssign)) and (targets := outer.targets if isinstance(outer, ast.Assign) else [outer.target]) and len(targets) == 1 and isinstance(target := targets[0], (ast.Name, ast.Attribute)):
                if isinstance(target, ast.Attribute):
                    if self.constructed().get(target.attr) not in class_names:
                        found = None
                        break
                    attributes.add(target.attr)
                else:
                    scope = self._scope_of(outer)
                    names.setdefault(id(scope), (scope, set()))[1].add(target.id)
            elif not isinstance(outer, ast.Expr):
                found = None
                break
        for scope, held in names.values():
            if found is not None:
                found = self._calls_through(scope, held, frozenset(), class_names, found)
        if found is not None and attributes:
            found = self._calls_through(self.tree, frozenset(), attributes, class_names, found)
        self._instance_calls[class_names] = found
        return found

    def _scope_of(self, node: ast.AST) -> ast.AST:
        """The function (or the module) whose local names a statement binds."""
        parents = self._parent_map()
        current = parents.get(id(node))
        while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            current = parents.get(id(current))
        return current if current is not None else self.tree  # type: ignore[return-value]

    def _calls_through(self, scope: ast.AST | None, names: set[str] | frozenset[str], attributes: set[str] | frozenset[str], class_names: frozenset[str], found: list[ast.Call]) -> list[ast.Call] | None:
        """`found` and the calls through the `names` (bound in `scope`, its nested
        scopes included) or the `attributes` (anywhere); None where one is bound to
        anything but an instance, or used another way than called."""
        parents = self._parent_map()
        for node in ast.walk(scope) if scope is not None else ():
            if isinstance(node, ast.arg) and node.arg in names:
                return None
            if not isinstance(node, (ast.Name, ast.Attribute)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.comprehension)) and names & set(_bound_names_of(node)):
                    return None
                continue
            named, held = (node.id, names) if isinstance(node, ast.Name) else (node.attr, attributes)
            if named not in held:
                continue
            parent = parents.get(id(node))
            if isinstance(node.ctx, ast.Store):
                if not (isinstance(parent, (ast.Assign, ast.AnnAssign)) and constructor_name(parent.value) in class_names):
                    return None  # bound to something else too
                continue
            if isinstance(parent, ast.Call) and parent.func is node:
                found.append(parent)
                continue
            if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node and (bound := partial_call(parent)) is not None:
                found.append(bound)  # `partial(layer, dtype=...)`: what it binds, and anything later
                continue
            outer = parents.get(id(parent))
            if isinstance(parent, ast.Attribute) and parent.attr == "__call__" and isinstance(outer, ast.Call) and outer.func is parent:
                found.append(ast.copy_location(ast.Call(func=node, args=outer.args, keywords=outer.keywords), outer))  # `layer.__call__(x)`
                continue
            if isinstance(parent, ast.Attribute) and parent.attr in ("apply", "init") and isinstance(outer, ast.Call) and outer.func is parent and outer.args and not any(k.arg == "method" for k in outer.keywords):
                # flax: `layer.apply(variables, x, d)` calls __call__(x, d)
                kept = [k for k in outer.keywords if k.arg not in _APPLY_KEYWORDS]
                found.append(ast.copy_location(ast.Call(func=node, args=outer.args[1:], keywords=kept), outer))
                continue
            return None
        return found

    def _nodes_with_parents(self) -> Iterator[tuple[ast.AST, ast.AST | None]]:
        parents = self._parent_map()
        for node in ast.walk(self.tree) if self.tree is not None else ():
            yield node, parents.get(id(node))

    def _parent_map(self) -> dict[int, ast.AST]:
        if self._parents is None:
            self._parents = {id(child): node for node in (ast.walk(self.tree) if self.tree is not None else ()) for child in ast.iter_child_nodes(node)}
        return self._parents

    def imports(self) -> list[ast.Import | ast.ImportFrom]:
        """Every import statement of the module, at any depth (cached)."""
        if self._imports is None:
            body = self.tree.body if isinstance(self.tree, ast.Module) else []
            self._imports = [s for s in every_statement(body) if isinstance(s, (ast.Import, ast.ImportFrom))]
        return self._imports

    def _class_index(self) -> tuple[dict[str, list[tuple[str, frozenset[str], ast.ClassDef | LazyDef]]], dict[str, list[ast.ClassDef | LazyDef]]]:
        """The module's top-level classes by the names of their bases, and by their own."""
        if self._class_index_cache is None:
            by_base: dict[str, list[tuple[str, frozenset[str], ast.ClassDef | LazyDef]]] = {}
            by_name: dict[str, list[ast.ClassDef | LazyDef]] = {}
            for entry in self._classes():
                for base in sorted(entry[1]):
                    by_base.setdefault(base, []).append(entry)
                by_name.setdefault(entry[0], []).append(entry[2])
            self._class_index_cache = (by_base, by_name)
        return self._class_index_cache

    def _classes(self) -> list[tuple[str, frozenset[str], ast.ClassDef | LazyDef]]:
        """The module's top-level classes: name, the names of its bases, the class (a
        LazyDef of a reached module keeps its text: its bases are read off the header)."""
        if self._class_list is None:
            found: list[tuple[str, frozenset[str], ast.ClassDef | LazyDef]] = []
            for node in self.tree.body if isinstance(self.tree, ast.Module) else []:
                if isinstance(node, ast.ClassDef):
                    found.append((node.name, frozenset(n for b in node.bases if (n := _base_name(b)) is not None), node))
                elif isinstance(node, LazyDef) and (header := _CLASS_HEADER.search(node.text)) is not None and header.group(1) == node.name:
                    bases = frozenset(part.split("[")[0].strip().rsplit(".", 1)[-1] for part in (header.group(2) or "").split(",") if part.strip())
                    found.append((node.name, bases, node))
            self._class_list = found
        return self._class_list

    def global_names(self) -> frozenset[str]:
        """Names some function of the module rebinds with `global`, or that the module
        writes through `globals()` (`globals()["SEQ"] = 512`, a top-level `vars()`);
        where it writes globals by a name it computes (`exec("SEQ = 512")`,
        `globals()[k] = v`, `globals().update(cfg)`), every name its top level assigns."""
        if self._global_names is None:
            names: set[str] = set()
            written_by_code: set[str] = set()  # (through globals() or exec, not a `global` statement)
            mutated: set[str] = set()  # changed in place in a function (a module-level one, if bound at the top)
            otherwise: set[str] = set()  # ... by anything but an item store `NAME[k] = v` (registries)
            bound_inside: set[str] = set()  # bound by a statement in a function (a `global` one's target, if declared)
            dynamic = False
            top = {id(stmt) for stmt in self.tree.body} if self.tree is not None else set[int]()
            if self.tree is not None:
                for stmt in every_statement(self.tree.body):
                    if id(stmt) not in top and (changed := _changed_in_place(stmt)) is not None:
                        mutated.add(changed)  # (mutated_globals)
                        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
                        if not (isinstance(target, ast.Subscript) and not isinstance(target.slice, ast.Constant)):
                            otherwise.add(changed)  # (`STATE["memory"] = ...`: a slot set at any time, not a registration)
                    if isinstance(stmt, ast.Global):
                        names.update(stmt.names)
                    elif isinstance(stmt, LazyDef) and "global" in stmt.text:
                        for declared in _GLOBAL_STATEMENT.findall(stmt.text):
                            for name in (part.strip() for part in declared.split(",")):  # (a reached module's def, unparsed)
                                names.add(name)
                                if re.search(rf"^[ \t]*(?:for[ \t]+)?{re.escape(name)}[ \t]*(?:[-+*/%|&^]|//|\*\*)?=(?!=)|^[ \t]*for[ \t]+{re.escape(name)}\b", stmt.text, re.MULTILINE):
                                    bound_inside.add(name)
                    elif not dynamic and type(stmt) in _MAY_WRITE_GLOBALS:
                        written = _writes_globals(stmt, id(stmt) in top)
                        if written is None:
                            dynamic = True
                        else:
                            written_by_code.update(written)
                if dynamic:
                    for stmt in self.tree.body:
                        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                            _bound_by(stmt, written_by_code)
            bound_at_top: set[str] = set()
            for stmt in self.tree.body if self.tree is not None else []:
                if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    _bound_by(stmt, bound_at_top)
            if names - bound_inside and self.tree is not None:
                # (only where a function declares one: most modules have no `global` statement)
                for stmt in every_statement(self.tree.body):
                    if id(stmt) not in top and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        _bound_by(stmt, bound_inside)
            if names - bound_inside and self.tree is not None:
                bound_inside |= _bound_by_expressions(self.tree, names - bound_inside)  # `(T := 128)`, `case T:` (probe 37a)
            # a `global` statement whose function only reads the name changes nothing (probe 36a)
            self._global_names = frozenset(names & bound_inside) | written_by_code
            self._mutated_globals = frozenset(mutated & bound_at_top)
            self._changed_otherwise = frozenset(otherwise)
            self._written_by_code = frozenset(written_by_code)
        return self._global_names

    def mutated_globals(self) -> frozenset[str]:
        """Module-level names a function of the module changes in place (`STATE["memory"]
        = ...`, `CONFIG.update(...)`): which value another function reads depends on which
        ran first (probe 31a)."""
        self.global_names()
        return self._mutated_globals

    def mock_names(self) -> frozenset[str]:
        """The names the module binds from the mock library or to one of its patches (an
        import of unittest.mock or mock, or a top-level `alias = mock.patch`): the names a
        patch may be called through (once per module: Interpreter._as_mock_patch)."""
        if self._mock_names is None:
            found: set[str] = set()
            for stmt in self.imports():
                for alias in stmt.names:
                    source = f"{stmt.module}.{alias.name}" if isinstance(stmt, ast.ImportFrom) and stmt.module else alias.name
                    if source.split(".")[0] in ("unittest", "mock"):
                        found.add(alias.asname or alias.name.split(".")[0])
            for stmt in self.tree.body if self.tree is not None else ():
                if isinstance(stmt, ast.Assign) and isinstance(stmt.value, (ast.Attribute, ast.Name)) and (dotted_name(stmt.value) or "").split(".")[0] in found:
                    found.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
            self._mock_names = frozenset(found)
        return self._mock_names

    def replaces_parameters(self) -> bool:
        """Does the module store into a layer's parameter (`lin.kernel = nnx.Param(w)`,
        `emb.embedding.value = w`, `setattr(m, "weight", w)`) or call `nnx.update`?  Then a
        parameter read as an attribute may not have its constructor's shape (probe 52a)."""
        if self._replaces_parameters is None:
            found = False
            for stmt in every_statement(self.tree.body) if self.tree is not None else ():
                if isinstance(stmt, LazyDef):
                    found = _PARAMETER_STORE.search(stmt.text) is not None
                elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                    # `lin.kernel = ...`, `emb.embedding.value = ...`, a state's entry
                    # `state["pos"]["embedding"].value = ...`, `vars(layer)["weight"] = ...`
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                    found = any(isinstance(node, ast.Attribute) and node.attr in PARAMETER_NAMES or isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value in PARAMETER_NAMES for target in targets for node in ast.walk(target))
                if not found and isinstance(stmt, (ast.Expr, ast.Assign)) and isinstance(call := stmt.value, ast.Call):
                    named = dotted_name(call.func) or ""
                    found = named.endswith("nnx.update") or (named == "setattr" or named.endswith("__setattr__")) and any(isinstance(a, ast.Constant) and a.value in PARAMETER_NAMES for a in call.args[1:3])
                if found:
                    break
            self._replaces_parameters = found
        return self._replaces_parameters

    def registries(self) -> frozenset[str]:
        """Module-level dicts, made empty or from a display at the top, that functions
        change only by item stores under a key they are given (`_MODELS[name] = cls` in
        a `register` decorator; not `STATE["memory"] = x`, a slot set at any time): a run
        of such a function adds to the dict itself (Interpreter._register), and the dict
        is not forgotten once the module ran (probe 50b)."""
        if self._registries is None:
            self.global_names()
            tree = self.tree
            found = {name for stmt in (tree.body if tree is not None else []) if isinstance(stmt, (ast.Assign, ast.AnnAssign)) for name in _assigned_names(stmt)}
            found = {name for name in found if _fresh_dict_at_top(tree, name)} - self._changed_otherwise - self.global_names()
            stored: set[str] = set()  # the candidates a function stores into under a key
            for stmt in every_statement(tree.body) if tree is not None and found else ():
                if isinstance(stmt, LazyDef):  # (a reached module's def, unparsed: by its text)
                    found = {name for name in found if not _changes_otherwise(stmt.text, name)}
                    stored |= {name for name in found if _item_store(stmt.text, name)}
                elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    stored |= {target.value.id for node in ast.walk(stmt) if isinstance(node, ast.Assign) for target in node.targets if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id in found}
            # a dict no function stores into is a plain constant (`CFG.get("seq", 63)` reads
            # the default: probe 94e), not a registry another module may fill; an empty one
            # (`CONFIG = {}`) is there to be filled, by code the analysis may not see
            self._registries = frozenset(name for name in found if name in stored or _empty_dict_at_top(tree, name))
        return self._registries

    def written_by_code(self) -> frozenset[str]:
        """The globals the module writes through `globals()`, `vars()` or `exec`: what
        another module imports from it by name is uncertain too (a `global` statement's
        writes happen when its function runs, after the import took the value)."""
        self.global_names()
        return self._written_by_code

    def rebound_around_calls(self) -> frozenset[str]:
        """Module globals the top level binds again after the module's own code that reads
        them ran with an earlier value (`LEN = 128; train(); LEN = 127`, a loop over
        lengths that calls, then `CUR = 255`): a function analysed on its own cannot
        tell which value it reads (probe 35b: notebook cells that reassign a length).  A
        call in between that cannot run a reader (`print(...)`, a helper that never
        reads it) changes nothing (probes 36a, 37a)."""
        if self._rebound_around_calls is None:
            bound_at: dict[str, list[int]] = {}
            imported_as: dict[str, set[object]] = {}  # what each binding is: the same import twice binds the same
            for stmt in statements(self.tree.body if isinstance(self.tree, ast.Module) else []):
                names: set[str] = set()
                _bound_by(stmt, names)
                for name in names:
                    bound_at.setdefault(name, []).append(stmt.lineno)
                    imported_as.setdefault(name, set()).add(_import_source(stmt, name) or stmt.lineno)
            found: set[str] = set()
            for name, lines in bound_at.items():
                if len(imported_as[name]) > 1 and any(min(lines) <= line < max(lines) for line in self.calls_reaching(self._readers_of(name))):
                    found.add(name)
            self._rebound_around_calls = frozenset(found)
        return self._rebound_around_calls

    def calls_reaching(self, targets: frozenset[str]) -> tuple[int, ...]:
        """The lines of top-level statements (in their blocks too) with a call that may
        run one of the module's functions or classes `targets`: it names one of them, or
        one whose code names one, and so on (`train()`, `jax.grad(loss)(x)`)."""
        if not targets:
            return ()
        key = targets
        found = self._calls_reaching.get(key)
        if found is None:
            reaching = self.reaching(targets)
            found = self._calls_reaching[key] = tuple(line for line, named in self._top_calls() if named & reaching)
        return found

    def _top_calls(self) -> list[tuple[int, frozenset[str]]]:
        """(line, the names its calls mention) of each top-level statement (in its blocks
        too) that calls something, and of each definition a decorator runs as it is made
        (read once per module)."""
        if self._top_call_names is None:
            found: list[tuple[int, frozenset[str]]] = []
            for stmt in statements(self.tree.body if isinstance(self.tree, ast.Module) else []):
                if isinstance(stmt, _CALLING_STATEMENTS):
                    calls = [node for node in _own_expressions(stmt) if isinstance(node, ast.Call)]
                    named = frozenset(part.id for call in calls for part in ast.walk(call) if isinstance(part, ast.Name))
                elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    named = frozenset(part.id for decorator in stmt.decorator_list for part in ast.walk(decorator) if isinstance(part, ast.Name))
                else:
                    continue
                if named:
                    found.append((stmt.lineno, named))
            self._top_call_names = found
        return self._top_call_names

    def setters_of(self, name: str) -> frozenset[str]:
        """The module's top-level functions and classes whose code rebinds `name` with a
        `global` statement."""
        found: set[str] = set()
        for defined, stmt in self._top_definitions().items():
            if isinstance(stmt, LazyDef):
                if "global" in stmt.text and any(name in (part.strip() for part in declared.split(",")) for declared in _GLOBAL_STATEMENT.findall(stmt.text)):
                    found.add(defined)
            elif any(isinstance(inner, ast.Global) and name in inner.names for inner in every_statement([stmt])):
                found.add(defined)
        return frozenset(found)

    def _readers_of(self, name: str) -> frozenset[str]:
        """The module's top-level functions and classes whose code names `name`."""
        return frozenset(defined for defined, stmt in self._top_definitions().items() if name in self._mentions(stmt))

    def reaching(self, targets: frozenset[str]) -> set[str]:
        """`targets` and the module's top-level definitions whose code names one of them,
        and the names its top level binds to a value naming one (`f = set_len`, `HOOKS =
        {"len": set_len}`, `init = lambda: set_len()`: probe 38a), transitively: what may
        run one of them when called."""
        groups = [(frozenset({defined}), self._mentions(stmt)) for defined, stmt in self._top_definitions().items()]
        return closure_by_mentions(set(targets), [*groups, *self._top_bindings()])

    def _top_bindings(self) -> list[tuple[frozenset[str], frozenset[str]]]:
        """(the names, the names its value mentions) of each top-level assignment (read
        once per module)."""
        if self._top_binding_names is None:
            found: list[tuple[frozenset[str], frozenset[str]]] = []
            for stmt in statements(self.tree.body if isinstance(self.tree, ast.Module) else []):
                if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                    names: set[str] = set()
                    _bound_by(stmt, names)
                    found.append((frozenset(names), frozenset(node.id for node in ast.walk(stmt.value) if isinstance(node, ast.Name))))
            self._top_binding_names = found
        return self._top_binding_names

    def _top_definitions(self) -> dict[str, ast.stmt]:
        body = self.tree.body if isinstance(self.tree, ast.Module) else []
        return {stmt.name: stmt for stmt in body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, LazyDef))}

    def _mentions(self, stmt: ast.stmt) -> frozenset[str]:
        if isinstance(stmt, LazyDef):
            return frozenset(_WORD.findall(stmt.text))
        return self.names_used(stmt)

    def string_constants(self) -> frozenset[str]:
        """Every string literal of the module (names `setattr(cls, "check", ...)` and
        `mock.patch.object(cls, "check")` replace), read once."""
        if self._strings is None:
            self._strings = _identifier_strings(self.tree) if self.tree is not None else frozenset()
        return self._strings

    def stored_transform_names(self) -> frozenset[str]:
        """Top-level names the module binds to a differentiation transform's result
        (`full_grad = jax.grad(loss)`, `step = jax.jit(jax.value_and_grad(loss))`),
        read once: every importer of the module asks."""
        if self._stored_transforms is None:
            found: set[str] = set()
            for stmt in self.tree.body if isinstance(self.tree, ast.Module) else []:
                if isinstance(stmt, ast.Assign) and any(
                    isinstance(call, ast.Call) and (dotted_name(call.func) or "").rsplit(".", 1)[-1] in DIFFERENTIATION_NAMES for call in ast.walk(stmt.value)
                ):
                    found.update(target.id for target in stmt.targets if isinstance(target, ast.Name))
            self._stored_transforms = frozenset(found)
        return self._stored_transforms

    def rewritten_functions(self) -> frozenset[str]:
        """The module's functions whose defaults a statement replaces (`f.__defaults__ =
        ...`): analysed without a caller, their defaulted parameters are unknown."""
        if self._rewritten is None:
            found: set[str] = set()
            for stmt in every_statement(self.tree.body) if self.tree is not None else ():
                if isinstance(stmt, (ast.Assign, ast.AugAssign)):
                    for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                        if (name := _rewritten_function(target)) is not None:
                            found.add(name)
            self._rewritten = frozenset(found)
        return self._rewritten

    def module_names(self) -> frozenset[str]:
        """Every name and attribute name the module's code mentions (imports aside).

        Built from the same per-function sets that `differentiating_functions` uses
        (top-level functions and methods), so each node is walked once.
        """
        if self.tree is None:
            return frozenset()
        names: set[str] = set()
        for stmt in self.tree.body:
            if isinstance(stmt, ast.ClassDef):
                for node in (*stmt.decorator_list, *stmt.bases, *stmt.keywords):
                    names |= _names_in(node)
                for member in stmt.body:
                    names |= self.names_used(member)
            else:
                names |= self.names_used(stmt)
        return frozenset(names)

    def direct_calls(self, name: str) -> list[ast.Call] | None:
        """Every `name(...)` call in the module, when the module uses `name` in no other
        way (no callback, no rebinding, no decorator); None otherwise.  The calls of a
        name bound once to it, plainly (`run = name`) or through a transform that passes
        the arguments on (`fast = jax.jit(name, static_argnums=1)`,
        `step = jax.jit(jax.grad(name))`), are its calls too."""
        calls = self._call_index()[0]
        if name in self._other_uses:
            return None
        found = calls.get(name, [])
        if _ANY_FUNCTION in calls:
            found = [*found, CALLED_LATER]
        rebound = self._aliases.get(_REBOUND, ())
        seen = {name}
        pending = list(self._aliases.get(name, ()))
        while pending:  # aliases of aliases (`run = attend; fast = jax.jit(run)`)
            alias = pending.pop()
            if alias in seen:
                continue
            seen.add(alias)
            if alias in rebound or alias in self._other_uses:
                # bound again, or passed on: which calls reach `name` is not told apart,
                # as if `name` itself were handed on (a call may pass anything)
                found = [*found, CALLED_LATER]
            else:
                found = [*found, *calls.get(alias, [])]
                pending.extend(self._aliases.get(alias, ()))
        return found

    def calls_attribute(self, name: str) -> bool:
        """Does the module call some `<x>.name(...)` (used other ways too or not)?"""
        return bool(self._call_index()[1].get(name))

    def patches_by_expression(self) -> bool:
        """Does the module call `patch(...)`, `<x>.patch(...)` or `<x>.setattr(...)` with a
        first argument that is not a literal (a target it builds: patch_strings)?  Calls in
        definitions not parsed yet count: their text is searched."""
        calls, attribute_calls = self._call_index()
        candidates = (*calls.get("patch", ()), *attribute_calls.get("patch", ()), *(call for call in attribute_calls.get("setattr", ()) if len(call.args) == 2))  # (monkeypatch's string form)
        if any(call is not CALLED_LATER and call.args and not isinstance(call.args[0], ast.Constant) for call in candidates):
            return True
        return self.tree is not None and any(isinstance(stmt, LazyDef) and _PATCH_CALL.search(stmt.text) for stmt in every_statement(self.tree.body))

    def updates_config(self, flags: frozenset[str] | None = None) -> bool:
        """Does the module call `jax.config.update(...)` (or `config.update(...)`), of one of
        `flags` where given (a literal flag name, or one it cannot read)?"""
        for call in self._call_index()[1].get("update", ()):
            if _is_config_update(call):
                named = call.args[0] if call.args else None
                if flags is None or not (isinstance(named, ast.Constant) and isinstance(named.value, str)) or named.value in flags:
                    return True
        return False

    def attribute_calls(self, name: str) -> list[ast.Call] | None:
        """Every `<x>.name(...)` call in the module (`partial(<x>.name, ...)` too), when
        the module uses `.name` in no other way; None otherwise."""
        found = self._call_index()[1].get(name, [])
        return found if self._attribute_uses.get(name, 0) == len(found) else None

    def _call_index(self) -> tuple[dict[str, list[ast.Call]], dict[str, list[ast.Call]]]:
        if self._calls is None:
            self._calls = {}
            if self.tree is not None:
                _index_calls(self.tree, self._calls, self._other_uses, self._attribute_calls, self._attribute_uses, self._aliases)
        return self._calls, self._attribute_calls

    def names_used(self, func: FunctionNode | ast.stmt) -> frozenset[str]:
        """Every name and attribute name the function (nested scopes included) mentions."""
        found = self._names.get(func)
        if found is None:
            found = self._names[func] = _names_in(func)
        return found


def _index_calls(
    tree: ast.AST,
    calls: dict[str, list[ast.Call]],
    other_uses: set[str],
    attribute_calls: dict[str, list[ast.Call]],
    attribute_uses: dict[str, int],
    aliases: dict[str, list[str]],
) -> None:
    """Calls by the plain name they call, and the names used any other way; calls by
    the attribute name they call, and how often each attribute name is used at all;
    names bound to a function, plainly or through a transform that passes arguments on.
    Walked by hand, as `_names_in` is (ast.walk's generators cost twice as much)."""
    stack: list[ast.AST] = [tree]
    pop, push, extend = stack.pop, stack.append, stack.extend
    call_type, name_type, attribute_type, node_type, assign_type = ast.Call, ast.Name, ast.Attribute, ast.AST, ast.Assign
    global_type, nonlocal_type, fields_of = ast.Global, ast.Nonlocal, _CHILD_FIELDS
    handed_on: set[int] = set()  # the Name nodes recorded as calls (or aliases), not other uses
    alias_names: set[str] = set()  # every name bound as an alias so far
    attribute_aliases: list[tuple[str, str]] = []  # (name, attribute) of `name = jax.jit(x.attribute)`

    def hand_on(values: list[ast.expr]) -> None:
        """Record the functions among `values` as called with arguments we cannot see."""
        for value in values:
            held = type(value)
            if held is call_type:
                value = _passed_through(value) or value  # `[jax.checkpoint(attention)]`: attention
                held = type(value)
            if held is name_type:
                calls.setdefault(value.id, []).append(CALLED_LATER)  # type: ignore[attr-defined]
                handed_on.add(id(value))
            elif held is attribute_type:
                attribute_calls.setdefault(value.attr, []).append(CALLED_LATER)  # type: ignore[attr-defined]

    while stack:
        node = pop()
        kind = type(node)
        if kind is call_type:
            call = cast(ast.Call, node)
            func = call.func
            callee = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if callee is not None and callee not in FIXED_ARGUMENT_CALLERS:
                for value in call.args:
                    if type(value) in _HANDED:
                        hand_on([value])
                for keyword in call.keywords:
                    if keyword.arg == "attention_fn" and isinstance(keyword.value, ast.Name):
                        # flax's attention layers call it with q, k, v, and nnx's with its
                        # keywords too (is_causal: a default every call overrides; probe 39c)
                        passed = [ast.keyword(name, ast.Constant(None)) for name in NNX_ATTENTION_KWARGS] if _is_nnx_layer(func) else []
                        made = ast.Call(func=keyword.value, args=[ast.Constant(None)] * 3, keywords=passed)
                        calls.setdefault(keyword.value.id, []).append(ast.copy_location(made, call))
                        handed_on.add(id(keyword.value))
                    elif type(keyword.value) in _HANDED and keyword.arg != "attention_fn":
                        hand_on([keyword.value])
            elif callee in _MAPPERS and _is_mapper(func) and call.args and isinstance(mapped := call.args[0], ast.Name) and not call.keywords and not any(isinstance(a, ast.Starred) for a in call.args):
                # `tree_map(f, qs, dtypes)` / `map(f, xs)`: f called with one leaf of each tree
                calls.setdefault(mapped.id, []).append(ast.copy_location(ast.Call(func=mapped, args=call.args[1:], keywords=[]), call))
                handed_on.add(id(mapped))
            elif callee in ("eval_shape", "filter_eval_shape") and call.args and isinstance(shaped := call.args[0], (ast.Name, ast.Attribute)) and not any(isinstance(a, ast.Starred) for a in call.args) and all(k.arg is not None for k in call.keywords):
                # `jax.eval_shape(f, x, seq_len=128)` calls f(x, seq_len=128) there (probe 42c)
                made = ast.copy_location(ast.Call(func=shaped, args=call.args[1:], keywords=call.keywords), call)
                if isinstance(shaped, ast.Name):
                    calls.setdefault(shaped.id, []).append(made)
                    handed_on.add(id(shaped))
                else:
                    attribute_calls.setdefault(shaped.attr, []).append(made)  # `jax.eval_shape(lstm_mod.run)`
            elif isinstance(func, ast.Call) and isinstance(through := _passed_through(func), (ast.Name, ast.Attribute)):
                if isinstance(through, ast.Name):
                    calls.setdefault(through.id, []).append(call)  # `jax.jit(f)(x, dtype=...)`: a call of f
                    handed_on.add(id(through))
                else:
                    attribute_calls.setdefault(through.attr, []).append(call)  # `jax.grad(model.loss)(w, x, seq_len=1024)` (probe 39c)
            if callee == "getattr" and len(call.args) >= 2 and type(named := call.args[1]) is ast.Constant and isinstance(named.value, str):  # type: ignore[attr-defined]
                # `getattr(self, "fwd_ref")(...)`: a dispatch by a name we can read
                attribute_calls.setdefault(named.value, []).append(CALLED_LATER)  # type: ignore[attr-defined]
                attribute_uses[named.value] = attribute_uses.get(named.value, 0) + 1  # type: ignore[attr-defined]
                calls.setdefault(named.value, []).append(CALLED_LATER)  # type: ignore[attr-defined]
            elif callee in ("globals", "locals", "vars") and not call.args:
                # `globals()["train_" + mode](...)`: any function of the module, with any arguments
                calls.setdefault(_ANY_FUNCTION, []).append(CALLED_LATER)
            if callee == "partial" and (bound := partial_call(call)) is not None:
                setattr(bound, MADE_BY_PARTIAL, True)  # (bound here, called where the partial is: made_by_partial)
                if isinstance(bound.func, ast.Name):
                    calls.setdefault(bound.func.id, []).append(bound)
                    extend(bound.args)
                    extend(bound.keywords)
                    continue
                if isinstance(bound.func, ast.Attribute):
                    attribute_calls.setdefault(bound.func.attr, []).append(bound)  # `partial(trainer.train, seq_len=256)`
            elif isinstance(func, ast.Attribute):
                attribute_calls.setdefault(func.attr, []).append(call)
            if isinstance(func, ast.Name):
                calls.setdefault(func.id, []).append(call)
                extend(call.args)
                extend(call.keywords)
                continue
        elif kind is assign_type and all(type(t) is name_type for t in node.targets) and type(inner := node.value if type(node.value) is name_type else _passed_through(node.value)) is attribute_type:  # type: ignore[attr-defined]
            # `step = jax.jit(model.train_step, static_argnames=...)`: the calls of step are
            # calls of `.train_step`, where step is used no other way (probe 39c)
            attribute_aliases.extend((cast(ast.Name, target).id, inner.attr) for target in cast(ast.Assign, node).targets)
            for target in cast(ast.Assign, node).targets:
                if cast(ast.Name, target).id in alias_names:
                    aliases.setdefault(_REBOUND, []).append(cast(ast.Name, target).id)
                alias_names.add(cast(ast.Name, target).id)
                handed_on.add(id(target))
        elif kind is assign_type and all(type(t) is name_type for t in node.targets) and type(inner := node.value if type(node.value) is name_type else _passed_through(node.value)) is name_type:  # type: ignore[attr-defined]
            # `step = jax.jit(train_step)`, or plainly `run = train_step` (`a = b = f` too)
            source = inner.id
            for target in cast(list[ast.Name], cast(ast.Assign, node).targets):
                if target.id in alias_names:
                    aliases.setdefault(_REBOUND, []).append(target.id)  # bound twice (`fn = jax.jit(a)` here, `fn = jax.jit(b)` there)
                alias_names.add(target.id)
                aliases.setdefault(source, []).append(target.id)
                handed_on.add(id(target))
            handed_on.add(id(inner))
        elif kind in _HOLDERS:
            hand_on(_handed_on(node))
        elif kind is attribute_type:
            attribute_uses[node.attr] = attribute_uses.get(node.attr, 0) + 1  # type: ignore[attr-defined]
        if kind is name_type:
            if id(node) not in handed_on:
                other_uses.add(node.id)  # type: ignore[attr-defined]
            continue
        if kind is global_type or kind is nonlocal_type:
            other_uses.update(node.names)  # type: ignore[attr-defined]
        fields = fields_of.get(kind)
        for field in child_fields(kind) if fields is None else fields:
            child = getattr(node, field, None)
            if type(child) is list:
                extend(child)  # pyright: ignore[reportUnknownArgumentType]
            elif isinstance(child, node_type):
                push(child)
    rebound = set(aliases.get(_REBOUND, ()))
    for alias, attribute in attribute_aliases:
        alias_calls = calls.get(alias, [])
        if alias in other_uses or alias in rebound or not alias_calls:
            # handed on, or called where this tree does not show (a definition not parsed
            # yet): any call may reach it, as a function held by a name is
            attribute_calls.setdefault(attribute, []).append(CALLED_LATER)
        else:
            attribute_calls.setdefault(attribute, []).extend(alias_calls)
            attribute_uses[attribute] = attribute_uses.get(attribute, 0) + len(alias_calls) - 1  # the one use is these calls


_PATCH_CALL = re.compile(r"\bpatch\(\s*[^\s\"')]|\.setattr\(\s*[^\s\"')][^,()]*,[^,()]*\)")  # a patch whose first argument is no literal

# the keywords nnx.MultiHeadAttention passes its attention_fn (flax 0.12), besides mask
NNX_ATTENTION_KWARGS = ("dropout_rng", "dropout_rate", "broadcast_dropout", "deterministic", "dtype", "precision", "module", "is_causal")


def _is_nnx_layer(func: ast.expr) -> bool:
    """`nnx.MultiHeadAttention(...)` / `flax.nnx.MultiHeadAttention(...)` by its spelling."""
    owner = func.value if isinstance(func, ast.Attribute) and func.attr == "MultiHeadAttention" else None
    return isinstance(owner, ast.Name) and owner.id == "nnx" or isinstance(owner, ast.Attribute) and owner.attr == "nnx"


# Where a function handed on as a value is called by code we do not follow, which may
# pass any argument: a registry's dict or list, an attribute or name it is stored in, a
# factory's return value, an argument of a call (`Layer(attn_fn=cudnn_attention)`).
_HOLDERS = frozenset({ast.Dict, ast.List, ast.Tuple, ast.Set, ast.Assign, ast.AnnAssign, ast.Return})
# ...except the callees that call it with the arguments we see, or with fixed ones, so
# that its defaults run: JAX's transforms and control flow, tree and builtin mappers,
# and flax's `attention_fn=`.  (By the callee's last name: `jax.grad`, `nnx.grad`.)
FIXED_ARGUMENT_CALLERS = frozenset(
    {"grad", "value_and_grad", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "jacobian", "hessian",
     "jit", "pjit", "pmap", "vmap", "xmap", "shard_map", "checkpoint", "remat", "eval_shape", "make_jaxpr",
     "named_call", "custom_vjp", "custom_jvp", "defvjp", "defjvp", "scan", "fori_loop", "while_loop", "cond", "platform_dependent",
     "switch", "map", "associative_scan", "tree_map", "tree_map_with_path", "filter_jit", "filter_grad",
     "filter_value_and_grad", "filter_vmap", "filter_pmap", "filter_vjp", "filter_jvp", "filter_checkpoint",
     "filter_jacfwd", "filter_jacrev", "filter_hessian",
     "filter", "sorted", "min", "max", "reduce", "apply", "init", "partial"}
)


_REBOUND = ""  # (in the alias table: the names bound to more than one function)
_ANY_FUNCTION = "*"  # (in the call index: the module looks functions up by name, `globals()[name]`)

# Transforms whose result takes the arguments of the function they are given and passes
# them on (a `static_argnums` argument is still passed): `jax.jit(f)(x, dtype=...)`.
_PASS_THROUGH = frozenset(
    {"jit", "pjit", "checkpoint", "remat", "named_call", "filter_jit", "filter_checkpoint",
     "grad", "value_and_grad", "filter_grad", "filter_value_and_grad"}
)


def _passed_through(node: ast.expr) -> ast.expr | None:
    """`f` in `jax.jit(f, ...)`, `jax.jit(jax.grad(f))`: the function a pass-through
    transform wraps; None for anything else."""
    for _ in range(4):
        if not isinstance(node, ast.Call) or not node.args:
            return None
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if name not in _PASS_THROUGH:
            return None
        node = node.args[0]
        if isinstance(node, (ast.Name, ast.Attribute)):
            return node
    return None


_MAPPERS = frozenset({"map", "tree_map"})
_HANDED = (ast.Name, ast.Attribute, ast.Call)  # the expressions that may be a function handed on


def _is_mapper(func: ast.expr) -> bool:
    """`jax.tree_util.tree_map`, `jax.tree.map`, builtin `map`: they call their function
    with one item of each of the other arguments."""
    if isinstance(func, ast.Name):
        return func.id in ("map", "tree_map")
    return isinstance(func, ast.Attribute) and (func.attr == "tree_map" or (func.attr == "map" and isinstance(func.value, ast.Attribute) and func.value.attr == "tree"))


def _handed_on(node: ast.AST) -> list[ast.expr]:
    """The expressions a display, an assignment or a return stores or passes on."""
    if isinstance(node, ast.Dict):
        return node.values
    if isinstance(node, (ast.List, ast.Tuple)):
        return node.elts if isinstance(node.ctx, ast.Load) else []
    if isinstance(node, ast.Set):
        return node.elts
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.Return)):
        return [node.value] if node.value is not None else []
    return []


# A call through a handed-on function: it may pass any argument (one object for all).
CALLED_LATER = ast.Call(
    func=ast.Name(id="_handed_on", ctx=ast.Load()),
    args=[],
    keywords=[ast.keyword(arg=None, value=ast.Name(id="_later_arguments", ctx=ast.Load()))],
)


def partial_call(node: ast.Call) -> ast.Call | None:
    """`partial(f, a, k=v)` (or `functools.partial`) read as a call `f(a, k=v, **more)`:
    what it binds every call through it passes, and a later call through it may pass
    anything else (`fn = partial(train, lr=lr); fn(seq_len=256)`), so no default of `f`
    is certainly what runs through it.  Only with `f` a plain name or attribute."""
    func = node.func
    named = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "functools" else None
    if named != "partial" or not node.args:
        return None
    target = _passed_through(node.args[0]) or node.args[0]  # `partial(jax.jit(f), dtype=...)`: f
    if not isinstance(target, (ast.Name, ast.Attribute)):
        return None
    more = ast.keyword(arg=None, value=ast.Name(id="_later_arguments", ctx=ast.Load()))
    bound = ast.Call(func=target, args=node.args[1:], keywords=[*node.keywords, more])
    return ast.copy_location(bound, node)


def constructor_name(value: ast.expr | None) -> str | None:
    """`Attn` for `Attn(...)` or `layers.Attn(...)`: a call of a CapWords name."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    return name if name is not None and name[:1].isupper() and not name.isupper() else None


_APPLY_KEYWORDS = frozenset({"mutable", "rngs", "capture_intermediates"})  # flax apply/init's own keywords
LITERAL = "<literal>"  # (constructed(): a name that only ever holds a builtin literal or str/dict/... value)
_BUILTIN_TYPES = frozenset({"str", "bytes", "dict", "list", "set", "tuple", "int", "float", "bool"})
DISPLAYS = (ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp)


def _made_by(value: ast.expr | None) -> str | None:
    """What an assigned value certainly is: a CapWords constructor's name, LITERAL."""
    if isinstance(value, DISPLAYS):
        return LITERAL
    return constructor_name(value)


def _binding_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The statements of a module (nested scopes included) and the parameters of its
    defs: what binds names, without walking expressions (a whole-module ast.walk made
    maxtext's attention_op.py take 121 ms instead of 109).  A walrus or a comprehension variable is not
    seen: a call through one named like a constructed receiver elsewhere in the module
    is then taken for that class's (a rare name clash, noted in DESIGN-NOTES)."""
    for stmt in every_statement(body):
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = stmt.args
            yield from (*a.posonlyargs, *a.args, *a.kwonlyargs)
            yield from (extra for extra in (a.vararg, a.kwarg) if extra is not None)
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            for handler in getattr(stmt, "handlers", ()):
                if handler.name:
                    yield ast.Global(names=[handler.name])  # (bound to the exception: not an instance)


def _bound_names_of(node: ast.AST) -> list[str]:
    """Names a loop, with, comprehension, definition, import, global or parameter binds."""
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        return [n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node.target) if isinstance(n, (ast.Name, ast.Attribute))]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [n.id if isinstance(n, ast.Name) else n.attr for item in node.items if item.optional_vars is not None for n in ast.walk(item.optional_vars) if isinstance(n, (ast.Name, ast.Attribute))]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    if isinstance(node, ast.arg):
        return [node.arg]
    return []


_MAY_WRITE_GLOBALS = (ast.Assign, ast.AugAssign, ast.Expr)  # (the statements _writes_globals reads)
_WORD = re.compile(r"[A-Za-z_]\w*")
_GLOBAL_STATEMENT = re.compile(r"^[ \t]*global[ \t]+([\w \t,]+)$", re.MULTILINE)
# statements whose own expressions run code (a call) where they stand
_CALLING_STATEMENTS = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, ast.Return)


def _own_expressions(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The expression nodes of a statement itself (not of its nested blocks, not inside
    a lambda)."""
    todo: list[ast.AST] = [value for field in ("value", "iter", "test", "targets", "target") if isinstance(value := getattr(stmt, field, None), ast.AST)]
    todo += [item.context_expr for item in getattr(stmt, "items", ())]
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))
_FUNCTION_REWRITES = frozenset({"__defaults__", "__kwdefaults__", "__code__"})


_IN_PLACE_METHODS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "append", "extend", "insert", "remove", "__setitem__"})


# The parameters library layers hold as attributes (layers.parameter).
PARAMETER_NAMES = frozenset({"kernel", "bias", "embedding", "weight"})
_PARAMETER_STORE = re.compile(r"(?:\.|\[[\"'])(?:kernel|bias|embedding|weight)\b[\w.\[\]\"']*\s*[-+*/]?=(?!=)|nnx\.update\(|setattr__?\([^,]+,\s*[\"'](?:kernel|bias|embedding|weight)[\"']")


def _fresh_dict_at_top(tree: ast.Module | None, name: str) -> bool:
    """Is `name` bound once at the module's top level, to a dict display or `dict()`?"""
    found = [stmt for stmt in tree.body if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and name in _assigned_names(stmt)] if tree is not None else []
    return len(found) == 1 and not isinstance(found[0], ast.AugAssign) and _makes_a_dict(found[0].value)


def _empty_dict_at_top(tree: ast.Module | None, name: str) -> bool:
    """Is `name` bound at the module's top level to `{}` or `dict()`?"""
    return any(isinstance(stmt, (ast.Assign, ast.AnnAssign)) and name in _assigned_names(stmt) and (isinstance(stmt.value, ast.Dict) and not stmt.value.keys or isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "dict" and not stmt.value.args and not stmt.value.keywords) for stmt in (tree.body if tree is not None else []))


def _makes_a_dict(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Dict) or isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" and not value.args


def _item_store(text: str, name: str) -> bool:
    """Does a def's text store into `name` under a key (`NAME[key] = value`)?"""
    return re.search(rf"\b{re.escape(name)}\s*\[[^\n]*\]\s*=(?!=)", text) is not None


def _changes_otherwise(text: str, name: str) -> bool:
    """Does a def's text change `name` in place other than by an item store?"""
    return re.search(rf"\b{re.escape(name)}\s*(?:\.\s*(?:update|pop|popitem|setdefault|clear|__setitem__|__delitem__)\b|\[[^\n]*\]\s*[-+*/|&]=|\[\s*[\"'0-9][^\]\n]*\]\s*=(?!=))|\bdel\s+{re.escape(name)}\b", text) is not None


def _assigned_names(stmt: ast.Assign | ast.AnnAssign | ast.AugAssign) -> set[str]:
    names: set[str] = set()
    for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
        _target_names(target, names)
    return names


def _changed_in_place(stmt: ast.stmt) -> str | None:
    """The name a statement changes in place: `NAME[k] = v`, `NAME[k] += v`, `del NAME[k]`,
    `NAME.update(...)` (and the other mutating dict and list methods)."""
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Delete)):
        targets = stmt.targets if isinstance(stmt, (ast.Assign, ast.Delete)) else [stmt.target]
        for target in targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                return target.value.id
        return None
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _IN_PLACE_METHODS and isinstance(call.func.value, ast.Name):
        return call.func.value.id
    return None


def _rewritten_function(target: ast.expr) -> str | None:
    """`f` in `f.__defaults__ = ...` or `f.__kwdefaults__["T"] = ...`: a function whose
    defaults (or code) a store replaces."""
    if isinstance(target, ast.Subscript):
        target = target.value
    if isinstance(target, ast.Attribute) and target.attr in _FUNCTION_REWRITES and isinstance(target.value, ast.Name):
        return target.value.id
    return None



def _namespace_call(node: ast.expr, top_level: bool) -> bool:
    """`globals()`, or at a module's top level `vars()` / `locals()` (the same dict)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args and not node.keywords):
        return False
    return node.func.id == "globals" or (top_level and node.func.id in ("vars", "locals"))


def _bound_by_expressions(tree: ast.AST, wanted: set[str]) -> set[str]:
    """Which of `wanted` an assignment expression (`(T := 128)`, in a comprehension too) or
    a `match` capture binds anywhere in the tree: the binders statements do not show."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.NamedExpr) and node.target.id in wanted:
            found.add(node.target.id)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name in wanted:
            found.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest in wanted:
            found.add(node.rest)
    return found


def _this_module(node: ast.expr) -> bool:
    """`sys.modules[__name__]`, or `__main__` (a script's own module)."""
    if isinstance(node, ast.Name):
        return node.id == "__main__"
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id == "__name__" and isinstance(node.value, ast.Attribute) and node.value.attr == "modules"


def _writes_globals(stmt: ast.stmt, top_level: bool) -> set[str] | None:
    """The module globals a statement writes by name at run time: those a constant
    names (`globals()["SEQ"] = 512`, `globals().update(SEQ=512)`), or None for any
    (`exec(code)`, or with `globals()` as its namespace; a computed key).  A function whose
    defaults or code a statement replaces counts as written."""
    if isinstance(stmt, (ast.Assign, ast.AugAssign)):
        names: set[str] = set()
        for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
            if isinstance(target, ast.Subscript) and _namespace_call(target.value, top_level):
                key = target.slice
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                    return None
                names.add(key.value)
            elif (rewritten := _rewritten_function(target)) is not None:
                names.add(rewritten)  # `seq_len.__defaults__ = (512,)`: the function is not its def any more
            elif isinstance(target, ast.Attribute) and _this_module(target.value):
                names.add(target.attr)  # `sys.modules[__name__].SEQ = 512`
        return names
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return set()
    call = stmt.value
    if isinstance(call.func, ast.Name) and call.func.id == "setattr" and len(call.args) >= 2 and _this_module(call.args[0]):
        name = call.args[1]
        return {name.value} if isinstance(name, ast.Constant) and isinstance(name.value, str) else None
    if isinstance(call.func, ast.Name) and call.func.id == "exec":
        if len(call.args) >= 2 and not _namespace_call(call.args[1], top_level):
            return set()
        code = call.args[0] if call.args else None
        return _names_bound_by_code(code.value) if isinstance(code, ast.Constant) and isinstance(code.value, str) else None
    if isinstance(call.func, ast.Attribute) and call.func.attr in DICT_WRITES and _namespace_call(call.func.value, top_level):
        if call.func.attr == "update" and not call.args and all(k.arg is not None for k in call.keywords):
            return {k.arg for k in call.keywords if k.arg is not None}
        if call.func.attr == "update" and len(call.args) == 1 and not call.keywords and isinstance(literal := call.args[0], ast.Dict):
            keys = [k.value if isinstance(k, ast.Constant) and isinstance(k.value, str) else None for k in literal.keys]
            return None if None in keys else {k for k in keys if k is not None}
        if call.func.attr != "update" and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
            return {call.args[0].value}
        return None
    return set()


def _names_bound_by_code(code: str) -> set[str] | None:
    """The globals that `exec` of a literal string binds: what its top level binds and
    what its functions declare `global` (None where it does not parse)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    names: set[str] = set()
    for stmt in tree.body:
        _bound_by(stmt, names)
    for stmt in every_statement(tree.body):
        if isinstance(stmt, ast.Global):
            names.update(stmt.names)
    return names


def _names_in(tree: ast.AST) -> frozenset[str]:
    """Every Name and attribute name under `tree`."""
    return frozenset(str(name) for name in _collect(tree, _NAME_FIELDS))


def _identifier_strings(tree: ast.AST) -> frozenset[str]:
    """Every string literal under `tree` that is an identifier."""
    return frozenset(value for value in _collect(tree, _CONSTANT_FIELDS) if isinstance(value, str) and value.isidentifier())


# what `_collect` reads of a node, by its type (a type in `_LEAVES` is not walked into)
_NAME_FIELDS: dict[type, str] = {ast.Name: "id", ast.Attribute: "attr"}
_CONSTANT_FIELDS: dict[type, str] = {ast.Constant: "value"}
_LEAVES = frozenset({ast.Name, ast.Constant})


def _collect(tree: ast.AST, read: dict[type, str]) -> set[object]:
    """The field `read` names of every node under `tree` of a type it lists.  By hand,
    not `ast.walk`: this walks whole importer modules, and ast.walk's generators cost
    three times as much."""
    found: set[object] = set()
    stack: list[ast.AST] = [tree]
    pop, push, extend, add = stack.pop, stack.append, stack.extend, found.add
    node_type, fields_of, leaves = ast.AST, _CHILD_FIELDS, _LEAVES
    while stack:
        node = pop()
        kind = type(node)
        field_read = read.get(kind)
        if field_read is not None:
            add(getattr(node, field_read))
            if kind in leaves:
                continue
        fields = fields_of.get(kind)
        for field in child_fields(kind) if fields is None else fields:
            child = getattr(node, field, None)
            if type(child) is list:
                extend(child)  # pyright: ignore[reportUnknownArgumentType]
            elif isinstance(child, node_type):
                push(child)
    return found


# The fields of a node type that may hold the nodes a hand walk visits: not the
# expression contexts and operators (a Load or an Add node under every name and
# operation), nor the lists of strings (`global a, b`, a class pattern's keyword
# names) or an import's aliases.  A list field is walked whole: the None among a
# dict display's keys (`{**extra}`) is popped and has no fields.
_NOT_CHILDREN = frozenset({"ctx", "op", "ops", "names", "kwd_attrs", "type_ignores"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(kind: type) -> tuple[str, ...]:
    """The fields of nodes of type `kind` (None's: none) that a hand walk follows."""
    fields = _CHILD_FIELDS[kind] = tuple(field for field in getattr(kind, "_fields", ()) if field not in _NOT_CHILDREN)
    return fields


def differentiating_functions(facts: ScopeFacts, functions: dict[str, FunctionNode], seeds: frozenset[str] = DIFFERENTIATION_NAMES) -> set[str]:
    """The functions (by name) that name one of `seeds` (a differentiation transform;
    for a driver, the training code it imports), and those that call them,
    transitively: the entry points of a module that trains a model."""
    chosen = {name for name, node in functions.items() if facts.names_used(node) & seeds}
    return closure_by_mentions(chosen, [(frozenset({name}), facts.names_used(node)) for name, node in functions.items()])


def closure_by_mentions(found: set[str], groups: Sequence[tuple[frozenset[str], frozenset[str]]]) -> set[str]:
    """`found` grown by each group of names (a definition, an assignment's targets) whose
    code mentions a name already in it, until nothing changes: what may run, or be run
    by, what `found` starts with."""
    grew = True
    while grew:
        grew = False
        for names, mentioned in groups:
            if not names <= found and mentioned & found:
                found |= names
                grew = True
    return found


def _base_name(base: ast.expr) -> str | None:
    """`Base` / `models.Base` / `Base[T]` in a class's bases: the class's own name."""
    if isinstance(base, ast.Subscript):
        base = base.value
    if isinstance(base, ast.Name):
        return base.id
    if isinstance(base, ast.Attribute):
        return base.attr
    return None


# `class Name(Base, mixins.Other[T]):` at the start of a definition's text (decorators aside)
_CLASS_HEADER = re.compile(r"^\s*class\s+(\w+)\s*(?:\(([^)]*)\))?\s*:", re.MULTILINE)  # (its name is checked: a def's nested class matches too)


def _stores_and_calls(top: ast.stmt) -> Iterator[ast.AST]:
    """The assignments under a top-level statement, and the calls that are statements
    of their own (`setattr(...)`, `cfg.__dict__.update(...)`): statements only, no
    expression is walked (a walk of every node of every analysed file took 1.3 s of
    the corpus's 24 under cProfile, -j1)."""
    for stmt in every_statement([top]):
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            yield stmt
        elif isinstance(stmt, ast.Delete):
            yield ast.Assign(targets=stmt.targets, value=ast.Constant(None))  # `del Child.T` changes what Child.T reads
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            yield stmt.value


def _class_named_by(node: ast.expr, enclosing: str | None) -> str | None | bool:
    """The class a store's receiver names: `Knob` or `cfg.Knob`; in a method of Knob,
    `cls`, `type(self)` and `self.__class__` (None for these elsewhere: some class);
    False for a receiver that is no class."""
    if isinstance(node, ast.Name):
        if node.id == "cls":
            return enclosing
        return node.id if node.id[:1].isupper() and not node.id.isupper() else False
    if isinstance(node, ast.Attribute):
        if node.attr == "__class__":
            return enclosing if _is_self(node.value) else None
        return node.attr if node.attr[:1].isupper() and not node.attr.isupper() else False
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type" and len(node.args) == 1:
        return enclosing if isinstance(node.args[0], ast.Name) and node.args[0].id in ("self", "cls") else None
    return False


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def dict_of(node: ast.expr) -> ast.expr | None:
    """`obj` of `obj.__dict__` or `vars(obj)`: a view of its attributes."""
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars" and len(node.args) == 1:
        return node.args[0]
    return None


DICT_WRITES = frozenset({"update", "setdefault", "__setitem__"})  # calls that write through `obj.__dict__`


def _dynamic_store(node: ast.Call) -> ast.expr | None:
    """`obj` of a call that stores attributes it does not spell: `setattr(obj, k, v)`
    with a name not a literal, `obj.__dict__.update(...)`, `vars(obj).update(...)`."""
    func = node.func
    if isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) >= 2 and not (isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
        return node.args[0]
    if isinstance(func, ast.Attribute) and func.attr in DICT_WRITES:
        return dict_of(func.value)
    return None


def _setattr_on_self(node: ast.expr) -> str | None:
    """NAME of a `setattr(self, "NAME", v)` call, else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" and len(node.args) == 3):
        return None
    obj, name = node.args[0], node.args[1]
    if isinstance(obj, ast.Name) and obj.id == "self" and isinstance(name, ast.Constant) and isinstance(name.value, str):
        return name.value
    return None


# the config flags a precision or x64 context sets (`jax.config.update(flag, v)` too)
CONTEXT_FLAGS = frozenset({"jax_default_matmul_precision", "jax_enable_x64"})
MADE_BY_PARTIAL = "_jcd_made_by_partial"  # an attribute set on the calls a `partial(f, ...)` stands for


def made_by_partial(call: ast.Call) -> bool:
    """Is the call one a `partial(f, ...)` stands for: its arguments are bound at that
    line, but f runs wherever the partial is called (a context around the line is not
    around the call: probe 43a)."""
    return bool(getattr(call, MADE_BY_PARTIAL, False))


def _is_config_update(call: ast.Call) -> bool:
    """`jax.config.update(...)` / `config.update(...)`, by its syntax."""
    owner = call.func.value if isinstance(call.func, ast.Attribute) and call.func.attr == "update" else None
    return isinstance(owner, ast.Name) and owner.id == "config" or isinstance(owner, ast.Attribute) and owner.attr == "config"


def in_prelude(tree: ast.Module, stmt: ast.stmt) -> bool:
    """Is `stmt` a top-level statement that only imports, definitions, constants and
    other settings precede: nothing before it runs the program (a script's `sys.argv =
    [...]` before any parse, a `JAX_PLATFORMS` setting before JAX starts: probe 48a)."""
    loggers: set[str] = set()  # names bound to a logger in the prelude (`log = logging.getLogger(...)`)
    for earlier in tree.body:
        if earlier is stmt:
            return True
        if isinstance(earlier, (ast.Import, ast.ImportFrom)):
            for alias in earlier.names:  # `from absl import logging as alog`: a logger module
                source = f"{earlier.module}.{alias.name}" if isinstance(earlier, ast.ImportFrom) and earlier.module else alias.name
                if source in ("logging", "absl.logging") and alias.asname:
                    loggers.add(alias.asname)
                elif source == "absl.logging":
                    loggers.add("logging")
            continue
        if isinstance(earlier, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(earlier, ast.Expr) and isinstance(earlier.value, ast.Constant):
            continue  # a docstring
        if config_update(earlier) is not None or _harmless_call(earlier, loggers) or _guarded_import(earlier):
            continue
        if isinstance(earlier, ast.Assign) and len(earlier.targets) == 1 and isinstance(target := earlier.targets[0], ast.Name) and _harmless_call(ast.Expr(earlier.value), loggers):
            loggers.add(target.id)  # (`logger = logging.getLogger(__name__)`)
            continue
        if isinstance(earlier, (ast.Assign, ast.AnnAssign)) and not any(isinstance(node, (ast.Call, ast.Lambda, ast.NamedExpr)) for node in ast.walk(earlier)):
            continue  # a constant
        return False
    return False


# Top-level calls that set up a script without running any of it: logging, warnings,
# the import path (probe 49a: `logging.basicConfig(...)` before `JAX_PLATFORMS`), other
# environment variables, seeds and NumPy's printing (58a: `np.random.seed(0)`).
_HARMLESS_CALLS = (
    "logging.", "absl.logging.", "warnings.", "sys.path.", "print", "os.environ.setdefault", "os.environ.update", "os.putenv",
    "random.seed", "np.random.seed", "numpy.random.seed", "np.set_printoptions", "numpy.set_printoptions", "matplotlib.use",
)
# calls a harmless call's arguments may make: none of them starts JAX
_HARMLESS_ARGUMENT_CALLS = ("logging.", "absl.logging.", "FLAGS.", "flags.FLAGS.", "os.path.", "os.getenv", "os.environ.get", "str", "repr", "len", "int", "float", "sorted")


def _harmless_call(stmt: ast.stmt, loggers: set[str] | frozenset[str] = frozenset()) -> bool:
    """A statement `logging.basicConfig(...)`, `warnings.filterwarnings(...)`,
    `sys.path.insert(...)`, `print(...)`, absl's `logging.set_verbosity(...)` or a call of
    a logger's method (`loggers`: `log.setLevel(...)`, `log.info(...)`; probe 52a) whose
    arguments call nothing but `logging.getLogger`."""
    if not (isinstance(stmt, ast.Expr) and isinstance(call := stmt.value, ast.Call)):
        return False
    name = dotted_name(call.func) or _logger_method(call.func) or ""
    if not (name in _HARMLESS_CALLS or name.startswith(tuple(p for p in _HARMLESS_CALLS if p.endswith("."))) or name.split(".")[0] in loggers):
        return False
    return not any(isinstance(node, (ast.Lambda, ast.NamedExpr)) or isinstance(node, ast.Call) and not _harmless_argument_call(node) for arg in (*call.args, *call.keywords) for node in ast.walk(arg))


def _guarded_import(stmt: ast.stmt) -> bool:
    """`try: import yaml` / `except ImportError: yaml = None`: imports whose failure binds
    constants; nothing of the program runs (probe 58a)."""
    if not isinstance(stmt, ast.Try) or stmt.orelse or stmt.finalbody or not stmt.handlers:
        return False
    blocks = [stmt.body, *(handler.body for handler in stmt.handlers)]
    return all(
        isinstance(inner, (ast.Import, ast.ImportFrom, ast.Pass))
        or _harmless_call(inner)  # (`matplotlib.use("Agg")`)
        # (`tqdm = lambda it, **kw: it`: a fallback defined, nothing run; probe 66c)
        or isinstance(inner, ast.Assign) and not any(isinstance(node, (ast.Call, ast.NamedExpr)) for node in ast.walk(inner))
        for block in blocks
        for inner in block
    )


def top_level_imports(stmt: ast.stmt) -> list[ast.Import | ast.ImportFrom]:
    """The imports a top-level statement runs: itself, or those of its `try` / `if` /
    `with` blocks (not those of the functions and classes it defines)."""
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return [stmt]
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    return [found for child in ast.iter_child_nodes(stmt) if isinstance(child, ast.stmt) for found in top_level_imports(child)] + [
        found for child in ast.iter_child_nodes(stmt) if isinstance(child, ast.ExceptHandler) for inner in child.body for found in top_level_imports(inner)
    ]


def _harmless_argument_call(call: ast.Call) -> bool:
    """`FLAGS.is_parsed()`, `os.getenv("X")`, `str(n)`: a call in a log line's arguments
    that starts nothing (probe 54a); a call of anything else may (`jax.devices()`)."""
    name = dotted_name(call.func) or ""
    return name in _HARMLESS_ARGUMENT_CALLS or name.startswith(tuple(p for p in _HARMLESS_ARGUMENT_CALLS if p.endswith(".")))


def _logger_method(func: ast.expr) -> str | None:
    """`logging.getLogger("absl").setLevel` as "logging.getLogger.setLevel"."""
    if isinstance(func, ast.Attribute) and isinstance(inner := func.value, ast.Call) and (dotted_name(inner.func) or "").startswith("logging."):
        return f"{dotted_name(inner.func)}.{func.attr}"
    return None


def config_update(stmt: ast.stmt) -> tuple[str, ast.expr] | None:
    """(flag, value) of a statement `jax.config.update("flag", value)`, else None."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(call, ast.Call) and _is_config_update(call) and len(call.args) == 2 and isinstance(flag := call.args[0], ast.Constant) and isinstance(flag.value, str):
        return flag.value, call.args[1]
    return None


def set_and_restored(block: list[ast.stmt]) -> Iterator[tuple[ast.stmt, ast.Try]]:
    """Each `update(flag, v)` statement of a block followed at once by a `try` with a
    `finally`: the try's body runs with the setting (`update(flag, v); try: ... finally:
    update(flag, back)`, the set-and-restore idiom of tests and helpers)."""
    for before, after in zip(block, block[1:]):
        if isinstance(after, ast.Try) and after.body and after.finalbody and config_update(before) is not None:
            yield before, after


def dotted_name(node: ast.expr) -> str | None:
    """`pkg.mod` for a chain of names, else None.  A loop, not recursion: a chain can be
    thousands of attributes deep."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _import_source(stmt: ast.stmt, name: str) -> tuple[str, ...] | None:
    """What an absolute import statement binds to `name` (`import flax.linen as nn`:
    ("flax.linen",); `from jax import numpy as jnp`: ("jax", "numpy")), else None."""
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            if (alias.asname or alias.name.split(".")[0]) == name:
                return (alias.name if alias.asname else alias.name.split(".")[0],)
    elif isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module is not None:
        for alias in stmt.names:
            if (alias.asname or alias.name) == name:
                return (stmt.module, alias.name)
    return None


def imported_name(facts: ScopeFacts, dotted: str) -> str | None:
    """`nn.dot_product_attention` after `from jax import nn` -> "jax.nn.dot_product_attention":
    the full name a dotted local name stands for through the module's absolute imports."""
    first, _, rest = dotted.partition(".")
    for stmt in facts.imports():
        for alias in stmt.names:
            if isinstance(stmt, ast.Import):
                local = alias.asname or alias.name.split(".")[0]
                full = alias.name if alias.asname else local
            elif stmt.level == 0 and stmt.module:
                local, full = alias.asname or alias.name, f"{stmt.module}.{alias.name}"
            else:
                continue
            if local == first:
                return f"{full}.{rest}" if rest else full
    return None
