"""Project classes whose attributes are their items: the AttrDict / EasyDict / hand-written
ConfigDict of research code (`class Config(dict)` with `__getattr__ = dict.__getitem__`,
or a `__getattr__` returning `self[name]`, or `self.__dict__ = self` in `__init__`).

Their objects are mapping namespaces, as ml_collections' ConfigDict is
(jax_api.is_mapping_namespace): `cfg.text_len`, `cfg["text_len"]` and
`cfg.get("text_len", 64)` read one field, which `Config(text_len=77)`, `Config({...})`,
`cfg["text_len"] = n` and, where `__setattr__` writes the item (or `__dict__` is the
dict itself), `cfg.text_len = n` set (probe 100d: a hand-written ConfigDict left every
config of a repository Unknown).  A dict stored in one stays a dict: the class does not
convert it.  Recognised only in these plain forms: a class that reads or writes its
items its own way (`__getitem__`, `__setitem__`, `__getattribute__`, `__new__`) or
builds itself otherwise (any other `__init__`) is not one, and its objects stay what
they were (their fields Unknown).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from jax_cudnn_lint.shape_inference.values import UNKNOWN, ClassV, DictV, ExternalV, FunctionV, InstanceV, Value

if TYPE_CHECKING:
    from jax_cudnn_lint.shape_inference.interpreter import Frame, Interpreter

# what a class's item-reading / item-writing dunder may be bound to in its body
_ITEM_READERS = frozenset({"builtins.dict.__getitem__", "builtins.dict.get"})
_ITEM_WRITERS = frozenset({"builtins.dict.__setitem__"})
# dunders that change how items are read, written or made: not a plain attribute dict
_OWN_WAYS = ("__getitem__", "__setitem__", "__getattribute__", "__new__", "__delitem__")
# attributes Python finds on the dict before `__getattr__` is asked: never an item
DICT_ATTRIBUTES = frozenset(dir(dict))

UNREAD_FIELDS = "\0unread"  # (an attribute no code can spell: fields made from what was not read)
READS = "reads"  # `cfg.k` reads the item; `cfg.k = v` sets an instance attribute
READS_AND_WRITES = "reads and writes"  # both go to the item


def item_attributes(cls: ClassV) -> str | None:
    """READS_AND_WRITES, READS, or None (not an attribute dict), computed once per class."""
    if cls.item_attributes is None:
        cls.item_attributes = _recognised(cls) or ""
    return cls.item_attributes or None


def _recognised(cls: ClassV) -> str | None:
    if cls.external_bases() != {"builtins.dict"} or any(cls.lookup(name) is not None for name in _OWN_WAYS):
        return None
    init = cls.lookup("__init__")
    dict_is_self = False
    if init is not None:
        if not isinstance(init, FunctionV) or isinstance(init.node, ast.Lambda):
            return None
        dict_is_self = _plain_init(init.node)
        if dict_is_self is None:
            return None
    reads = dict_is_self or _reads_item(cls.lookup("__getattr__"))
    if not reads:
        return None
    writes = dict_is_self or _writes_item(cls.lookup("__setattr__"))
    if not writes and cls.lookup("__setattr__") is not None:
        return None  # (a `__setattr__` of its own kind: what an attribute store does is not known)
    return READS_AND_WRITES if writes else READS


def _body(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    """The statements of a def, without its docstring."""
    body = func.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        body = body[1:]
    return body


def _params(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    return [a.arg for a in (*func.args.posonlyargs, *func.args.args)]


def _plain_init(func: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> bool | None:
    """An `__init__` that only hands its arguments to dict's (`super().__init__(*args,
    **kwargs)`, `dict.__init__(self, ...)`), perhaps with `self.__dict__ = self`: whether
    it makes the dict its own `__dict__`; None for any other `__init__`."""
    if isinstance(func, ast.Lambda):
        return None
    params = _params(func)
    if not params:
        return None
    self_name = params[0]
    forwarded = {*params[1:], *(a.arg for a in func.args.kwonlyargs), *(a.arg for a in (func.args.vararg, func.args.kwarg) if a is not None)}
    dict_is_self = False
    handed = False
    for stmt in _body(func):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _is_self_attr(stmt.targets[0], self_name, "__dict__") and _is_name(stmt.value, self_name):
            dict_is_self = True
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and _dict_init_call(stmt.value, self_name, forwarded):
            handed = True
        else:
            return None
    return dict_is_self if handed else None


def _dict_init_call(call: ast.Call, self_name: str, forwarded: set[str]) -> bool:
    """`super().__init__(*args, **kwargs)`, `super(Cls, self).__init__(...)` or
    `dict.__init__(self, ...)`, with only the `__init__`'s own parameters as arguments."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "__init__"):
        return False
    args = list(call.args)
    if isinstance(func.value, ast.Name) and func.value.id == "dict":
        if not args or not _is_name(args[0], self_name):
            return False
        args = args[1:]
    elif not (isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name) and func.value.func.id == "super"):
        return False
    values = [a.value if isinstance(a, ast.Starred) else a for a in args] + [k.value for k in call.keywords]
    return all(isinstance(v, ast.Name) and v.id in forwarded for v in values)


def _reads_item(member: Value | None) -> bool:
    """`__getattr__ = dict.__getitem__`, or a def returning `self[name]` (perhaps in a
    `try` whose handlers raise)."""
    if isinstance(member, ExternalV):
        return member.qualname in _ITEM_READERS
    if not isinstance(member, FunctionV) or isinstance(member.node, ast.Lambda):
        return False
    params = _params(member.node)
    if len(params) != 2:
        return False
    body = _body(member.node)
    if len(body) == 1 and isinstance(body[0], ast.Try) and not body[0].orelse and not body[0].finalbody:
        if not all(handler.body and isinstance(handler.body[-1], ast.Raise) for handler in body[0].handlers):
            return False  # (a handler that returns a default answers for missing keys)
        body = body[0].body
    return len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None and _is_item(body[0].value, params[0], params[1])


def _writes_item(member: Value | None) -> bool:
    """`__setattr__ = dict.__setitem__`, or a def whose body is `self[name] = value`."""
    if isinstance(member, ExternalV):
        return member.qualname in _ITEM_WRITERS
    if not isinstance(member, FunctionV) or isinstance(member.node, ast.Lambda):
        return False
    params = _params(member.node)
    body = _body(member.node)
    if len(params) != 3 or len(body) != 1:
        return False
    stmt = body[0]
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _is_item(stmt.targets[0], params[0], params[1]) and _is_name(stmt.value, params[2])


def _is_item(node: ast.expr, self_name: str, key: str) -> bool:
    """`self[key]`."""
    return isinstance(node, ast.Subscript) and _is_name(node.value, self_name) and _is_name(node.slice, key)


def _is_self_attr(node: ast.expr, self_name: str, attr: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attr and _is_name(node.value, self_name)


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def is_attribute_dict(cls: ClassV) -> bool:
    return item_attributes(cls) is not None


def found_before_the_item(cls: ClassV, name: str) -> bool:
    """Does Python find `cfg.name` on the class (a dict method, a class attribute) before
    `__getattr__` reads the item?  (`cfg.keys` is the method, whatever the keys.)"""
    return is_attribute_dict(cls) and (name in DICT_ATTRIBUTES or cls.lookup(name) is not None)


def stores_attributes_apart(cls: ClassV) -> bool:
    """An attribute dict whose `cfg.k = v` sets an instance attribute, not the item: the
    attribute then shadows the item for `cfg.k` but not for `cfg["k"]`, so the field is
    not known either way."""
    return item_attributes(cls) == READS


def construct(interp: Interpreter, cls: ClassV, args: list[Value], kwargs: dict[str, Value], node: ast.AST, fr: Frame) -> InstanceV:
    """`Config(text_len=77)`, `Config({"text_len": 77})`, `Config(other)`: dict's
    constructor (the class's own `__init__`, where it has one, only hands its arguments
    on); fields from a dict of string keys, another such object and the keywords.  From
    anything else its fields are not known: a read of one is Unknown."""
    inst = InstanceV(cls, {}, False, (interp.step(fr, node, f"{cls.node.name}(...)"),))
    given = args[0] if len(args) == 1 else None
    if isinstance(given, DictV) and all(isinstance(key, str) for key, _ in given.items):
        inst.attrs.update((str(key), value) for key, value in given.items)
    elif isinstance(given, InstanceV) and given.cls.item_attributes:
        inst.attrs.update(given.attrs)
    elif args:
        # (its fields are not all known: `dict(cfg)` and `**cfg` must not pass only those
        # set later, as configdict.items reads them)
        inst.attrs[UNREAD_FIELDS] = UNKNOWN
        return inst
    inst.attrs.update(kwargs)
    return inst
