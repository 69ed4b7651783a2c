"""equinox filter specs: which parts of a model a gradient reaches.

equinox's documented way to freeze part of a model builds a pytree of bools shaped as
the model, sets some subtrees to True (or False) with `eqx.tree_at`, and partitions the
model with it; the part that is True is the one a `filter_grad` differentiates:

    spec = jax.tree.map(lambda _: False, model)
    spec = eqx.tree_at(lambda m: (m.head.weight, m.head.bias), spec, replace=(True, True))
    diff, static = eqx.partition(model, spec)

A spec is held as `FILTER_SPEC`: the value of every leaf by default, then the subtrees
set, in order, each by an attribute path (names, and indexes into lists).  Applied to the
module when its parts are put back together (transforms.recombine), it marks the subtrees
set to True as differentiated and leaves the others as they were.  Anything the spec or
the module does not say certainly (a path through something else than attributes and
list items, a part of a layer set to False while the rest of it is True) makes the spec
not followed: the caller keeps its answer for any other filter (the reach is unknown).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from jax_cudnn_lint.shape_inference import jax_api as A
from jax_cudnn_lint.shape_inference.scopes import dotted_name
from jax_cudnn_lint.shape_inference.values import ConstV, ExternalV, ExtObjectV, FunctionV, InstanceV, TupleV, Value

FILTER_SPEC = "jax_cudnn_lint.filter_spec"

Path = tuple[str | int, ...]


def constant_bool_function(func: Value) -> bool | None:
    """The bool a `lambda _: False` always returns, else None.  equinox's `is_array` and
    `is_inexact_array` count as True: mapped over a module they make a spec that puts
    all of its arrays in the part a gradient takes, as a True does."""
    if isinstance(func, ExternalV) and func.qualname in ("equinox.is_array", "equinox.is_inexact_array"):
        return True
    node = func.node if isinstance(func, FunctionV) else None
    if not isinstance(node, ast.Lambda):
        return None
    body = node.body
    if isinstance(body, ast.Call) and (dotted_name(body.func) or "").endswith(("tree.map", "tree_map")) and len(body.args) == 2 and not body.keywords:
        # `replace_fn=lambda blocks: jax.tree.map(lambda _: False, blocks)` (probe 63a)
        inner, tree = body.args
        if isinstance(inner, ast.Lambda) and isinstance(tree, ast.Name) and len(node.args.args) == 1 and tree.id == node.args.args[0].arg:
            body = inner.body
    if isinstance(body, ast.Constant) and isinstance(body.value, bool):
        return body.value
    return None


def uniform_spec(default: bool) -> ExtObjectV:
    """`jax.tree.map(lambda _: False, model)`: every leaf False."""
    return ExtObjectV(FILTER_SPEC, (), (("default", ConstV(default)),))


def from_literal(value: Value) -> ExtObjectV | None:
    """`[True, False]` for `[encoder, head]`: a list of bools (or of specs already
    uniform), one per model, as a spec (probe 66c); `Model(True, False)`, the module's
    own class built with a bool for each field (probe 69d); None for anything else."""
    if isinstance(value, InstanceV) and A.is_eqx_class(value.cls) and value.attrs:
        items = _fields_by_path(value, (), 0)  # (nested: `Model(Encoder(True), False)`, probe 70a)
        if items is None:
            return None
    elif isinstance(value, TupleV) and value.items:
        items = [(str(i), item) for i, item in enumerate(value.items)]
    else:
        return None
    settings: list[tuple[str, Value]] = []
    for key, item in items:
        flag = item.kwarg("default") if is_spec(item) and isinstance(item, ExtObjectV) and len(item.kwargs) == 1 else item
        if isinstance(item, ExternalV) and constant_bool_function(item):
            flag = ConstV(True)  # (`[eqx.is_array, False]`: all of the first model's arrays)
        if not (isinstance(flag, ConstV) and isinstance(flag.value, bool)):
            return None
        settings.append((key, flag))
    return ExtObjectV(FILTER_SPEC, (), (("default", ConstV(False)), *settings))


def _fields_by_path(inst: InstanceV, prefix: Path, depth: int) -> list[tuple[str, Value]] | None:
    """The fields of a module built as a spec, by path, a module built so within it
    field by field; None where one is neither a bool nor such a module."""
    found: list[tuple[str, Value]] = []
    for name, held in inst.attrs.items():
        path = (*prefix, name)
        if isinstance(held, InstanceV) and A.is_eqx_class(held.cls) and held.attrs and depth < 8:
            inner = _fields_by_path(held, path, depth + 1)
            if inner is None:
                return None
            found.extend(inner)
        else:
            found.append((_path_key(path), held))
    return found


def is_spec(value: Value | None) -> bool:
    return isinstance(value, ExtObjectV) and value.qualname == FILTER_SPEC


def set_subtrees(spec: ExtObjectV, where: Value | None, replace: Value | None, replace_fn: Value | None) -> Value | None:
    """`eqx.tree_at(where, spec, replace=...)` (or `replace_fn=lambda _: True`): the spec
    with those subtrees set; None where the paths or the values are not certain."""
    paths = where_paths(where)
    if paths is None:
        return None
    if replace_fn is not None:
        flag = constant_bool_function(replace_fn)
        flags = None if flag is None or replace is not None else [flag] * len(paths)
    elif isinstance(replace, ConstV) and isinstance(replace.value, bool) and len(paths) == 1 and not _returns_tuple(where):
        flags = [replace.value]
    elif is_spec(replace) and isinstance(replace, ExtObjectV) and len(replace.kwargs) == 1 and len(paths) == 1 and not _returns_tuple(where):
        # `replace=jax.tree.map(eqx.is_array, model.head)`: a uniform spec of the subtree (probe 62a)
        default = replace.kwarg("default")
        flags = [default.value] if isinstance(default, ConstV) and isinstance(default.value, bool) else None
    elif isinstance(replace, TupleV) and _returns_tuple(where) and (len(replace.items) == len(paths) or len(paths) == 1 and EACH in paths[0]):
        flags = [item.value for item in replace.items if isinstance(item, ConstV) and isinstance(item.value, bool)]
        if len(paths) == 1 and EACH in paths[0]:
            # one bool per item of the list (`tuple(True for _ in model.blocks)`): all alike
            flags = flags[:1] if flags and len(flags) == len(replace.items) and len(set(flags)) == 1 else None
        else:
            flags = flags if len(flags) == len(paths) else None
    else:
        flags = None
    if flags is None:
        return None
    earlier = [_key_path(key) for key, _ in spec.kwargs[1:]]
    if any(len(before) < len(path) and path[: len(before)] == before for path in paths for before in earlier):
        return None  # (a path into a subtree already set to a bool: the call raises)
    added = tuple((_path_key(path), ConstV(flag)) for path, flag in zip(paths, flags, strict=True))
    return ExtObjectV(FILTER_SPEC, (), spec.kwargs + added)


def where_paths(where: Value | None) -> list[Path] | None:
    """`lambda m: m.head` -> [("head",)]; `lambda m: (m.head.weight, m.blocks[-1])` ->
    [("head", "weight"), ("blocks", -1)]."""
    node = where.node if isinstance(where, FunctionV) else None
    if not isinstance(node, ast.Lambda) or len(node.args.args) != 1 or node.args.vararg or node.args.kwonlyargs:
        return None
    param = node.args.args[0].arg
    each = _each_item_path(node.body, param)
    if each is not None:
        return [each]
    bodies = node.body.elts if isinstance(node.body, (ast.Tuple, ast.List)) else [node.body]
    paths = [_path(body, param) for body in bodies]
    return [path for path in paths if path is not None] if paths and all(path is not None for path in paths) else None


EACH = "*"  # a path step: every item of a list


def _each_item_path(body: ast.expr, param: str) -> Path | None:
    """`[b.attn for b in m.blocks]`, `tuple(b.attn for b in m.blocks)`: the path of the
    list, EACH, then the path inside each item (probe 63a)."""
    if isinstance(body, ast.Call) and isinstance(body.func, ast.Name) and body.func.id in ("tuple", "list") and len(body.args) == 1 and not body.keywords:
        body = body.args[0]
    if not isinstance(body, (ast.ListComp, ast.GeneratorExp)) or len(body.generators) != 1:
        return None
    loop = body.generators[0]
    if loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name):
        return None
    items = _path(loop.iter, param)
    inside = () if isinstance(body.elt, ast.Name) and body.elt.id == loop.target.id else _path(body.elt, loop.target.id)
    return None if items is None or inside is None else (*items, EACH, *inside)


def _returns_tuple(where: Value | None) -> bool:
    """Does `where` give several nodes (a tuple, a list, a comprehension), whose
    replacements must then be a sequence or `replace_fn`?"""
    if not (isinstance(where, FunctionV) and isinstance(node := where.node, ast.Lambda)):
        return False
    body = node.body.args[0] if isinstance(node.body, ast.Call) and len(node.body.args) == 1 else node.body
    return isinstance(body, (ast.Tuple, ast.List, ast.ListComp, ast.GeneratorExp))


def _path(expr: ast.expr, param: str) -> Path | None:
    steps: list[str | int] = []
    while True:
        if isinstance(expr, ast.Attribute):
            steps.insert(0, expr.attr)
            expr = expr.value
        elif isinstance(expr, ast.Subscript) and isinstance(index := _int_literal(expr.slice), int):
            steps.insert(0, index)
            expr = expr.value
        else:
            break
    return tuple(steps) if steps and isinstance(expr, ast.Name) and expr.id == param else None


def _int_literal(expr: ast.expr) -> int | None:
    if isinstance(expr, ast.Constant) and type(expr.value) is int:
        return expr.value
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub) and isinstance(expr.operand, ast.Constant) and type(expr.operand.value) is int:
        return -expr.operand.value
    return None


def _path_key(path: Path) -> str:
    return "/".join(str(step) for step in path)


def _key_path(key: str) -> Path:
    return tuple(int(step) if step.lstrip("-").isdigit() else step for step in key.split("/"))


def apply(module: Value, spec: ExtObjectV, mark: Callable[[Value], Value]) -> Value | None:
    """The module whose subtrees the spec sets to True are differentiated (`mark` marks
    one), the rest as it was; None where a subtree set is not certainly found."""
    default = spec.kwarg("default")
    if not isinstance(default, ConstV) or not isinstance(default.value, bool):
        return None
    result: Value | None = mark(module) if default.value else module
    for key, flag in spec.kwargs[1:]:
        if not isinstance(flag, ConstV) or not isinstance(flag.value, bool):
            return None
        paths = _expanded(module, _key_path(key))
        if paths is None:
            return None
        for path in paths:
            original = _at(module, path)
            if original is None or result is None:
                return None
            found, inside = original
            if inside and not flag.value:
                continue  # (a part of a layer frozen, the rest of it may be trained: the layer stays as marked)
            result = _replaced(result, path[: len(path) - inside], mark(found) if flag.value else found)
    return result


def _expanded(module: Value, path: Path) -> list[Path] | None:
    """The paths an EACH step stands for, one per item of the list it reaches (a list
    the analysis holds item by item); None where it is not such a list."""
    if EACH not in path:
        return [path]
    cut = path.index(EACH)
    found = _at(module, path[:cut])
    if found is None or found[1] or not isinstance(items := found[0], TupleV):
        return None
    out: list[Path] = []
    for i in range(len(items.items)):
        more = _expanded(module, (*path[:cut], i, *path[cut + 1:]))
        if more is None:
            return None
        out.extend(more)
    return out


def _at(value: Value, path: Path) -> tuple[Value, int] | None:
    """(the subtree at `path`, or the object the path goes into if it goes inside one the
    analysis holds as a whole (a library layer): with how many steps were left)."""
    for done, step in enumerate(path):
        if isinstance(step, str) and isinstance(value, InstanceV) and step in value.attrs:
            value = value.attrs[step]
        elif isinstance(step, int) and isinstance(value, TupleV) and -len(value.items) <= step < len(value.items):
            value = value.items[step]
        elif isinstance(step, str) and isinstance(value, ExtObjectV) and done > 0:
            return value, len(path) - done  # (`m.head.weight` of an eqx.nn.Linear)
        else:
            return None
    return value, 0


def _replaced(value: Value, path: Path, new: Value) -> Value | None:
    """`value` with the subtree at `path` replaced.  A container marked differentiated as
    a whole is opened on the way (its fields marked one by one, as a read of them would
    be), so that a subtree put back unmarked stays so."""
    if not path:
        return new
    step, rest = path[0], path[1:]
    if isinstance(step, str) and isinstance(value, InstanceV) and step in value.attrs:
        attrs = {name: held if not value.diff or A.is_static_field(value.cls, name) else held.tainted(True) for name, held in value.attrs.items()}
        inner = _replaced(attrs[step], rest, new)
        return None if inner is None else InstanceV(value.cls, {**attrs, step: inner}, False, value.why, value.ready)
    if isinstance(step, int) and isinstance(value, TupleV) and -len(value.items) <= step < len(value.items):
        items = list(value.items)
        inner = _replaced(items[step], rest, new)
        if inner is None:
            return None
        items[step] = inner
        return TupleV(tuple(items), value.is_list, value.why, False)
    return None
