"""Per-scope facts of a module, computed in one walk of its tree.

The interpreter needs, for every function, the names local to it and whether it is
a generator; for every class, the attributes its methods assign on `self`; for the
module, the names some function rebinds with `global`.  Walking each function's
subtree separately made that quadratic in nesting depth; one walk is linear.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass
class ScopeFacts:
    locals_of: dict[int, set[str]] = field(default_factory=lambda: {})
    generators: set[int] = field(default_factory=lambda: set())
    self_attrs: dict[int, set[str]] = field(default_factory=lambda: {})
    declared_global: dict[int, set[str]] = field(default_factory=lambda: {})
    global_names: set[str] = field(default_factory=lambda: set())


def _params(args: ast.arguments) -> set[str]:
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    if args.vararg:
        names.add(args.vararg.arg)
    if args.kwarg:
        names.add(args.kwarg.arg)
    return names


def scope_facts(tree: ast.Module) -> ScopeFacts:
    facts = ScopeFacts()
    # (node, innermost function id or 0, innermost class id or 0)
    stack: list[tuple[ast.AST, int, int]] = [(tree, 0, 0)]
    while stack:
        node, func, cls = stack.pop()
        if isinstance(node, _FUNCTIONS):
            if func and not isinstance(node, ast.Lambda):
                facts.locals_of[func].add(node.name)
            own = id(node)
            facts.locals_of[own] = _params(node.args)
            outer: list[ast.AST] = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
            if not isinstance(node, ast.Lambda):
                outer.extend(node.decorator_list)
                for stmt in node.body:
                    stack.append((stmt, own, cls))
            else:
                stack.append((node.body, own, cls))
            for child in outer:
                stack.append((child, func, cls))
            continue
        if isinstance(node, ast.ClassDef):
            if func:
                facts.locals_of[func].add(node.name)
            facts.self_attrs.setdefault(id(node), set())
            for child in (*node.bases, *node.keywords, *node.decorator_list):
                stack.append((child, func, cls))
            for stmt in node.body:
                stack.append((stmt, func, id(node)))
            continue
        if func:
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                facts.locals_of[func].add(node.id)
            elif isinstance(node, ast.alias):
                facts.locals_of[func].add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.ExceptHandler) and node.name:
                facts.locals_of[func].add(node.name)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                facts.declared_global.setdefault(func, set()).update(node.names)
                if isinstance(node, ast.Global):
                    facts.global_names.update(node.names)
            elif isinstance(node, (ast.Yield, ast.YieldFrom)):
                facts.generators.add(func)
            elif (
                cls
                and isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
            ):
                facts.self_attrs[cls].add(node.attr)
        for child in ast.iter_child_nodes(node):
            stack.append((child, func, cls))
    for func, names in facts.declared_global.items():
        facts.locals_of[func] -= names
    return facts
