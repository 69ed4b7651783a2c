"""What pydantic does to a config class's values, read from the class's source.

A model's field holds what the call passes or its default only where nothing of the
library changes it (jax_api._construct):

* a value given to the constructor goes through the field's validators
  (`@field_validator`, `Annotated[int, AfterValidator(f)]`, a type alias of one) and
  the model's (`@model_validator`, `model_post_init`): any of them makes it Unknown;
* a default is validated only where asked (`validate_default=True` in the config or on
  the field, pydantic 1's `validate_all` or a validator's `always=True`), or by a model
  validator; pydantic-settings asks by default (probe 139b: a rounding field validator
  left `TrainConfig()`'s 255; probe 140a: a config held in a constant, built by a
  helper or inherited still asks);
* an assignment goes through the validators where the config says
  `validate_assignment=True` (probe 140a).

A config not written in literals (or module constants) is not known, and is read as
asking for all of it.  A decorator the class uses that is not one of the harmless ones
(`property`, `computed_field`...) nor a field validator counts as a model validator
(`from pydantic import model_validator as after_check`: probe 140a).
"""

from __future__ import annotations

import ast

from jax_cudnn_lint.shape_inference.scopes import dotted_name
from jax_cudnn_lint.shape_inference.values import (
    UNKNOWN,
    ClassV,
    ExternalV,
    const_value,
    imported_qualname,
)

# decorators of a model's methods that change no field
_HARMLESS = frozenset({"property", "classmethod", "staticmethod", "computed_field", "cached_property", "field_serializer", "model_serializer", "abstractmethod", "setter", "getter"})
_FIELD_VALIDATORS = frozenset({"field_validator", "validator"})
_NOT_KNOWN = object()


def _resolved(node: ast.expr, cls: ClassV) -> str:
    """A decorator's or a call's last name as the module's imports give it (`after_check`
    imported as pydantic's model_validator reads "model_validator")."""
    target = node.func if isinstance(node, ast.Call) else node
    return (imported_qualname(target, cls.module.namespace) or dotted_name(target) or "").rpartition(".")[2]


_VALIDATORS: dict[int, tuple[ast.ClassDef, tuple[bool, bool, bool]]] = {}


def _validators(cls: ClassV) -> tuple[bool, bool, bool]:
    """(a field validator, one that asks for defaults (`always=True`), a model
    validator or anything we cannot tell from one) among the class chain's methods and
    field annotations; read once per class (an assignment asks each time)."""
    held = _VALIDATORS.get(id(cls.node))
    if held is not None and held[0] is cls.node:
        return held[1]
    if len(_VALIDATORS) > 4096:
        _VALIDATORS.clear()
    found = _read_validators(cls)
    _VALIDATORS[id(cls.node)] = (cls.node, found)
    return found


def _read_validators(cls: ClassV) -> tuple[bool, bool, bool]:
    field = always = model = False
    for current in _chain(cls):
        for stmt in current.node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if stmt.name in ("model_post_init", "__pydantic_init_subclass__", "__init_subclass__", "model_rebuild"):
                    model = True  # (a subclass hook may rewrite the fields' defaults: probe 141a)
                for decorator in stmt.decorator_list:
                    name = _resolved(decorator, current)
                    if name in _HARMLESS:
                        continue
                    if name in _FIELD_VALIDATORS:
                        field = True
                        always = always or isinstance(decorator, ast.Call) and any(k.arg == "always" and not (isinstance(k.value, ast.Constant) and k.value.value is False) for k in decorator.keywords)
                    else:
                        model = True
            elif isinstance(stmt, ast.AnnAssign) and _may_validate(stmt.annotation, current):
                field = True
    return field, always, model


def _may_validate(annotation: ast.expr, cls: ClassV) -> bool:
    """Can a field's annotation carry validators: `Annotated[...]` with one, or a name
    that is no class (a type alias: `EvenLen = Annotated[int, AfterValidator(f)]`)?"""
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and "alidator" in node.id or isinstance(node, ast.Attribute) and "alidator" in node.attr:
            return True
        if isinstance(node, ast.Name) and node.id not in _PLAIN_TYPES:
            bound = cls.module.namespace.get(node.id)
            if bound is not None and not isinstance(bound, (ClassV, ExternalV)):
                return True  # (a module-level alias of something else than a class)
            if isinstance(bound, ExternalV) and not bound.qualname.startswith(_PLAIN_MODULES):
                return True  # (a name imported from code we do not see may be such an alias: probe 141a)
    return False


_PLAIN_TYPES = frozenset({"int", "float", "str", "bool", "bytes", "None", "list", "dict", "tuple", "set", "Optional", "Union", "Any", "Literal"})
# modules whose names annotate without validators of the analysed code's
_PLAIN_MODULES = ("typing.", "typing_extensions.", "builtins.", "collections.", "enum.", "pathlib.", "datetime.", "numpy.", "jax.", "jaxtyping.", "pydantic.")


def _chain(cls: ClassV) -> list[ClassV]:
    """The class and its analysed bases, the farthest base first (as settings apply)."""
    out: list[ClassV] = []
    todo = [cls]
    while todo:
        current = todo.pop()
        if any(current is seen for seen in out):
            continue
        out.append(current)
        todo.extend(base for base in current.bases if isinstance(base, ClassV))
    return list(reversed(out))


def model_config(cls: ClassV) -> dict[str, object] | None:
    """The class's configuration, bases first: `model_config = ConfigDict(...)` (or
    SettingsConfigDict, a dict), class keywords (`class S(BaseSettings, env_prefix=...)`),
    pydantic 1's `class Config:`; None where any of it is not written in literals or
    module constants."""
    config: dict[str, object] = {}
    for current in _chain(cls):
        for decorator in current.node.decorator_list:
            # a pydantic dataclass's `@dataclass(config=ConfigDict(...))`
            given = next((k.value for k in decorator.keywords if k.arg == "config"), None) if isinstance(decorator, ast.Call) else None
            if given is not None:
                entries = _call_entries(given.keywords, current) if isinstance(given, ast.Call) and not given.args and _resolved(given, current) in ("ConfigDict", "dict") else None
                if entries is None:
                    return None
                config.update(entries)
        keywords = [k for k in current.node.keywords if k.arg != "metaclass"]
        entries = _call_entries(keywords, current)
        if entries is None:
            return None
        config.update(entries)
        for stmt in current.node.body:
            entries = _statement_entries(stmt, current)
            if entries is None:
                return None
            config.update(entries)
    if "validate_all" in config:
        config.setdefault("validate_default", config["validate_all"])
    if _config_changed_later(cls):
        return None
    return config


_CHANGES_NOTHING = frozenset({"frozen", "title", "extra", "str_strip_whitespace", "arbitrary_types_allowed", "protected_namespaces", "populate_by_name"})


def _config_changed_later(cls: ClassV) -> bool:
    """Does the module change the class's config after it (`Cfg.model_config["validate_default"]
    = True`, `Cfg.model_config.update(...)`, then `Cfg.model_rebuild()`: probe 141a)?  A
    key that changes no value (`frozen`) does not count."""
    tree = cls.module.tree
    held = _CHANGED_CONFIGS.get(id(tree))
    if held is None or held[0] is not tree:
        if len(_CHANGED_CONFIGS) > 1024:
            _CHANGED_CONFIGS.clear()
        held = _CHANGED_CONFIGS[id(tree)] = (tree, frozenset(_classes_changing_config(tree)))
    return cls.node.name in held[1]


_CHANGED_CONFIGS: dict[int, tuple[ast.Module, frozenset[str]]] = {}


def _classes_changing_config(tree: ast.Module) -> set[str]:
    """The class names whose `model_config` the module assigns, sets a key of (other
    than one that changes no value) or updates."""
    changed: set[str] = set()
    for node in ast.walk(tree):
        owner: ast.expr | None = None
        if isinstance(node, ast.Attribute) and node.attr == "model_config" and isinstance(node.ctx, ast.Store):
            owner = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and not (isinstance(node.slice, ast.Constant) and node.slice.value in _CHANGES_NOTHING):
            owner = node.value.value if isinstance(node.value, ast.Attribute) and node.value.attr == "model_config" else None
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("update", "setdefault", "__setitem__"):
            held = node.func.value
            owner = held.value if isinstance(held, ast.Attribute) and held.attr == "model_config" else None
        if isinstance(owner, ast.Name):
            changed.add(owner.id)
    return changed


def _call_entries(keywords: list[ast.keyword], cls: ClassV) -> dict[str, object] | None:
    out: dict[str, object] = {}
    for keyword in keywords:
        value = _literal(keyword.value, cls)
        if keyword.arg is None or value is _NOT_KNOWN:
            return None
        out[keyword.arg] = value
    return out


def _statement_entries(stmt: ast.stmt, cls: ClassV) -> dict[str, object] | None:
    """What a class body's statement configures ({} for nothing; None: not known)."""
    if isinstance(stmt, ast.ClassDef) and stmt.name == "Config":
        if stmt.bases or stmt.keywords:
            return None  # (`class Config(SharedConfig)`: what it inherits is not read)
        out: dict[str, object] = {}
        for item in stmt.body:
            if isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name) and (value := _literal(item.value, cls)) is not _NOT_KNOWN:
                out[item.targets[0].id] = value
            elif not (isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant) or isinstance(item, ast.Pass)):
                return None
        return out
    target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else stmt.target if isinstance(stmt, ast.AnnAssign) else None
    if not (isinstance(target, ast.Name) and target.id == "model_config"):
        return {}
    value = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
    if isinstance(value, ast.Call) and not value.args and _resolved(value, cls) in ("ConfigDict", "SettingsConfigDict", "dict"):
        return _call_entries(value.keywords, cls)
    if isinstance(value, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys):
        out = {}
        for key, item in zip(value.keys, value.values):
            literal = _literal(item, cls)
            if literal is _NOT_KNOWN or not isinstance(key, ast.Constant):
                return None
            out[str(key.value)] = literal
        return out
    return None


def _literal(expr: ast.expr, cls: ClassV) -> object:
    """A literal's value, or a module constant's (`env_prefix=PREFIX`); _NOT_KNOWN else."""
    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, ast.Name):
        ok, value = const_value(cls.module.namespace.get(expr.id) or UNKNOWN)
        if ok and isinstance(value, (str, bool, int)):
            return value
    return _NOT_KNOWN


def validated_model(cls: ClassV) -> bool:
    """May a validator change a value the constructor is given?"""
    field, _, model = _validators(cls)
    return field or model


def validates_defaults(cls: ClassV, settings: bool = False) -> bool:
    """May pydantic change a field left to its default (pydantic-settings validates
    defaults unless told not to)?"""
    field, always, model = _validators(cls)
    if model or field and always:
        return True
    if not field:
        return False
    config = model_config(cls)
    if config is None or _asks_on_a_field(cls, "validate_default"):
        return True
    return config.get("validate_default", settings) is not False


def validates_assignment(cls: ClassV) -> bool:
    """Does an assignment to a field go through the model's validators?"""
    field, _, model = _validators(cls)
    if not (field or model):
        return False
    config = model_config(cls)
    return config is None or config.get("validate_assignment") is not False and "validate_assignment" in config


def _asks_on_a_field(cls: ClassV, name: str) -> bool:
    """`Field(..., validate_default=True)` on some field of the chain."""
    return any(isinstance(node, ast.keyword) and node.arg == name and not (isinstance(node.value, ast.Constant) and node.value.value is False) for current in _chain(cls) for node in ast.walk(current.node))
